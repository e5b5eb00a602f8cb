"""slim's initializers and regularizers (tf.contrib.layers' own: xavier, variance scaling, l1/l2)."""
from tinyflow.graph import dtypes as dt
from tinyflow.ops import init_ops, math_ops, nn_ops
from tinyflow.ops.base import convert_to_tensor


def xavier_initializer(uniform=True, seed=None, dtype=dt.float32):
    """Glorot's initializer: variance 1 / average fan (uniform, or a truncated normal)."""
    return init_ops.VarianceScaling(1.0, "fan_avg", "uniform" if uniform else "truncated_normal", seed=seed,
                                    dtype=dtype)


xavier_initializer_conv2d = xavier_initializer


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


def l1_l2_regularizer(scale_l1=1.0, scale_l2=1.0, scope=None):
    """weights -> the l1 penalty + the l2 penalty."""
    l1, l2 = l1_regularizer(scale_l1), l2_regularizer(scale_l2)

    def regularize(weights):
        parts = [p for p in (l1(weights), l2(weights)) if p is not None]
        return math_ops.add_n(parts, name=scope or "l1_l2_regularizer") if parts else None
    return regularize


def apply_regularization(regularizer, weights_list=None):
    """The sum of regularizer(w) over weights_list (the WEIGHTS collection by default), also added to
    REGULARIZATION_LOSSES."""
    from tinyflow.graph.core import GraphKeys, add_to_collection, get_collection
    weights_list = get_collection(GraphKeys.WEIGHTS) if weights_list is None else weights_list
    if not weights_list:
        raise ValueError("No weights to regularize.")
    penalties = [p for p in (regularizer(w) for w in weights_list) if p is not None]
    total = math_ops.add_n(penalties, name="get_regularization_penalty") if penalties else \
        convert_to_tensor(0.0)
    add_to_collection(GraphKeys.REGULARIZATION_LOSSES, total)
    return total
