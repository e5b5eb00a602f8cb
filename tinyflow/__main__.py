"""`python -m tinyflow SCRIPT.py [args]`: run an unmodified TF1 script on tinyflow.

`import tensorflow as tf`, `import tensorflow.compat.v1 as tf` and `from tensorflow import ...`
resolve to tinyflow; the script runs as `__main__` with its own argv.
"""
import runpy
import sys

import tinyflow


def alias_tensorflow():
    """Make `tensorflow` and `tensorflow.compat.v1` (and tf.compat.v1's submodules) name tinyflow."""
    from tinyflow import compat
    sys.modules["tensorflow"] = tinyflow
    sys.modules["tensorflow.compat"] = compat
    sys.modules["tensorflow.compat.v1"] = tinyflow
    for name in ("nn", "train", "layers", "losses", "errors", "debugging", "contrib", "contrib.rnn",
                 "contrib.layers", "nn.rnn_cell", "app", "flags", "logging", "gfile", "io", "summary", "data",
                 "image"):
        module = sys.modules.get("tinyflow." + name)
        if module is None and name == "nn.rnn_cell":
            module = tinyflow.nn.rnn_cell
        if module is not None:
            sys.modules["tensorflow." + name] = module
            sys.modules["tensorflow.compat.v1." + name] = module
    from tinyflow import python_shim
    python_shim.install(tinyflow)  # tensorflow.python.framework.ops, tensorflow.python.ops.array_ops, ...
    __import__("tinyflow.examples.tutorials.mnist.input_data")  # tensorflow.examples.tutorials.mnist
    for name in ("examples", "examples.tutorials", "examples.tutorials.mnist", "examples.tutorials.mnist.input_data"):
        sys.modules["tensorflow." + name] = sys.modules["tinyflow." + name]
    for name in ("contrib.seq2seq", "contrib.learn", "contrib.learn.datasets", "contrib.learn.datasets.mnist",
                 "contrib.learn.python.learn.datasets.mnist"):
        if "tinyflow." + name in sys.modules:
            sys.modules["tensorflow." + name] = sys.modules["tensorflow.compat.v1." + name] = \
                sys.modules["tinyflow." + name]


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m tinyflow SCRIPT.py [args...]\n\nRuns a TensorFlow 1 script with "
              "`import tensorflow` resolving to tinyflow.")
        return 0 if argv else 2
    alias_tensorflow()
    sys.argv = argv
    sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(argv[0])))
    runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
