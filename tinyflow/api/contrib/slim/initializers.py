"""slim's initializers and regularizers (tf.contrib.layers' own: xavier, variance scaling, l1/l2)."""
from tinyflow.api.contrib.layers.layers import (l1_regularizer, l2_regularizer, variance_scaling_initializer,  # noqa: F401
                                                xavier_initializer)
from tinyflow.ops.core import math_ops
from tinyflow.ops.core.base import convert_to_tensor

xavier_initializer_conv2d = xavier_initializer


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
