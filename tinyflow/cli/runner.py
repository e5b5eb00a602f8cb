"""`python -m tinyflow SCRIPT.py [args]`: run an unmodified TF1 script on tinyflow.

`import tensorflow as tf`, `import tensorflow.compat.v1 as tf`, `from tensorflow.keras.layers import
Dense`, ... resolve to tinyflow (api/tree.py declares every path); the script runs as `__main__` with its
own argv.
"""
import runpy
import sys

import tinyflow


def alias_tensorflow():
    """Make `tensorflow` name tinyflow: `import tensorflow as tf`, and through the tree's import hook
    (api/importer.py, api/tree.py) `import tensorflow.<any TF 1.15 path>`, `tensorflow.compat.v1.<path>`
    and the `tensorflow.python.*` internals scripts import."""
    sys.modules["tensorflow"] = tinyflow
    import importlib
    importlib.import_module("tensorflow.python")   # tf.python, as TF 1.15 has it


SETTINGS = [  # every TINYFLOW_* environment variable the package reads, with what it does
    ("TINYFLOW_FULL_TRACEBACK=1", "show the whole traceback of an uncaught error (runpy and tinyflow frames too)"),
    ("TINYFLOW_COMPILATION_CACHE=0", "no persistent compilation cache (also: off, false, no)"),
    ("TINYFLOW_CACHE_DIR", "the compilation cache's folder (default $XDG_CACHE_HOME/tinyflow/jax)"),
    ("TINYFLOW_CACHE_MIN_COMPILE_SECS", "cache only what took longer than this to compile (default 0)"),
    ("TINYFLOW_CACHE_MAX_BYTES", "the compilation cache's size bound; oldest entries go first (default 1 GiB)"),
    ("TINYFLOW_CACHE_SIZE", "compiled fetch sets a Session keeps (default 128)"),
    ("TINYFLOW_COMPILER_OPTIONS=0", "no per-fetch-set XLA options (initializers at level 1, conv backprop)"),
    ("TINYFLOW_TIERED", "0: no tiers; N: a fetch set's optimized program after N x its first compile (default 3)"),
    ("TINYFLOW_TF32=1", "on a GPU, float32 dots and convolutions in TF32 (default: full float32, as TF 1.15)"),
    ("TINYFLOW_SHAPE_CACHE_SIZE", "feed shapes whose programs a fetch set keeps compiled (default 8)"),
    ("TINYFLOW_SPECIALIZE=0", "no programs compiled for the fed values that decide shapes (dense_shape, counts)"),
    ("TINYFLOW_KEEP_FREED_MEMORY=0", "leave glibc's malloc thresholds as they are (steps' temporaries freed per call)"),
    ("TINYFLOW_DONATE", "auto, always or never: whether a step's input buffers are donated (default auto)"),
    ("TINYFLOW_SPLIT_STEPS", "a graph of more steps than this is compiled in parts (default 20000; 0: never)"),
    ("TINYFLOW_COORDINATOR", "HOST:PORT of a multi-process job (as --coordinator)"),
    ("TINYFLOW_NUM_PROCESSES", "the job's number of processes (as --num-processes)"),
    ("TINYFLOW_PROCESS_ID", "this process's index in the job (as --process-id)"),
    ("TINYFLOW_DISTRIBUTED_TIMEOUT", "seconds a process of the job waits for a dead one (default 30)"),
]

_USAGE = """usage: python -m tinyflow [--data-parallel] [--coordinator HOST:PORT --num-processes N --process-id I]
                          SCRIPT.py [args...]   (or: -m PACKAGE.MODULE [args...])
       tinyflow ... (the same), tinyflow --version

Runs a TensorFlow 1 script with `import tensorflow` resolving to tinyflow. --data-parallel: every
Session splits its batch over all devices (tf.distribute.DataParallel); with --coordinator, this
process joins a job of N processes (each feeds its own rows of the batch).

options:
  -h, --help        this help
  -V, --version     tinyflow's version, the TF API it implements and the jax it runs on

tools:
  python -m tinyflow.memory SCRIPT.py [args...]   the memory report of every fetch set a script runs
  python -m tinyflow.coverage [--missing MODULE]  how much of TF 1.15's API tinyflow has, per module

settings (environment variables):
%s"""


def usage():
    return _USAGE % "\n".join("  %-33s %s" % pair for pair in SETTINGS)


def version():
    """`tinyflow 0.1.0 (TensorFlow 1.15.5 API, jax 0.4.x)`."""
    import jax
    return "tinyflow %s (TensorFlow %s API, jax %s)" % (tinyflow.TINYFLOW_VERSION, tinyflow.VERSION, jax.__version__)


def standard_option(argv, usage_text):
    """The answer to -h/--help or -V/--version as argv's first argument (text, exit code), or None."""
    if argv and argv[0] in ("-h", "--help"):
        return usage_text, 0
    if argv and argv[0] in ("-V", "--version"):
        return version(), 0
    return None


def _options(argv):
    """The runner's own options (before the script), as a dict, and the script's argv."""
    opts, flags = {}, {"--coordinator": str, "--num-processes": int, "--process-id": int}
    while argv and argv[0].startswith("-"):
        name, _, value = argv.pop(0).partition("=")
        if name == "-m" or name.startswith("-m") and len(name) > 2:   # -m package.module (or -mpackage.module)
            if len(name) == 2 and not argv:
                raise SystemExit("tinyflow: option -m needs a module name\n%s" % usage())
            opts["module"] = name[2:] or argv.pop(0)
            break
        if name == "--data-parallel":
            opts["data_parallel"] = True
        elif name in flags:
            if not value and not argv:
                raise SystemExit("tinyflow: option %s needs a value\n%s" % (name, usage()))
            try:
                opts[name[2:].replace("-", "_")] = flags[name](value or argv.pop(0))
            except ValueError:
                raise SystemExit("tinyflow: option %s needs an integer\n%s" % (name, usage())) from None
        else:
            raise SystemExit("tinyflow: unknown option %s\n%s" % (name, usage()))
    return opts, argv


def _user_frames(te, hidden):
    """Drops the frames of the runner's own machinery (runpy, tinyflow) from a TracebackException and
    the exceptions it chains, so the user's frames remain, as TF's tracebacks show them."""
    import traceback
    seen = set()
    while te is not None and id(te) not in seen:
        seen.add(id(te))
        kept = [f for f in te.stack if not hidden(f.filename)]
        te.stack = traceback.StackSummary.from_list(kept or list(te.stack)[-1:])
        for chained in (te.__cause__, te.__context__):
            if chained is not None:
                _user_frames(chained, hidden)
        te = None


def print_trimmed_traceback(exc):
    """Prints an uncaught error's traceback without runpy's and tinyflow's frames (all of them with
    TINYFLOW_FULL_TRACEBACK=1)."""
    import os
    import traceback
    if os.environ.get("TINYFLOW_FULL_TRACEBACK", "").strip().lower() not in ("", "0", "off", "false", "no"):
        traceback.print_exception(type(exc), exc, exc.__traceback__)
        return
    package = os.path.dirname(os.path.abspath(tinyflow.__file__)) + os.sep

    def hidden(filename):
        return filename.startswith(package) or "runpy" in os.path.basename(filename)

    te = traceback.TracebackException(type(exc), exc, exc.__traceback__)
    _user_frames(te, hidden)
    print("".join(te.format()), end="", file=sys.stderr)
    print("(tinyflow's own frames are hidden: TINYFLOW_FULL_TRACEBACK=1 shows them)", file=sys.stderr)
    missing = getattr(exc, "name", None) if isinstance(exc, ModuleNotFoundError) else None
    if missing and missing.split(".")[0] in TF1_ENVIRONMENT:
        print("tinyflow: %s came with TensorFlow 1.15 (TF depended on it), so TF1 scripts import it without "
              "declaring it: pip install %s (six, termcolor and Pillow come with tinyflow; from a checkout, "
              "pip install -e \".[tf1-env]\" adds wrapt)"
              % (missing.split(".")[0], TF1_ENVIRONMENT[missing.split(".")[0]]), file=sys.stderr)


# what TF 1.15's own install always brought along that scripts import directly: module -> its package
TF1_ENVIRONMENT = {"six": "six", "termcolor": "termcolor", "wrapt": "wrapt", "gast": "gast", "astor": "astor",
                   "keras_preprocessing": "keras-preprocessing", "keras_applications": "keras-applications",
                   "opt_einsum": "opt-einsum", "google_pasta": "google-pasta", "pasta": "google-pasta"}


def run_script(argv, module=None):
    """Runs argv[0] (or `module`, as `python -m module`) as __main__ with argv as sys.argv; an uncaught
    error prints a trimmed traceback and gives exit code 1 (as Python's own)."""
    import os
    if module is None and not os.path.isfile(argv[0]):
        raise SystemExit("tinyflow: no script %s\n(python -m tinyflow --help for the usage)" % argv[0])
    sys.argv = argv
    sys.path.insert(0, os.getcwd() if module else os.path.dirname(os.path.abspath(argv[0])))
    if module:
        import importlib.util
        try:
            found = importlib.util.find_spec(module)
        except ImportError:
            found = None
        if found is None:
            raise SystemExit("tinyflow: No module named %s" % module)
    try:
        if module:   # sys.argv[0] becomes the module's file, as Python's -m sets it
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(argv[0], run_name="__main__")
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as e:
        print_trimmed_traceback(e)
        return 1
    return 0


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        print(usage(), file=sys.stderr)
        return 2
    answer = standard_option(argv, usage())
    if answer:
        print(answer[0])
        return answer[1]
    opts, argv = _options(argv)
    if not argv and "module" not in opts:
        raise SystemExit(usage())
    if "coordinator" in opts or "TINYFLOW_COORDINATOR" in __import__("os").environ:
        tinyflow.distribute.initialize(opts.get("coordinator"), opts.get("num_processes"), opts.get("process_id"))
        opts["data_parallel"] = True
    if opts.get("data_parallel"):
        tinyflow.distribute.set_default(tinyflow.distribute.DataParallel())
    alias_tensorflow()
    from tinyflow.cli import numpy_compat
    numpy_compat.install()   # np.float, np.int, np.asscalar, ... for scripts written for numpy 1.x
    if "module" in opts:
        return run_script(["-m"] + argv, opts["module"])
    return run_script(argv)


if __name__ == "__main__":
    sys.exit(main())
