"""tf.sets: set_size, set_intersection, set_union, set_difference over the last dimension of dense or
sparse tensors, computed on the host (the result's size depends on the values). A result is a
SparseTensor: each row's elements sorted, at positions 0..n-1 of the last dimension."""
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph import errors
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.host_ops import make_host_op, register_host_op
from tinyflow.ops.sparse import SparseTensor, SparseTensorValue

__all__ = ["set_difference", "set_intersection", "set_size", "set_union"]

_TYPES = (dt.int8, dt.int16, dt.int32, dt.int64, dt.uint8, dt.uint16, dt.string)


def _rows(parts, sparse):
    """{row index tuple: set of values} and the batch shape, from a dense array or (indices, values, shape)."""
    if not sparse:
        a = parts[0]
        batch = a.shape[:-1]
        return {idx: set(a[idx].tolist()) for idx in np.ndindex(*batch)}, tuple(batch)
    indices, values, shape = parts
    rows = {}
    for i, v in zip(indices.tolist(), values.tolist()):
        rows.setdefault(tuple(i[:-1]), set()).add(v)
    return rows, tuple(int(d) for d in shape[:-1])


def _set_op(session, op, inputs):
    a_n = 3 if op.attrs["a_sparse"] else 1
    a_rows, a_batch = _rows(inputs[:a_n], op.attrs["a_sparse"])
    b_rows, b_batch = _rows(inputs[a_n:], op.attrs["b_sparse"])
    if a_batch != b_batch:
        raise errors.InvalidArgumentError(op.node_def, op, "Shapes [%s] and [%s] do not match in all but the last "
                                          "dimension" % (",".join(map(str, a_batch)), ",".join(map(str, b_batch))))
    kind = op.attrs["set_operation"]
    fn = {"a-b": lambda x, y: x - y, "b-a": lambda x, y: y - x, "intersection": lambda x, y: x & y,
          "union": lambda x, y: x | y}[kind]
    indices, values, width = [], [], 0
    for idx in np.ndindex(*a_batch):
        out = sorted(fn(a_rows.get(idx, set()), b_rows.get(idx, set())))
        width = max(width, len(out))
        for j, v in enumerate(out):
            indices.append(list(idx) + [j])
            values.append(v)
    dtype = op.outputs[1].dtype
    vals = np.array(values, dtype=object) if dtype == dt.string else np.array(values, dtype.np)
    return [np.array(indices, np.int64).reshape(-1, len(a_batch) + 1), vals.reshape(-1),
            np.array(list(a_batch) + [width], np.int64)]


def _set_op_shapes(shapes, attrs, values):
    rank = shapes[0].ndims if not attrs["a_sparse"] else shapes[2][0].value
    return [TensorShape([None, rank]), TensorShape([None]), TensorShape([rank])]


register_host_op("SetOperation", _set_op_shapes, lambda d, a: [dt.int64, d[1] if a["a_sparse"] else d[0], dt.int64],
                 _set_op)


def _parts(x, name):
    if isinstance(x, SparseTensorValue):
        x = SparseTensor(x.indices, x.values, x.dense_shape)
    if isinstance(x, SparseTensor):
        return [x.indices, x.values, x.dense_shape], True, x.values.dtype
    t = convert_to_tensor(x, name=name)
    return [t], False, t.dtype


def _set_operation(a, b, kind, name):
    a_parts, a_sparse, a_dtype = _parts(a, "a")
    b_parts, b_sparse, b_dtype = _parts(b, "b")
    if a_sparse and not b_sparse:   # TF: a sparse `a` with a dense `b` swaps them
        a_parts, b_parts, a_sparse, b_sparse = b_parts, a_parts, False, True
        kind = {"a-b": "b-a", "b-a": "a-b"}.get(kind, kind)
    if a_dtype != b_dtype:
        raise TypeError("%s and %s must have the same dtype" % (a_dtype.name, b_dtype.name))
    if a_dtype not in _TYPES:
        raise TypeError("Invalid dtype %s." % a_dtype.name)
    op = make_host_op("SetOperation", a_parts + b_parts, {"set_operation": kind, "a_sparse": a_sparse,
                                                           "b_sparse": b_sparse}, name=name)
    return SparseTensor(*op.outputs)


def set_intersection(a, b, validate_indices=True):
    """The elements of each last-dimension row in both a and b, sorted, as a SparseTensor."""
    return _set_operation(a, b, "intersection", "SetIntersection")


def set_union(a, b, validate_indices=True):
    """The elements of each last-dimension row in a or b, sorted, as a SparseTensor."""
    return _set_operation(a, b, "union", "SetUnion")


def set_difference(a, b, aminusb=True, validate_indices=True):
    """The elements of each row of a not in b (of b not in a when aminusb is False), as a SparseTensor."""
    return _set_operation(a, b, "a-b" if aminusb else "b-a", "SetDifference")


def _set_size(session, op, inputs):
    rows, batch = _rows(inputs, True)
    out = np.zeros(batch, np.int32)
    for idx, values in rows.items():
        out[idx] = len(values)
    return [out]


register_host_op("SetSize", lambda s, a, v: [TensorShape(None) if s[2][0].value is None
                                             else TensorShape([None] * (s[2][0].value - 1))],
                 lambda d, a: [dt.int32], _set_size)


def set_size(a, validate_indices=True):
    """The number of distinct elements in each last-dimension row of the SparseTensor a."""
    parts, sparse, dtype = _parts(a, "a")
    if not sparse:
        raise TypeError("Expected `SparseTensor`, got %s." % (a,))
    if dtype not in _TYPES:
        raise TypeError("Invalid dtype %s." % dtype.name)
    return make_host_op("SetSize", parts, name="SetSize").outputs[0]
