"""tf.SparseTensor (the three tensors indices, values, dense_shape) and tf.sparse.to_dense.

Only what string splitting and VarLenFeature parsing return: a SparseTensor is a namedtuple of
tensors; `Session.run` of one gives a `SparseTensorValue` of numpy arrays, as TF 1.15 does.
Densifying runs on the host (its shape depends on values).
"""
import collections

import numpy as np

from tinyflow.graph import errors
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import Tensor, constant_value
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core.base import convert_to_tensor
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
                return SparseTensor(self.indices, op(self.values, dense), self.dense_shape)
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


def _to_dense(session, op, inputs):
    indices, shape, values, default = inputs
    out = np.empty(tuple(int(d) for d in shape), dtype=values.dtype)
    out[...] = default[()] if values.dtype != object else default[()]
    for i, (idx, v) in enumerate(zip(indices, values)):
        if any(k < 0 or k >= d for k, d in zip(idx, shape)):
            raise errors.InvalidArgumentError(op.node_def, op, "indices[%d] = [%s] is out of bounds: need 0 <= "
                                              "index < [%s]" % (i, ",".join(map(str, idx)), ",".join(map(str, shape))))
        out[tuple(idx)] = v
    return [out]


register_host_op("SparseToDense", lambda s, a, v: [TensorShape([None] * s[0].as_list()[1])
                                                   if s[0].ndims == 2 and s[0].as_list()[1] is not None
                                                   else TensorShape(None)],
                 lambda d, a: [d[2]], _to_dense)


def sparse_tensor_to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """tf.sparse.to_dense: the dense tensor, `default_value` (0 or b'') where no index is given."""
    if default_value is None:
        default_value = b"" if sp_input.dtype is dt.string else 0
    default = convert_to_tensor(default_value, sp_input.dtype)
    return make_host_op("SparseToDense", [sp_input.indices, sp_input.dense_shape, sp_input.values, default],
                        name=name or "SparseToDense").outputs[0]


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
