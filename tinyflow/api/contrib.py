"""tf.contrib: the few pieces TF1 tutorials reach for, and nothing more.

- tf.contrib.rnn: the RNN cells of tf.nn.rnn_cell, static_rnn and static_bidirectional_rnn;
- tf.contrib.layers: xavier_initializer, variance_scaling_initializer, l1/l2_regularizer,
  fully_connected ("fully_connected/weights", "fully_connected/biases"), flatten, and what
  contrib_layers_more.py (conv2d, pooling, dropout, one_hot_encoding, the initializers) and
  contrib_batch_norm.py (batch_norm) define;
- tf.contrib.seq2seq (seq2seq.py), tf.contrib.learn.datasets.mnist (contrib_learn.py), tf.contrib.eager.

Both are real modules (`import tensorflow.contrib.rnn` works under `python -m tinyflow`).
"""
import sys
import types

from tinyflow.api import contrib_layers_extra as _extra
from tinyflow.api import contrib_layers_more as _more
from tinyflow.api import contrib_learn as learn  # noqa: F401 (tf.contrib.learn.datasets.mnist)
from tinyflow.api import layers as _layers
from tinyflow.api import rnn as _rnn
from tinyflow.api import rnn_cell as _cells
from tinyflow.api import seq2seq  # (tf.contrib.seq2seq)
from tinyflow.api import contrib_batch_norm as _bn
from tinyflow.api.contrib_layers_more import (l1_regularizer, l2_regularizer, variance_scaling_initializer,
                                              xavier_initializer)
from tinyflow.ops import init_ops, nn_ops
from tinyflow.ops.core import math_ops
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.core.base import convert_to_tensor


def _module(name, doc, members, constants=None):
    mod = types.ModuleType(__name__ + "." + name, doc)
    mod.__dict__.update(members)
    mod.__all__ = sorted(members)
    mod.__dict__.update(constants or {})   # reachable, not in __all__
    sys.modules[mod.__name__] = mod
    return mod


# ---- tf.contrib.layers ---------------------------------------------------------------------------
def fully_connected(inputs, num_outputs, activation_fn=nn_ops.relu, normalizer_fn=None, normalizer_params=None,
                    weights_initializer=None, weights_regularizer=None, biases_initializer=None,
                    biases_regularizer=None, reuse=None, variables_collections=None, outputs_collections=None,
                    trainable=True, scope=None):
    """activation_fn(inputs @ weights + biases) over the last dimension, ReLU by default."""
    with vs.variable_scope(scope, default_name="fully_connected", reuse=reuse):
        x = convert_to_tensor(inputs)
        depth = x.shape[-1].value if x.shape.ndims else None
        if depth is None:
            raise ValueError("The last dimension of the inputs to fully_connected should be defined.")
        w = vs.get_variable("weights", [depth, num_outputs], dtype=x.dtype,
                            initializer=weights_initializer or xavier_initializer(dtype=x.dtype),
                            regularizer=weights_regularizer, trainable=trainable)
        if x.shape.ndims == 2:
            out = math_ops.matmul(x, w)
        else:
            from tinyflow.ops.matrix_ops import tensordot
            out = tensordot(x, w, [[x.shape.ndims - 1], [0]])
        if normalizer_fn is not None:
            out = normalizer_fn(out, **(normalizer_params or {}))
        else:
            b = vs.get_variable("biases", [num_outputs], dtype=x.dtype,
                                initializer=biases_initializer or init_ops.zeros_initializer(),
                                regularizer=biases_regularizer, trainable=trainable)
            out = nn_ops.bias_add(out, b)
        return activation_fn(out) if activation_fn is not None else out


layers = _module("layers", "tf.contrib.layers: initializers, regularizers, fully_connected, conv2d, pooling, "
                 "dropout, one_hot_encoding, flatten, batch_norm, optimize_loss, layer_norm.", {
                     "xavier_initializer": xavier_initializer, "xavier_initializer_conv2d": xavier_initializer,
                     "variance_scaling_initializer": variance_scaling_initializer, "l1_regularizer": l1_regularizer,
                     "l2_regularizer": l2_regularizer, "fully_connected": fully_connected, "flatten": _layers.flatten,
                     "batch_norm": _bn.batch_norm, "conv2d": _more.conv2d, "max_pool2d": _more.max_pool2d,
                     "avg_pool2d": _more.avg_pool2d, "dropout": _more.dropout,
                     "one_hot_encoding": _more.one_hot_encoding, "optimize_loss": _extra.optimize_loss,
                     "layer_norm": _extra.layer_norm},
                 {"OPTIMIZER_CLS_NAMES": _extra.OPTIMIZER_CLS_NAMES, "OPTIMIZER_SUMMARIES": _extra.OPTIMIZER_SUMMARIES})

rnn = _module("rnn", "tf.contrib.rnn: the RNN cells, static_rnn and static_bidirectional_rnn.", dict(
    {name: getattr(_cells, name) for name in _cells.__all__},
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
         "lookup": "tinyflow.api.lookup"}


def __getattr__(name):
    """tf.contrib's namespaces that load on first use: eager, tpu and those of _LAZY."""
    if name == "eager":
        from tinyflow.api.eager import tfe
        return tfe.install(sys.modules[__name__])
    if name == "tpu":
        from tinyflow.api import tpu
        return tpu.module(__name__ + ".tpu")
    if name == "distribute":   # tf.contrib.distribute: tf.distribute's strategies under their contrib names
        from tinyflow.api import distribute
        return distribute.contrib
    if name in _LAZY:
        import importlib
        module = sys.modules[__name__ + "." + name] = importlib.import_module(_LAZY[name])
        return module
    raise AttributeError("module 'tinyflow.contrib' has no attribute %r" % name)
