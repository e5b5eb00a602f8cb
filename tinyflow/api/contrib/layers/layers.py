"""More of tf.contrib.layers as tutorials call it: conv2d (TF's Conv/weights, Conv/biases names),
max_pool2d, avg_pool2d, dropout (keep_prob, is_training), one_hot_encoding, and the initializers
(xavier_initializer, variance_scaling_initializer) that contrib.py's fully_connected uses too."""
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import GraphKeys, add_to_collections, name_scope
from tinyflow.api.layers import _static_bool
from tinyflow.ops import init_ops, nn_ops
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.core import math_ops
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.core.indexing_ops import where
from tinyflow.ops.core.sequence_ops import one_hot


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


def _pair(v):
    return [int(v), int(v)] if isinstance(v, int) else [int(x) for x in v]


def conv2d(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format=None, rate=1,
           activation_fn=nn_ops.relu, normalizer_fn=None, normalizer_params=None, weights_initializer=None,
           weights_regularizer=None, biases_initializer=init_ops.zeros_initializer(), biases_regularizer=None,
           reuse=None, variables_collections=None, outputs_collections=None, trainable=True, scope=None):
    """activation_fn(conv(inputs, weights) + biases) on NHWC inputs; variables Conv/weights and
    Conv/biases (the scope is made unique: Conv_1, ...), also in MODEL_VARIABLES."""
    if data_format not in (None, "NHWC"):
        raise NotImplementedError("tinyflow's contrib.layers.conv2d supports data_format NHWC only")
    if _pair(rate) != [1, 1]:
        raise NotImplementedError("tinyflow's contrib.layers.conv2d has no atrous rate")
    with vs.variable_scope(scope, "Conv", [inputs], reuse=reuse):
        x = convert_to_tensor(inputs)
        channels = x.shape[-1].value if x.shape.ndims == 4 else None
        if channels is None:
            raise ValueError("contrib.layers.conv2d needs 4-D NHWC inputs with known channels, got %s" % x.shape)
        kh, kw = _pair(kernel_size)
        sh, sw = _pair(stride)
        w = vs.get_variable("weights", [kh, kw, channels, num_outputs], dtype=x.dtype,
                            initializer=weights_initializer or xavier_initializer(dtype=x.dtype),
                            regularizer=weights_regularizer, trainable=trainable)
        add_to_collections([GraphKeys.MODEL_VARIABLES] + list(variables_collections or []), w)
        out = nn_ops.conv2d(x, w, [1, sh, sw, 1], padding.upper())
        if normalizer_fn is not None:
            out = normalizer_fn(out, **(normalizer_params or {}))
        elif biases_initializer is not None:
            b = vs.get_variable("biases", [num_outputs], dtype=x.dtype, initializer=biases_initializer,
                                regularizer=biases_regularizer, trainable=trainable)
            add_to_collections([GraphKeys.MODEL_VARIABLES] + list(variables_collections or []), b)
            out = nn_ops.bias_add(out, b)
        if activation_fn is not None:
            out = activation_fn(out)
        if outputs_collections:
            add_to_collections(outputs_collections, out)
        return out


def _pool(fn, default_name, inputs, kernel_size, stride, padding, data_format, outputs_collections, scope):
    if data_format not in ("NHWC", None):
        raise NotImplementedError("tinyflow's contrib.layers pooling supports data_format NHWC only")
    with name_scope(scope, default_name, [inputs]):
        kh, kw = _pair(kernel_size)
        sh, sw = _pair(stride)
        out = fn(convert_to_tensor(inputs), [1, kh, kw, 1], [1, sh, sw, 1], padding.upper())
        if outputs_collections:
            add_to_collections(outputs_collections, out)
        return out


def max_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format="NHWC", outputs_collections=None,
               scope=None):
    """Max pooling with a square or [h, w] window (stride 2, VALID by default, as TF)."""
    return _pool(nn_ops.max_pool, "MaxPool2D", inputs, kernel_size, stride, padding, data_format,
                 outputs_collections, scope)


def avg_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format="NHWC", outputs_collections=None,
               scope=None):
    """Average pooling with a square or [h, w] window (stride 2, VALID by default, as TF)."""
    return _pool(nn_ops.avg_pool, "AvgPool2D", inputs, kernel_size, stride, padding, data_format,
                 outputs_collections, scope)


def dropout(inputs, keep_prob=0.5, noise_shape=None, is_training=True, outputs_collections=None, scope=None,
            seed=None):
    """Dropout keeping `keep_prob` of the units when is_training (a bool or a bool tensor)."""
    with name_scope(scope, "Dropout", [inputs]):
        x = convert_to_tensor(inputs)
        training = _static_bool(is_training)
        if training is False:
            return x
        dropped = nn_ops.dropout(x, keep_prob=keep_prob, noise_shape=noise_shape, seed=seed)
        if training is None:
            dropped = where(convert_to_tensor(is_training, dtype=dt.bool_), dropped, x)
            dropped.set_shape(x.shape)
        if outputs_collections:
            add_to_collections(outputs_collections, dropped)
        return dropped


def one_hot_encoding(labels, num_classes, on_value=1.0, off_value=0.0, outputs_collections=None, scope=None):
    """float32 one-hot vectors of integer labels."""
    with name_scope(scope, "OneHotEncoding", [labels]):
        out = one_hot(convert_to_tensor(labels), num_classes, on_value=on_value, off_value=off_value)
        if outputs_collections:
            add_to_collections(outputs_collections, out)
        return out


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
