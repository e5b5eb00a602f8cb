"""More of TF 1.15's sparse ops, built as api/sparse_ops.py builds its own: from graph ops on a SparseTensor's
three tensors (scatters into a dense tensor and gathers back where an entry is), results in TF's row-major
order, gradients through the values. sparse_add, sparse_maximum/minimum, sparse_reduce_max(_sparse),
sparse_softmax, sparse_retain, sparse_slice, sparse_split, sparse_reset_shape, sparse_fill_empty_rows,
sparse_merge, sparse_mask, sparse_to_dense, sparse_reorder, sparse.eye / from_dense / expand_dims,
sparse_matmul, and (de)serialization of SparseTensors as TensorProtos (host ops)."""
import numpy as np

from tinyflow.api.sparse_ops import _check, _reordered, _scope, _strides, _to_dense
from tinyflow.graph import dtypes as dt
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core import array_ops as A
from tinyflow.ops.core import math_ops as M
from tinyflow.ops.core.base import constant, convert_to_tensor
from tinyflow.ops.core.indexing_ops import gather, gather_nd, scatter_nd, where
from tinyflow.ops.host_ops import make_host_op, register_host_op
from tinyflow.ops.sparse import SparseTensor, SparseTensorValue

__all__ = ["deserialize_many_sparse", "serialize_many_sparse", "serialize_sparse", "sparse_add",
           "sparse_fill_empty_rows", "sparse_mask", "sparse_matmul", "sparse_maximum", "sparse_merge",
           "sparse_minimum", "sparse_reduce_max", "sparse_reduce_max_sparse", "sparse_reorder", "sparse_reset_shape",
           "sparse_retain", "sparse_slice", "sparse_softmax", "sparse_split", "sparse_to_dense"]


def _sp(x, what):
    if isinstance(x, SparseTensorValue):
        x = SparseTensor(x.indices, x.values, x.dense_shape)
    return _check(x, what)


def _hits(sp):
    """int32 dense tensor: 1 where sp has an entry."""
    return scatter_nd(sp.indices, A.ones_like(sp.values, dt.int32), sp.dense_shape)


def _filled(sp, fill):
    """sp made dense with `fill` where it has no entry (entries keep their values, even when 0)."""
    dense = _to_dense(sp)
    return M.where_v2(M.greater(_hits(sp), 0), dense, M.add(M.zeros_like(dense), M.scalar_like(fill, dense)))


def _from_mask(dense, mask, shape):
    """The SparseTensor of dense's elements where mask is True (row-major order; a scalar dense too).
    One Where, of the flat mask: its positions give both the values and the indices (a Where decides
    a shape, so each is a cut between jitted segments when the mask is computed: docs/dynamic_shapes.md)."""
    at = A.reshape(where(A.reshape(mask, [-1])), [-1])
    dims = A.shape(mask, out_type=dt.int64)
    indices = M.floormod(M.floordiv(A.expand_dims(at, 1), A.expand_dims(_strides(dims), 0)), A.expand_dims(dims, 0))
    return SparseTensor(indices, gather(A.reshape(dense, [-1]), at), shape)


def sparse_reorder(sp_input, name=None):
    """The same SparseTensor with its entries in row-major order."""
    with _scope(name or "SparseReorder"):
        sp = _sp(sp_input, "sparse_reorder")
        return _reordered(sp.indices, sp.values, sp.dense_shape)


def sparse_add(a, b, thresh=0, threshold=None):
    """a + b: a SparseTensor when both are (entries where either has one; where both have one, kept when
    |sum| >= thresh: TF's kernel compares only sums to it), else a dense tensor."""
    thresh = threshold if threshold is not None else thresh
    with _scope("SparseAdd"):
        a_sp, b_sp = isinstance(a, (SparseTensor, SparseTensorValue)), isinstance(b, (SparseTensor, SparseTensorValue))
        if not a_sp and not b_sp:
            raise TypeError("At least one input should be SparseTensor; do you mean to use tf.add()?")
        if a_sp and b_sp:
            a, b = _sp(a, "sparse_add"), _sp(b, "sparse_add")
            total = M.add(_to_dense(a), _to_dense(b))
            hit_a, hit_b = M.greater(_hits(a), 0), M.greater(_hits(b), 0)
            big = M.greater_equal(M.abs(total), M.scalar_like(thresh, M.abs(total)))
            keep = M.logical_or(M.logical_xor(hit_a, hit_b), M.logical_and(M.logical_and(hit_a, hit_b), big))
            return _from_mask(total, keep, a.dense_shape)
        sp, dense = (_sp(a, "sparse_add"), b) if a_sp else (_sp(b, "sparse_add"), a)
        return M.add(_to_dense(sp), convert_to_tensor(dense, dtype=sp.dtype))


def _sparse_extreme(fn, a, b, name):
    with _scope(name):
        a, b = _sp(a, name), _sp(b, name)
        out = fn(_to_dense(a), _to_dense(b))
        return _from_mask(out, M.greater(M.add(_hits(a), _hits(b)), 0), a.dense_shape)


def sparse_maximum(sp_a, sp_b, name=None):
    """The elementwise maximum of two SparseTensors of one shape (a missing entry is 0)."""
    return _sparse_extreme(M.maximum, sp_a, sp_b, name or "SparseSparseMaximum")


def sparse_minimum(sp_a, sp_b, name=None):
    """The elementwise minimum of two SparseTensors of one shape (a missing entry is 0)."""
    return _sparse_extreme(M.minimum, sp_a, sp_b, name or "SparseSparseMinimum")


def _reduce_max(sp, axis, keep):
    """(max, hit): the maximum of the entries of each cell of the reduced shape (each entry on its own, a
    repeated index included; NaN skipped; 0 where none is: TF's) and whether some entry is there."""
    from tinyflow.ops.core.sequence_ops import cumprod, reverse
    from tinyflow.ops.segment_ops import unsorted_segment_max, unsorted_segment_sum
    rank = sp.indices.shape[1].value
    if rank is None:
        raise ValueError("sparse_reduce_max needs the rank of %s known" % sp.indices.name)
    axes = range(rank) if axis is None else [int(a) % rank for a in np.atleast_1d(axis)]
    kept = constant(np.array([0 if d in axes else 1 for d in range(rank)], np.int64))
    cells = M.add(M.multiply(sp.dense_shape, kept), 1 - kept)            # the reduced shape, keepdims
    strides = reverse(cumprod(reverse(cells, [0]), exclusive=True), [0])
    cell = M.reduce_sum(M.multiply(M.multiply(sp.indices, kept), strides), axis=1)
    n = M.reduce_prod(cells)
    values = sp.values
    if values.dtype.is_floating:   # TF's max reducer starts at -inf and skips NaN (a NaN never compares greater)
        values = M.where_v2(M.is_nan(values), M.add(M.zeros_like(values), M.scalar_like(-np.inf, values)), values)
    top = unsorted_segment_max(values, cell, n)
    hit = M.greater(unsorted_segment_sum(A.ones_like(sp.values, dt.int32), cell, n), 0)
    shape = cells if keep else A.reshape(gather(sp.dense_shape, where(M.equal(kept, 1))), [-1])
    if values.dtype.is_floating:   # (a segment max starts at the lowest finite value, TF's reducer at -inf)
        some = M.greater(unsorted_segment_sum(M.cast(M.greater(values, M.scalar_like(-np.inf, values)), dt.int32),
                                              cell, n), 0)
        top = M.where_v2(some, top, M.add(M.zeros_like(top), M.scalar_like(-np.inf, top)))
    top = M.where_v2(hit, top, M.zeros_like(top))
    return A.reshape(top, shape), A.reshape(hit, shape), shape


def sparse_reduce_max(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """The maximum of the entries present over `axis` (missing entries are not zeros here; a group with no
    entry gives 0: TF's)."""
    from tinyflow.ops.core.util import keep_arg
    with _scope("SparseReduceMax"):
        sp = _sp(sp_input, "sparse_reduce_max")
        axis = reduction_axes if axis is None else axis
        return _reduce_max(sp, axis, keep_arg(keepdims, keep_dims))[0]


def sparse_reduce_max_sparse(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """sparse_reduce_max as a SparseTensor: an entry wherever some entry is reduced."""
    from tinyflow.ops.core.util import keep_arg
    with _scope("SparseReduceMaxSparse"):
        sp = _sp(sp_input, "sparse_reduce_max_sparse")
        axis = reduction_axes if axis is None else axis
        top, hit, shape = _reduce_max(sp, axis, keep_arg(keepdims, keep_dims))
        return _from_mask(top, hit, shape)


def sparse_softmax(sp_input, name=None):
    """Softmax over the last dimension among the entries present (a missing entry is not a 0 logit)."""
    from tinyflow.ops.nn_ops import softmax
    with _scope(name or "SparseSoftmax"):
        sp = _sp(sp_input, "sparse_softmax")
        dense = _filled(sp, -np.inf)
        return SparseTensor(sp.indices, gather_nd(softmax(dense), sp.indices), sp.dense_shape)


def sparse_retain(sp_input, to_retain):
    """The entries of sp_input where the bool vector to_retain is True (the dense shape unchanged).
    The result also keeps, as `_masked`, sp_input with the mask: an op for which an entry of value 0
    counts as none (sparse_tensor_dense_matmul) reads that instead, so that the count kept, unknown
    until run time (gcn's sparse dropout: a random mask), decides no shape (docs/dynamic_shapes.md)."""
    with _scope("sparse_retain"):
        sp = _sp(sp_input, "sparse_retain")
        mask = convert_to_tensor(to_retain, dt.bool_, name="to_retain")
        keep = A.reshape(where(mask), [-1])
        out = SparseTensor(gather(sp.indices, keep), gather(sp.values, keep), sp.dense_shape)
        if mask.shape.ndims in (None, 1):   # (a mask of another length than the values: Reshape's error)
            out._masked = (sp, A.reshape(mask, A.shape(sp.values)))
        return out


def sparse_slice(sp_input, start, size, name=None):
    """The entries in the box [start, start + size), indices shifted by -start, the shape cut to the box."""
    with _scope(name or "SparseSlice"):
        sp = _sp(sp_input, "sparse_slice")
        start = M.cast(convert_to_tensor(start, name="start"), dt.int64)
        size = M.cast(convert_to_tensor(size, name="size"), dt.int64)
        end = M.minimum(M.add(start, size), sp.dense_shape)
        inside = M.reduce_all(M.logical_and(M.greater_equal(sp.indices, start), M.less(sp.indices, end)), axis=1)
        keep = A.reshape(where(inside), [-1])
        shape = M.maximum(M.subtract(end, start), M.scalar_like(0, end))
        return SparseTensor(M.subtract(gather(sp.indices, keep), start), gather(sp.values, keep), shape)


def sparse_split(keyword_required=None, sp_input=None, num_split=None, axis=None, name=None, split_dim=None):
    """num_split SparseTensors along `axis` (the first size % num_split pieces one longer), as TF's."""
    axis = split_dim if axis is None else axis
    with _scope(name or "SparseSplit"):
        sp = _sp(sp_input, "sparse_split")
        rank = sp.indices.shape[1].value
        if rank is None:
            raise ValueError("sparse_split needs the rank of %s known" % sp.indices.name)
        axis, num_split = int(axis) % rank, int(num_split)
        along = constant(np.eye(rank, dtype=np.int64)[axis])
        size = sp.dense_shape[axis]
        n, extra = M.floordiv(size, num_split), M.floormod(size, num_split)
        out = []
        for i in range(num_split):   # piece i starts at i * n + min(i, extra), one longer while i < extra
            begin = M.add(M.multiply(n, i), M.minimum(extra, i))
            length = M.add(n, M.cast(M.less(constant(np.int64(i)), extra), dt.int64))
            start = M.multiply(along, begin)
            out.append(sparse_slice(sp, start, M.add(M.multiply(sp.dense_shape, 1 - along), M.multiply(along, length))))
        return out


def sparse_reset_shape(sp_input, new_shape=None):
    """sp_input with dense shape new_shape (at least the old one), or the tightest shape (max index + 1)."""
    with _scope("SparseResetShape"):
        sp = _sp(sp_input, "sparse_reset_shape")
        if new_shape is None:
            return SparseTensor(sp.indices, sp.values, M.add(M.reduce_max(sp.indices, axis=0), 1))
        return SparseTensor(sp.indices, sp.values, M.cast(convert_to_tensor(new_shape, name="new_shape"), dt.int64))


def sparse_fill_empty_rows(sp_input, default_value, name=None):
    """(sp, empty_row_indicator): an entry [row, 0, ...] = default_value added to each empty row."""
    from tinyflow.ops.core.indexing_ops import unsorted_segment_sum
    with _scope(name or "SparseFillEmptyRows"):
        sp = _sp(sp_input, "sparse_fill_empty_rows")
        rows = sp.dense_shape[0]
        counts = unsorted_segment_sum(A.ones_like(sp.values, dt.int32), sp.indices[:, 0], rows)
        empty = M.equal(counts, 0)
        new_rows = where(empty)                                       # [k, 1]
        rank = sp.indices.shape[1].value
        pad = A.zeros(A.stack([A.shape(new_rows, out_type=dt.int64)[0], rank - 1]), dt.int64) if rank > 1 else None
        new_idx = A.concat([new_rows, pad], 1) if pad is not None else new_rows
        fill = A.fill(A.shape(new_rows)[:1], convert_to_tensor(default_value, dtype=sp.dtype))
        out = _reordered(A.concat([sp.indices, new_idx], 0), A.concat([sp.values, fill], 0), sp.dense_shape)
        return out, empty


def sparse_merge(sp_ids, sp_values, vocab_size, name=None, already_sorted=False):
    """A SparseTensor [..., vocab_size]: entry [row..., id] = value for each id of sp_ids's rows."""
    with _scope(name or "SparseMerge"):
        ids, vals = _sp(sp_ids, "sparse_merge"), _sp(sp_values, "sparse_merge")
        col = A.expand_dims(M.cast(ids.values, dt.int64), 1)
        indices = A.concat([ids.indices[:, :-1], col], 1)
        vocab = M.cast(A.reshape(convert_to_tensor(vocab_size, name="vocab_size"), [1]), dt.int64)
        shape = A.concat([ids.dense_shape[:-1], vocab], 0)
        return SparseTensor(indices, vals.values, shape) if already_sorted else _reordered(indices, vals.values, shape)


def sparse_mask(a, mask_indices, name=None):
    """The IndexedSlices a without the rows whose index is in mask_indices."""
    from tinyflow.api.tensor_util import IndexedSlices
    from tinyflow.ops.array_more_ops import setdiff1d
    with _scope(name or "sparse_mask"):
        _, keep = setdiff1d(a.indices, convert_to_tensor(mask_indices, dtype=a.indices.dtype))
        return IndexedSlices(gather(a.values, keep), gather(a.indices, keep), a.dense_shape)


def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value=0, validate_indices=True, name=None):
    """The dense tensor of output_shape with sparse_values at sparse_indices (a scalar, vector of indices of
    a 1-D output, or [N, rank] matrix) and default_value elsewhere: TF's SparseToDense op."""
    from tinyflow.ops.sparse import sparse_to_dense_op
    return sparse_to_dense_op(sparse_indices, output_shape, sparse_values, default_value, validate_indices, name)


def sparse_matmul(a, b, transpose_a=False, transpose_b=False, a_is_sparse=False, b_is_sparse=False, name=None):
    """tf.sparse_matmul: a dense matmul (TF's op takes the sparsity flags as hints), float32 out."""
    return M.matmul(M.cast(a, dt.float32), M.cast(b, dt.float32), transpose_a=transpose_a, transpose_b=transpose_b,
                    name=name or "SparseMatMul")


def eye(num_rows, num_columns=None, dtype=dt.float32, name=None):
    """The identity as a SparseTensor [num_rows, num_columns]."""
    with _scope(name or "eye"):
        rows = int(num_rows)
        cols = rows if num_columns is None else int(num_columns)
        n = min(rows, cols)
        diag = np.stack([np.arange(n), np.arange(n)], 1).astype(np.int64)
        return SparseTensor(constant(diag.reshape(n, 2)), constant(np.ones(n, dt.as_dtype(dtype).np)),
                            constant(np.array([rows, cols], np.int64)))


def from_dense(tensor, name=None):
    """The SparseTensor of tensor's nonzero entries."""
    with _scope(name or "dense_to_sparse"):
        t = convert_to_tensor(tensor, name="tensor")
        zero = constant(b"" if t.dtype == dt.string else np.zeros((), t.dtype.np), dtype=t.dtype)
        return _from_mask(t, M.not_equal(t, zero), A.shape(t, out_type=dt.int64))


def expand_dims(sp_input, axis=None, name=None):
    """sp_input with a dimension of size 1 inserted at `axis`."""
    with _scope(name or "expand_dims"):
        sp = _sp(sp_input, "expand_dims")
        rank = sp.indices.shape[1].value
        axis = -1 if axis is None else int(axis)
        axis = axis + rank + 1 if axis < 0 else axis
        zeros = A.zeros(A.stack([A.shape(sp.indices, out_type=dt.int64)[0], 1]), dt.int64)
        indices = A.concat([sp.indices[:, :axis], zeros, sp.indices[:, axis:]], 1)
        shape = A.concat([sp.dense_shape[:axis], constant(np.ones(1, np.int64)), sp.dense_shape[axis:]], 0)
        return SparseTensor(indices, sp.values, shape)


# ---- serialization: each SparseTensor as three TensorProtos (indices, values, shape), on the host ---------
def _proto_bytes(a, dtype):
    from tinyflow.formats import convert
    from tinyflow.formats.tf_protos import TensorProto
    return convert.from_numpy(a, TensorProto(), dtype).SerializeToString()


def _serialize(session, op, inputs):
    indices, values, shape = inputs
    dtype = op.inputs[1].dtype
    if not op.attrs["many"]:
        return [np.array([_proto_bytes(indices, dt.int64), _proto_bytes(values, dtype),
                          _proto_bytes(shape, dt.int64)], dtype=object)]
    rows = []
    for r in range(int(shape[0])):
        keep = indices[:, 0] == r
        rows.append([_proto_bytes(indices[keep][:, 1:], dt.int64), _proto_bytes(values[keep], dtype),
                     _proto_bytes(shape[1:], dt.int64)])
    return [np.array(rows, dtype=object).reshape(-1, 3)]


register_host_op("SerializeSparse", lambda s, a, v: [TensorShape([None, 3] if a["many"] else [3])],
                 lambda d, a: [dt.string], _serialize)


def serialize_sparse(sp_input, name=None, out_type=dt.string):
    """A [3] string vector: the serialized TensorProtos of sp_input's indices, values and dense shape."""
    sp = _sp(sp_input, "serialize_sparse")
    return make_host_op("SerializeSparse", list(sp), {"many": False}, name=name or "SerializeSparse").outputs[0]


def serialize_many_sparse(sp_input, name=None, out_type=dt.string):
    """[N, 3] strings: serialize_sparse of each of the N minibatch entries (first dimension) of sp_input."""
    sp = _sp(sp_input, "serialize_many_sparse")
    return make_host_op("SerializeSparse", list(sp), {"many": True}, name=name or "SerializeManySparse").outputs[0]


def _deserialize(session, op, inputs):
    from tinyflow.formats import convert
    from tinyflow.formats.tf_protos import TensorProto
    rows = inputs[0].reshape(-1, 3)
    parsed = []
    for r in rows:
        parts = []
        for b in r:
            tp = TensorProto()
            tp.ParseFromString(bytes(b))
            parts.append(np.asarray(convert.to_numpy(tp)))
        parsed.append(parts)
    rank = op.attrs["rank"]
    dims = np.max([p[2] for p in parsed], axis=0) if parsed else np.zeros(max(rank - 1, 0), np.int64)
    indices = [np.concatenate([np.full((len(p[0]), 1), i, np.int64), p[0].reshape(len(p[0]), rank - 1)], 1)
               for i, p in enumerate(parsed)]
    values = [p[1] for p in parsed]
    dtype = op.attrs["dtype"]
    vals = np.concatenate(values) if values else np.zeros(0, dtype.np)
    return [np.concatenate(indices).reshape(-1, len(dims) + 1) if indices else np.zeros((0, len(dims) + 1), np.int64),
            vals.astype(dtype.np) if dtype != dt.string else vals.astype(object),
            np.concatenate([[len(parsed)], dims]).astype(np.int64)]


register_host_op("DeserializeManySparse", lambda s, a, v: [TensorShape([None, a["rank"]]), TensorShape([None]),
                                                           TensorShape([a["rank"]])],
                 lambda d, a: [dt.int64, a["dtype"], dt.int64], _deserialize)


def deserialize_many_sparse(serialized_sparse, dtype, rank=None, name=None):
    """The SparseTensor of a [N, 3] string matrix from serialize_many_sparse (or serialize_sparse rows
    stacked): the entries' dense shapes give the maximum, N the first dimension."""
    s = convert_to_tensor(serialized_sparse, dt.string, name="serialized_sparse")
    if rank is None:
        raise ValueError("tinyflow's deserialize_many_sparse needs `rank` (the rank of the result)")
    op = make_host_op("DeserializeManySparse", [s], {"dtype": dt.as_dtype(dtype), "rank": int(rank)},
                      name=name or "DeserializeManySparse")
    return SparseTensor(*op.outputs)
