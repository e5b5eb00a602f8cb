"""tf.app: TF 1.15's `tf.app.run` (absl-py's app.run) and `tf.app.flags` (tf.flags, absl.flags).

`tf.app.run(main=None, argv=None)` parses the flags of argv (sys.argv by default) leaving the arguments
no flag takes to main, as TF does (absl alone fails on an unknown flag), answers absl's --help,
--helpfull and --flagfile, then calls main(argv) and exits with its return value.
"""
import sys as _sys

from absl.app import run as _run

from tinyflow.api import flags

__all__ = ["run", "flags"]


def _parse_flags_tolerate_undef(argv):
    """Parses argv's flags, returning the unknown ones with the other arguments (absl fails on them)."""
    return flags.FLAGS(_sys.argv if argv is None else argv, known_only=True)


def run(main=None, argv=None):
    """Runs the program with an optional 'main' function (__main__.main by default) and 'argv' list."""
    main = main or _sys.modules["__main__"].main
    _run(main=main, argv=argv, flags_parser=_parse_flags_tolerate_undef)
