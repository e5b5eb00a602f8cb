"""`python -m tinyflow SCRIPT.py [args]`: run an unmodified TF1 script on tinyflow.

`import tensorflow as tf`, `import tensorflow.compat.v1 as tf` and `from tensorflow import ...`
resolve to tinyflow; the script runs as `__main__` with its own argv.
"""
import runpy
import sys

import tinyflow


def alias_tensorflow():
    """Make `tensorflow` and `tensorflow.compat.v1` (and tf.compat.v1's submodules) name tinyflow."""
    compat = tinyflow.compat
    sys.modules["tensorflow"] = tinyflow
    sys.modules["tensorflow.compat"] = compat
    sys.modules["tensorflow.compat.v1"] = tinyflow
    for name in ("nn", "train", "layers", "losses", "errors", "debugging", "contrib", "contrib.rnn",
                 "contrib.layers", "contrib.eager", "nn.rnn_cell", "app", "flags", "logging", "gfile", "io",
                 "summary", "data", "image", "distribute", "feature_column", "estimator", "contrib.seq2seq",
                 "contrib.learn", "contrib.learn.datasets", "contrib.learn.datasets.mnist",
                 "contrib.learn.python.learn.datasets.mnist"):
        module = tinyflow
        for part in name.split("."):
            module = getattr(module, part, None)
        if module is None and name.startswith("contrib.learn"):
            module = sys.modules.get("tinyflow.api." + name)
        if module is not None:
            sys.modules["tensorflow." + name] = module
            sys.modules["tensorflow.compat.v1." + name] = module
    from tinyflow.cli import python_shim
    python_shim.install(tinyflow)  # tensorflow.python.framework.ops, tensorflow.python.ops.array_ops, ...
    from tinyflow.api.examples.tutorials.mnist import input_data  # noqa: F401 (tensorflow.examples.tutorials.mnist)
    for name in ("examples", "examples.tutorials", "examples.tutorials.mnist", "examples.tutorials.mnist.input_data"):
        sys.modules["tensorflow." + name] = sys.modules["tinyflow.api." + name]


_USAGE = """usage: python -m tinyflow [--data-parallel] [--coordinator HOST:PORT --num-processes N --process-id I]
                          SCRIPT.py [args...]

Runs a TensorFlow 1 script with `import tensorflow` resolving to tinyflow. --data-parallel: every
Session splits its batch over all devices (tf.distribute.DataParallel); with --coordinator, this
process joins a job of N processes (each feeds its own rows of the batch)."""


def _options(argv):
    """The runner's own options (before the script), as a dict, and the script's argv."""
    opts, flags = {}, {"--coordinator": str, "--num-processes": int, "--process-id": int}
    while argv and argv[0].startswith("--"):
        name, _, value = argv.pop(0).partition("=")
        if name == "--data-parallel":
            opts["data_parallel"] = True
        elif name in flags:
            opts[name[2:].replace("-", "_")] = flags[name](value or argv.pop(0))
        else:
            raise SystemExit("tinyflow: unknown option %s\n%s" % (name, _USAGE))
    return opts, argv


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(_USAGE)
        return 0 if argv else 2
    opts, argv = _options(argv)
    if not argv:
        raise SystemExit(_USAGE)
    if "coordinator" in opts or "TINYFLOW_COORDINATOR" in __import__("os").environ:
        tinyflow.distribute.initialize(opts.get("coordinator"), opts.get("num_processes"), opts.get("process_id"))
        opts["data_parallel"] = True
    if opts.get("data_parallel"):
        tinyflow.distribute.set_default(tinyflow.distribute.DataParallel())
    alias_tensorflow()
    sys.argv = argv
    sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(argv[0])))
    runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
