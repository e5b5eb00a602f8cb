"""tf.SparseTensor (the three tensors indices, values, dense_shape), TF's SparseToDense op (tf.sparse.to_dense,
tf.sparse_to_dense) and tf.edit_distance.

A SparseTensor is a namedtuple of tensors; `Session.run` of one gives a `SparseTensorValue` of numpy arrays,
as TF 1.15 does. SparseToDense runs in the step (its output shape is a value: between segments when fed)
and checks its indices as TF's kernel does; on strings it runs on the host, on the strings' codes.
"""
import collections

import jax
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import errors
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import Tensor, constant_value
from tinyflow.graph.registry import register_op, same_as_input
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.core.util import first_bad
from tinyflow.ops.host_ops import make_host_op, register_host_op

SparseTensorValue = collections.namedtuple("SparseTensorValue", ["indices", "values", "dense_shape"])


class SparseTensor(collections.namedtuple("SparseTensor", ["indices", "values", "dense_shape"])):
    """A sparse tensor: int64 `indices` [N, rank], `values` [N], int64 `dense_shape` [rank]."""
    _fetched_type = SparseTensorValue  # what Session.run rebuilds it as (runtime/fetches.py)

    def __new__(cls, indices, values, dense_shape):
        if not isinstance(values, Tensor):
            values = convert_to_tensor(values)
        return super().__new__(cls, convert_to_tensor(indices, dt.int64), values,
                               convert_to_tensor(dense_shape, dt.int64))

    dtype = property(lambda self: self.values.dtype)
    op = property(lambda self: self.values.op)
    graph = property(lambda self: self.values.graph)

    def get_shape(self):
        known = constant_value(self.dense_shape)
        if known is not None:
            return TensorShape([int(d) for d in known])
        n = self.dense_shape.shape.as_list()
        return TensorShape([None] * n[0] if n and n[0] is not None else None)

    shape = property(get_shape)

    def _cwise(self, other, op, name):
        """TF's SparseDenseCwise{Mul,Div}: the dense operand broadcast to the sparse one's dense shape
        (never the other way) and read at its indices; indices and dense_shape are kept."""
        from tinyflow.graph.core import get_default_graph
        from tinyflow.ops.core import array_ops, math_ops
        from tinyflow.ops.core.indexing_ops import gather_nd
        with get_default_graph().name_scope(name):
            dense = convert_to_tensor(other, self.dtype, name="y")
            rank, sparse_rank = dense.shape.ndims, self.indices.shape[1].value
            if rank is None or (sparse_rank is not None and rank > sparse_rank):
                raise ValueError("%s of a SparseTensor needs a dense operand of known rank at most the sparse "
                                 "one's (%s), got shape %s" % (name, sparse_rank, dense.shape))
            if rank == 0:
                out = SparseTensor(self.indices, op(self.values, dense), self.dense_shape)
                masked = getattr(self, "_masked", None)   # (sp, mask): a tf.sparse_retain's (api/sparse_more.py)
                if masked is not None:
                    sp, mask = masked
                    out._masked = (SparseTensor(sp.indices, op(sp.values, dense), sp.dense_shape), mask)
                return out
            # a size-1 dense dimension broadcasts: read its element 0 whatever the sparse index there
            where = self.indices[:, -rank:]
            where.set_shape([None, rank])  # the sparse rank may be unknown (fed); the slice's width is not
            wide = math_ops.cast(math_ops.not_equal(array_ops.shape(dense, out_type=dt.int64), 1), dt.int64)
            return SparseTensor(self.indices, op(self.values, gather_nd(dense, where * wide)), self.dense_shape)

    def __mul__(self, other):
        from tinyflow.ops.core import math_ops
        return self._cwise(other, math_ops.multiply, "SparseDenseCwiseMul")

    def __truediv__(self, other):
        from tinyflow.ops.core import math_ops
        return self._cwise(other, math_ops.truediv, "SparseDenseCwiseDiv")

    __div__ = __truediv__


def _rows(indices):
    """SparseToDense's indices as [N, rank]: a scalar is one index of a vector, a vector N of them."""
    return indices.reshape((1, 1) if indices.ndim == 0 else (-1, 1) if indices.ndim == 1 else indices.shape)


def _std_check(a, indices, shape, values, default):
    """TF's kernel: an index out of bounds is an error; with validate_indices, so is an index not after
    the one before it in row-major order (out of order, or repeated)."""
    ix = _rows(indices).astype(np.int64)
    dims = shape.astype(np.int64).reshape(-1)
    outside = jnp.any((ix < 0) | (ix >= dims[None, :]), axis=1)
    diff = ix[1:] - ix[:-1]
    first = jnp.argmax(diff != 0, axis=1)                  # the first dimension where the two differ
    lead = jnp.take_along_axis(diff, first[:, None], 1)[:, 0] if ix.shape[0] > 1 else jnp.zeros(0, np.int64)
    order = jnp.concatenate([jnp.zeros(1, np.int32), jnp.where(lead < 0, 1, jnp.where(lead == 0, 2, 0))])[:ix.shape[0]]
    kind = jnp.where(outside, 0, order if a.get("validate_indices", True) else 0)
    ok, pos, _, row = first_bad(outside | (kind > 0), ix)
    return ok, pos, row, kind[pos] if ix.shape[0] else jnp.int32(0), dims


def _std_message(op, pos, row, kind, dims):
    at = "indices[%d] = [%s]" % (int(pos), ",".join(str(int(v)) for v in np.atleast_1d(row)))
    shape = ",".join(str(int(d)) for d in dims)
    if not op.attrs.get("validate_indices", True):
        return "Indices are not valid (out of bounds).  Shape: [%s]" % shape
    return at + [" is out of bounds: need 0 <= index < [%s]" % shape, " is out of order. Many sparse ops require "
                 "sorted indices.\n    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n",
                 " is repeated"][int(kind)]


def _std_lower(a, indices, shape, values, default):
    """The dense tensor: default_value, then each value written at its index in order (a repeated index
    keeps its last value, as TF's kernel does; an index out of bounds is left out: the check raises)."""
    from tinyflow.ops.core.util import ints, is_concrete
    ix = _rows(indices).astype(np.int64)
    dims = ints(shape)
    if all(is_concrete(x) and not isinstance(x, jax.Array) for x in (indices, values)):   # strings' codes
        ok, *data = _std_check(a, np.asarray(indices), np.asarray(shape), values, default)
        if is_concrete(ok) and not bool(ok):   # (traced: its values jitted, lower/consteval.py; its check step says)
            raise errors.InvalidArgumentError(None, None, _std_message(_Attrs(a), *map(np.asarray, data)))
    n = ix.shape[0]
    vals = jnp.broadcast_to(values, (n,))
    inside = jnp.all((ix >= 0) & (ix < np.array(dims, np.int64)), axis=1)
    linear = jnp.sum(jnp.where(inside[:, None], ix, 0) * np.array(_strides(dims), np.int64), axis=1)
    order = jnp.argsort(linear, stable=True)
    later = jnp.zeros(n, bool).at[order[:-1]].set(linear[order[1:]] == linear[order[:-1]]) if n else inside
    keep = inside & ~later                                  # drop out-of-bounds and overwritten entries
    size = int(np.prod(dims))
    out = jnp.full((size,), default, vals.dtype).at[jnp.where(keep, linear, size)].set(vals, mode="drop")
    return out.reshape(dims)


class _Attrs:
    def __init__(self, attrs):
        self.attrs = attrs


def _strides(dims):
    return [int(np.prod(dims[k + 1:])) for k in range(len(dims))]


def _std_grad(op, g):
    """TF's _SparseToDenseGrad: the values get the gradient at their indices, the default the rest."""
    from tinyflow.ops.core import math_ops
    from tinyflow.ops.core.indexing_ops import gather_nd
    values_grad = gather_nd(g, op.inputs[0])
    return [None, None, values_grad, math_ops.reduce_sum(g) - math_ops.reduce_sum(values_grad)]


def _std_shape(shapes, attrs, values):
    from tinyflow.ops.core.array_ops import fill_shape
    return fill_shape(shapes[1:2], attrs, values[1:2])


register_op("SparseToDense", shape=_std_shape, dtype=same_as_input(2), lower=_std_lower, grad=_std_grad,
            check=_std_check, check_message=_std_message, dynamic_shape=lambda op, known: not known[1])


def sparse_to_dense_op(indices, output_shape, values, default_value, validate_indices=True, name=None):
    """TF's SparseToDense op: output_shape filled with default_value, values written at indices."""
    from tinyflow.ops.core.base import make_op
    indices = convert_to_tensor(indices, name="sparse_indices")
    shape = convert_to_tensor(output_shape, indices.dtype, name="output_shape")
    values = convert_to_tensor(values, name="sparse_values")
    default = convert_to_tensor(default_value, values.dtype, name="default_value")
    return make_op("SparseToDense", [indices, shape, values, default], {"validate_indices": bool(validate_indices)},
                   name=name or "SparseToDense")


def sparse_tensor_to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """tf.sparse.to_dense: the dense tensor, `default_value` (0 or b'') where no index is given; with
    validate_indices, indices out of row-major order or repeated are an error (TF's kernel's)."""
    if default_value is None:
        default_value = b"" if sp_input.dtype is dt.string else 0
    return sparse_to_dense_op(sp_input.indices, sp_input.dense_shape, sp_input.values, default_value,
                              validate_indices, name=name)


def _levenshtein(a, b):
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def _sequences(indices, values, shape):
    seqs = {}
    for idx, v in sorted(zip(map(tuple, indices), values), key=lambda p: p[0]):
        seqs.setdefault(idx[:-1], []).append(v)
    return seqs


def _edit_distance(session, op, inputs):
    hi, hv, hs, ti, tv, ts = inputs
    if len(hs) != len(ts):
        raise errors.InvalidArgumentError(op.node_def, op, "hypothesis and truth must have the same rank, got %d "
                                          "and %d" % (len(hs), len(ts)))
    shape = tuple(int(max(a, b)) for a, b in zip(hs[:-1], ts[:-1]))
    hyp, truth = _sequences(hi, hv, hs), _sequences(ti, tv, ts)
    out = np.zeros(shape, np.float32)
    for loc in set(hyp) | set(truth):
        h, t = hyp.get(loc, []), truth.get(loc, [])
        d = np.float32(_levenshtein(h, t))
        with np.errstate(divide="ignore", invalid="ignore"):
            out[loc] = d / np.float32(len(t)) if op.attrs["normalize"] else d   # no truth: inf, as TF
    return [out]


def _edit_distance_shape(shapes, attrs, values):
    hs, ts = values[2], values[5]
    if hs is not None and ts is not None:
        return [TensorShape([int(max(a, b)) for a, b in zip(hs[:-1], ts[:-1])])]
    n = shapes[2].as_list()[0] if shapes[2].ndims == 1 else None
    return [TensorShape(None if n is None else [None] * (n - 1))]


register_host_op("EditDistance", _edit_distance_shape, lambda d, a: [dt.float32], _edit_distance)


def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """tf.edit_distance: the Levenshtein distance between the sequences (along the last dimension) of two
    SparseTensors, float32 of their dense shape less its last dimension; normalize: divided by the truth's
    length (inf where the truth is empty)."""
    for x, what in ((hypothesis, "Hypothesis"), (truth, "Truth")):
        if not isinstance(x, (SparseTensor, SparseTensorValue)):
            raise TypeError("%s must be a SparseTensor." % what)
    h, t = [SparseTensor(*x) if isinstance(x, SparseTensorValue) else x for x in (hypothesis, truth)]
    return make_host_op("EditDistance", [h.indices, h.values, h.dense_shape, t.indices, t.values, t.dense_shape],
                        {"normalize": bool(normalize)}, name=name).outputs[0]
