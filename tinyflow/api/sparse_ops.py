"""TF 1.15's sparse ops built from graph ops on a SparseTensor's three tensors: sparse_reduce_sum(_sparse),
sparse_reshape, sparse_transpose, sparse_concat, sparse_tensor_dense_matmul, sparse_to_indicator and
nn.embedding_lookup_sparse (tf.sparse_placeholder is api/sparse.py's). Results come in TF's canonical
(row-major) order; gradients flow through the values (gathers and segment sums)."""
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import get_default_graph
from tinyflow.ops.core import array_ops, math_ops
from tinyflow.ops.core.base import constant_value_of, convert_to_tensor
from tinyflow.ops.core.indexing_ops import boolean_mask, gather, scatter_nd, where
from tinyflow.ops.core.sequence_ops import argsort, cumprod, cumsum, one_hot, reverse
from tinyflow.ops.nn_ops import embedding_lookup
from tinyflow.ops.core.util import keep_arg
from tinyflow.ops.segment_ops import segment_sum, unsorted_segment_sum
from tinyflow.ops.sparse import SparseTensor

__all__ = ["sparse_concat", "sparse_reduce_sum", "sparse_reduce_sum_sparse", "sparse_reshape",
           "sparse_tensor_dense_matmul", "sparse_to_indicator", "sparse_transpose"]   # (+ nn.embedding_lookup_sparse)


def _scope(name):
    return get_default_graph().name_scope(name)


def _check(sp, what):
    if not isinstance(sp, SparseTensor):
        raise TypeError("Input must be a SparseTensor for %s, got %r" % (what, type(sp).__name__))
    return sp


def _strides(shape):
    """Row-major strides of an int64 dense_shape tensor: [prod(shape[1:]), ..., 1]."""
    rev = reverse(shape, [0])
    return reverse(cumprod(rev, exclusive=True), [0])


def _linear(indices, shape):
    return math_ops.reduce_sum(indices * _strides(shape), axis=1)


def _reordered(indices, values, shape):
    """The SparseTensor with its entries sorted in row-major order (tf.sparse.reorder)."""
    order = argsort(_linear(indices, shape), stable=True)
    return SparseTensor(gather(indices, order), gather(values, order), shape)


def _to_dense(sp, values=None):
    return scatter_nd(sp.indices, sp.values if values is None else values, sp.dense_shape)


def sparse_reduce_sum(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None, name=None):
    """The dense sum of a SparseTensor over `axis` (all axes when None)."""
    with _scope(name or "SparseReduceSum"):
        sp = _check(sp_input, "sparse_reduce_sum")
        axis = reduction_axes if axis is None else axis
        return math_ops.reduce_sum(_to_dense(sp), axis=axis, keepdims=keep_arg(keepdims, keep_dims))


def sparse_reduce_sum_sparse(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None, name=None):
    """sparse_reduce_sum as a SparseTensor: an entry wherever some input entry is summed."""
    with _scope(name or "SparseReduceSumSparse"):
        sp = _check(sp_input, "sparse_reduce_sum_sparse")
        axis = reduction_axes if axis is None else axis
        keep = keep_arg(keepdims, keep_dims)
        total = math_ops.reduce_sum(_to_dense(sp), axis=axis, keepdims=keep)
        hits = math_ops.reduce_sum(_to_dense(sp, array_ops.ones_like(sp.values, dt.int32)), axis=axis, keepdims=keep)
        hit = math_ops.greater(hits, 0)   # (a flat mask: the sum may be a scalar)
        return SparseTensor(where(hit), boolean_mask(array_ops.reshape(total, [-1]), array_ops.reshape(hit, [-1])),
                            math_ops.cast(array_ops.shape(total), dt.int64))


def sparse_reshape(sp_input, shape, name=None):
    """The SparseTensor with dense shape `shape` (one -1 inferred), same entries in row-major order."""
    with _scope(name or "SparseReshape"):
        sp = _check(sp_input, "sparse_reshape")
        shape = math_ops.cast(convert_to_tensor(shape, name="shape"), dt.int64)
        total = math_ops.reduce_prod(sp.dense_shape)
        known = math_ops.reduce_prod(math_ops.abs(shape))   # -1 counts as 1
        new_shape = where(math_ops.equal(shape, -1), array_ops.fill(array_ops.shape(shape), total // known),
                                    shape) if _has_minus_one(shape) else shape
        linear = array_ops.expand_dims(_linear(sp.indices, sp.dense_shape), 1)
        indices = (linear // array_ops.expand_dims(_strides(new_shape), 0)) % array_ops.expand_dims(new_shape, 0)
        return SparseTensor(indices, sp.values, new_shape)


def _has_minus_one(shape):
    v = constant_value_of(shape)
    return v is None or -1 in list(v)


def sparse_transpose(sp_input, perm=None, name=None):
    """The SparseTensor with its dimensions permuted by `perm` (reversed by default), reordered."""
    with _scope(name or "SparseTranspose"):
        sp = _check(sp_input, "sparse_transpose")
        if perm is None:
            rank = sp.indices.shape[1].value
            if rank is None:
                raise ValueError("sparse_transpose needs the rank of %s known when perm is None" % sp.indices.name)
            perm = list(range(rank))[::-1]
        perm = convert_to_tensor(perm, dt.int32, name="perm")
        return _reordered(gather(sp.indices, perm, axis=1), sp.values, gather(sp.dense_shape, perm))


def sparse_concat(axis, sp_inputs, name=None, expand_nonconcat_dim=False, concat_dim=None,
                  expand_nonconcat_dims=None):
    """SparseTensors joined along `axis` (the other dimensions equal, or their maximum when expanded)."""
    axis = concat_dim if concat_dim is not None else axis
    expand = expand_nonconcat_dim or bool(expand_nonconcat_dims)
    with _scope(name or "SparseConcat"):
        sps = [_check(s, "sparse_concat") for s in sp_inputs]
        shapes = array_ops.stack([s.dense_shape for s in sps])             # [n, rank]
        rank = sps[0].indices.shape[1].value
        if rank is None:
            raise ValueError("sparse_concat needs the rank of its inputs known")
        axis = axis % rank
        along = one_hot(axis, rank, dtype=dt.int64)
        starts = cumsum(shapes[:, axis], exclusive=True)
        indices = array_ops.concat([s.indices + starts[i] * along for i, s in enumerate(sps)], 0)
        values = array_ops.concat([s.values for s in sps], 0)
        other = math_ops.reduce_max(shapes, 0) if expand else shapes[0]
        shape = other * (1 - along) + math_ops.reduce_sum(shapes[:, axis]) * along
        return _reordered(indices, values, shape)


def sparse_tensor_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """A @ B for a SparseTensor A of rank 2 and a dense matrix B (A^T, B^T with the adjoints)."""
    with _scope(name or "SparseTensorDenseMatMul"):
        sp = _check(sp_a, "sparse_tensor_dense_matmul")
        # a tf.sparse_retain's result: every entry of its input, those not kept adding zeros to the sums
        # (the same sums: x + 0 is x), so that no shape depends on the count kept
        sp, mask = getattr(sp, "_masked", (sp, None))
        b = convert_to_tensor(b, name="b")
        if adjoint_b:
            b = array_ops.transpose(b)
        rows, cols = sp.indices[:, 0], sp.indices[:, 1]
        if adjoint_a:
            rows, cols = cols, rows
        n_rows = sp.dense_shape[1 if adjoint_a else 0]
        terms = gather(b, cols) * array_ops.expand_dims(math_ops.cast(sp.values, b.dtype), 1)
        if mask is not None:
            terms = math_ops.where_v2(array_ops.expand_dims(mask, 1), terms, array_ops.zeros_like(terms))
        out = unsorted_segment_sum(terms, rows, n_rows)
        n = constant_value_of(sp.dense_shape)
        if n is not None:
            out.set_shape([int(n[1 if adjoint_a else 0]), b.shape[1].value])
        return out


def sparse_to_indicator(sp_input, vocab_size, name=None):
    """A dense bool tensor [..., vocab_size]: True at [i..., v] for each value v of row i... of sp_input."""
    with _scope(name or "SparseToIndicator"):
        sp = _check(sp_input, "sparse_to_indicator")
        ids = math_ops.cast(sp.values, dt.int64)
        indices = array_ops.concat([sp.indices[:, :-1], array_ops.expand_dims(ids, 1)], 1)
        shape = array_ops.concat([sp.dense_shape[:-1], math_ops.cast(array_ops.reshape(vocab_size, [1]), dt.int64)],
                                 0)
        return math_ops.greater(scatter_nd(indices, array_ops.ones_like(ids, dt.int32), shape), 0)


def embedding_lookup_sparse(params, sp_ids, sp_weights, partition_strategy="mod", name=None, combiner=None,
                            max_norm=None):
    """The rows of params for each row of sp_ids, combined ("sum", "mean" (default) or "sqrtn") with the
    weights of sp_weights (1 where None): one output row per row index up to the last present."""
    combiner = combiner or "mean"
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError("combiner must be one of 'mean', 'sqrtn' or 'sum'")
    with _scope(name or "embedding_lookup_sparse"):
        sp = _check(sp_ids, "embedding_lookup_sparse")
        segments = math_ops.cast(sp.indices[:, 0], dt.int32)
        emb = embedding_lookup(params, sp.values, partition_strategy=partition_strategy, max_norm=max_norm)
        if sp_weights is None:
            if combiner == "sum":
                return segment_sum(emb, segments)
            ones = array_ops.ones_like(segments, emb.dtype)
            count = math_ops.maximum(segment_sum(ones, segments), 1)   # an empty row: 0 (TF's segment mean)
            if combiner == "sqrtn":
                count = math_ops.sqrt(count)
            return segment_sum(emb, segments) / array_ops.expand_dims(count, 1)
        w = math_ops.cast(_check(sp_weights, "embedding_lookup_sparse").values, emb.dtype)
        total = segment_sum(emb * array_ops.expand_dims(w, 1), segments)
        if combiner == "sum":
            return total
        norm = segment_sum(w, segments) if combiner == "mean" else math_ops.sqrt(segment_sum(w * w, segments))
        return total / array_ops.expand_dims(norm, 1)
