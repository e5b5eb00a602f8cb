"""tf.contrib: the few pieces TF1 tutorials reach for, and nothing more.

- tf.contrib.rnn: the RNN cells of tf.nn.rnn_cell, static_rnn and static_bidirectional_rnn;
- tf.contrib.layers: xavier_initializer, variance_scaling_initializer, l1/l2_regularizer,
  fully_connected ("fully_connected/weights", "fully_connected/biases") and flatten.

Both are real modules (`import tensorflow.contrib.rnn` works under `python -m tinyflow`).
"""
import sys
import types

from tinyflow.api import layers as _layers
from tinyflow.api import rnn as _rnn
from tinyflow.api import rnn_cell as _cells
from tinyflow.graph import dtypes as dt
from tinyflow.ops import init_ops, math_ops, nn_ops
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.base import convert_to_tensor


def _module(name, doc, members):
    mod = types.ModuleType(__name__ + "." + name, doc)
    mod.__dict__.update(members)
    mod.__all__ = sorted(members)
    sys.modules[mod.__name__] = mod
    return mod


# ---- tf.contrib.layers ---------------------------------------------------------------------------
def xavier_initializer(uniform=True, seed=None, dtype=dt.float32):
    """Glorot's initializer: variance 1 / average fan (uniform, or a truncated normal)."""
    return init_ops.VarianceScaling(1.0, "fan_avg", "uniform" if uniform else "truncated_normal", seed=seed,
                                    dtype=dtype)


def variance_scaling_initializer(factor=2.0, mode="FAN_IN", uniform=False, seed=None, dtype=dt.float32):
    """contrib's He initializer by default: variance factor / fan (mode FAN_IN, FAN_OUT or FAN_AVG)."""
    if mode not in ("FAN_IN", "FAN_OUT", "FAN_AVG"):
        raise TypeError("Unknown mode %s [FAN_IN, FAN_OUT, FAN_AVG]" % mode)
    return init_ops.VarianceScaling(factor, mode.lower(), "uniform" if uniform else "truncated_normal", seed=seed,
                                    dtype=dtype)


def _regularizer(scale, name, penalty):
    if scale < 0.0:
        raise ValueError("Setting a scale less than 0 on a regularizer: %g" % scale)
    if scale == 0.0:
        return lambda weights: None

    def regularize(weights):
        w = convert_to_tensor(weights)
        return math_ops.multiply(convert_to_tensor(scale, dtype=w.dtype), penalty(w), name=name)
    return regularize


def l2_regularizer(scale, scope=None):
    """weights -> scale * sum(weights ** 2) / 2."""
    return _regularizer(scale, scope or "l2_regularizer", nn_ops.l2_loss)


def l1_regularizer(scale, scope=None):
    """weights -> scale * sum(|weights|)."""
    return _regularizer(scale, scope or "l1_regularizer", lambda w: math_ops.reduce_sum(math_ops.abs(w)))


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


layers = _module("layers", "tf.contrib.layers: initializers, regularizers, fully_connected, flatten.", {
    "xavier_initializer": xavier_initializer, "xavier_initializer_conv2d": xavier_initializer,
    "variance_scaling_initializer": variance_scaling_initializer, "l1_regularizer": l1_regularizer,
    "l2_regularizer": l2_regularizer, "fully_connected": fully_connected, "flatten": _layers.flatten,
})

rnn = _module("rnn", "tf.contrib.rnn: the RNN cells, static_rnn and static_bidirectional_rnn.", dict(
    {name: getattr(_cells, name) for name in _cells.__all__},
    static_rnn=_rnn.static_rnn, static_bidirectional_rnn=_rnn.static_bidirectional_rnn,
    LSTMBlockCell=_cells.LSTMCell, GRUBlockCell=_cells.GRUCell))

# batch_norm, seq2seq and learn.datasets live in their own files; attached here so that
# tf.contrib.layers.batch_norm and `import tensorflow.contrib.seq2seq` resolve.
from tinyflow.api import contrib_batch_norm as _bn  # noqa: E402
from tinyflow.api import seq2seq  # noqa: E402,F401 (tf.contrib.seq2seq)
from tinyflow.api import contrib_learn as learn  # noqa: E402,F401 (tf.contrib.learn.datasets.mnist)

from tinyflow.api import contrib_layers_more as _more  # noqa: E402

layers.batch_norm = _bn.batch_norm
_MORE = ["conv2d", "max_pool2d", "avg_pool2d", "dropout", "one_hot_encoding"]
for _name in _MORE:
    setattr(layers, _name, getattr(_more, _name))
from tinyflow.api import contrib_layers_extra as _extra  # noqa: E402 (optimize_loss, layer_norm)
for _name in ("optimize_loss", "layer_norm", "OPTIMIZER_CLS_NAMES", "OPTIMIZER_SUMMARIES"):
    setattr(layers, _name, getattr(_extra, _name))
layers.__all__ = sorted(layers.__all__ + ["batch_norm", "optimize_loss", "layer_norm"] + _MORE)
sys.modules[__name__ + ".seq2seq"] = seq2seq


def __getattr__(name):
    """tf.contrib.eager, made on first use (it loads eager execution's machinery)."""
    if name == "eager":
        from tinyflow.api.eager import tfe
        return tfe.install(sys.modules[__name__])
    if name == "tpu":
        from tinyflow.api import tpu
        return tpu.module(__name__ + ".tpu")
    if name == "summary":
        from tinyflow.api import contrib_summary
        sys.modules[__name__ + ".summary"] = contrib_summary
        return contrib_summary
    if name == "training":
        from tinyflow.api import contrib_training
        sys.modules[__name__ + ".training"] = contrib_training
        return contrib_training
    if name == "cluster_resolver":
        from tinyflow.api import cluster_resolver
        sys.modules[__name__ + ".cluster_resolver"] = cluster_resolver
        return cluster_resolver
    raise AttributeError("module 'tinyflow.contrib' has no attribute %r" % name)
