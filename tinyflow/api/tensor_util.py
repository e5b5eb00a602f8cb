"""tf.make_tensor_proto / tf.make_ndarray (also tf.contrib.util's) and tf.IndexedSlices.

TensorProtos are TF's messages (formats/tf_protos.py) filled as TF 1.15 fills them: more than one
number as tensor_content, else (and bools, strings) the typed repeated field, where one value stands
for a whole `shape`. An
IndexedSlices (rows `indices` of a tensor of `dense_shape`) converts to the dense tensor where it is
used as one, and Session.run fetches it as an IndexedSlicesValue, as in TF. tinyflow's own gradients
are always dense, so `isinstance(grad, tf.IndexedSlices)` is False for them.
"""
import collections

import numpy as np

from tinyflow.graph import dtypes as _dt
from tinyflow.api.aliases import get_static_value as constant_value  # noqa: F401 (tf.contrib.util's name)
from tinyflow.graph.core import Tensor
from tinyflow.ops.core import array_ops, indexing_ops, math_ops
from tinyflow.passes import gradients as _gradients_pass
from tinyflow.ops.core.base import convert_to_tensor, register_tensor_conversion_function


def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False, allow_broadcast=False):
    """A TensorProto holding `values` (with `dtype`; reshaped or, for one value, broadcast to `shape`)."""
    from tinyflow.formats import convert
    from tinyflow.formats.tf_protos import TensorProto
    if isinstance(values, TensorProto):
        return values
    dtype = _dt.as_dtype(dtype) if dtype is not None else None
    if isinstance(values, np.ndarray):
        array = values.astype(dtype.np) if dtype is not None and dtype != _dt.string else values
    else:
        array = _py_array(values, dtype)
    dtype = dtype or _dt.as_dtype(array.dtype)
    proto = TensorProto(dtype=dtype.as_datatype_enum)
    shape = list(array.shape) if shape is None else [int(d) for d in shape]
    size = int(np.prod(shape))
    if verify_shape and list(array.shape) != shape:
        raise TypeError("Expected Tensor's shape: %s, got %s." % (tuple(shape), tuple(array.shape)))
    if array.size > size:
        raise ValueError("Too many elements provided. Needed at most %d, but received %d" % (size, array.size))
    if array.size != size and array.size != 1 and not allow_broadcast:  # TF would pad with the last value
        raise ValueError("Too few elements provided for shape %s: %d" % (shape, array.size))
    field = _FIELDS.get(dtype)
    if array.size == size and size > 1 and field not in ("bool_val", "string_val", None):
        return convert.from_numpy(array.reshape(shape), proto, dtype)   # TF's tensor_content
    convert.shape_proto(shape, proto.tensor_shape)   # as TF: the values one by one (one: repeated over shape)
    if field is None:
        raise TypeError("make_tensor_proto: no repeated field for %s" % dtype.name)
    getattr(proto, field).extend(v if dtype == _dt.string else v.item() for v in array.reshape(-1))
    return proto


_FIELDS = {_dt.float32: "float_val", _dt.float64: "double_val", _dt.int32: "int_val", _dt.int16: "int_val",
           _dt.int8: "int_val", _dt.uint8: "int_val", _dt.int64: "int64_val", _dt.bool_: "bool_val",
           _dt.string: "string_val"}


def _py_array(values, dtype):
    """A Python value as TF converts it: floats float32, ints int32, str/bytes strings; dtype checked."""
    try:
        array = np.array(values)
    except ValueError:
        array = None
    if array is None or array.dtype == object and not all(isinstance(v, (str, bytes)) for v in np.ravel(array)):
        raise ValueError("Argument must be a dense tensor: %r - got shape [%d], but wanted a rectangular one."
                         % (values, len(values)))
    if array.dtype.kind in "US":
        return np.array([v.encode() if isinstance(v, str) else v for v in np.ravel(array)], object).reshape(
            array.shape)
    if array.dtype == object:
        return np.array([v.encode() if isinstance(v, str) else v for v in np.ravel(array)], object).reshape(
            array.shape)
    if dtype is None:
        return array.astype({"f": np.float32, "i": np.int32, "u": np.int32}.get(array.dtype.kind, array.dtype))
    if dtype.is_integer and array.dtype.kind == "f" and np.any(array != np.round(array)):
        bad = np.ravel(array)[np.ravel(array != np.round(array))][0]
        raise TypeError("Expected %s, got %r of type 'float' instead." % (dtype.name, float(bad)))
    return array.astype(dtype.np)


def make_ndarray(tensor):
    """The numpy array a TensorProto holds."""
    from tinyflow.formats import convert
    return convert.to_numpy(tensor)


IndexedSlicesValue = collections.namedtuple("IndexedSlicesValue", ["values", "indices", "dense_shape"])


class IndexedSlices(collections.namedtuple("IndexedSlices", ["values", "indices", "dense_shape"])):
    """Rows `indices` of a tensor of shape `dense_shape`, given as `values` (values[i] is row indices[i];
    repeated indices add up when it is made dense)."""
    _fetched_type = IndexedSlicesValue   # what Session.run rebuilds it as (runtime/fetches.py)

    def __new__(cls, values, indices, dense_shape=None):
        return super().__new__(cls, convert_to_tensor(values), convert_to_tensor(indices),
                               None if dense_shape is None else convert_to_tensor(dense_shape))

    dtype = property(lambda self: self.values.dtype)
    name = property(lambda self: self.values.name)
    op = property(lambda self: self.values.op)
    graph = property(lambda self: self.values.graph)
    device = property(lambda self: "")

    def __neg__(self):
        return IndexedSlices(-self.values, self.indices, self.dense_shape)

    def __repr__(self):
        return "IndexedSlices(indices=%s, values=%s%s)" % (self.indices, self.values, "" if self.dense_shape is None
                                                            else ", dense_shape=%s" % (self.dense_shape,))


def _to_dense(value, dtype=None, name=None, as_ref=False):
    if value.dense_shape is None:
        raise ValueError("Tensor conversion requested for IndexedSlices without dense_shape: %s" % value.name)
    if dtype is not None and not _dt.as_dtype(dtype).is_compatible_with(value.dtype):
        raise ValueError("Tensor conversion requested dtype %s for IndexedSlices with dtype %s"
                         % (_dt.as_dtype(dtype).name, value.dtype.name))
    return indexing_ops.scatter_nd(array_ops.expand_dims(value.indices, 1), value.values, value.dense_shape)


register_tensor_conversion_function(IndexedSlices, _to_dense)


def gradients(ys, xs, grad_ys=None, name="gradients", **kwargs):
    """tf.gradients (passes/gradients.py), with IndexedSlices where TF gives them (sparse_gradients)."""
    return sparse_gradients(_gradients_pass.gradients(ys, xs, grad_ys, name, **kwargs))


gradients.__doc__ += "\n\n" + _gradients_pass.gradients.__doc__


def sparse_gradients(grads):
    """tf.gradients' results with TF's IndexedSlices where TF gives them: the gradient of the params of
    gathers along axis 0 (embedding_lookup), one or several (TF concatenates their rows; a dense part
    makes the whole gradient dense, as TF's aggregation does). So clip_by_global_norm and global_norm
    count repeated ids as TF does, and optimizers can update only the rows."""
    out = []
    for g in grads:
        parts = None
        if isinstance(g, Tensor):
            sources = getattr(g.graph, "_sparse_gradients", {})
            terms = [t for t in g.op.inputs] if g.op.type == "AddN" else [g]
            if all(t in sources for t in terms):
                parts = [sources[t] for t in terms]
        if not parts:
            out.append(g)
            continue
        with g.graph.name_scope(g.op.name.rsplit("/", 1)[0] + "/IndexedSlices"):
            params = parts[0][2]
            inner = array_ops.shape(params)[1:]
            values = [array_ops.reshape(v, array_ops.concat([array_ops.reshape(array_ops.size(i, out_type=inner.dtype),
                                                                               [1]), inner], 0))
                      for v, i, _ in parts]   # size(ids) rows, not -1: the rows may have no elements
            ids = [array_ops.reshape(i, [-1]) for _, i, _ in parts]
            if len({i.dtype for i in ids}) > 1:
                ids = [math_ops.cast(i, _dt.int64) for i in ids]
            values = values[0] if len(values) == 1 else array_ops.concat(values, 0)
            ids = ids[0] if len(ids) == 1 else array_ops.concat(ids, 0)
            out.append(IndexedSlices(values, ids, array_ops.shape(params, out_type=ids.dtype)))
    return out
__all__ = ["make_tensor_proto", "make_ndarray", "constant_value", "IndexedSlices", "IndexedSlicesValue"]
