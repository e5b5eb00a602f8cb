"""Window arithmetic of convolution and pooling, in one place: TF's SAME gives ceil(n / stride)
outputs and pads (total // 2) before and the rest after (the extra row/column goes at the end);
VALID gives ceil((n - window + 1) / stride); explicit padding gives its pairs. Data formats of any
rank: 2-D ops are rank 4 (NHWC/NCHW), 3-D pools rank 5 (NDHWC/NCDHW). Also the 1-D entry points'
trick: a 2-D op on a height-1 image, squeezed back."""
import numbers

import numpy as np

from tinyflow.graph.core import ShapeError, get_default_graph
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core.array_ops import expand_dims, squeeze
from tinyflow.ops.core.base import convert_to_tensor


PADDINGS = ("SAME", "VALID", "EXPLICIT")


# ---- window arithmetic (numpy only) ----------------------------------------------------------------
def spatial_axes(data_format):
    """The spatial axes of a data format: (1, 2) for NHWC, (2, 3, 4) for NCDHW."""
    n = len(data_format) - 2
    return tuple(range(2, 2 + n)) if data_format.startswith("NC") else tuple(range(1, 1 + n))


def channel_axis(data_format):
    return 1 if data_format.startswith("NC") else len(data_format) - 1


def get_sequence(value, n, channel_index, name):
    """TF's _get_sequence: an int or a list of 1, n or n+2 ints as the full n+2 list."""
    if value is None:
        return [1] * (n + 2)
    if isinstance(value, numbers.Integral):
        value = [value]
    value = [int(v) for v in value]
    if len(value) == n + 2:
        return value
    if len(value) == 1:
        value = value * n
    elif len(value) != n:
        raise ValueError("%s should be of length 1, %d or %d but was %d" % (name, n, n + 2, len(value)))
    full = [1] * (n + 2)
    start = 2 if channel_index == 1 else 1
    full[start:start + n] = value
    return full


def check_padding(padding, data_format):
    """A padding string, or explicit [[lo, hi]] * 4 pairs: returns (padding, explicit flat list)."""
    if isinstance(padding, (list, tuple)):
        pads = [list(p) for p in padding]
        if len(pads) != 4 or any(len(p) != 2 for p in pads):
            raise ValueError("When padding is explicit, it must be a list of 4 [before, after] pairs, got %s"
                             % (padding,))
        if any(pads[i] != [0, 0] for i in (0, channel_axis(data_format))):
            raise ValueError("Explicit padding in the batch or depth dimension is not supported")
        return "EXPLICIT", [int(v) for p in pads for v in p]
    padding = padding.decode() if isinstance(padding, bytes) else padding
    if padding not in PADDINGS[:2]:
        raise ValueError("Value for attr 'padding' of \"%s\" is not in the list of allowed values: \"SAME\", "
                         "\"VALID\"" % padding)
    return padding, None


def out_size(n, k, s, d, padding, pads=None):
    """Output length of one spatial dimension (None when n is unknown); TF's error when VALID is too small."""
    eff = (k - 1) * d + 1 if k is not None else None
    if n is None or eff is None:
        return None
    if padding == "SAME":
        return -(-n // s)
    if pads:
        n = n + pads[0] + pads[1]
    if n < eff:
        raise ShapeError("Negative dimension size caused by subtracting %d from %d" % (eff, n))
    return (n - eff) // s + 1


def pad_pair(n, k, s, d, padding, explicit=None):
    """(before, after) padding of one spatial dimension, TF's asymmetric SAME."""
    if padding == "VALID":
        return (0, 0)
    if padding == "EXPLICIT":
        return explicit
    eff = (k - 1) * d + 1
    total = max((-(-n // s) - 1) * s + eff - n, 0)
    return (total // 2, total - total // 2)


def windowed_shape(x, window, attrs, out_channels):
    """Output shape of a windowed op on partial shape x (NHWC or NCHW)."""
    if x.ndims is None:
        return TensorShape(None)
    if x.ndims != 4:
        raise ShapeError("Shape must be rank 4 but is rank %d" % x.ndims)
    fmt = attrs["data_format"]
    dims = x.as_list()
    out = list(dims)
    for j, ax in enumerate(spatial_axes(fmt)):
        out[ax] = out_size(dims[ax], window[j], attrs["strides"][ax], attrs["dilations"][ax], attrs["padding"],
                            explicit_pads(attrs, ax))
    out[channel_axis(fmt)] = out_channels
    return TensorShape(out)


def explicit_pads(attrs, ax):
    e = attrs.get("explicit_paddings")
    return (e[2 * ax], e[2 * ax + 1]) if e else None


def jax_padding(shape, window, attrs):
    """lax padding pairs for the spatial dims of a concrete input shape."""
    return [pad_pair(shape[ax], window[j], attrs["strides"][ax], attrs["dilations"][ax], attrs["padding"],
                  explicit_pads(attrs, ax)) for j, ax in enumerate(spatial_axes(attrs["data_format"]))]


# ---- pooling windows: attrs hold full-rank ksize and strides, no dilation ------------------------------
def pooled_shape(x, attrs):
    """Output shape of a 2-D or 3-D pool on partial shape x."""
    fmt = attrs["data_format"]
    if x.ndims is None:
        return TensorShape([None] * len(fmt))
    if x.ndims != len(fmt):
        raise ShapeError("Shape must be rank %d but is rank %d" % (len(fmt), x.ndims))
    dims = x.as_list()
    for ax in spatial_axes(fmt):
        dims[ax] = out_size(dims[ax], attrs["ksize"][ax], attrs["strides"][ax], 1, attrs["padding"])
    return TensorShape(dims)


def pool_padding(shape, attrs):
    """(before, after) padding of every axis of concrete `shape` ((0, 0) for batch and channels)."""
    pad = [(0, 0)] * len(shape)
    for ax in spatial_axes(attrs["data_format"]):
        pad[ax] = pad_pair(shape[ax], attrs["ksize"][ax], attrs["strides"][ax], 1, attrs["padding"])
    return pad


def pool_geometry(shape, attrs):
    """(size, window, stride, pad before, outputs) of each spatial axis of concrete `shape`."""
    geo = []
    for ax in spatial_axes(attrs["data_format"]):
        n, k, s = shape[ax], attrs["ksize"][ax], attrs["strides"][ax]
        m = out_size(n, k, s, 1, attrs["padding"])
        # one window (pooling over a whole sequence): no stride is taken, and a stride >= k says so
        geo.append((n, k, max(s, k) if m == 1 else s, pad_pair(n, k, s, 1, attrs["padding"])[0], m))
    return geo


def int_sizes(v):
    return tuple(int(d) for d in np.asarray(v).reshape(-1))


def sizes_shape(index, hint_key="_shape"):
    """Shape rule of a backprop op: the constant sizes input, else the hint the gradient rule left."""
    def rule(shapes, attrs, values):
        v = values[index]
        if v is not None:
            return [TensorShape(list(int_sizes(v)))]
        return [attrs.get(hint_key) or TensorShape([None] * 4)]
    return rule


def one_d(value, data_format, name, default, body):
    """Runs a 2-D op on a 1-D problem: a height-1 image, squeezed back."""
    data_format = data_format or "NWC"
    if data_format not in ("NWC", "NCW", "NHWC", "NCHW"):
        raise ValueError("data_format must be \"NWC\" or \"NCW\".")
    nchw = data_format in ("NCW", "NCHW")
    spatial = 2 if nchw else 1
    with get_default_graph().name_scope(name or default) as scope:
        x = expand_dims(convert_to_tensor(value, name="input"), spatial)
        return squeeze(body(x, "NCHW" if nchw else "NHWC", spatial), [spatial], name=scope)


def one_d_seq(v, nchw, what):
    v = get_sequence(v, 1, 1 if nchw else 2, what)   # [1, 1, w] (NCW) or [1, w, 1] (NWC): height 1 added
    return [1, 1, 1] + v[2:] if nchw else [1, 1] + v[1:]
