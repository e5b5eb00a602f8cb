"""Conv3D, Conv3DBackpropInputV2 and Conv3DBackpropFilterV2 (tf.nn.conv3d, conv3d_transpose,
conv3d_backprop_filter): XLA's convolution over NDHWC or NCDHW and its VJPs; as in TF each one's gradient
is built of the others, so gradients of gradients exist."""
import jax
import jax.numpy as jnp
from jax import lax

from tinyflow.graph.core import ShapeError
from tinyflow.graph.registry import register_op
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.conv_ops import _partial_shape, _same_float
from tinyflow.ops.core.array_ops import shape, shape_tensor
from tinyflow.ops.core.base import convert_to_tensor, make_op
from tinyflow.ops.window import int_sizes, sizes_shape

__all__ = ["conv3d", "conv3d_transpose", "conv3d_backprop_filter"]


def _conv(a, x, w):
    fmt = a["data_format"]
    sp = [1, 2, 3] if fmt == "NDHWC" else [2, 3, 4]
    return lax.conv_general_dilated(x, w, [a["strides"][i] for i in sp], a["padding"],
                                    rhs_dilation=[a["dilations"][i] for i in sp],
                                    dimension_numbers=(fmt, "DHWIO", fmt),
                                    precision=lax.Precision.HIGHEST).astype(x.dtype)


def _conv_shape(shapes, attrs, values):
    x, w = shapes
    for s, what in ((x, "input"), (w, "filter")):
        if s.ndims is not None and s.ndims != 5:
            raise ShapeError("Shape must be rank 5 but is rank %d for Conv3D's %s" % (s.ndims, what))
    if x.ndims is None:
        return [TensorShape(None)]
    fmt = attrs["data_format"]
    sp, ch = ([1, 2, 3], 4) if fmt == "NDHWC" else ([2, 3, 4], 1)
    xs, ws = x.as_list(), w.as_list() if w.ndims is not None else [None] * 5
    if xs[ch] is not None and ws[3] is not None and xs[ch] != ws[3]:
        raise ShapeError("Dimensions must be equal, but are %d and %d for Conv3D (input depth and filter in_channels)"
                         % (xs[ch], ws[3]))
    out = list(xs)
    for j, ax in enumerate(sp):
        n, k, s, d = xs[ax], ws[j], attrs["strides"][ax], attrs["dilations"][ax]
        if n is None or (k is None and attrs["padding"] == "VALID"):
            out[ax] = None
        else:
            out[ax] = -(-n // s) if attrs["padding"] == "SAME" else -(-(n - (k - 1) * d) // s)
    out[ch] = ws[4]
    return [TensorShape(out)]


def _backprop_input(a, sizes, w, dy):
    # sizes: a value known while tracing (tf.stack of tf.shape's parts, constants), as in 2-D
    zeros = jnp.zeros(int_sizes(sizes), dy.dtype)
    return jax.vjp(lambda x: _conv(a, x, w), zeros)[1](dy)[0]


def _backprop_filter(a, x, sizes, dy):
    zeros = jnp.zeros(int_sizes(sizes), dy.dtype)
    return jax.vjp(lambda w: _conv(a, x, w), zeros)[1](dy)[0]


# TF's gradients of the family, each the others' op (so that gradients of gradients exist)
def _op(op_type, inputs, attrs, hint=None):
    attrs = {k: attrs[k] for k in ("strides", "padding", "data_format", "dilations")}
    return make_op(op_type, inputs, attrs if hint is None else dict(attrs, _shape=hint), name=op_type)


def _conv_grad(op, g):
    x, w = op.inputs
    return [_op("Conv3DBackpropInputV2", [shape(x), w, g], op.attrs, x.shape),
            _op("Conv3DBackpropFilterV2", [x, shape(w), g], op.attrs, w.shape)]


def _input_grad(op, g):
    _, w, dy = op.inputs
    return [None, _op("Conv3DBackpropFilterV2", [g, shape(w), dy], op.attrs, w.shape),
            _op("Conv3D", [g, w], op.attrs)]


def _filter_grad(op, g):
    x, _, dy = op.inputs
    return [_op("Conv3DBackpropInputV2", [shape(x), g, dy], op.attrs, x.shape), None, _op("Conv3D", [x, g], op.attrs)]


register_op("Conv3D", shape=_conv_shape, dtype=_same_float, grad=_conv_grad, lower=_conv)
register_op("Conv3DBackpropInputV2", shape=sizes_shape(0), dtype=lambda d, a: [d[1]], grad=_input_grad,
            lower=_backprop_input)
register_op("Conv3DBackpropFilterV2", shape=sizes_shape(1), dtype=lambda d, a: [d[0]], grad=_filter_grad,
            lower=_backprop_filter)


def _attrs(strides, padding, data_format, dilations):
    data_format = data_format or "NDHWC"
    if data_format not in ("NDHWC", "NCDHW"):
        raise ValueError("Unknown data_format %r: must be 'NDHWC' or 'NCDHW'" % (data_format,))
    ch = 4 if data_format == "NDHWC" else 1
    attrs = {"padding": padding, "data_format": data_format}
    for key, v in (("strides", strides), ("dilations", dilations or [1] * 5)):
        v = [int(i) for i in v]
        if len(v) != 5 or v[0] != 1 or v[ch] != 1:
            raise ValueError("Conv3D's %s must have 5 values with 1 for the batch and depth dimensions, got %s"
                             % (key, v))
        attrs[key] = v
    if padding not in ("SAME", "VALID"):
        raise ValueError("padding must be 'SAME' or 'VALID', got %r" % (padding,))
    return attrs


def conv3d(input, filter=None, strides=None, padding=None, data_format="NDHWC", dilations=(1, 1, 1, 1, 1), name=None,
           filters=None):
    """3-D convolution of a 5-D input with a [depth, height, width, in, out] filter (TF's Conv3D)."""
    x = convert_to_tensor(input, name="input")
    w = convert_to_tensor(filter if filter is not None else filters, dtype=x.dtype, name="filter")
    return make_op("Conv3D", [x, w], _attrs(strides, padding, data_format, dilations), name=name or "Conv3D")


def conv3d_transpose(value, filter=None, output_shape=None, strides=None, padding="SAME", data_format="NDHWC",
                     name=None, input=None, filters=None, dilations=None):
    """The transpose (input gradient) of conv3d: `value` to a tensor of `output_shape`; the filter is
    [depth, height, width, output_channels, in_channels]."""
    x = convert_to_tensor(value if value is not None else input, name="value")
    w = convert_to_tensor(filter if filter is not None else filters, dtype=x.dtype, name="filter")
    sizes = shape_tensor(output_shape, name="output_shape")
    attrs = dict(_attrs(strides, padding, data_format, dilations), _shape=_partial_shape(sizes, 5))
    return make_op("Conv3DBackpropInputV2", [sizes, w, x], attrs, name=name or "conv3d_transpose")


def conv3d_backprop_filter(input, filter_sizes, out_backprop, strides, padding, data_format="NDHWC",
                           dilations=(1, 1, 1, 1, 1), name=None):
    """The gradient of conv3d with respect to its filter (of shape filter_sizes): TF's Conv3DBackpropFilterV2."""
    x = convert_to_tensor(input, name="input")
    dy = convert_to_tensor(out_backprop, dtype=x.dtype, name="out_backprop")
    sizes = shape_tensor(filter_sizes, name="filter_sizes")
    attrs = dict(_attrs(strides, padding, data_format, dilations), _shape=_partial_shape(sizes, 5))
    return make_op("Conv3DBackpropFilterV2", [x, sizes, dy], attrs, name=name or "Conv3DBackpropFilterV2")
