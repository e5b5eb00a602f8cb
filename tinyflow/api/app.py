"""tf.app and tf.flags (tf.app.flags): TF 1.15's command-line flags and `tf.app.run`.

Flags are defined with DEFINE_string / DEFINE_integer / DEFINE_float / DEFINE_boolean / DEFINE_list /
DEFINE_enum and read as attributes of FLAGS. As in TF 1.x, the first read of a flag parses sys.argv
(unknown arguments are left alone); `tf.app.run(main)` parses argv, then calls main(argv) with the
program name and the arguments no flag took, and exits with its return value.
"""
import argparse
import sys

__all__ = ["run", "flags"]


class _FlagValues:
    """FLAGS: the defined flags' values, parsed from the command line on first use."""

    def __init__(self):
        object.__setattr__(self, "_defs", {})      # name -> (default, parse, help)
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_parsed", False)

    def _define(self, name, default, parse, help, kind):
        if name in self._defs:
            raise ValueError("Flag --%s is already defined" % name)
        self._defs[name] = (default, parse, help, kind)
        self._values[name] = default

    def __call__(self, argv, known_only=True):
        """Parses argv (argv[0] is the program); returns [argv[0]] + the arguments no flag took."""
        parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
        for name, (default, parse, help, kind) in self._defs.items():
            parser.add_argument("--" + name, default=None, help=help)
        # a boolean flag never takes the next argument: --fast is --fast=true, --nofast is --fast=false
        bools = {n for n, d in self._defs.items() if d[3] == "bool"}
        args = []
        for a in argv[1:]:
            bare = a.lstrip("-")
            if a.startswith("-") and bare in bools:
                a = "--%s=true" % bare
            elif a.startswith("-") and bare.startswith("no") and bare[2:] in bools:
                a = "--%s=false" % bare[2:]
            args.append(a)
        ns, rest = parser.parse_known_args(args)
        for name, (default, parse, help, kind) in self._defs.items():
            text = getattr(ns, name)
            if text is not None:
                try:
                    self._values[name] = parse(text)
                except ValueError as e:
                    raise ValueError("Illegal value %r for flag --%s: %s" % (text, name, e)) from None
        object.__setattr__(self, "_parsed", True)
        if rest and not known_only:
            raise ValueError("Unknown command line flag(s): %s" % " ".join(rest))
        return list(argv[:1]) + rest

    def is_parsed(self):
        return self._parsed

    def __getattr__(self, name):
        if name not in self._defs:
            raise AttributeError(name)
        if not self._parsed:
            self(sys.argv)
        return self._values[name]

    def __setattr__(self, name, value):
        if name not in self._defs:
            raise AttributeError("Unknown flag: %s" % name)
        self._values[name] = value

    def __contains__(self, name):
        return name in self._defs

    def flag_values_dict(self):
        return {name: getattr(self, name) for name in self._defs}


def _boolean(text):
    low = str(text).lower()
    if low in ("true", "t", "1", "yes"):
        return True
    if low in ("false", "f", "0", "no"):
        return False
    raise ValueError("Non-boolean argument to boolean flag")


def _make_flags():
    import types
    module = types.ModuleType("tinyflow.flags", "tf.flags / tf.app.flags: command-line flags.")

    def definer(parse, kind="value"):
        def define(name, default, help=None, *args, **kwargs):
            module.FLAGS._define(name, default, parse, help, kind)
        return define

    def define_enum(name, default, enum_values, help=None, **kwargs):
        def parse(text):
            if text not in enum_values:
                raise ValueError("value should be one of <%s>" % "|".join(enum_values))
            return text
        module.FLAGS._define(name, default, parse, help, "value")

    module.__dict__.update(
        FLAGS=_FlagValues(), DEFINE_string=definer(str), DEFINE_integer=definer(int), DEFINE_float=definer(float),
        DEFINE_boolean=definer(_boolean, "bool"), DEFINE_bool=definer(_boolean, "bool"),
        DEFINE_list=definer(lambda t: [s for s in t.split(",") if s]), DEFINE_enum=define_enum)
    sys.modules[module.__name__] = module
    return module


flags = _make_flags()


def run(main=None, argv=None):
    """Parses flags from argv (sys.argv by default), then sys.exit(main(remaining argv))."""
    args = flags.FLAGS(sys.argv if argv is None else argv, known_only=True)
    main = main or sys.modules["__main__"].main
    sys.exit(main(args))
