"""Neural-network ops: activations, softmax family and cross entropies. Each op: one register_op
with all its rules, next to its TF-style builder."""
import jax
import jax.numpy as jnp

from ..graph.registry import register_op, same_as_input, shape_of_input
from . import math_ops as M
from .base import convert_to_tensor, make_op, normalize_axis

__all__ = ["relu", "softmax", "log_softmax", "softmax_cross_entropy_with_logits_v2",
           "softmax_cross_entropy_with_logits"]


def _relu_grad(op, g):
    y = op.outputs[0]
    return [M.where_v2(M.greater(y, M.zeros_like_scalar(y)), g, M.zeros_like(g))]


register_op("Relu", shape=shape_of_input(0), dtype=same_as_input(0), grad=_relu_grad, inplace=((0, 0),),
            lower=lambda a, x: jnp.maximum(x, jnp.zeros((), x.dtype)))


def relu(features, name=None):
    """max(features, 0)."""
    return make_op("Relu", [convert_to_tensor(features)], name=name or "Relu")


def _softmax_grad(op, g):
    y = op.outputs[0]
    ax = op.attrs["axis"]
    return [M.multiply(M.subtract(g, M.reduce_sum(M.multiply(g, y), axis=ax, keepdims=True)), y)]


def _log_softmax_grad(op, g):
    y = op.outputs[0]
    ax = op.attrs["axis"]
    return [M.subtract(g, M.multiply(M.exp(y), M.reduce_sum(g, axis=ax, keepdims=True)))]


register_op("Softmax", shape=shape_of_input(0), dtype=same_as_input(0), grad=_softmax_grad,
            lower=lambda a, x: jax.nn.softmax(x, axis=a["axis"]))
register_op("LogSoftmax", shape=shape_of_input(0), dtype=same_as_input(0), grad=_log_softmax_grad,
            lower=lambda a, x: jax.nn.log_softmax(x, axis=a["axis"]))


def _softmax_op(op_type, logits, axis, name):
    x = convert_to_tensor(logits)
    axis = -1 if axis is None else axis
    if x.shape.ndims is not None:
        axis = normalize_axis(axis, x.shape.ndims)
    return make_op(op_type, [x], {"axis": axis}, name=name or op_type)


def softmax(logits, axis=None, name=None, dim=None):
    """exp(logits) / sum(exp(logits), axis), computed stably."""
    return _softmax_op("Softmax", logits, dim if axis is None else axis, name)


def log_softmax(logits, axis=None, name=None, dim=None):
    """logits - log(sum(exp(logits), axis)), computed stably."""
    return _softmax_op("LogSoftmax", logits, dim if axis is None else axis, name)


def _xent_lower(a, logits, labels):
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.sum(labels * logp, axis=-1), jnp.exp(logp) * jnp.sum(labels, axis=-1, keepdims=True) - labels


def _xent_shape(shapes, attrs, values):
    s = shapes[0].merge_with(shapes[1]) if shapes[0].is_compatible_with(shapes[1]) else None
    if s is None:
        from ..graph.core import ShapeError
        raise ShapeError("logits and labels must be broadcastable: logits_size=%s labels_size=%s"
                         % (shapes[0].as_proto_str(), shapes[1].as_proto_str()))
    return [s[:-1] if s.ndims is not None else s, s]


def _xent_grad(op, g_loss, g_backprop):
    logits, labels = op.inputs
    backprop = op.outputs[1]
    from .array_ops import expand_dims
    g = expand_dims(g_loss, -1)
    g_logits = M.multiply(g, backprop)
    g_labels = M.multiply(g, M.negative(log_softmax(logits)))
    return [g_logits, g_labels]


register_op("SoftmaxCrossEntropyWithLogits", shape=_xent_shape, dtype=lambda d, a: [d[0], d[0]], grad=_xent_grad,
            lower=_xent_lower)


def softmax_cross_entropy_with_logits_v2(labels=None, logits=None, axis=-1, name=None, dim=None):
    """-sum(labels * log_softmax(logits)) over the last axis; gradients flow to labels too."""
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels, dtype=logits.dtype)
    op = make_op("SoftmaxCrossEntropyWithLogits", [logits, labels], name=name or "softmax_cross_entropy_with_logits")
    return op[0]


def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1, name=None, axis=None):
    """The v1 form: like v2, but no gradient flows into labels."""
    if _sentinel is not None:
        raise ValueError("Only call `softmax_cross_entropy_with_logits` with named arguments (labels=..., "
                         "logits=..., ...)")
    from .array_ops import stop_gradient
    return softmax_cross_entropy_with_logits_v2(labels=stop_gradient(labels), logits=logits, name=name)
