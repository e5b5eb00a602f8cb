"""Core ops of TF 1.15's long tail: histogram_fixed_width, bitcast, ensure_shape, extract_image_patches,
extract_volume_patches, serialize_tensor / parse_tensor (TF's TensorProto bytes, on the host)."""
import itertools

import jax
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import dtypes as dt, errors
from tinyflow.graph.core import ShapeError, get_default_graph
from tinyflow.graph.registry import register_op, same_as_input
from tinyflow.graph.shapes import TensorShape, as_shape
from tinyflow.ops.core.base import constant_value_of, convert_to_tensor, make_op
from tinyflow.ops.core.math_ops import NUMERIC, dtype_rule
from tinyflow.ops.host_ops import make_host_op, register_host_op
from tinyflow.ops.linalg_decomp import vjp_grad

__all__ = ["bitcast", "ensure_shape", "extract_image_patches", "extract_volume_patches",
           "histogram_fixed_width", "parse_tensor", "serialize_tensor"]


# ---- HistogramFixedWidth: TF's kernel (values clamped into the range, bins in double) ---------------------------
def _histogram_lower(a, values, value_range):
    nbins = a["nbins"]
    r0 = value_range[0]
    step = (value_range[1] - r0).astype(jnp.float64) / nbins
    index = jnp.minimum((jnp.maximum(values, r0) - r0).astype(jnp.float64) / step, nbins - 1).astype(jnp.int32)
    return jnp.zeros(nbins, a["dtype"].np).at[index.reshape(-1)].add(1)


register_op("HistogramFixedWidth", shape=lambda s, a, v: [TensorShape([a["nbins"]])], dtype=lambda d, a: [a["dtype"]],
            grad=None, lower=_histogram_lower)


def histogram_fixed_width(values, value_range, nbins=100, dtype=dt.int32, name=None):
    """Counts of `values` in `nbins` equal bins over value_range = [lo, hi]; values below lo count in the
    first bin, values at or above hi in the last."""
    with get_default_graph().name_scope(name or "histogram_fixed_width"):
        values = convert_to_tensor(values, name="values")
        value_range = convert_to_tensor(value_range, values.dtype, name="value_range")
        n = constant_value_of(convert_to_tensor(nbins, dt.int32, name="nbins"))
        if n is None or int(n) <= 0:
            raise ValueError("histogram_fixed_width: nbins must be a constant positive integer, got %s" % (nbins,))
        dtype_rule("HistogramFixedWidth", NUMERIC, names=("values", "value_range"))([values.dtype] * 2, {})
        return make_op("HistogramFixedWidth", [values, value_range], {"nbins": int(n), "dtype": dt.as_dtype(dtype)},
                       name="HistogramFixedWidth")


# ---- Bitcast: the same bits as another dtype (a last dimension added or removed for other sizes) ----------------
def _bitcast_shape(shapes, attrs, values):
    s, size_in, size_out = shapes[0], attrs["T"].size, attrs["type"].size
    if size_in == size_out or s.ndims is None:
        return [s if size_in == size_out else TensorShape(None)]
    if size_in > size_out:
        return [s.concatenate([size_in // size_out])]
    if s.ndims == 0 or not s[-1].is_compatible_with(size_out // size_in):
        raise ShapeError("Cannot bitcast due to shape. %s does not match %d" % (s[-1] if s.ndims else "[]",
                                                                                size_out // size_in))
    return [s[:-1]]


register_op("Bitcast", shape=_bitcast_shape, dtype=lambda d, a: [a["type"]], grad=None,
            lower=lambda a, x: jax.lax.bitcast_convert_type(x, a["type"].np))


def bitcast(input, type, name=None):
    """The bits of `input` as dtype `type`: [..., k] of the smaller type for each element of a larger one."""
    x = convert_to_tensor(input, name="input")
    type = dt.as_dtype(type)
    for d, what in ((x.dtype, "input"), (type, "type")):
        if d in (dt.string, dt.bool_):
            raise TypeError("Value passed to parameter '%s' has DataType %s not in list of allowed values"
                            % (what, d.name))
    return make_op("Bitcast", [x], {"T": x.dtype, "type": type}, name=name or "Bitcast")


# ---- EnsureShape: identity that checks the shape it runs with -------------------------------------------------
def _ensure_check(a, x):
    want = a["shape"]
    ok = len(want) == x.ndim and all(w is None or w == d for w, d in zip(want, x.shape))
    return jnp.array(ok), jnp.array(x.shape, np.int64)


def _ensure_message(op, shape):
    want = "[%s]" % ",".join("?" if d is None else str(d) for d in op.attrs["shape"])
    return "Shape of tensor %s [%s] is not compatible with expected shape %s." % (
        op.inputs[0].op.name, ",".join(str(int(d)) for d in shape), want)


def _ensure_shape(shapes, attrs, values):
    want = TensorShape(attrs["shape"])
    if not shapes[0].is_compatible_with(want):
        raise ShapeError("Incompatible shapes: %s vs. %s" % (shapes[0], want))
    return [shapes[0].merge_with(want)]


register_op("EnsureShape", shape=_ensure_shape, dtype=same_as_input(0), grad=lambda op, g: [g],
            lower=lambda a, x: x, check=_ensure_check, check_message=_ensure_message)


def ensure_shape(x, shape, name=None):
    """x, checked when it runs to have a shape compatible with `shape` (InvalidArgumentError if not)."""
    x = convert_to_tensor(x, name="x")
    shape = as_shape(shape)
    if shape.ndims is None:
        return x
    return make_op("EnsureShape", [x], {"shape": shape.as_list()}, name=name or "EnsureShape")


# ---- ExtractImagePatches / ExtractVolumePatches: each patch's values, in TF's (row, column, channel) order ----
def _patches_lower(a, x):
    """Each window offset's strided view of x (zero-padded for SAME), stacked before the channels: the
    values copied as TF's kernel copies them (a convolution with one-hot filters would make 0 * inf NaN)."""
    k, steps = a["ksizes"][1:-1], a["strides"][1:-1]
    rates = a.get("rates", [1] * x.ndim)[1:-1]
    pads, outs = [], []
    for size, kk, s, r in zip(x.shape[1:-1], k, steps, rates):
        eff = (kk - 1) * r + 1
        out = -(-size // s) if a["padding"] == "SAME" else max(0, (size - eff) // s + 1)
        total = max((out - 1) * s + eff - size, 0) if a["padding"] == "SAME" else 0
        pads.append((total // 2, total - total // 2))
        outs.append(out)
    lead = (x.shape[0],) + tuple(outs)
    if 0 in lead:
        return jnp.zeros(lead + (x.shape[-1] * int(np.prod(k)),), x.dtype)
    xp = jnp.pad(x, [(0, 0)] + pads + [(0, 0)])
    views = []
    for off in itertools.product(*(range(kk) for kk in k)):
        start = [0] + [o * r for o, r in zip(off, rates)] + [0]
        limit = [x.shape[0]] + [b + s * (m - 1) + 1 for b, s, m in zip(start[1:-1], steps, outs)] + [x.shape[-1]]
        views.append(jax.lax.slice(xp, start, limit, [1] + list(steps) + [1]))
    return jnp.stack(views, axis=-2).reshape(lead + (-1,))


def _patches_shape(op_type, rank):
    def rule(shapes, attrs, values):
        s = shapes[0]
        if s.ndims is None:
            return [TensorShape(None)]
        if s.ndims != rank:
            raise ShapeError("Shape must be rank %d but is rank %d for '%s'" % (rank, s.ndims, op_type))
        dims = s.as_list()
        out = []
        for size, k, st, r in zip(dims[1:-1], attrs["ksizes"][1:-1], attrs["strides"][1:-1],
                                  attrs.get("rates", [1] * rank)[1:-1]):
            eff = (k - 1) * r + 1
            out.append(None if size is None else (-(-size // st) if attrs["padding"] == "SAME" else
                                                  max(0, (size - eff) // st + 1)))
        c = dims[-1]
        return [TensorShape([dims[0]] + out + [None if c is None else c * int(np.prod(attrs["ksizes"]))])]
    return rule


for _type, _rank, _arg in (("ExtractImagePatches", 4, "images"), ("ExtractVolumePatches", 5, "input")):
    register_op(_type, shape=_patches_shape(_type, _rank), dtype=dtype_rule(_type, NUMERIC, names=(_arg,)),
                grad=vjp_grad, lower=_patches_lower)


def _patch_attrs(rank, padding, **lists):
    attrs = {}
    for key, v in lists.items():
        v = [int(i) for i in v]
        if len(v) != rank or v[0] != 1 or v[-1] != 1:
            raise ValueError("%s must be [1, %s, 1], got %s" % (key, ", ".join(["..."] * (rank - 2)), v))
        attrs[key] = v
    if padding not in ("SAME", "VALID"):
        raise ValueError("padding must be 'SAME' or 'VALID', got %r" % (padding,))
    attrs["padding"] = padding
    return attrs


def extract_image_patches(images, ksizes=None, strides=None, rates=None, padding=None, name=None, sizes=None):
    """The [ksize_rows, ksize_cols] patches of images [batch, rows, cols, depth] flattened into the depth of
    the output, every strides apart, with pixels `rates` apart inside a patch ("SAME" or "VALID")."""
    attrs = _patch_attrs(4, padding, ksizes=ksizes if ksizes is not None else sizes, strides=strides, rates=rates)
    return make_op("ExtractImagePatches", [convert_to_tensor(images, name="images")], attrs,
                   name=name or "ExtractImagePatches")


def extract_volume_patches(input, ksizes, strides, padding, name=None):
    """The [planes, rows, cols] patches of input [batch, planes, rows, cols, depth] flattened into the depth
    of the output in (plane, row, column, channel) order, every strides apart ("SAME" or "VALID")."""
    attrs = _patch_attrs(5, padding, ksizes=ksizes, strides=strides)
    return make_op("ExtractVolumePatches", [convert_to_tensor(input, name="input")], attrs,
                   name=name or "ExtractVolumePatches")


# ---- SerializeTensor / ParseTensor: TF's TensorProto bytes ---------------------------------------------------
def _serialize(session, op, inputs):
    from tinyflow.formats import convert
    from tinyflow.formats.tf_protos import TensorProto
    return [np.array(convert.from_numpy(inputs[0], TensorProto(), op.inputs[0].dtype).SerializeToString(),
                     dtype=object)]


def _parse(session, op, inputs):
    from tinyflow.formats import convert
    from tinyflow.formats.tf_protos import TensorProto
    data = bytes(np.asarray(inputs[0]).reshape(-1)[0])
    proto = TensorProto()
    try:
        proto.ParseFromString(data)
        value = convert.to_numpy(proto)
    except Exception:
        raise errors.InvalidArgumentError(op.node_def, op, "Could not parse `serialized` as TensorProto: '%r'"
                                          % data[:64]) from None
    want = op.attrs["out_type"]
    if convert.dtype_of(proto.dtype) != want:
        raise errors.InvalidArgumentError(op.node_def, op, "Type mismatch between parsed tensor (%s) and dtype (%s)"
                                          % (convert.dtype_of(proto.dtype).name, want.name))
    return [np.array(value)]


register_host_op("SerializeTensor", lambda s, a, v: [TensorShape([])], lambda d, a: [dt.string], _serialize)
register_host_op("ParseTensor", lambda s, a, v: [TensorShape(None)], lambda d, a: [a["out_type"]], _parse)


def serialize_tensor(tensor, name=None):
    """A scalar string: `tensor` as TF's TensorProto bytes."""
    return make_host_op("SerializeTensor", [convert_to_tensor(tensor, name="tensor")],
                        name=name or "SerializeTensor").outputs[0]


def parse_tensor(serialized, out_type, name=None):
    """The tensor of dtype `out_type` a serialized TensorProto holds."""
    from tinyflow.ops.string_ops import as_strings
    return make_host_op("ParseTensor", [as_strings(serialized, "serialized")], {"out_type": dt.as_dtype(out_type)},
                        name=name or "ParseTensor").outputs[0]
