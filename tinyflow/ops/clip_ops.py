"""Gradient clipping (tf.clip_by_norm, tf.global_norm, tf.clip_by_global_norm), built from graph ops
the way TF 1.15 builds them, so gradients flow through and NaN/inf norms propagate as in TF.
(tf.clip_by_value lives in math_ops.py.)"""
from collections.abc import Sequence

from tinyflow.graph.core import get_default_graph
from tinyflow.ops.core import math_ops as m
from tinyflow.ops.core.array_ops import identity, ones_like, size, stack
from tinyflow.ops.core.base import convert_to_tensor

__all__ = ["clip_by_average_norm", "clip_by_global_norm", "clip_by_norm", "global_norm"]


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """t * clip_norm / max(l2norm(t, axes), clip_norm): t unchanged when its norm is at most clip_norm."""
    with get_default_graph().name_scope(name or "clip_by_norm") as scope:
        t = convert_to_tensor(t, name="t")
        l2sum = m.reduce_sum(t * t, axes, keepdims=True)
        pred = l2sum > 0
        # sqrt only where the sum is positive, so the gradient at a zero tensor is 0, not NaN
        l2sum_safe = m.where_v2(pred, l2sum, ones_like(l2sum))
        l2norm = m.where_v2(pred, m.sqrt(l2sum_safe), l2sum)
        intermediate = t * clip_norm
        t.shape.merge_with(intermediate.shape)  # clip_norm must not broadcast t to a bigger shape
        return identity(intermediate / m.maximum(l2norm, clip_norm), name=scope)


def _sparse(t):
    """Whether t is an IndexedSlices (api/tensor_util's; duck-typed, this layer being below it)."""
    return hasattr(t, "indices") and hasattr(t, "values") and hasattr(t, "dense_shape")


def _as_list(t_list):
    if not isinstance(t_list, Sequence) or isinstance(t_list, str):
        raise TypeError("t_list should be a sequence")
    return [t if t is None or _sparse(t) else convert_to_tensor(t, name="t_%d" % i) for i, t in enumerate(t_list)]


def global_norm(t_list, name=None):
    """sqrt(sum of the squares of every element of every tensor in t_list); None entries are skipped."""
    values = _as_list(t_list)
    with get_default_graph().name_scope(name or "global_norm"):
        # an IndexedSlices counts its rows as they are: a repeated id's rows each count (TF's norm)
        sums = [m.reduce_sum(m.square(v.values if _sparse(v) else v)) for v in values if v is not None]
        return m.sqrt(m.reduce_sum(stack(sums)), name="global_norm")


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scales every tensor by clip_norm / max(global_norm, clip_norm); returns (clipped list, global norm).

    A NaN or infinite norm makes every clipped value NaN, as in TF."""
    values = _as_list(t_list)
    if use_norm is None:
        use_norm = global_norm(values, name)
    with get_default_graph().name_scope(name or "clip_by_global_norm") as scope:
        one = convert_to_tensor(1.0, dtype=use_norm.dtype)
        scale_for_finite = clip_norm * m.minimum(1.0 / use_norm, one / clip_norm)
        scale = scale_for_finite + (use_norm - use_norm)  # NaN when use_norm is inf or NaN
        clipped = [None if v is None else
                   type(v)(identity(v.values * m.cast(scale, v.dtype), name="%s_%d" % (scope, i)), v.indices,
                           v.dense_shape) if _sparse(v) else
                   identity(v * m.cast(scale, v.dtype), name="%s_%d" % (scope, i))
                   for i, v in enumerate(values)]
    return clipped, use_norm


def clip_by_average_norm(t, clip_norm, name=None):
    """t * clip_norm / max(l2norm(t) / size(t), clip_norm) (deprecated in TF 1.15, kept for old code)."""
    with get_default_graph().name_scope(name or "clip_by_average_norm") as scope:
        t = convert_to_tensor(t, name="t")
        n_element = m.cast(size(t), t.dtype)
        l2norm_inv = m.rsqrt(m.reduce_sum(t * t))
        one = convert_to_tensor(1.0, dtype=t.dtype)
        return identity(t * clip_norm * m.minimum(l2norm_inv * n_element, one / clip_norm), name=scope)
