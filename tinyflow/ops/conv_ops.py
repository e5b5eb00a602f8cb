"""Convolution and bias_add (tf.nn), with their gradient ops as ops of their own; the window
arithmetic (TF's SAME/VALID/explicit padding) is window.py's, shared with pooling_ops.py.
The backprop ops (Conv2DBackpropInput, ...) lower as the JAX vector-Jacobian product
of the forward lowering, so they agree with it by construction for every padding/stride/dilation.
"""
import contextvars

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from tinyflow.graph.core import ShapeError, get_default_graph
from tinyflow.graph.registry import register_op, same_as_input
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops import back_shapes
from tinyflow.ops.core.array_ops import expand_dims, reshape, shape, shape_tensor, squeeze
from tinyflow.ops.core.base import as_tensor_or_none, constant_value_of, convert_to_tensor, make_op
from tinyflow.ops.window import (channel_axis, check_padding, get_sequence, int_sizes, jax_padding, one_d, one_d_seq,
                                 sizes_shape, spatial_axes, windowed_shape)

__all__ = ["conv2d", "conv2d_backprop_input", "conv2d_backprop_filter", "conv2d_transpose", "depthwise_conv2d",
           "depthwise_conv2d_native", "bias_add", "conv1d", "conv1d_transpose", "atrous_conv2d", "separable_conv2d",
           "convolution", "depthwise_conv2d_native_backprop_input", "depthwise_conv2d_native_backprop_filter",
           "depthwise_conv2d_backprop_input", "depthwise_conv2d_backprop_filter"]


# Whether the fetch set being traced runs convolutions on XLA's own kernels, not YNNPACK's (set while
# tracing by lower/jax_backend.py from its compiler options): a spanning filter's forward is then a
# 1-D convolution (a text CNN's three: 10 ms; as matmuls 17 ms; YNNPACK's convolutions 56 ms).
EIGEN_CONVOLUTIONS = contextvars.ContextVar("eigen_convolutions", default=False)


def _check_strides(attrs):
    ch = channel_axis(attrs["data_format"])
    for key in ("strides", "dilations"):
        v = attrs[key]
        if len(v) != 4:
            raise ValueError("Sliding window %s field must specify 4 dimensions" % key)
        if v[0] != 1 or v[ch] != 1:
            raise ValueError("Current implementation does not yet support %s in the batch and depth dimensions."
                             % key)


# ---- convolutions ----------------------------------------------------------------------------------
# A family: forward op, backprop-input op, backprop-filter op. Depthwise filters [H, W, C, M] run as a
# grouped convolution with C groups.
def _conv_fn(attrs, depthwise, fold="matmul"):
    """The forward convolution as a jax function of (input, filter). A filter that covers a whole spatial
    dimension runs as _spanning_conv(fold) unless fold is None: as measured (benchmarks/pooling.py), for
    the forward a matmul (a convolution where convolutions run on Eigen: EIGEN_CONVOLUTIONS), a
    convolution for the input gradient, and unfolded for the filter gradient."""
    fmt = attrs["data_format"]
    strides = [attrs["strides"][ax] for ax in spatial_axes(fmt)]
    dil = [attrs["dilations"][ax] for ax in spatial_axes(fmt)]

    def conv(x, w):
        groups = 1
        if depthwise:
            h, wd, c, m = w.shape
            w, groups = w.reshape(h, wd, 1, c * m), c
        pad = jax_padding(x.shape, w.shape[:2], attrs)
        spans = [j for j, ax in enumerate(spatial_axes(fmt))
                 if w.shape[j] == x.shape[ax] and pad[j] == (0, 0) and dil[j] == 1 and w.shape[j] > 1]
        if spans and fold and not depthwise:
            return _spanning_conv(x, w, spans[-1], strides, pad, dil, fmt, fold == "matmul")
        # HIGHEST: full float32 on GPUs too (no TF32), as TF 1.15 computed
        return lax.conv_general_dilated(x, w, strides, pad, rhs_dilation=dil, dimension_numbers=(fmt, "HWIO", fmt),
                                         feature_group_count=groups, precision=lax.Precision.HIGHEST).astype(x.dtype)
    return conv


def _spanning_conv(x, w, j, strides, pad, dil, fmt, matmul):
    """A convolution whose filter covers all of spatial dimension j (unpadded: one output there), as a
    1-D convolution with that dimension folded into the channels, run as a convolution or (`matmul`) as
    one matmul of the k shifted input windows side by side. A text CNN's [3, 128, 1, 128] filter on
    [64, 56, 128, 1] is then a 3-tap convolution over 128 channels; as a 2-D convolution its input
    gradient (a transposed convolution over a 255-wide padded input) took 4.8 s, TF's 0.009 s."""
    i = 1 - j                                           # the other spatial dimension
    ax = spatial_axes(fmt)
    perm = (0, ax[i], ax[j], channel_axis(fmt))        # to [N, other, spanned, C]
    n, other, span, c = (x.shape[a] for a in perm)
    x1 = jnp.transpose(x, perm).reshape(n, other, 1, span * c)
    w1 = jnp.transpose(w, (i, j, 2, 3)).reshape(w.shape[i], 1, span * c, w.shape[3])
    k, s, d = w.shape[i], strides[i], dil[i]
    if matmul:
        xp = jnp.pad(x1[:, :, 0], [(0, 0), pad[i], (0, 0)])
        m = (xp.shape[1] - (k - 1) * d - 1) // s + 1
        patches = jnp.concatenate([xp[:, t * d:t * d + s * (m - 1) + 1:s] for t in range(k)], axis=-1)
        y = jnp.dot(patches.reshape(n * m, k * span * c), w1.reshape(k * span * c, -1),
                    precision=lax.Precision.HIGHEST).reshape(n, m, 1, -1)
    else:
        y = lax.conv_general_dilated(x1, w1, (s, 1), [pad[i], (0, 0)], rhs_dilation=(d, 1),
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"), precision=lax.Precision.HIGHEST)
    return jnp.transpose(y, np.argsort(perm)).astype(x.dtype)



def _conv_shape(depthwise):
    def rule(shapes, attrs, values):
        x, w = shapes
        if w.ndims is not None and w.ndims != 4:
            raise ShapeError("Shape must be rank 4 but is rank %d" % w.ndims)
        wl = w.as_list() if w.ndims is not None else [None] * 4
        if x.ndims is not None and x.ndims == 4:
            cin = x.as_list()[channel_axis(attrs["data_format"])]
            if cin is not None and wl[2] is not None and cin != wl[2]:
                raise ShapeError("Dimensions must be equal, but are %d and %d" % (cin, wl[2]))
            if cin is None:
                cin = wl[2]
        else:
            cin = wl[2]
        if depthwise:
            out_c = None if cin is None or wl[3] is None else cin * wl[3]
        else:
            out_c = wl[3]
        return [windowed_shape(x, wl[:2], attrs, out_c)]
    return rule




def _register_conv_family(fwd, bi, bf, depthwise):
    def fwd_grad(op, g):
        x, w = op.inputs
        return [_backprop(bi, shape(x), w, g, op.attrs, x.shape), _backprop(bf, x, shape(w), g, op.attrs, w.shape)]

    def bi_grad(op, g):
        _, w, dy = op.inputs
        return [None, _backprop(bf, g, shape(w), dy, op.attrs, w.shape), _forward(fwd, g, w, op.attrs)]

    def bf_grad(op, g):
        x, _, dy = op.inputs
        return [_backprop(bi, shape(x), g, dy, op.attrs, x.shape), None, _forward(fwd, x, g, op.attrs)]

    def bi_lower(attrs, sizes, w, dy):
        f = _conv_fn(attrs, depthwise, fold="conv")
        return jax.vjp(lambda x: f(x, w), jnp.zeros(int_sizes(sizes), dy.dtype))[1](dy)[0]

    def bf_lower(attrs, x, sizes, dy):
        f = _conv_fn(attrs, depthwise, fold=None)
        return jax.vjp(lambda w: f(x, w), jnp.zeros(int_sizes(sizes), dy.dtype))[1](dy)[0]

    register_op(fwd, shape=_conv_shape(depthwise), dtype=_same_float, grad=fwd_grad,
                infer_back=None if depthwise else back_shapes.conv2d,
                lower=lambda a, x, w: _conv_fn(a, depthwise, "conv" if EIGEN_CONVOLUTIONS.get() else "matmul")(x, w))
    register_op(bi, shape=sizes_shape(0), dtype=same_as_input(1), grad=bi_grad, lower=bi_lower)
    register_op(bf, shape=sizes_shape(1), dtype=same_as_input(0), grad=bf_grad, lower=bf_lower)


def convert_like(value, like, name=None):
    """A Tensor passes as it is (the op's dtype rule then raises TF's TypeError on a mismatch); any other
    value converts to the dtype of `like`, as TF's op wrappers do."""
    t = as_tensor_or_none(value)
    return t if t is not None else convert_to_tensor(value, dtype=like.dtype, name=name)


def _same_float(dtypes, attrs):
    if dtypes[0] != dtypes[1]:
        raise TypeError("Input 'filter' of '%s' Op has type %s that does not match type %s of argument 'input'."
                        % (attrs.get("_type", "Conv2D"), dtypes[1].name, dtypes[0].name))
    if not dtypes[0].is_floating:
        raise TypeError("Value passed to parameter 'input' has DataType %s not in list of allowed values: "
                        "float16, bfloat16, float32, float64" % dtypes[0].name)
    return [dtypes[0]]


def _attrs(attrs):
    return {k: attrs[k] for k in ("strides", "padding", "data_format", "dilations", "explicit_paddings", "_type")
            if k in attrs}


def _backprop(op_type, a, b, dy, attrs, hint):
    return make_op(op_type, [a, b, dy], dict(_attrs(attrs), _shape=hint), name=op_type)


def _forward(op_type, x, w, attrs):
    return make_op(op_type, [x, w], _attrs(attrs), name=op_type)


_register_conv_family("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", depthwise=False)
_register_conv_family("DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput",
                      "DepthwiseConv2dNativeBackpropFilter", depthwise=True)


def _conv_attrs(op_type, strides, padding, data_format, dilations):
    data_format = data_format or "NHWC"
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError("Unknown data_format %r: must be 'NHWC' or 'NCHW'" % data_format)
    ch = channel_axis(data_format)
    padding, explicit = check_padding(padding, data_format)
    attrs = {"strides": get_sequence(strides, 2, ch, "strides"), "padding": padding, "data_format": data_format,
             "dilations": get_sequence(dilations, 2, ch, "dilations"), "_type": op_type}
    if explicit:
        attrs["explicit_paddings"] = explicit
    _check_strides(attrs)
    return attrs


def conv2d(input, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True, data_format="NHWC",
           dilations=[1, 1, 1, 1], name=None, filters=None):
    """2-D convolution of a 4-D `input` with a [height, width, in, out] `filter` (TF's Conv2D)."""
    filter = filters if filter is None else filter
    x = convert_to_tensor(input, name="input")
    w = convert_like(filter, x, name="filter")
    return make_op("Conv2D", [x, w], _conv_attrs("Conv2D", strides, padding, data_format, dilations),
                   name=name or "Conv2D")


def conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding, use_cudnn_on_gpu=True,
                          data_format="NHWC", dilations=[1, 1, 1, 1], name=None):
    """The gradient of conv2d with respect to its input, whose shape is `input_sizes`."""
    w = convert_to_tensor(filter)
    dy = convert_like(out_backprop, w)
    attrs = _conv_attrs("Conv2DBackpropInput", strides, padding, data_format, dilations)
    return make_op("Conv2DBackpropInput", [shape_tensor(input_sizes), w, dy], attrs,
                   name=name or "Conv2DBackpropInput")


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding, use_cudnn_on_gpu=True,
                           data_format="NHWC", dilations=[1, 1, 1, 1], name=None):
    """The gradient of conv2d with respect to its filter, whose shape is `filter_sizes`."""
    x = convert_to_tensor(input)
    dy = convert_like(out_backprop, x)
    attrs = _conv_attrs("Conv2DBackpropFilter", strides, padding, data_format, dilations)
    return make_op("Conv2DBackpropFilter", [x, shape_tensor(filter_sizes), dy], attrs,
                   name=name or "Conv2DBackpropFilter")


def conv2d_transpose(value=None, filter=None, output_shape=None, strides=None, padding="SAME", data_format="NHWC",
                     name=None, input=None, filters=None, dilations=None):
    """The transpose (gradient) of conv2d: maps `value` back to a tensor of `output_shape`."""
    value = input if value is None else value
    filter = filters if filter is None else filter
    with get_default_graph().name_scope(name or "conv2d_transpose") as scope:
        value = convert_to_tensor(value, name="value")
        w = convert_like(filter, value, name="filter")
        ch = channel_axis(data_format or "NHWC")
        if w.shape.ndims is not None and value.shape.ndims is not None and \
                not value.shape[ch].is_compatible_with(w.shape[3]):
            raise ValueError("input channels does not match filter's input channels, {} != {}".format(
                value.shape[ch], w.shape[3]))
        sizes = shape_tensor(output_shape, name="output_shape")
        static = constant_value_of(sizes)
        if static is not None and w.shape.ndims is not None and \
                not w.shape[2].is_compatible_with(int(np.asarray(static).reshape(-1)[ch])):
            raise ValueError("output_shape does not match filter's output channels, {} != {}".format(
                int(np.asarray(static).reshape(-1)[ch]), w.shape[2]))
        attrs = _conv_attrs("Conv2DBackpropInput", strides, padding, data_format, dilations)
        attrs["_shape"] = _partial_shape(sizes)
        return make_op("Conv2DBackpropInput", [sizes, w, value], attrs, name=scope)


def _partial_shape(sizes, rank=4):
    """The static part of a shape tensor: tf.stack([tf.shape(x)[0], 6, 6, 2]) gives [None, 6, 6, 2]."""
    if sizes.op.type == "Pack":
        dims = [constant_value_of(t) for t in sizes.op.inputs]
        return TensorShape([None if d is None else int(d) for d in dims])
    return TensorShape([None] * rank)


def depthwise_conv2d_native(input, filter, strides, padding, data_format="NHWC", dilations=[1, 1, 1, 1], name=None):
    """Depthwise convolution: filter [h, w, in, multiplier], output channels in * multiplier."""
    x = convert_to_tensor(input, name="input")
    w = convert_like(filter, x, name="filter")
    attrs = _conv_attrs("DepthwiseConv2dNative", strides, padding, data_format, dilations)
    return make_op("DepthwiseConv2dNative", [x, w], attrs, name=name or "DepthwiseConv2dNative")


def depthwise_conv2d(input, filter, strides, padding, rate=None, name=None, data_format=None, dilations=None):
    """tf.nn.depthwise_conv2d: each input channel convolved with its own `multiplier` filters."""
    if rate is None:
        rate = dilations
    rate = [1, 1] if rate is None else list(rate)
    if len(rate) == 4:
        rate = [rate[i] for i in spatial_axes(data_format or "NHWC")]
    with get_default_graph().name_scope(name or "depthwise") as scope:
        return depthwise_conv2d_native(input, filter, strides, padding, data_format=data_format or "NHWC",
                                       dilations=rate, name=scope)


# ---- bias_add --------------------------------------------------------------------------------------
def _bias_axis(rank, data_format):
    return 1 if data_format == "NCHW" else rank - 1


def _bias_add_shape(shapes, attrs, values):
    x, b = shapes
    if b.ndims is not None and b.ndims != 1:
        raise ShapeError("Shape must be rank 1 but is rank %d" % b.ndims)
    if x.ndims is None:
        return [x]
    if x.ndims < 2:
        raise ShapeError("Shape must be at least rank 2 but is rank %d" % x.ndims)
    ax = _bias_axis(x.ndims, attrs["data_format"])
    if b.ndims is not None and not x[ax].is_compatible_with(b[0]):
        raise ShapeError("Dimensions must be equal, but are %s and %s" % (x[ax], b[0]))
    dims = x.as_list()
    dims[ax] = dims[ax] if dims[ax] is not None else (b.as_list()[0] if b.ndims else None)
    return [TensorShape(dims)]


def _bias_view(rank, data_format):
    """Shape that broadcasts a bias vector against the input."""
    view = [1] * rank
    view[_bias_axis(rank, data_format)] = -1
    return view


def _bias_add_lower(attrs, x, b):
    return x + b.reshape(_bias_view(x.ndim, attrs["data_format"]))


def _bias_add_grad_lower(attrs, g):
    ax = _bias_axis(g.ndim, attrs["data_format"])
    return jnp.sum(g, axis=tuple(i for i in range(g.ndim) if i != ax)).astype(g.dtype)


def _bias_add_grad_shape(shapes, attrs, values):
    g = shapes[0]
    if g.ndims is None:
        return [TensorShape([None])]
    return [TensorShape([g[_bias_axis(g.ndims, attrs["data_format"])]])]


def _bias_add_grad_grad(op, gg):
    g = op.inputs[0]
    if g.shape.ndims is None:
        raise ValueError("The gradient of BiasAddGrad needs the input's rank")
    b = reshape(gg, _bias_view(g.shape.ndims, op.attrs["data_format"]))
    return [make_op("BroadcastLike", [b, g])]


def _bias_add_dtype(dtypes, attrs):
    if dtypes[0] != dtypes[1]:
        raise TypeError("Input 'bias' of 'BiasAdd' Op has type %s that does not match type %s of argument 'value'."
                        % (dtypes[1].name, dtypes[0].name))
    return [dtypes[0]]


register_op("BiasAdd", shape=_bias_add_shape, dtype=_bias_add_dtype, inplace=((0, 0),), infer_back=back_shapes.bias_add,
            grad=lambda op, g: [g, make_op("BiasAddGrad", [g], {"data_format": op.attrs["data_format"]})],
            lower=_bias_add_lower)
register_op("BiasAddGrad", shape=_bias_add_grad_shape, dtype=same_as_input(0), grad=_bias_add_grad_grad,
            lower=_bias_add_grad_lower)


def bias_add(value, bias, data_format=None, name=None):
    """value + bias, bias a vector added along the channel axis (last; axis 1 for NCHW)."""
    with get_default_graph().name_scope(name or "BiasAdd") as scope:
        value = convert_to_tensor(value, name="input")
        bias = convert_like(bias, value, name="bias")
        if data_format not in (None, "NHWC", "NCHW", "N..C", "NC.."):
            raise ValueError("data_format must be NHWC or NCHW, got %r" % data_format)
        fmt = "NCHW" if data_format in ("NCHW", "NC..") else "NHWC"
        return make_op("BiasAdd", [value, bias], {"data_format": fmt, "_type": "BiasAdd"}, name=scope)


# ---- compositions: 1-D, atrous, separable, the generic entry point --------------------------------




def conv1d(value=None, filters=None, stride=None, padding=None, use_cudnn_on_gpu=None, data_format=None, name=None,
           input=None, dilations=None):
    """1-D convolution of [batch, width, in] (NWC) with a [width, in, out] filter."""
    value = input if value is None else value

    def body(x, fmt, spatial):
        w = expand_dims(convert_like(filters, x, name="filters"), 0)
        nchw = fmt == "NCHW"
        return conv2d(x, w, one_d_seq(stride, nchw, "stride"), padding, data_format=fmt,
                      dilations=one_d_seq(dilations, nchw, "dilations"))
    return one_d(value, data_format, name, "conv1d", body)


def atrous_conv2d(value, filters, rate, padding, name=None):
    """conv2d with the filter dilated by `rate` (holes between its taps)."""
    return conv2d(value, filters, [1, 1, 1, 1], padding, dilations=[1, rate, rate, 1], name=name or "convolution")


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, rate=None, name=None,
                     data_format=None, dilations=None):
    """A depthwise convolution followed by a 1x1 (pointwise) convolution mixing channels."""
    with get_default_graph().name_scope(name or "separable_conv2d") as scope:
        depth = depthwise_conv2d(input, depthwise_filter, strides, padding, rate=rate, name="depthwise",
                                 data_format=data_format, dilations=dilations)
        return conv2d(depth, pointwise_filter, [1, 1, 1, 1], "VALID", data_format=data_format or "NHWC", name=scope)


def convolution(input, filter=None, padding=None, strides=None, dilation_rate=None, name=None, data_format=None,
                filters=None, dilations=None):
    """tf.nn.convolution of 1-D and 2-D inputs (rank 3 and 4; rank 5: api/nn_more.py's convolution)."""
    filter = filters if filter is None else filter
    dilations = dilation_rate if dilations is None else dilations
    x = convert_to_tensor(input, name="input")
    if x.shape.ndims == 3:
        return conv1d(x, filter, strides, padding, data_format=data_format, name=name or "convolution",
                      dilations=dilations)
    if x.shape.ndims not in (None, 4):
        raise ValueError("Input tensor must be of rank 3, 4 or 5 but was %d." % x.shape.ndims)
    return conv2d(x, filter, strides, padding, data_format=data_format, dilations=dilations,
                  name=name or "convolution")


def depthwise_conv2d_native_backprop_input(input_sizes, filter, out_backprop, strides, padding, data_format="NHWC",
                                           dilations=[1, 1, 1, 1], name=None):
    """The gradient of depthwise_conv2d_native with respect to its input."""
    w = convert_to_tensor(filter)
    attrs = _conv_attrs("DepthwiseConv2dNativeBackpropInput", strides, padding, data_format, dilations)
    return make_op("DepthwiseConv2dNativeBackpropInput", [shape_tensor(input_sizes), w,
                                                          convert_like(out_backprop, w)],
                   attrs, name=name or "DepthwiseConv2dNativeBackpropInput")


def depthwise_conv2d_native_backprop_filter(input, filter_sizes, out_backprop, strides, padding, data_format="NHWC",
                                            dilations=[1, 1, 1, 1], name=None):
    """The gradient of depthwise_conv2d_native with respect to its filter."""
    x = convert_to_tensor(input)
    attrs = _conv_attrs("DepthwiseConv2dNativeBackpropFilter", strides, padding, data_format, dilations)
    return make_op("DepthwiseConv2dNativeBackpropFilter", [x, shape_tensor(filter_sizes),
                                                           convert_like(out_backprop, x)],
                   attrs, name=name or "DepthwiseConv2dNativeBackpropFilter")


def conv1d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NWC", dilations=None,
                     name=None):
    """The transpose of conv1d: [batch, width, in] to `output_shape` with a [width, out, in] filter."""
    nchw = data_format in ("NCW", "NCHW")
    spatial = 2 if nchw else 1
    with get_default_graph().name_scope(name or "conv1d_transpose") as scope:
        x = expand_dims(convert_to_tensor(input, name="input"), spatial)
        w = expand_dims(convert_like(filters, x, name="filters"), 0)
        shape = list(output_shape)
        shape.insert(spatial, 1)
        y = conv2d_transpose(x, w, shape, one_d_seq(strides, nchw, "strides"), padding,
                             data_format="NCHW" if nchw else "NHWC", dilations=one_d_seq(dilations, nchw, "dilations"))
        return squeeze(y, [spatial], name=scope)


depthwise_conv2d_backprop_input = depthwise_conv2d_native_backprop_input
depthwise_conv2d_backprop_filter = depthwise_conv2d_native_backprop_filter
