"""tf.contrib: each `tf.contrib.<name>` is the module api/contrib/<name>.py (or a package of that name),
loaded on first use; a few are other tinyflow namespaces under their contrib name (tf.contrib.keras is
tf.keras, tf.contrib.signal is tf.signal, ...). api/tree.py declares the whole tree, and TF's
`tensorflow.contrib.<name>.python...` module paths, which the import hook (api/importer.py) serves."""
import importlib
import sys
import types

# tf.contrib.<name> -> the module that is that namespace, when it is not api/contrib/<name>.py
_ELSEWHERE = {"cluster_resolver": "tinyflow.api.cluster_resolver", "keras": "tinyflow.api.keras",
              "util": "tinyflow.api.tensor_util",   # make_tensor_proto, make_ndarray, constant_value
              "lookup": "tinyflow.api.lookup", "signal": "tinyflow.api.signal"}
# the contrib namespaces that are files (or packages) here
_HERE = {"cloud", "crf", "data", "deprecated", "estimator", "factorization", "framework", "image", "layers", "learn",
         "legacy_seq2seq", "losses", "memory_stats", "metrics", "opt", "rnn", "seq2seq", "slim", "staging", "summary",
         "tensor_forest", "tensorboard", "training"}


def _predictor():
    from tinyflow.api.saved_model import predictor
    module = types.ModuleType(__name__ + ".predictor", "tf.contrib.predictor: a SavedModel's signature as a callable.")
    module.from_saved_model = predictor.from_saved_model
    return module


def __getattr__(name):
    """tf.contrib's namespaces, loaded on first use."""
    if name in _HERE:
        module = importlib.import_module(__name__ + "." + name)
    elif name in _ELSEWHERE:
        module = importlib.import_module(_ELSEWHERE[name])
    elif name == "eager":
        from tinyflow.api.eager import tfe
        module = tfe.install(sys.modules[__name__])
    elif name == "tpu":
        from tinyflow.api import tpu
        module = tpu.module(__name__ + ".tpu")
    elif name == "distribute":   # tf.contrib.distribute: tf.distribute's strategies under their contrib names
        from tinyflow.api import distribute
        module = distribute.contrib
    elif name == "predictor":
        module = _predictor()
    else:
        raise AttributeError("module %r has no attribute %r" % (__name__, name))
    globals()[name] = module
    return module
