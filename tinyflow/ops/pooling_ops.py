"""Pooling (max, average; 1-D and 2-D), local response normalization and space_to_depth /
depth_to_space (tf.nn), with their gradient ops as ops of their own.

Windows follow conv_ops.py's arithmetic: SAME pads (total // 2) before and the rest after, and the
padding never counts (max ignores it, average divides by the real elements only). Gradient ops
lower as JAX's vector-Jacobian product of the forward lowering.
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from tinyflow.graph.core import ShapeError
from tinyflow.graph.registry import register_op, same_as_input
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core import math_ops as M
from tinyflow.ops.core.base import convert_to_tensor, make_op
from tinyflow.ops.core.array_ops import shape as shape_of
from tinyflow.ops.window import (channel_axis, check_padding, get_sequence, jax_padding, one_d, one_d_seq, out_size,
                                 pad_pair, int_sizes, sizes_shape, spatial_axes, windowed_shape)

__all__ = ["max_pool", "avg_pool", "max_pool1d", "avg_pool1d", "max_pool2d", "avg_pool2d", "max_pool_v2",
           "avg_pool_v2", "pool", "local_response_normalization", "lrn", "space_to_depth", "depth_to_space"]


# ---- pooling ---------------------------------------------------------------------------------------
def _pool_window(attrs):
    return [attrs["ksize"][ax] for ax in spatial_axes(attrs["data_format"])]


def _pool_shape(shapes, attrs, values):
    x = shapes[0]
    ch = x.as_list()[channel_axis(attrs["data_format"])] if x.ndims == 4 else None
    return [windowed_shape(x, _pool_window(attrs), attrs, ch)]


def _reduce_window(x, init, fn, attrs):
    pad = [(0, 0)] * 4
    for ax, p in zip(spatial_axes(attrs["data_format"]), jax_padding(x.shape, _pool_window(attrs), attrs)):
        pad[ax] = p
    return lax.reduce_window(x, init, fn, tuple(attrs["ksize"]), tuple(attrs["strides"]), pad)


def _max_pool_fn(attrs):
    def pool(x):
        init = -jnp.inf if jnp.issubdtype(x.dtype, jnp.floating) else jnp.iinfo(x.dtype).min
        return _reduce_window(x, np.array(init, x.dtype), lax.max, attrs)
    return pool


def _avg_counts(shape, attrs):
    """How many real (unpadded) elements each output window covers, broadcastable to the output (numpy)."""
    out = np.ones([1, 1, 1, 1])
    for j, ax in enumerate(spatial_axes(attrs["data_format"])):
        n, k, s = shape[ax], _pool_window(attrs)[j], attrs["strides"][ax]
        lo, _ = pad_pair(n, k, s, 1, attrs["padding"])
        m = out_size(n, k, s, 1, attrs["padding"])
        start = np.arange(m) * s - lo
        count = np.minimum(start + k, n) - np.maximum(start, 0)
        view = [1, 1, 1, 1]
        view[ax] = m
        out = out * count.reshape(view)
    return out


def _avg_pool_fn(attrs):
    def pool(x):
        total = _reduce_window(x, np.array(0, x.dtype), lax.add, attrs)
        return (total / _avg_counts(x.shape, attrs).astype(x.dtype)).astype(x.dtype)
    return pool


def _max_pool_grad(op, g):
    x, y = op.inputs[0], op.outputs[0]
    return [make_op("MaxPoolGrad", [x, y, g], op.attrs, name="MaxPoolGrad")]


def _max_pool_grad_grad(op, g):
    x, y = op.inputs[:2]
    return [M.zeros_like(x), M.zeros_like(y), make_op("MaxPoolGradGrad", [x, y, g], op.attrs, name="MaxPoolGradGrad")]


def _max_pool_grad_grad_grad(op, g):
    x, y = op.inputs[:2]
    return [M.zeros_like(x), M.zeros_like(y), make_op("MaxPoolGrad", [x, y, g], op.attrs, name="MaxPoolGrad")]


def _mpg_lower(attrs, x, y, g):
    return jax.vjp(_max_pool_fn(attrs), x)[1](g)[0]


def _mpgg_lower(attrs, x, y, g):
    return jax.jvp(_max_pool_fn(attrs), (x,), (g,))[1]


def _avg_pool_grad(op, g):
    x = op.inputs[0]
    return [make_op("AvgPoolGrad", [shape_of(x), g], dict(op.attrs, _shape=x.shape), name="AvgPoolGrad")]


def _avg_pool_grad_grad(op, g):
    attrs = {k: v for k, v in op.attrs.items() if k != "_shape"}
    return [None, make_op("AvgPool", [g], attrs, name="AvgPool")]


def _apg_lower(attrs, sizes, g):
    return jax.vjp(_avg_pool_fn(attrs), jnp.zeros(int_sizes(sizes), g.dtype))[1](g)[0]


register_op("MaxPool", shape=_pool_shape, dtype=same_as_input(0), grad=_max_pool_grad,
            lower=lambda a, x: _max_pool_fn(a)(x))
register_op("MaxPoolGrad", shape=lambda s, a, v: [s[0]], dtype=same_as_input(0), grad=_max_pool_grad_grad,
            lower=_mpg_lower)
register_op("MaxPoolGradGrad", shape=lambda s, a, v: [s[1]], dtype=same_as_input(0), grad=_max_pool_grad_grad_grad,
            lower=_mpgg_lower)
register_op("AvgPool", shape=_pool_shape, dtype=same_as_input(0), grad=_avg_pool_grad,
            lower=lambda a, x: _avg_pool_fn(a)(x))
register_op("AvgPoolGrad", shape=sizes_shape(0), dtype=same_as_input(1), grad=_avg_pool_grad_grad,
            lower=_apg_lower)


def _pool(op_type, value, ksize, strides, padding, data_format, name, input):
    value = input if value is None else value
    x = convert_to_tensor(value, name="input")
    data_format = data_format or "NHWC"
    ch = channel_axis(data_format)
    padding, explicit = check_padding(padding, data_format)
    if explicit:
        raise ValueError("%s does not support explicit padding" % op_type)
    attrs = {"ksize": get_sequence(ksize, 2, ch, "ksize"), "strides": get_sequence(strides, 2, ch, "strides"),
             "padding": padding, "data_format": data_format, "dilations": [1, 1, 1, 1]}
    if 0 in attrs["ksize"]:
        raise ValueError("ksize cannot be zero.")
    for key in ("ksize", "strides"):
        if attrs[key][0] != 1 or attrs[key][ch] != 1:
            raise ValueError("Pooling is not yet supported on the batch or depth dimension (%s=%s)."
                             % (key, attrs[key]))
    return make_op(op_type, [x], attrs, name=name or op_type)


def max_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):
    """Max over ksize windows (padding never wins: SAME pads with -inf)."""
    return _pool("MaxPool", value, ksize, strides, padding, data_format, name, input)


def avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):
    """Mean over ksize windows; with SAME padding each mean counts only the real elements."""
    return _pool("AvgPool", value, ksize, strides, padding, data_format, name, input)


# ---- other entry points ----------------------------------------------------------------------------
def _pool1d(pool, input, ksize, strides, padding, data_format, name, default):
    def body(x, fmt, spatial):
        nchw = fmt == "NCHW"
        return pool(x, one_d_seq(ksize, nchw, "ksize"), one_d_seq(strides, nchw, "strides"), padding,
                    data_format=fmt)
    return one_d(input, data_format, name, default, body)


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """Max pooling over the width of [batch, width, channels]."""
    return _pool1d(max_pool, input, ksize, strides, padding, data_format, name, "MaxPool1d")


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """Average pooling over the width of [batch, width, channels]."""
    return _pool1d(avg_pool, input, ksize, strides, padding, data_format, name, "AvgPool1D")


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """tf.nn.max_pool2d: max_pool with the TF2 argument names."""
    return max_pool(input, ksize, strides, padding, data_format=data_format, name=name)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """tf.nn.avg_pool2d: avg_pool with the TF2 argument names."""
    return avg_pool(input, ksize, strides, padding, data_format=data_format, name=name)


def pool(input, window_shape, pooling_type, padding, dilation_rate=None, strides=None, name=None, data_format=None):
    """tf.nn.pool for 2-D windows: pooling_type "MAX" or "AVG"."""
    if dilation_rate is not None and any(r != 1 for r in dilation_rate):
        raise ValueError("tinyflow's pool supports dilation_rate 1 only")
    fn = {"MAX": max_pool, "AVG": avg_pool}.get(pooling_type)
    if fn is None:
        raise ValueError("Invalid pooling_type: %s" % pooling_type)
    if len(window_shape) != 2:
        raise ValueError("tinyflow's pool supports 2-D windows only")
    return fn(input, list(window_shape), list(strides or [1, 1]), padding, data_format=data_format or "NHWC",
              name=name)


max_pool_v2 = max_pool2d
avg_pool_v2 = avg_pool2d


# ---- local response normalization ------------------------------------------------------------------
def _lrn_fn(attrs):
    r = attrs["depth_radius"]

    def lrn(x):
        sq = lax.reduce_window(jnp.square(x), np.array(0, x.dtype), lax.add, (1, 1, 1, 2 * r + 1), (1, 1, 1, 1),
                               [(0, 0), (0, 0), (0, 0), (r, r)])
        return (x / (attrs["bias"] + attrs["alpha"] * sq) ** attrs["beta"]).astype(x.dtype)
    return lrn


def _lrn_shape(shapes, attrs, values):
    if shapes[0].ndims not in (None, 4):
        raise ShapeError("Shape must be rank 4 but is rank %d" % shapes[0].ndims)
    return [shapes[0]]


register_op("LRN", shape=_lrn_shape, dtype=same_as_input(0), lower=lambda a, x: _lrn_fn(a)(x),
            grad=lambda op, g: [make_op("LRNGrad", [g, op.inputs[0], op.outputs[0]], op.attrs, name="LRNGrad")])
register_op("LRNGrad", shape=lambda s, a, v: [s[1]], dtype=same_as_input(0), grad=None,
            lower=lambda a, g, x, y: jax.vjp(_lrn_fn(a), x)[1](g)[0])


def local_response_normalization(input, depth_radius=5, bias=1, alpha=1, beta=0.5, name=None):
    """input / (bias + alpha * sum of squares over 2 * depth_radius + 1 neighbouring channels) ** beta."""
    x = convert_to_tensor(input, name="input")
    attrs = {"depth_radius": int(depth_radius), "bias": float(bias), "alpha": float(alpha), "beta": float(beta)}
    return make_op("LRN", [x], attrs, name=name or "LRN")


lrn = local_response_normalization


# ---- space_to_depth / depth_to_space ---------------------------------------------------------------
def _s2d(x, b, nchw):
    if nchw:
        x = jnp.transpose(x, (0, 2, 3, 1))
    n, h, w, c = x.shape
    y = x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5).reshape(n, h // b, w // b, b * b * c)
    return jnp.transpose(y, (0, 3, 1, 2)) if nchw else y


def _d2s(x, b, nchw):
    if nchw:
        x = jnp.transpose(x, (0, 2, 3, 1))
    n, h, w, c = x.shape
    y = x.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5).reshape(n, h * b, w * b, c // (b * b))
    return jnp.transpose(y, (0, 3, 1, 2)) if nchw else y


def _divisible(d, k):
    if d is not None and d % k:
        raise ShapeError("Dimension size must be evenly divisible by %d but is %d" % (k, d))
    return None if d is None else d // k


def _block_shape(to_depth):
    def rule(shapes, attrs, values):
        x = shapes[0]
        if x.ndims is None:
            return [x]
        if x.ndims != 4:
            raise ShapeError("Shape must be rank 4 but is rank %d" % x.ndims)
        b, fmt = attrs["block_size"], attrs["data_format"]
        dims = x.as_list()
        (h, w), c = spatial_axes(fmt), channel_axis(fmt)
        if to_depth:
            dims[h], dims[w] = _divisible(dims[h], b), _divisible(dims[w], b)
            dims[c] = None if dims[c] is None else dims[c] * b * b
        else:
            dims[c] = _divisible(dims[c], b * b)
            dims[h] = None if dims[h] is None else dims[h] * b
            dims[w] = None if dims[w] is None else dims[w] * b
        return [TensorShape(dims)]
    return rule


register_op("SpaceToDepth", shape=_block_shape(True), dtype=same_as_input(0),
            grad=lambda op, g: [make_op("DepthToSpace", [g], op.attrs)],
            lower=lambda a, x: _s2d(x, a["block_size"], a["data_format"] == "NCHW"))
register_op("DepthToSpace", shape=_block_shape(False), dtype=same_as_input(0),
            grad=lambda op, g: [make_op("SpaceToDepth", [g], op.attrs)],
            lower=lambda a, x: _d2s(x, a["block_size"], a["data_format"] == "NCHW"))


def _block_op(op_type, input, block_size, name, data_format):
    if int(block_size) < 2:
        raise ValueError("Value for attr 'block_size' of %d must be at least minimum 2" % int(block_size))
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError("data_format must be NHWC or NCHW, got %r" % data_format)
    x = convert_to_tensor(input, name="input")
    return make_op(op_type, [x], {"block_size": int(block_size), "data_format": data_format}, name=name or op_type)


def space_to_depth(input, block_size, name=None, data_format="NHWC"):
    """Moves each block_size x block_size spatial block into the depth dimension."""
    return _block_op("SpaceToDepth", input, block_size, name, data_format)


def depth_to_space(input, block_size, name=None, data_format="NHWC"):
    """The inverse of space_to_depth: depth becomes block_size x block_size spatial blocks."""
    return _block_op("DepthToSpace", input, block_size, name, data_format)
