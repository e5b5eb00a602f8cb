"""tf.app: `tf.app.run` and tf.app.flags (flags.py, TF 1.15's command-line flags).

`tf.app.run(main)` parses argv, then calls main(argv) with the program name and the arguments no
flag took, and exits with its return value.
"""
import sys

from tinyflow.api import flags

__all__ = ["run", "flags"]


def run(main=None, argv=None):
    """Parses flags from argv (sys.argv by default), then sys.exit(main(remaining argv))."""
    args = flags.FLAGS(sys.argv if argv is None else argv, known_only=True)
    main = main or sys.modules["__main__"].main
    sys.exit(main(args))
