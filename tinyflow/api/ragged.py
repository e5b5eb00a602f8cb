"""tf.RaggedTensor and tf.ragged (TF 1.15) in graph mode: a ragged value is its flat values plus one int64
row_splits vector per ragged dimension, as TF stores it; Session.run returns a RaggedTensorValue (to_list()).

XLA compiles static shapes, so what depends on the row partition's values while building -- to_tensor's
padded width, from_value_rowids / from_tensor(padding=...) / from_sparse -- needs that partition known
while building (made from constants, as tf.ragged.constant and most scripts' inputs are); otherwise it
raises UnimplementedError saying so. from_row_splits / lengths / starts / limits and map_flat_values work
on run-time tensors too.
"""
import builtins
import collections

import numpy as np

from tinyflow.api.aliases import get_static_value
from tinyflow.graph import dtypes, errors, shapes
from tinyflow.graph.core import Tensor
from tinyflow.ops.core import array_ops
from tinyflow.ops.core import math_ops
from tinyflow.ops.core.base import constant as _dense, convert_to_tensor
from tinyflow.ops.core.indexing_ops import gather
from tinyflow.ops.core.sequence_ops import cumsum


class RaggedTensorValue(collections.namedtuple("RaggedTensorValue", ["values", "row_splits"])):
    """A fetched ragged value: numpy values (or a nested RaggedTensorValue) and row_splits."""

    flat_values = property(lambda self: self.values.flat_values if isinstance(self.values, RaggedTensorValue)
                           else self.values)
    ragged_rank = property(lambda self: 1 + (self.values.ragged_rank if isinstance(self.values, RaggedTensorValue)
                                             else 0))

    def to_list(self):
        values = self.values
        inner = values.to_list() if isinstance(values, RaggedTensorValue) else np.asarray(values).tolist()
        return [inner[a:b] for a, b in zip(self.row_splits[:-1], self.row_splits[1:])]


def _static(x):
    value = get_static_value(x) if isinstance(x, Tensor) else np.asarray(x)
    return None if value is None else np.asarray(value).astype(np.int64)


def _needs_static(what):
    raise errors.UnimplementedError(None, None, "RaggedTensor %s needs the row partition known while building (XLA "
                                                "compiles static shapes); this one is computed at run time" % what)


class RaggedTensor(collections.namedtuple("RaggedTensor", ["values", "row_splits"])):
    """values (a Tensor or a RaggedTensor) partitioned into rows by row_splits (int64, starts with 0)."""
    _fetched_type = RaggedTensorValue   # what Session.run rebuilds it as (runtime/fetches.py)

    def __new__(cls, values, row_splits, static_splits=None):
        if not isinstance(values, RaggedTensor):
            values = convert_to_tensor(values)
        self = super().__new__(cls, values, row_splits)
        self._static_splits = static_splits
        return self

    @classmethod
    def _make(cls, values, splits):
        """From numpy splits (when known) or a splits tensor."""
        if isinstance(splits, np.ndarray):
            return cls(values, _dense(splits, dtype=dtypes.int64), splits)
        return cls(values, math_ops.cast(splits, dtypes.int64))

    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        known = _static(row_splits)
        if known is not None and validate and (known.ndim != 1 or len(known) == 0 or known[0] != 0 or
                                               np.any(np.diff(known) < 0)):
            raise errors.InvalidArgumentError(None, None, "Arguments to from_row_splits do not form a valid "
                                                          "RaggedTensor: row_splits %s" % known.tolist())
        return cls._make(values, known if known is not None else row_splits)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        known = _static(row_lengths)
        if known is not None:
            return cls._make(values, np.concatenate([[0], np.cumsum(known)]).astype(np.int64))
        lengths = math_ops.cast(row_lengths, dtypes.int64)
        return cls._make(values, array_ops.concat([_dense([0], dtypes.int64), cumsum(lengths)], 0))

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True):
        nvals = _nvals(values)
        known = _static(row_starts)
        if known is not None and isinstance(nvals, int):
            return cls._make(values, np.concatenate([known, [nvals]]).astype(np.int64))
        return cls._make(values, array_ops.concat([math_ops.cast(row_starts, dtypes.int64),
                                                   array_ops.reshape(math_ops.cast(nvals, dtypes.int64), [1])], 0))

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True):
        known = _static(row_limits)
        if known is not None:
            return cls._make(values, np.concatenate([[0], known]).astype(np.int64))
        return cls._make(values, array_ops.concat([_dense([0], dtypes.int64),
                                                   math_ops.cast(row_limits, dtypes.int64)], 0))

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        ids = _static(value_rowids)
        rows = None if nrows is None else _static(nrows)
        if ids is None or (nrows is not None and rows is None):
            _needs_static("from_value_rowids")
        count = int(rows) if rows is not None else (int(ids.max()) + 1 if len(ids) else 0)
        return cls.from_row_lengths(values, np.bincount(ids, minlength=count).astype(np.int64))

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None, validate=True):
        result = flat_values
        for splits in reversed(list(nested_row_splits)):
            result = cls.from_row_splits(result, splits, validate=validate)
        return result

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None):
        tensor = convert_to_tensor(tensor)
        shape = tensor.shape.as_list()
        if None in shape[:2]:
            _needs_static("from_tensor")
        rows, width = shape[0], shape[1]
        flat = array_ops.reshape(tensor, [rows * width] + shape[2:])
        if lengths is None and padding is None:
            return cls._make(flat, np.arange(rows + 1, dtype=np.int64) * width)
        if lengths is not None:
            known = _static(lengths)
        else:
            value = get_static_value(tensor)
            if value is None:
                _needs_static("from_tensor(padding=...)")
            keep = np.any(value.reshape(rows, width, -1) != np.asarray(get_static_value(convert_to_tensor(padding))),
                          axis=-1)
            known = np.array([(np.nonzero(r)[0].max() + 1) if r.any() else 0 for r in keep], np.int64)
        if known is None:
            _needs_static("from_tensor(lengths=...)")
        index = np.concatenate([np.arange(n) + i * width for i, n in enumerate(known)]).astype(np.int64)
        return cls.from_row_lengths(gather(flat, _dense(index)), known)

    @classmethod
    def from_sparse(cls, st_input, name=None):
        indices = _static(st_input.indices)
        shape = _static(st_input.dense_shape)
        if indices is None or shape is None:
            _needs_static("from_sparse")
        return cls.from_value_rowids(st_input.values, indices[:, 0], nrows=int(shape[0]))

    # ---- what a ragged value has ----
    dtype = property(lambda self: self.values.dtype)
    flat_values = property(lambda self: self.values.flat_values if isinstance(self.values, RaggedTensor)
                           else self.values)
    nested_row_splits = property(lambda self: (self.row_splits,) + (
        self.values.nested_row_splits if isinstance(self.values, RaggedTensor) else ()))
    ragged_rank = property(lambda self: 1 + (self.values.ragged_rank if isinstance(self.values, RaggedTensor)
                                             else 0))

    @property
    def shape(self):
        rows = None if self._static_splits is None else len(self._static_splits) - 1
        inner = self.values.shape.as_list()[1:] if isinstance(self.values, Tensor) else self.values.shape.as_list()[1:]
        return shapes.TensorShape([rows, None] + inner)

    def get_shape(self):
        return self.shape

    def nrows(self, out_type=dtypes.int64, name=None):
        return math_ops.cast(array_ops.shape(self.row_splits)[0] - 1, out_type)

    def row_lengths(self, axis=1, name=None):
        return self.row_splits[1:] - self.row_splits[:-1]

    def row_starts(self, name=None):
        return self.row_splits[:-1]

    def row_limits(self, name=None):
        return self.row_splits[1:]

    def with_flat_values(self, new_values):
        values = self.values.with_flat_values(new_values) if isinstance(self.values, RaggedTensor) else new_values
        return RaggedTensor(values, self.row_splits, self._static_splits)

    def to_tensor(self, default_value=None, name=None, shape=None):
        """The dense tensor, rows padded with default_value (0) to the longest row."""
        if self._static_splits is None:
            _needs_static("to_tensor")
        inner = self.values.to_tensor(default_value) if isinstance(self.values, RaggedTensor) else self.values
        splits = self._static_splits
        lengths = np.diff(splits)
        width = int(lengths.max()) if len(lengths) else 0
        pad = array_ops.zeros_like(inner[:1]) if default_value is None else (
            array_ops.zeros_like(inner[:1]) + math_ops.cast(default_value, inner.dtype))
        extended = array_ops.concat([inner, pad], 0)
        nvals = int(splits[-1])
        index = np.full((len(lengths), width), nvals, np.int64)
        for i, (start, n) in enumerate(zip(splits[:-1], lengths)):
            index[i, :n] = np.arange(start, start + n)
        return gather(extended, _dense(index))

    def __repr__(self):
        return "tf.RaggedTensor(values=%s, row_splits=%s)" % (self.values, self.row_splits)


def _nvals(values):
    if isinstance(values, RaggedTensor):
        return values.nrows()
    values = convert_to_tensor(values)
    n = values.shape.as_list()[0] if values.shape.dims is not None else None
    return n if n is not None else array_ops.shape(values)[0]


def _levels(pylist, ragged_rank, inner_shape):
    """The row splits of each ragged level of a nested list, and the items below them (TF's default
    ragged_rank: the nesting depth - 1 - len(inner_shape))."""
    def depth(x):
        return 1 + max([depth(v) for v in x] or [0]) if isinstance(x, (list, tuple)) else 0

    if ragged_rank is None:
        ragged_rank = max(0, depth(pylist) - 1 - (len(inner_shape) if inner_shape is not None else 0))
    levels, items = [], list(pylist)
    for _ in builtins.range(ragged_rank):   # (this module's range is tf.ragged.range)
        levels.append(np.concatenate([[0], np.cumsum([len(r) for r in items])]).astype(np.int64))
        items = [v for r in items for v in r]
    return levels, items


def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None, row_splits_dtype=dtypes.int64):
    """A RaggedTensor from a nested Python list (its row partitions known while building)."""
    levels, items = _levels(pylist, ragged_rank, inner_shape)
    values = _constant(items, dtype)
    for splits in reversed(levels):
        values = RaggedTensor._make(values, splits)
    return values


def _constant(items, dtype):   # (Python ints are int32, floats float32: tf.constant's rule, as TF's)
    return _dense(items if items else np.zeros([0], np.float32), dtype=dtype)


def constant_value(pylist, dtype=None, ragged_rank=None, inner_shape=None, row_splits_dtype="int64"):
    """tf.ragged.constant_value: the same nested list as a RaggedTensorValue of numpy arrays (a numpy
    array when ragged_rank is 0); values take numpy's dtype unless `dtype` is given, as TF's."""
    levels, items = _levels(pylist, ragged_rank, inner_shape)
    dtype = dtypes.as_dtype(dtype).as_numpy_dtype if dtype is not None else None
    values = np.array(items, dtype=dtype) if items or dtype else np.zeros([0], np.float64)
    if inner_shape is not None:
        values = values.reshape((-1,) + tuple(inner_shape))
    for splits in reversed(levels):
        values = RaggedTensorValue(values, splits.astype(dtypes.as_dtype(row_splits_dtype).as_numpy_dtype))
    return values


def placeholder(dtype, ragged_rank, value_shape=None, name=None):
    """A RaggedTensor of placeholders: flat values [None] + value_shape and ragged_rank int64 row splits
    (feed a RaggedTensorValue, e.g. from tf.ragged.constant_value). Its partition is known only at run
    time, so what needs it while building (to_tensor, ...) says so."""
    from tinyflow.graph.core import name_scope
    with name_scope(name or "RaggedPlaceholder"):
        values = array_ops.placeholder(dtype, [None] + list(value_shape or []), name="flat_values")
        for i in reversed(builtins.range(ragged_rank)):
            values = RaggedTensor(values, array_ops.placeholder(dtypes.int64, [None], name="row_splits_%d" % i))
        return values


# ---- operations on a partition known while building: the value as a nested list of indices into its
# flat values (one scalar each), rearranged in Python, then gathered back into a RaggedTensor ----------
def _index_tree(value, what):
    """(nested list of flat indices, its flat scalars as a 1-D tensor) of a RaggedTensor or Tensor."""
    if isinstance(value, RaggedTensor):
        splits = []
        for rt in _chain(value):
            if rt._static_splits is None:
                _needs_static(what)
            splits.append(rt._static_splits)
        flat = value.flat_values
        inner = flat.shape.as_list()[1:]
        if None in inner:
            _needs_static(what)
        tree = np.arange(int(splits[-1][-1]) * int(np.prod(inner, dtype=np.int64))).reshape([-1] + inner).tolist()
        for level in reversed(splits):
            tree = [tree[a:b] for a, b in zip(level[:-1], level[1:])]
        return tree, array_ops.reshape(flat, [-1])
    value = convert_to_tensor(value)
    dims = value.shape.as_list() if value.shape.dims is not None else [None]
    if None in dims:
        _needs_static(what)
    return np.arange(int(np.prod(dims, dtype=np.int64))).reshape(dims).tolist(), array_ops.reshape(value, [-1])


def _chain(rt):
    while isinstance(rt, RaggedTensor):
        yield rt
        rt = rt.values


def _from_tree(tree, flat, ragged_rank):
    """A RaggedTensor with `ragged_rank` ragged levels whose scalars are flat[index] at each leaf of
    `tree` (the levels below are uniform: dense values)."""
    levels, items = _levels(tree, ragged_rank, None)
    index = np.array(items, dtype=np.int64)
    if index.size == 0:
        index = index.reshape(-1)
    values = gather(flat, _dense(index))
    for splits in reversed(levels):
        values = RaggedTensor._make(values, splits)
    return values


def _rank(value):
    return value.ragged_rank + value.flat_values.shape.ndims if isinstance(value, RaggedTensor) else \
        convert_to_tensor(value).shape.ndims


def stack(values, axis=0, name=None):
    """Stacks rank-R tensors or RaggedTensors (any sizes) into one rank-(R+1) RaggedTensor:
    result[i0...iaxis] is [value[i0...iaxis] for value in values]. Dense inputs stacked along their
    last axis give a Tensor (tf.stack), as TF's. Needs the inputs' partitions known while building."""
    values = list(values) if isinstance(values, (list, tuple)) else [values]
    if not values:
        raise ValueError("rt_inputs may not be empty.")
    ranks = {_rank(v) for v in values}
    if len(ranks) != 1:
        raise ValueError("Shapes must be equal rank, but are %s" % sorted(ranks))
    ndims = ranks.pop()
    if not -(ndims + 1) <= axis <= ndims:
        raise ValueError("axis=%d out of bounds: expected %d<=axis<%d" % (axis, -(ndims + 1), ndims + 1))
    axis = axis % (ndims + 1)
    if not any(isinstance(v, RaggedTensor) for v in values) and axis >= ndims - 1:
        return array_ops.stack([convert_to_tensor(v) for v in values], axis)
    trees, flats, offset = [], [], 0
    for v in values:
        tree, flat = _index_tree(v, "stack")
        trees.append(_shift(tree, offset))
        flats.append(flat)
        offset += int(flat.shape.as_list()[0])

    def zip_at(lists, depth):
        if depth == 0:
            return list(lists)
        if len({len(t) for t in lists}) != 1:
            raise errors.InvalidArgumentError(None, None, "Input tensors have incompatible shapes (ragged.stack "
                                                          "along axis %d)" % axis)
        return [zip_at([t[i] for t in lists], depth - 1) for i in builtins.range(len(lists[0]))]

    rr = _stacked_ragged_rank([v.ragged_rank if isinstance(v, RaggedTensor) else 0 for v in values], ndims, axis)
    return _from_tree(zip_at(trees, axis), array_ops.concat(flats, 0), rr)


def _stacked_ragged_rank(ranks, ndims, axis):
    """The ragged_rank of TF's stacked result: inputs raised to one ragged rank R >= 1; axis 0 or 1 adds a
    ragged level; a deeper axis stacks the values one level down (dense ones along their last axis stay
    dense)."""
    if not any(ranks) and axis >= ndims - 1:
        return 0
    common = max(max(ranks), 1)
    if axis <= 1:
        return common + 1
    return 1 + _stacked_ragged_rank([common - 1] * len(ranks), ndims - 1, axis - 1)


def _shift(tree, offset):
    return [_shift(t, offset) for t in tree] if isinstance(tree, list) else tree + offset


def boolean_mask(data, mask, name=None):
    """The elements of `data` (Tensor or RaggedTensor) where `mask` (bool, rank k, its shape a prefix of
    data's) is True: the k-th dimension shrinks, the outer ones become ragged. The mask must be known
    while building (the result's partition depends on its values)."""
    if isinstance(mask, RaggedTensor):
        known = get_static_value(mask.flat_values)
        if known is None or any(rt._static_splits is None for rt in _chain(mask)):
            _needs_static("boolean_mask")
        for rt in reversed(list(_chain(mask))):
            known = RaggedTensorValue(known, rt._static_splits)
        mask_tree, mask_rank = known.to_list(), _rank(mask)
    else:
        known = get_static_value(convert_to_tensor(mask))
        if known is None:
            _needs_static("boolean_mask")
        mask_tree, mask_rank = np.asarray(known).tolist(), np.ndim(known)
    if mask_rank == 0:
        raise ValueError("mask.shape.ndims must be greater than 0.")
    if mask_rank == 1 and not isinstance(data, RaggedTensor) and not isinstance(mask, RaggedTensor):
        from tinyflow.ops.core.indexing_ops import boolean_mask as dense_mask
        return dense_mask(data, mask)
    tree, flat = _index_tree(data, "boolean_mask")

    def select(d, m):
        if len(d) != len(m):
            raise errors.InvalidArgumentError(None, None, "ragged.boolean_mask: mask and data have incompatible "
                                                          "shapes (%d and %d)" % (len(m), len(d)))
        if m and isinstance(m[0], list):
            return [select(a, b) for a, b in zip(d, m)]
        return [a for a, b in zip(d, m) if b]

    rr = max(data.ragged_rank if isinstance(data, RaggedTensor) else 0, mask_rank - 1)
    return _from_tree(select(tree, mask_tree), flat, max(rr, 1) if mask_rank > 1 or rr else rr)


def stack_dynamic_partitions(data, partitions, num_partitions, name=None):
    """A RaggedTensor whose row i holds the items of `data` with partitions == i, in order (TF's stacked
    tf.dynamic_partition). Works on run-time partitions: the values are `data` reordered, only the row
    splits depend on the partition values."""
    from tinyflow.ops.core.sequence_ops import argsort
    from tinyflow.ops.segment_ops import bincount
    data, partitions = convert_to_tensor(data), convert_to_tensor(partitions)
    known = get_static_value(partitions)
    if known is not None:
        known = np.asarray(known, np.int64).reshape(-1)
        if np.any(known < 0) or np.any(known >= num_partitions):
            raise errors.InvalidArgumentError(None, None, "partitions must be in [0, %d): %s" % (
                num_partitions, known.tolist()))
        order = np.argsort(known, kind="stable")
        counts = np.bincount(known, minlength=num_partitions)
        values = gather(array_ops.reshape(data, [-1] + data.shape.as_list()[partitions.shape.ndims:]), _dense(order))
        return RaggedTensor._make(values, np.concatenate([[0], np.cumsum(counts)]).astype(np.int64))
    flat_parts = array_ops.reshape(partitions, [-1])
    order = argsort(flat_parts, stable=True)
    counts = bincount(math_ops.cast(flat_parts, dtypes.int32), minlength=num_partitions, maxlength=num_partitions,
                      dtype=dtypes.int64)
    values = gather(array_ops.reshape(data, [-1] + data.shape.as_list()[partitions.shape.ndims:]), order)
    return RaggedTensor(values, array_ops.concat([_dense([0], dtypes.int64), cumsum(counts)], 0))


def map_flat_values(op, *args, **kwargs):
    """op applied to the flat values of the ragged arguments; the result keeps their row partitions."""
    template = next((a for a in list(args) + list(kwargs.values()) if isinstance(a, RaggedTensor)), None)
    if template is None:
        raise ValueError("map_flat_values requires at least one RaggedTensor argument.")

    def flat(a):
        return a.flat_values if isinstance(a, RaggedTensor) else a
    return template.with_flat_values(op(*[flat(a) for a in args], **{k: flat(v) for k, v in kwargs.items()}))


def range(starts, limits=None, deltas=1, dtype=None, name=None, row_splits_dtype=dtypes.int64):  # noqa: A001
    """A RaggedTensor whose row i is range(starts[i], limits[i], deltas[i]) (scalars broadcast; one
    argument: the limits, from 0). Its values' length depends on the arguments' values, so they must
    be known while building."""
    if limits is None:
        starts, limits = 0, starts
    given = [a for a in (starts, limits, deltas) if isinstance(a, Tensor)]
    known = [get_static_value(a) if isinstance(a, Tensor) else a for a in (starts, limits, deltas)]
    if any(v is None for v in known):
        _needs_static("range")
    dtype = dtypes.as_dtype(dtype) if dtype is not None else given[0].dtype if given else dtypes.int32
    starts_, limits_, deltas_ = np.broadcast_arrays(*[np.asarray(v).reshape(-1) for v in known])
    rows = [np.arange(s, l, d) for s, l, d in zip(starts_, limits_, deltas_)]
    splits = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
    values = np.concatenate(rows) if rows else np.zeros([0])
    return RaggedTensor._make(_dense(values.astype(dtype.as_numpy_dtype), dtype=dtype), splits)


def row_splits_to_segment_ids(splits, name=None, out_type=None):
    """The row of each value: [0, 2, 2, 5] -> [0, 0, 2, 2, 2] (out_type: the splits' dtype by default)."""
    splits = convert_to_tensor(splits, name="splits")
    out_type = dtypes.as_dtype(out_type) if out_type is not None else splits.dtype
    known = get_static_value(splits)
    if known is not None:
        known = np.asarray(known, np.int64)
        return _dense(np.repeat(np.arange(len(known) - 1), np.diff(known)).astype(out_type.as_numpy_dtype),
                      dtype=out_type)
    from tinyflow.ops.core.sequence_ops import range as _range
    from tinyflow.ops.search_ops import searchsorted
    ids = searchsorted(splits[1:], _range(splits[-1]), side="right")
    return math_ops.cast(ids, out_type)


def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None):
    """Row splits of values whose (sorted) rows are segment_ids: [0, 0, 2, 2, 2] -> [0, 2, 2, 5] (with
    num_segments, that many rows)."""
    if out_type is None:   # TF's default: a tensor's own dtype (segment_ids', then num_segments'), else int64
        out_type = next((t.dtype for t in (segment_ids, num_segments) if isinstance(t, Tensor)), dtypes.int64)
    out_type = dtypes.as_dtype(out_type)
    ids = convert_to_tensor(segment_ids, name="segment_ids")
    known, n = get_static_value(ids), num_segments
    n_known = get_static_value(n) if isinstance(n, Tensor) else n
    if known is not None and (n is None or n_known is not None):
        counts = np.bincount(np.asarray(known, np.int64).reshape(-1),
                             minlength=0 if n_known is None else int(n_known))
        return _dense(np.concatenate([[0], np.cumsum(counts)]).astype(out_type.as_numpy_dtype), dtype=out_type)
    from tinyflow.ops.segment_ops import bincount
    counts = bincount(math_ops.cast(ids, dtypes.int32), minlength=n, maxlength=n, dtype=out_type)
    return array_ops.concat([_dense([0], dtype=out_type), cumsum(counts)], 0)
