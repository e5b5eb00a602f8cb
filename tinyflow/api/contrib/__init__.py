"""tf.contrib: the few pieces TF1 tutorials reach for, and nothing more.

- tf.contrib.rnn: the RNN cells of tf.nn.rnn_cell, static_rnn and static_bidirectional_rnn;
- tf.contrib.layers (contrib_layers.py, loaded on first use like the namespaces of _LAZY);
- tf.contrib.seq2seq (seq2seq.py: decoders, attention, beam search), tf.contrib.rnn's extra cells
  (contrib_rnn.py), tf.contrib.learn (contrib_learn.py), tf.contrib.eager;
- loaded on first use (_LAZY): slim, framework, summary, training, legacy_seq2seq, crf, metrics, opt, ...

Both are real modules (`import tensorflow.contrib.rnn` works under `python -m tinyflow`).
"""
import sys
import types

from tinyflow.api import contrib_rnn as _contrib_rnn
from tinyflow.api import contrib_learn as learn  # noqa: F401 (tf.contrib.learn.datasets.mnist)
from tinyflow.api import rnn as _rnn
from tinyflow.api import rnn_cell as _cells
from tinyflow.api import seq2seq  # (tf.contrib.seq2seq)


def _module(name, doc, members, constants=None):
    mod = types.ModuleType(__name__ + "." + name, doc)
    mod.__dict__.update(members)
    mod.__all__ = sorted(members)
    mod.__dict__.update(constants or {})   # reachable, not in __all__
    sys.modules[mod.__name__] = mod
    return mod


rnn = _module("rnn", "tf.contrib.rnn: the RNN cells, static_rnn and static_bidirectional_rnn.", dict(
    {name: getattr(_cells, name) for name in _cells.__all__},
    **{name: getattr(_contrib_rnn, name) for name in _contrib_rnn.__all__},
    static_rnn=_rnn.static_rnn, static_bidirectional_rnn=_rnn.static_bidirectional_rnn,
    LSTMBlockCell=_cells.LSTMCell, GRUBlockCell=_cells.GRUCell))
sys.modules[__name__ + ".seq2seq"] = seq2seq   # `import tensorflow.contrib.seq2seq` resolves

from tinyflow.api.saved_model import predictor as _predictor  # noqa: E402

predictor = _module("predictor", "tf.contrib.predictor: a SavedModel's signature as a callable.", {
    "from_saved_model": _predictor.from_saved_model})


# tf.contrib.<name> -> the module that is that namespace, imported on first use (and put in sys.modules
# under its contrib path, so `import tensorflow.contrib.slim as slim` works under the runner)
_LAZY = {"slim": "tinyflow.api.slim", "framework": "tinyflow.api.contrib_framework",
         "summary": "tinyflow.api.contrib_summary", "training": "tinyflow.api.contrib_training",
         "cluster_resolver": "tinyflow.api.cluster_resolver", "tensorboard": "tinyflow.api.contrib_tensorboard",
         "util": "tinyflow.api.tensor_util",   # tf.contrib.util: make_tensor_proto, make_ndarray, constant_value
         "deprecated": "tinyflow.api.contrib_deprecated", "data": "tinyflow.api.contrib_data",
         "lookup": "tinyflow.api.lookup", "legacy_seq2seq": "tinyflow.api.legacy_seq2seq",
         "crf": "tinyflow.api.contrib_crf", "keras": "tinyflow.api.keras",   # tf.contrib.keras is tf.keras
         "signal": "tinyflow.api.signal", "metrics": "tinyflow.api.contrib_metrics",
         "layers": "tinyflow.api.contrib_layers", "opt": "tinyflow.api.contrib_opt",
         "losses": "tinyflow.api.contrib_losses", "image": "tinyflow.api.contrib_image",
         "factorization": "tinyflow.api.factorization",
         "tensor_forest": "tinyflow.api.tensor_forest"}


def __getattr__(name):
    """tf.contrib's namespaces that load on first use: eager, tpu and those of _LAZY."""
    if name == "eager":
        from tinyflow.api.eager import tfe
        return tfe.install(sys.modules[__name__])
    if name == "tpu":
        from tinyflow.api import tpu
        return tpu.module(__name__ + ".tpu")
    if name == "cloud":   # tf.contrib.cloud: GCS and Bigtable clients, errors naming them (api/tpu_more.py)
        from tinyflow.api import tpu_more
        module = sys.modules[__name__ + ".cloud"] = types.ModuleType(__name__ + ".cloud", "tf.contrib.cloud")
        module.__dict__.update({n: getattr(tpu_more, n) for n in tpu_more.CLOUD})
        return module
    if name in ("estimator", "staging", "memory_stats"):
        from tinyflow.api import contrib_misc
        module = sys.modules[__name__ + "." + name] = getattr(contrib_misc, name)
        return module
    if name == "distribute":   # tf.contrib.distribute: tf.distribute's strategies under their contrib names
        from tinyflow.api import distribute
        return distribute.contrib
    if name in _LAZY:
        import importlib
        module = sys.modules[__name__ + "." + name] = importlib.import_module(_LAZY[name])
        return module
    raise AttributeError("module 'tinyflow.contrib' has no attribute %r" % name)
