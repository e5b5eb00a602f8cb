"""Values between TF's protobufs and tinyflow: TensorProto <-> numpy, AttrValue <-> Python,
TensorShapeProto <-> TensorShape. Every proto is untrusted: sizes are checked before allocating."""
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.shapes import TensorShape

BY_ENUM = {d.as_datatype_enum: d for d in dt.ALL}
MAX_CONST_BYTES = 1 << 30  # a Const bigger than 1 GiB is refused rather than allocated
MAX_REPEATED_BYTES = 32 << 20   # a Const of a few values and a huge shape is refused over 32 MiB


class BadAttr(Exception):
    """A malformed attr or tensor: the importer turns it into InvalidArgumentError naming the node."""


def dtype_of(enum):
    if enum not in BY_ENUM:
        raise BadAttr("DataType %d is not supported by tinyflow" % enum)
    return BY_ENUM[enum]


def shape_of(proto):
    """A TensorShape from a TensorShapeProto (-1 dims are unknown)."""
    if proto.unknown_rank:
        return TensorShape(None)
    dims = []
    for d in proto.dim:
        if d.size < -1:
            raise BadAttr("invalid dimension %d" % d.size)
        dims.append(None if d.size == -1 else d.size)
    return TensorShape(dims)


def shape_proto(shape, proto):
    """Fills a TensorShapeProto from a TensorShape / list (None: unknown)."""
    shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
    proto.SetInParent()  # a scalar's shape has no dims, but is set
    if shape.ndims is None:
        proto.unknown_rank = True
        return proto
    for d in shape.as_list():
        proto.dim.add(size=-1 if d is None else d)
    return proto


_VAL_FIELDS = {"float32": "float_val", "float64": "double_val", "int32": "int_val", "int16": "int_val",
               "int8": "int_val", "uint8": "int_val", "uint16": "int_val", "int64": "int64_val", "bool": "bool_val",
               "float16": "half_val", "bfloat16": "half_val", "uint32": "uint32_val", "uint64": "uint64_val",
               "complex64": "scomplex_val", "complex128": "dcomplex_val"}


def check_tensor(tp):
    """(DType, dims, values) of a TensorProto, its sizes checked before anything is allocated (BadAttr):
    at most MAX_CONST_BYTES, content of the right length, at most as many values as elements, and a
    tail of repeated values (fewer values than elements) only up to MAX_REPEATED_BYTES unless every
    element is the same value (kept as a broadcast view: no memory)."""
    dtype = dtype_of(tp.dtype)
    shape = shape_of(tp.tensor_shape)
    if not shape.is_fully_defined():
        raise BadAttr("a constant tensor needs a fully defined shape, not %s" % shape)
    dims = shape.as_list()
    numel = 1
    for d in dims:
        numel *= d
    if dtype == dt.string:
        if numel != len(tp.string_val) and len(tp.string_val) != 1:
            raise BadAttr("a string tensor of %d elements has %d values" % (numel, len(tp.string_val)))
        if numel > 1 << 20:
            raise BadAttr("a string tensor of %d elements is too large" % numel)
        return dtype, dims, numel, tp.string_val
    nbytes = numel * dtype.np.itemsize
    if nbytes > MAX_CONST_BYTES:
        raise BadAttr("a constant of shape %s (%d bytes) is too large (tinyflow's limit: %d bytes)"
                      % (dims, nbytes, MAX_CONST_BYTES))
    if tp.tensor_content:
        if len(tp.tensor_content) != nbytes:
            raise BadAttr("tensor_content holds %d bytes, shape %s of %s needs %d" % (len(tp.tensor_content), dims,
                                                                                     dtype.name, nbytes))
        return dtype, dims, numel, None
    vals = getattr(tp, _VAL_FIELDS[dtype.name])
    if len(vals) > numel * (2 if dtype.is_complex else 1):
        raise BadAttr("%d values for a tensor of %d elements" % (len(vals), numel))
    if 1 < len(vals) < numel and nbytes > MAX_REPEATED_BYTES:
        raise BadAttr("a constant of shape %s (%d bytes) given by %d values, the last one repeated, is over "
                      "tinyflow's limit of %d bytes for a repeated value" % (dims, nbytes, len(vals),
                                                                             MAX_REPEATED_BYTES))
    return dtype, dims, numel, vals


def to_numpy(tp):
    """A numpy array from a TensorProto (its tensor_content, or its typed values; fewer values than
    elements repeat the last one, as TF), checked first (check_tensor). One value for every element
    gives a read-only broadcast view."""
    dtype, dims, numel, vals = check_tensor(tp)
    if dtype == dt.string:
        out = np.empty(numel, dtype=object)
        out[:] = list(vals) * (numel if len(vals) == 1 and numel != 1 else 1)
        return out.reshape(dims)
    if vals is None:
        npd = dtype.np.newbyteorder("<") if dtype.np.itemsize > 1 and dtype != dt.bfloat16 else dtype.np
        return np.frombuffer(tp.tensor_content, npd).astype(dtype.np).reshape(dims)
    vals = list(vals)
    if dtype in (dt.float16, dt.bfloat16):
        arr = np.array(vals, np.uint16).view(dtype.np)
    elif dtype.is_complex:   # (real, imaginary) pairs, interleaved
        if len(vals) % 2:
            raise BadAttr("a complex tensor has an odd number (%d) of values" % len(vals))
        arr = np.array(vals, dtype.real_dtype.np).view(dtype.np)
        vals = vals[::2]
    else:
        arr = np.array(vals).astype(dtype.np) if vals else np.zeros(0, dtype.np)
    if len(vals) == numel:
        return arr.reshape(dims)
    fill = arr[-1] if len(vals) else np.zeros((), dtype.np)
    if len(vals) <= 1:   # one value everywhere (tf.zeros, tf.ones in a frozen graph): no memory
        return np.broadcast_to(fill, dims)
    out = np.empty(numel, dtype.np)
    out[:len(vals)] = arr
    out[len(vals):] = fill
    return out.reshape(dims)


def from_numpy(value, tp, dtype=None):
    """Fills a TensorProto from a numpy value (tensor_content, little-endian)."""
    a = np.asarray(value)
    dtype = dt.as_dtype(dtype or a.dtype)
    tp.dtype = dtype.as_datatype_enum
    shape_proto(list(a.shape), tp.tensor_shape)
    if dtype == dt.string:
        tp.string_val.extend(x if isinstance(x, bytes) else str(x).encode() for x in a.reshape(-1))
    else:
        a = np.asarray(a, dtype.np)
        if a.dtype.itemsize > 1 and dtype != dt.bfloat16:
            a = a.astype(a.dtype.newbyteorder("<"))
        tp.tensor_content = a.tobytes()
    return tp


def attr_value(av):
    """The Python value of an AttrValue: DType, TensorShape, numpy array, int, float, bool, str, or a list."""
    kind = av.WhichOneof("value")
    if kind is None:
        return None
    if kind == "s":
        return av.s.decode("utf-8", "replace")
    if kind in ("i", "f", "b"):
        return getattr(av, kind)
    if kind == "type":
        return dtype_of(av.type)
    if kind == "shape":
        return shape_of(av.shape)
    if kind == "tensor":
        return to_numpy(av.tensor)
    if kind == "list":
        lst = av.list
        for field in ("s", "i", "f", "b", "type", "shape", "tensor"):
            items = getattr(lst, field)
            if len(items):
                if field == "s":
                    return [x.decode("utf-8", "replace") for x in items]
                if field == "type":
                    return [dtype_of(x) for x in items]
                if field == "shape":
                    return [shape_of(x) for x in items]
                if field == "tensor":
                    return [to_numpy(x) for x in items]
                return list(items)
        return []
    raise BadAttr("attr kind %s is not supported" % kind)


def set_attr(av, value):
    """Fills an AttrValue from a Python value (the inverse of attr_value). Returns False if it cannot."""
    if isinstance(value, dt.DType):
        av.type = value.as_datatype_enum
    elif isinstance(value, TensorShape):
        shape_proto(value, av.shape)
    elif isinstance(value, bool):
        av.b = value
    elif isinstance(value, (int, np.integer)):
        av.i = int(value)
    elif isinstance(value, (float, np.floating)):
        av.f = float(value)
    elif isinstance(value, str):
        av.s = value.encode()
    elif isinstance(value, bytes):
        av.s = value
    elif isinstance(value, np.ndarray):
        from_numpy(value, av.tensor)
    elif isinstance(value, (list, tuple)):
        av.list.SetInParent()
        for x in value:
            if isinstance(x, bool):
                av.list.b.append(x)
            elif isinstance(x, (int, np.integer)):
                av.list.i.append(int(x))
            elif isinstance(x, (float, np.floating)):
                av.list.f.append(float(x))
            elif isinstance(x, str):
                av.list.s.append(x.encode())
            elif isinstance(x, dt.DType):
                av.list.type.append(x.as_datatype_enum)
            elif isinstance(x, TensorShape):
                shape_proto(x, av.list.shape.add())
            else:
                return False
    else:
        return False
    return True


def check(cond, message):
    if not cond:
        raise BadAttr(message)


