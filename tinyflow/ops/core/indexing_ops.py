"""Indexing ops: slice, strided_slice and Tensor.__getitem__, gather, gather_nd, scatter_nd,
unsorted_segment_sum, where/select and boolean_mask. Each op: one register_op with all its rules,
next to its TF-style builder (split out of array_ops.py, whose helpers these ops share).

tf.where(c), boolean_mask and slices with run-time bounds have an output shape that depends on
input values: registered with `dynamic_shape`, they run on concrete values between jitted segments
(lower/segments.py, docs/dynamic_shapes.md). A run-time tensor index (x[i]) stays inside one jit:
it becomes a dynamic index.
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import ShapeError, Tensor, constant_value
from tinyflow.graph.registry import register_op, same_as_input
from tinyflow.graph.shapes import Dimension, TensorShape
from tinyflow.ops.core import math_ops
from tinyflow.ops.core.array_ops import (fill_shape, _vector_len, concat, pad, reshape, shape, squeeze, stack,
                                         transpose, zeros_like)
from tinyflow.ops.core.base import constant, convert_to_tensor, make_op, normalize_axis
from tinyflow.ops.core.util import (convert_same, first_bad, int_tensor, ints, is_concrete, name_scope, position_text,
                                    pyrange, pyslice)

__all__ = [
    'boolean_mask',
    'gather',
    'gather_nd',
    'scatter_nd',
    'slice',
    'strided_slice',
    'unsorted_segment_sum',
    'where',
]


# ---- slice ----------------------------------------------------------------------------------------
def _slice_shape(shapes, attrs, values):
    x, begin, size = shapes[0], values[1], values[2]
    n = x.ndims if x.ndims is not None else _vector_len(shapes[1])
    if n is None:
        return [TensorShape(None)]
    dims = x.as_list() if x.ndims is not None else [None] * n
    begin = ints(begin) if begin is not None else [None] * n
    size = ints(size) if size is not None else [None] * n
    if len(begin) != n or len(size) != n:
        raise ShapeError("Length of begin and size must equal the rank of input: %d, %d vs %d"
                         % (len(begin), len(size), n))
    out = []
    for i, (d, b, s) in enumerate(zip(dims, begin, size)):
        if b is not None and d is not None and not 0 <= b <= d:
            raise ShapeError("Expected begin[%d] in [0, %d], but got %d" % (i, d, b))
        if s is not None and s != -1 and b is not None and d is not None and not 0 <= s <= d - b:
            raise ShapeError("Expected size[%d] in [0, %d], but got %d" % (i, d - b, s))
        if s == -1:
            out.append(d - b if d is not None and b is not None else None)
        else:
            out.append(s)
    return [TensorShape(out)]


def _slice_lower(a, x, begin, size):
    size = ints(size)
    if not is_concrete(begin):  # run-time start, compile-time size
        if -1 in size:
            raise ValueError("Slice with a run-time begin needs sizes known at compile time, not -1")
        for i, (s, d) in enumerate(zip(size, x.shape)):
            if not 0 <= s <= d:   # TF's kernel check (lax would clamp the start, never fail)
                raise ValueError("Expected size[%d] in [0, %d], but got %d" % (i, d, s))
        return lax.dynamic_slice(x, list(begin), size)
    begin = ints(begin)
    return x[tuple(pyslice(b, x.shape[i] if s == -1 else b + s) for i, (b, s) in enumerate(zip(begin, size)))]


def _slice_grad(op, g):
    x, begin = op.inputs[0], op.inputs[1]
    after = math_ops.subtract(math_ops.subtract(shape(x, out_type=begin.dtype), begin),
                              shape(op.outputs[0], out_type=begin.dtype))
    return [pad(g, stack([begin, after], axis=1)), None, None]


def _slice_dynamic(op, known):
    """A run-time size decides the output shape (a run-time begin with constant sizes is a dynamic_slice)."""
    return not known[2]


register_op("Slice", fold=True, shape=_slice_shape, dtype=same_as_input(0), grad=_slice_grad, lower=_slice_lower,
            dynamic_shape=_slice_dynamic)


def slice(input_, begin, size, name=None):
    """The part of `input_` starting at `begin` with `size` (-1: to the end of that dimension)."""
    with name_scope(name or "Slice") as scope:
        x = convert_to_tensor(input_)
        return make_op("Slice", [x, int_tensor(begin, "begin"), int_tensor(size, "size")], name=scope)


# ---- strided_slice and Tensor.__getitem__ ---------------------------------------------------------
_UNKNOWN = object()  # a begin/end/stride value not known while building the graph
_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _ss_plan(ndims, begin, end, strides, attrs):
    """StridedSlice's spec as one entry per output-relevant axis, numpy-style:
    ('slice', b, e, s) with None for a masked bound, ('index', b), ('new',) or ('full',)."""
    bits = {k: attrs[k] for k in _MASKS}
    n = len(strides)
    consumed = sum(1 for i in pyrange(n) if not (bits["ellipsis_mask"] >> i) & 1
                   and not (bits["new_axis_mask"] >> i) & 1)
    entries, seen_ellipsis = [], False
    for i in pyrange(n):
        if (bits["ellipsis_mask"] >> i) & 1:
            if seen_ellipsis:
                raise ShapeError("Multiple ellipses in slice spec not allowed")
            seen_ellipsis = True
            entries += [("full",)] * max(ndims - consumed, 0)
        elif (bits["new_axis_mask"] >> i) & 1:
            entries.append(("new",))
        elif (bits["shrink_axis_mask"] >> i) & 1:
            entries.append(("index", begin[i]))
        else:
            entries.append(("slice", None if (bits["begin_mask"] >> i) & 1 else begin[i],
                            None if (bits["end_mask"] >> i) & 1 else end[i], strides[i]))
    used = sum(1 for e in entries if e[0] != "new")
    if used > ndims:
        raise ShapeError("Index out of range using input dim %d; input has only %d dims" % (used - 1, ndims))
    return entries + [("full",)] * (ndims - used)


def _ss_shape(shapes, attrs, values):
    x = shapes[0]
    n = _vector_len(shapes[3])
    if x.ndims is None or n is None:
        return [TensorShape(None)]
    vals = [(ints(v) if v is not None else [_UNKNOWN] * n) for v in values[1:4]]
    dims, out, d = x.as_list(), [], 0
    for e in _ss_plan(x.ndims, *vals, attrs):
        if e[0] == "new":
            out.append(1)
            continue
        dim = dims[d]
        d += 1
        if e[0] == "full":
            out.append(dim)
        elif e[0] == "index":
            if e[1] is not _UNKNOWN and dim is not None and not -dim <= e[1] < dim:
                raise ShapeError("slice index %d of dimension %d out of bounds." % (e[1], d - 1))
        else:
            b, end, s = e[1:]
            if s == 0:
                raise ShapeError("strides[%d] must be non-zero" % (d - 1))
            if dim is None or _UNKNOWN in (b, end, s):
                out.append(None)
            else:
                out.append(len(pyrange(*pyslice(b, end, s).indices(dim))))
    return [TensorShape(out)]


def _ss_index(x_ndim, begin, end, strides, attrs, keep_new=True):
    """The numpy index tuple of a StridedSlice; run-time values are allowed for shrunk axes only."""
    def elems(a):
        return ints(a) if is_concrete(a) else [a[i] for i in pyrange(a.shape[0])]
    begin, end, strides = elems(begin), elems(end), elems(strides)
    idx = []
    for e in _ss_plan(x_ndim, begin, end, strides, attrs):
        if e[0] == "new":
            if keep_new:
                idx.append(None)
        elif e[0] == "full":
            idx.append(pyslice(None))
        elif e[0] == "index":
            idx.append(e[1])
        else:
            if not all(v is None or is_concrete(v) for v in e[1:]):
                raise ValueError("StridedSlice: a slice's bounds must be known at compile time; only single "
                                 "indices (x[i]) may be run-time tensors")
            idx.append(pyslice(e[1], e[2], e[3]))
    return tuple(idx)


def _ss_lower(a, x, begin, end, strides):
    return jnp.asarray(x)[_ss_index(x.ndim, begin, end, strides, a)]


def _ss_grad(op, g):
    x, begin, end, strides = op.inputs
    attrs = {k: op.attrs[k] for k in _MASKS}
    dx = make_op("StridedSliceGrad", [shape(x, out_type=begin.dtype), begin, end, strides, g], attrs)
    return [dx, None, None, None]


def _ss_fold(op, values):
    if any(v is None for v in values):
        return None
    x, begin, end, strides = values
    return np.asarray(x)[_ss_index(np.ndim(x), begin, end, strides, op.attrs)]


def _ss_dynamic(op, known):
    """A run-time bound of a real slice axis (x[i:i + 2]) decides the output shape; a run-time
    single index (x[i]) does not (it is a dynamic index inside jit)."""
    n = op.inputs[3].shape.num_elements()
    if n is None or not known[3]:
        return True
    a = op.attrs
    for i in pyrange(n):
        if (a["shrink_axis_mask"] | a["new_axis_mask"] | a["ellipsis_mask"]) >> i & 1:
            continue
        if (not known[1] and not a["begin_mask"] >> i & 1) or (not known[2] and not a["end_mask"] >> i & 1):
            return True
    return False


register_op("StridedSlice", fold=_ss_fold, shape=_ss_shape, dtype=same_as_input(0), grad=_ss_grad, lower=_ss_lower,
            numpy=lambda a, x, begin, end, strides: x[_ss_index(x.ndim, begin, end, strides, a)],
            dynamic_shape=_ss_dynamic)


def _ss_grad_shape(shapes, attrs, values):
    return fill_shape(shapes, attrs, values)


def _ss_grad_lower(a, x_shape, begin, end, strides, dy):
    x_shape = tuple(ints(x_shape))
    idx = _ss_index(len(x_shape), begin, end, strides, a, keep_new=False)
    zeros = jnp.zeros(x_shape, dy.dtype)
    return zeros.at[idx].set(dy.reshape(zeros[idx].shape))


def _ss_grad_grad(op, g):
    attrs = {k: op.attrs[k] for k in _MASKS}
    return [None, None, None, None, make_op("StridedSlice", [g, *op.inputs[1:4]], attrs)]


# its output shape is x's, but the scatter into it needs the slice's bounds while tracing: with run-time
# bounds it runs between segments like the slice itself
register_op("StridedSliceGrad", shape=_ss_grad_shape, dtype=same_as_input(4), grad=_ss_grad_grad,
            lower=_ss_grad_lower, dynamic_shape=_ss_dynamic)


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0, var=None, name=None):
    """numpy-style slicing `input_[begin:end:strides]` with TF's bit masks (see tf.strided_slice)."""
    with name_scope(name or "StridedSlice") as scope:
        x = convert_to_tensor(input_)
        begin = int_tensor(begin, "begin")
        end = convert_to_tensor(end, dtype=begin.dtype, name="end")
        if strides is None:
            strides = constant(np.ones(_vector_len(begin.shape), begin.dtype.np), name="strides")
        strides = convert_to_tensor(strides, dtype=begin.dtype, name="strides")
        attrs = dict(zip(_MASKS, (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)))
        return make_op("StridedSlice", [x, begin, end, strides], {k: int(v) for k, v in attrs.items()}, name=scope)


_SLICE_TYPE_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar tf.int32/tf.int64 "
                     "tensors are valid indices")


def _check_index(idx):
    if isinstance(idx, (int, np.integer)):
        return
    dtype = getattr(idx, "dtype", None)
    if dtype is None or dt.as_dtype(dtype) not in (dt.int32, dt.int64) or (
            isinstance(idx, Tensor) and idx.shape.ndims not in (None, 0)):
        raise TypeError(_SLICE_TYPE_ERROR + ", got %r" % (idx,))


def _pack_index(values, name):
    """A list of Python ints and int tensors as one 1-D tensor (a Const when all are Python ints)."""
    if all(isinstance(v, (int, np.integer)) for v in values):
        return constant(np.asarray(values, np.int32).reshape(len(values)), name=name)
    return stack(values, name=name)


def _dim_value(s):
    """A Dimension (x.shape[0]) used as an index or slice bound is its int value."""
    if isinstance(s, pyslice):
        return pyslice(_dim_value(s.start), _dim_value(s.stop), _dim_value(s.step))
    return s.value if isinstance(s, Dimension) else s


def getitem(tensor, slice_spec):
    """`tensor[slice_spec]` (Tensor.__getitem__): ints, slices with negative steps, `...`, None
    (tf.newaxis) and scalar int tensors, as a StridedSlice; a bool mask goes to boolean_mask."""
    tensor = convert_to_tensor(tensor)
    if (isinstance(slice_spec, bool) or (isinstance(slice_spec, Tensor) and slice_spec.dtype == dt.bool_)
            or (isinstance(slice_spec, np.ndarray) and slice_spec.dtype == bool)):
        return boolean_mask(tensor, slice_spec)
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    spec = [_dim_value(s) for s in slice_spec]
    tensor_index = [isinstance(s, Tensor) for s in spec]
    if any(tensor_index) and any(isinstance(s, pyslice) and (s.start, s.stop) != (None, None) for s in spec):
        # x[i, 1:3] with a run-time i: slice first, then index, so that every slice bound stays a
        # compile-time constant (XLA slices have static sizes)
        first = [pyslice(None) if t else s for s, t in zip(spec, tensor_index)]
        second = [s if t else (Ellipsis if s is Ellipsis else pyslice(None))
                  for s, t in zip(spec, tensor_index) if t or not isinstance(s, (int, np.integer))]
        return _strided_slice_of(_strided_slice_of(tensor, first), second)
    return _strided_slice_of(tensor, spec)


def _strided_slice_of(tensor, slice_spec):
    begin, end, strides = [], [], []
    masks = dict.fromkeys(_MASKS, 0)
    for i, s in enumerate(slice_spec):
        if isinstance(s, pyslice):
            for part, out, mask in ((s.start, begin, "begin_mask"), (s.stop, end, "end_mask")):
                if part is None:
                    out.append(0)
                    masks[mask] |= 1 << i
                else:
                    _check_index(part)
                    out.append(part)
            if s.step is not None:
                _check_index(s.step)
            strides.append(1 if s.step is None else s.step)
        elif s is Ellipsis or s is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            masks["ellipsis_mask" if s is Ellipsis else "new_axis_mask"] |= 1 << i
        else:
            _check_index(s)
            begin.append(s)
            end.append(s + 1)
            strides.append(1)
            masks["shrink_axis_mask"] |= 1 << i
    with name_scope("strided_slice") as scope:
        if begin:
            packed = [_pack_index(v, "stack") for v in (begin, end, strides)]
        else:
            packed = [constant(np.zeros([0], np.int32), name="Const")] * 3
        if len({p.dtype for p in packed}) > 1:
            packed = [math_ops.cast(p, dt.int64) for p in packed]
        return make_op("StridedSlice", [tensor] + packed, masks, name=scope)


# ---- gather, gather_nd and their gradients ---------------------------------------------------------
def _gather_shape(shapes, attrs, values):
    p, i, axis = shapes[0], shapes[1], values[2]
    b = attrs.get("batch_dims", 0)
    if p.ndims is None or i.ndims is None or axis is None:
        return [TensorShape(None)]
    axis = int(axis)
    if axis >= p.ndims:
        raise ShapeError("Shape must be at least rank %d but is rank %d" % (axis + 1, p.ndims))
    ax = normalize_axis(axis, p.ndims)
    if b:
        if ax < b:
            raise ShapeError("batch_dims (%d) must be less than or equal to axis (%d)" % (b, ax))
        for k, (dp, di) in enumerate(zip(p.as_list()[:b], i.as_list()[:b])):
            if None not in (dp, di) and dp != di:
                raise ShapeError("params.shape[%d]: %d should be equal to indices.shape[%d]: %d" % (k, dp, k, di))
    d = p.as_list()
    return [TensorShape(d[:ax] + i.as_list()[b:] + d[ax + 1:])]


def _batched(f, b):
    """f mapped over b leading dimensions of every argument (gather's batch_dims)."""
    for _ in pyrange(b):
        f = jax.vmap(f)
    return f


def _gather_lower(a, p, i, axis):
    b, ax = a.get("batch_dims", 0), normalize_axis(int(axis), p.ndim)
    if not p.size or not i.size:   # nothing to take (jnp.take of empty params drops the indices' dims)
        return jnp.zeros(p.shape[:ax] + i.shape[b:] + p.shape[ax + 1:], p.dtype)
    return _batched(lambda p, i: jnp.take(p, i, axis=ax - b), b)(p, i)


def _batch_gather_grad_lower(a, g, i, p, axis):
    """GatherV2's params gradient with batch_dims: g's slices added at the indices, batch by batch."""
    b, ax = a["batch_dims"], normalize_axis(int(axis), p.ndim)
    return _batched(lambda g, i, p: jnp.zeros(p.shape, g.dtype).at[(np.s_[:],) * (ax - b) + (i,)].add(g), b)(g, i, p)


register_op("BatchGatherGrad", shape=lambda shapes, attrs, values: [shapes[2]], dtype=same_as_input(0),
            grad=None, lower=_batch_gather_grad_lower)


def _gather_grad(op, g):
    params, indices, axis_t = op.inputs
    p_rank, i_rank = params.shape.ndims, indices.shape.ndims
    axis = constant_value(axis_t)
    if p_rank is None or i_rank is None or axis is None:
        raise NotImplementedError("The gradient of GatherV2 needs known ranks and a constant axis")
    if op.attrs.get("batch_dims", 0):
        return [make_op("BatchGatherGrad", [g, indices, params, axis_t], {"batch_dims": op.attrs["batch_dims"]}),
                None, None]
    ax = int(axis) % p_rank
    n = gather(shape(params, out_type=indices.dtype), ax)
    if ax == 0:
        dense = unsorted_segment_sum(g, indices, n)
        # TF's gradient here is IndexedSlices(g's rows, indices): tf.gradients hands it out as such
        # (api/tensor_util.sparse_gradients); the dense sum is what every other consumer reads
        if not getattr(op, "_dense_gradient", False):
            sparse_sources(dense.graph)[dense] = (g, indices, params)
        return [dense, None, None]
    # move the index dimensions of g to the front, sum by segment, move the result back to `ax`
    front = list(pyrange(ax, ax + i_rank)) + list(pyrange(ax)) + list(pyrange(ax + i_rank, g.shape.ndims))
    summed = unsorted_segment_sum(transpose(g, front), indices, n)
    back = list(pyrange(1, ax + 1)) + [0] + list(pyrange(ax + 1, p_rank))
    return [transpose(summed, back), None, None]






def sparse_sources(graph):
    """{dense gradient of a gather's params: (the gather's gradient, its indices, its params)}."""
    if not hasattr(graph, "_sparse_gradients"):
        graph._sparse_gradients = {}
    return graph._sparse_gradients


def _gather_check(a, p, i, axis):
    n = p.shape[normalize_axis(int(axis), p.ndim)]
    return (*first_bad((i < 0) | (i >= n), i.reshape(-1)), jnp.array(n, np.int64))


def _gather_numpy(a, p, i, axis):   # None for an index out of range (np.take would wrap a negative one)
    axis = normalize_axis(int(axis), p.ndim)
    if a.get("batch_dims", 0):
        return None
    return np.take(p, i, axis=axis) if not i.size or 0 <= i.min() <= i.max() < p.shape[axis] else None


def _gather_message(op, pos, dims, value, n):
    """TF's words for an index out of range (its CPU kernel; XLA would clamp or fill instead)."""
    return "indices[%s] = %d is not in [0, %d)" % (position_text(pos, dims), value, n)


register_op("GatherV2", fold=True, shape=_gather_shape, dtype=same_as_input(0), grad=_gather_grad,
            lower=_gather_lower, check=_gather_check, check_message=_gather_message, numpy=_gather_numpy)


def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
    """Slices of `params` along `axis` at `indices`: params.shape[:axis] + indices.shape + params.shape[axis+1:].
    With batch_dims b, the first b dimensions of params and indices are batch dimensions gathered pairwise:
    params.shape[:axis] + indices.shape[b:] + params.shape[axis+1:] (axis defaults to b)."""
    with name_scope(name or "GatherV2") as scope:
        p = convert_to_tensor(params, name="params")
        i = int_tensor(indices, "indices")
        if axis is None:
            axis = batch_dims
        axis_t = int_tensor(axis, "axis")
        attrs = None
        if batch_dims and constant_value(axis_t) != 0:   # TF 1.15 ignores batch_dims at a constant axis 0
            b = int(batch_dims)
            if i.shape.ndims is None:
                raise ValueError("tinyflow: gather with batch_dims needs the rank of indices")
            if not -i.shape.ndims <= b < i.shape.ndims:   # (TF's kernel checks it when the op runs)
                raise ValueError("Expected batch_dims in the range [-%d, %d), but got %d"
                                 % (i.shape.ndims, i.shape.ndims, b))
            attrs = {"batch_dims": b % i.shape.ndims if b < 0 else b}
        return make_op("GatherV2", [p, i, axis_t], attrs, name=scope)


def segment_shape(shapes, attrs, values):
    data, ids, n = shapes[0], shapes[1], values[2]
    if data.ndims is None or ids.ndims is None:
        return [TensorShape(None)]
    return [TensorShape([None if n is None else int(n)] + data.as_list()[ids.ndims:])]


def _segment_lower(a, data, ids, n):
    flat = data.reshape((ids.size,) + data.shape[ids.ndim:])   # not -1: rows of zero size
    return jax.ops.segment_sum(flat, ids.reshape(-1), int(n)).astype(data.dtype)


def gather_drop_negatives(x, ids):
    """TF's _GatherDropNegatives: x's rows at ids, zeros where an id is negative (segment ops drop
    those ids, so they get no gradient; a plain gather would reject them)."""
    known = constant_value(ids)
    if known is not None and np.all(np.asarray(known) >= 0):
        return gather(x, ids)
    rows = gather(x, math_ops.maximum(ids, math_ops.scalar_like(0, ids)))
    if x.shape.ndims is None:
        raise NotImplementedError("tinyflow: the gradient of a segment op needs the rank of its data")
    keep = math_ops.greater_equal(ids, math_ops.scalar_like(0, ids))[(Ellipsis,) + (None,) * (x.shape.ndims - 1)]
    return math_ops.where_v2(keep, rows, zeros_like(rows))


def segment_ids_check(a, data, ids, n):
    """TF's unsorted segment kernels: an id >= num_segments is out of range (a negative id is dropped)."""
    flat = ids.reshape(-1)
    return (*first_bad(flat >= n, flat), jnp.asarray(n, np.int64))


def segment_ids_message(op, pos, dims, value, n):
    return "segment_ids[%d] = %d is out of range [0, %d)" % (int(pos), int(value), int(n))


def segments_at_run_time(op, known):
    """A run-time num_segments (input 2) decides the output shape (segment ops' dynamic_shape)."""
    return len(known) > 2 and not known[2]


register_op("UnsortedSegmentSum", shape=segment_shape, dtype=same_as_input(0), lower=_segment_lower,
            grad=lambda op, g: [gather_drop_negatives(g, op.inputs[1]), None, None],
            dynamic_shape=segments_at_run_time, check=segment_ids_check, check_message=segment_ids_message)


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """out[j] = the sum of data[i...] over the i with segment_ids[i...] == j, for j < num_segments."""
    with name_scope(name or "UnsortedSegmentSum") as scope:
        d = convert_to_tensor(data, name="data")
        ids = int_tensor(segment_ids, "segment_ids")
        n = int_tensor(num_segments, "num_segments")
        return make_op("UnsortedSegmentSum", [d, ids, n], name=scope)


def _gather_nd_shape(shapes, attrs, values):
    p, i = shapes
    if p.ndims is None or i.ndims is None or i[-1].value is None:
        return [TensorShape(None)]
    k = i[-1].value
    if k > p.ndims:
        raise ShapeError("indices.shape[-1] must be <= params.rank, but saw indices shape: %s and params shape: %s"
                         % (i.as_proto_str(), p.as_proto_str()))
    return [TensorShape(i.as_list()[:-1] + p.as_list()[k:])]


register_op("GatherNd", shape=_gather_nd_shape, dtype=same_as_input(0),
            grad=lambda op, g: [scatter_nd(op.inputs[1], g, shape(op.inputs[0], out_type=op.inputs[1].dtype)),
                                None],
            lower=lambda a, p, i: jnp.asarray(p)[tuple(jnp.moveaxis(i, -1, 0))],   # p may be a numpy constant
            check=lambda a, p, i: _gather_nd_check(p, i), check_message=lambda op, pos, dims, row, shape:
            "indices[%s] = [%s] does not index into param shape [%s]" % (
                position_text(pos, dims), ", ".join(str(int(v)) for v in np.atleast_1d(row)),
                ",".join(str(int(d)) for d in shape)))


def _gather_nd_check(p, i):
    k = i.shape[-1]
    dims = jnp.array(p.shape[:k], i.dtype)
    return (*first_bad(jnp.any((i < 0) | (i >= dims), axis=-1), i.reshape(-1, k)), jnp.array(p.shape, np.int64))


def gather_nd(params, indices, name=None, batch_dims=0):
    """params[indices[..., 0], indices[..., 1], ...]: gathers slices by multi-dimensional indices."""
    if batch_dims:
        raise NotImplementedError("tinyflow: gather_nd with batch_dims is not supported")
    with name_scope(name or "GatherNd") as scope:
        return make_op("GatherNd", [convert_to_tensor(params, name="params"), int_tensor(indices, "indices")],
                       name=scope)


def _scatter_nd_shape(shapes, attrs, values):
    return fill_shape(shapes[2:], attrs, values[2:])


def _scatter_nd_lower(a, indices, updates, shape_):
    out = jnp.zeros(tuple(ints(shape_)), updates.dtype)
    return out.at[tuple(jnp.moveaxis(indices, -1, 0))].add(updates)


register_op("ScatterNd", shape=_scatter_nd_shape, dtype=same_as_input(1), lower=_scatter_nd_lower,
            grad=lambda op, g: [None, gather_nd(g, op.inputs[0]), None],
            dynamic_shape=lambda op, known: not known[2])   # a shape fed at run time: between segments


def scatter_nd(indices, updates, shape, name=None):
    """Zeros of `shape` with `updates` added at `indices` (duplicates add up)."""
    with name_scope(name or "ScatterNd") as scope:
        i = int_tensor(indices, "indices")
        return make_op("ScatterNd", [i, convert_to_tensor(updates, name="updates"),
                                     convert_to_tensor(shape, dtype=i.dtype, name="shape")], name=scope)


# ---- where / select -------------------------------------------------------------------------------
def _where_lower(a, c):
    if not is_concrete(c):
        raise ValueError("tf.where(condition) has a shape that depends on the values of `condition`; inside "
                         "tf.cond / tf.while_loop bodies tinyflow needs `condition` known at compile time "
                         "(computed from constants and shapes only). tf.where(condition, x, y) works on any values.")
    return np.argwhere(np.asarray(c)).astype(np.int64)


register_op("Where", shape=lambda s, a, v: [TensorShape([None, s[0].ndims])], dtype=lambda d, a: [dt.int64],
            grad=None, lower=_where_lower, dynamic_shape=True)


def _select_shape(shapes, attrs, values):
    c, x, y = shapes
    if not x.is_compatible_with(y):
        raise ShapeError("Dimensions must be equal, but are %s and %s" % (x.as_proto_str(), y.as_proto_str()))
    out = x.merge_with(y)
    if c.ndims is None or out.ndims is None or c.ndims == 0:
        return [out]
    if c.ndims == 1 and out.ndims > 1:
        if not c[0].is_compatible_with(out[0]):
            raise ShapeError("Dimension 0 in both shapes must be equal, but are %s and %s" % (c[0], out[0]))
        return [out]
    if c.ndims != out.ndims:
        raise ShapeError("Shapes must be equal rank, but are %d and %d" % (c.ndims, out.ndims))
    if not c.is_compatible_with(out):
        raise ShapeError("Dimensions must be equal, but are %s and %s" % (c.as_proto_str(), out.as_proto_str()))
    return [out.merge_with(c)]


def _select_lower(a, c, x, y):
    if c.ndim == 1 and x.ndim > 1:  # TF1: a vector condition picks whole rows
        c = c.reshape((-1,) + (1,) * (x.ndim - 1))
    return jnp.where(c, x, y)


def _select_grad(op, g):
    c, x = op.inputs[0], op.inputs[1]
    zeros = zeros_like(x)
    return [None, make_op("Select", [c, g, zeros]), make_op("Select", [c, zeros, g])]


register_op("Select", fold=True, shape=_select_shape, dtype=same_as_input(1), grad=_select_grad, lower=_select_lower)


def where(condition, x=None, y=None, name=None):
    """tf.where (TF1): with x and y, picks x where condition is true, else y (condition has their
    shape, or is a vector over their first dimension); alone, the int64 coordinates [N, rank] of
    the true entries of condition (its length is a run-time value: docs/dynamic_shapes.md)."""
    if x is None and y is None:
        with name_scope(name or "Where") as scope:
            c = convert_to_tensor(condition, preferred_dtype=dt.bool_, name="condition")
            return make_op("Where", [c], name=scope)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    x, y = convert_same([x, y], "Select", "t")
    return make_op("Select", [convert_to_tensor(condition, dtype=dt.bool_), x, y], name=name or "Select")


# ---- boolean_mask ---------------------------------------------------------------------------------
def dims_or_shape(x, axes):
    """The sizes of x's `axes`: a Python list when known, else an int32 tensor computed from tf.shape."""
    d = x.shape.as_list()
    if all(d[a] is not None for a in axes):
        return [d[a] for a in axes]
    return gather(shape(x), list(axes)) if axes else constant(np.zeros([0], np.int32))


def dims_prod(dims):
    if isinstance(dims, list):
        return int(np.prod(dims))
    return math_ops.reduce_prod(dims)

def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """The entries of `tensor` where `mask` (over dimensions axis..axis+mask.ndims) is true, flattened
    over the masked dimensions (a Where and a gather: the length is a run-time value)."""
    with name_scope(name):
        tensor = convert_to_tensor(tensor, name="tensor")
        mask = convert_to_tensor(mask, dtype=dt.bool_, name="mask")
        k = mask.shape.ndims
        if k is None:
            raise ValueError("Number of mask dimensions must be specified, even if some dimensions are None.  "
                             "E.g. shape=[None] is ok, but shape=None is not.")
        if k == 0:
            raise ValueError("mask cannot be scalar.")
        axis = 0 if axis is None else int(axis)
        n = tensor.shape.ndims
        if n is not None:
            part = TensorShape(tensor.shape.as_list()[axis:axis + k])
            if not part.is_compatible_with(mask.shape):
                raise ValueError("Shapes %s and %s are incompatible" % (part, mask.shape))
        if k > 1:
            if n is None:
                raise ValueError("tinyflow: boolean_mask with a multi-dimensional mask needs the tensor's rank")
            d = tensor.shape.as_list()
            lead = dims_or_shape(tensor, list(pyrange(axis, axis + k)))
            rest = [d[:axis], [dims_prod(lead)], d[axis + k:]]
            if any(isinstance(r, Tensor) for r in rest) or None in d[:axis] + d[axis + k:]:
                s = shape(tensor)
                tshape = concat([slice(s, [0], [axis]), reshape(dims_prod(lead), [1]), slice(s, [axis + k], [-1])], 0)
            else:
                tshape = rest[0] + rest[1] + rest[2]
            tensor = reshape(tensor, tshape)
            mask = reshape(mask, [-1])
        indices = squeeze(where(mask), axis=[1])
        out = gather(tensor, indices, axis=axis)
        out.op._dense_gradient = True   # TF reshapes first, so its gradient here is dense, not IndexedSlices
        return out
