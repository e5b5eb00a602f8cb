"""Sequence and generator ops: one_hot, range, linspace, reverse, cumsum, meshgrid, sequence_mask
and unique. Each op: one register_op with all its rules, next to its TF-style builder (split out of
array_ops.py, whose helpers these ops share).

unique's output shape depends on its input's values (so does range's on its limit): with run-time
values they run between jitted segments (OpDef.dynamic_shape, docs/dynamic_shapes.md).
"""
import collections

import jax.numpy as jnp
import numpy as np
from jax import lax

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import ShapeError, Tensor, constant_value, get_default_graph
from tinyflow.graph.registry import from_attr, register_op, same_as_input
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core import math_ops
from tinyflow.ops.core.array_ops import broadcast_to, expand_dims, reshape, size, stack
from tinyflow.ops.core.util import int_tensor, pyrange, ints, is_concrete, name_scope
from tinyflow.ops.core.array_ops import shape as _shape, transpose as _transpose
from tinyflow.ops.core.base import infer_dtype, constant, convert_n, convert_to_tensor, make_op, normalize_axis

UniqueOutput = collections.namedtuple("Unique", ["y", "idx"])

__all__ = [
    'argsort',
    'cumprod',
    'cumsum',
    'lin_space',
    'linspace',
    'meshgrid',
    'one_hot',
    'range',
    'reverse',
    'reverse_sequence',
    'reverse_v2',
    'roll',
    'sequence_mask',
    'sort',
    'unique',
]


# ---- one_hot, range, linspace ---------------------------------------------------------------------
def _one_hot_shape(shapes, attrs, values):
    idx, depth, axis = shapes[0], values[1], attrs["axis"]
    if idx.ndims is None:
        return [TensorShape(None)]
    if not -1 <= axis <= idx.ndims:
        raise ShapeError("Expected axis to be -1 or between [0, %d).  But received: %d" % (idx.ndims + 1, axis))
    d = idx.as_list()
    ax = idx.ndims if axis == -1 else axis
    return [TensorShape(d[:ax] + [None if depth is None else int(depth)] + d[ax:])]


def _one_hot_lower(a, idx, depth, on, off):
    ax = idx.ndim if a["axis"] == -1 else a["axis"]
    hot = jnp.expand_dims(idx, ax) == jnp.arange(int(depth)).reshape([-1] + [1] * (idx.ndim - ax))
    return jnp.where(hot, on, off).astype(on.dtype)


register_op("OneHot", shape=_one_hot_shape, dtype=same_as_input(2), grad=None, lower=_one_hot_lower)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """A one-hot tensor: on_value where the new `axis` (default last) equals indices, off_value elsewhere."""
    with name_scope(name or "one_hot") as scope:
        idx = int_tensor(indices, "indices")
        given = [v for v in (on_value, off_value) if v is not None]
        if dtype is not None:
            dtype = dt.as_dtype(dtype)
            for v, what in ((on_value, "on_value"), (off_value, "off_value")):
                if isinstance(v, Tensor) and v.dtype != dtype:
                    raise TypeError("dtype %s of %s does not match dtype parameter %s" % (v.dtype.name, what,
                                                                                         dtype.name))
        elif given:
            dtype = convert_n(given)[0].dtype
        else:
            dtype = dt.float32
        on = convert_to_tensor(1 if on_value is None else on_value, dtype=dtype, name="on_value")
        off = convert_to_tensor(0 if off_value is None else off_value, dtype=dtype, name="off_value")
        d = convert_to_tensor(depth, dtype=dt.int32, name="depth")
        return make_op("OneHot", [idx, d, on, off], {"axis": -1 if axis is None else int(axis)}, name=scope)


def _range_shape(shapes, attrs, values):
    for s in shapes:
        if s.ndims not in (None, 0):
            raise ShapeError("Shape must be rank 0 but is rank %d" % s.ndims)
    if any(v is None for v in values):
        return [TensorShape([None])]
    start, limit, delta = (np.asarray(v).item() for v in values)
    if delta == 0:
        raise ShapeError("Requires delta != 0: %s" % delta)
    if (delta > 0 and start > limit) or (delta < 0 and start < limit):
        raise ShapeError("Requires start %s limit when delta %s 0: %s/%s" % (
            "<=" if delta > 0 else ">=", ">" if delta > 0 else "<", start, limit))
    return [TensorShape([len(np.arange(start, limit, delta))])]


def _fold_range(op, values):
    if any(v is None for v in values):
        return None
    return np.arange(*(v.item() for v in values), dtype=op.attrs["Tidx"].np)


register_op("Range", fold=_fold_range, shape=_range_shape, dtype=from_attr("Tidx"), grad=None, dynamic_shape=True,
            lower=lambda a, s, l, d: np.arange(np.asarray(s).item(), np.asarray(l).item(), np.asarray(d).item(),
                                               dtype=a["Tidx"].np))

_RANGE_DTYPES = [dt.int32, dt.int64, dt.float32, dt.float64]


def range(start, limit=None, delta=1, dtype=None, name="range"):
    """[start, start + delta, ...) up to `limit` (one argument: [0, start)). The dtype is the widest
    of the arguments' (int32 < int64 < float32 < float64) unless given."""
    if limit is None:
        start, limit = 0, start
    with name_scope(name) as scope:
        args = [start, limit, delta]
        if dtype is None:
            dtype = _RANGE_DTYPES[max(_RANGE_DTYPES.index(a.dtype if isinstance(a, Tensor) else infer_dtype(a))
                                      for a in args)]
        dtype = dt.as_dtype(dtype)
        ts = []
        for a, what in zip(args, ("start", "limit", "delta")):
            if isinstance(a, Tensor) and a.dtype != dtype:
                a = math_ops.cast(a, dtype)
            ts.append(convert_to_tensor(a, dtype=dtype, name=what))
        return make_op("Range", ts, {"Tidx": dtype}, name=scope)


def _linspace_shape(shapes, attrs, values):
    return [TensorShape([None if values[2] is None else int(values[2])])]


register_op("LinSpace", shape=_linspace_shape, dtype=same_as_input(0), grad=None,
            lower=lambda a, s, e, n: jnp.linspace(s, e, int(n), dtype=s.dtype))


def linspace(start, stop, num, name=None):
    """`num` evenly spaced values from start to stop, both included."""
    with name_scope(name or "LinSpace") as scope:
        s = convert_to_tensor(start, name="start")
        e = convert_to_tensor(stop, dtype=s.dtype, name="stop")
        n = int_tensor(num, "num")
        return make_op("LinSpace", [s, e, n], name=scope)


lin_space = linspace


# ---- reverse and cumsum ---------------------------------------------------------------------------
def _reverse_shape(shapes, attrs, values):
    x, axes = shapes[0], values[1]
    if axes is not None and x.ndims is not None:
        for a in ints(axes):
            normalize_axis(a, x.ndims)
    return [x]


register_op("ReverseV2", fold=True, shape=_reverse_shape, dtype=same_as_input(0),
            grad=lambda op, g: [reverse(g, op.inputs[1]), None],
            lower=lambda a, x, axes: jnp.flip(x, tuple(normalize_axis(i, x.ndim) for i in ints(axes))))


def reverse(tensor, axis, name=None):
    """`tensor` with the dimensions in `axis` reversed."""
    with name_scope(name or "ReverseV2") as scope:
        return make_op("ReverseV2", [convert_to_tensor(tensor, name="tensor"), int_tensor(axis, "axis")], name=scope)


reverse_v2 = reverse


def _reverse_sequence_lower(a, x, lengths):
    """Row b of x (along batch_dim) has its first lengths[b] entries along seq_dim reversed."""
    seq, batch = a["seq_dim"], a["batch_dim"]
    t = jnp.arange(x.shape[seq]).reshape([-1 if d == seq else 1 for d in pyrange(x.ndim)])
    n = lengths.astype(t.dtype).reshape([-1 if d == batch else 1 for d in pyrange(x.ndim)])
    src = jnp.where(t < n, n - 1 - t, t)
    return jnp.take_along_axis(x, jnp.broadcast_to(src, x.shape), axis=seq)


def _reverse_sequence_shape(shapes, attrs, values):
    x, lengths = shapes
    if x.ndims is not None and lengths.ndims is not None:
        if lengths.ndims != 1:
            raise ShapeError("Shape must be rank 1 but is rank %d" % lengths.ndims)
        x.merge_with(TensorShape([None] * x.ndims))
    return [x]


register_op("ReverseSequence", shape=_reverse_sequence_shape, dtype=same_as_input(0), lower=_reverse_sequence_lower,
            grad=lambda op, g: [make_op("ReverseSequence", [g, op.inputs[1]], op.attrs), None])


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None, seq_dim=None, batch_dim=None):
    """Reverses the first seq_lengths[b] slices along seq_axis of each batch_axis row b (the rest stays)."""
    seq = seq_axis if seq_axis is not None else seq_dim
    batch = batch_axis if batch_axis is not None else (batch_dim or 0)
    if seq is None:
        raise ValueError("reverse_sequence needs seq_axis")
    x = convert_to_tensor(input, name="input")
    n = x.shape.ndims
    attrs = {"seq_dim": normalize_axis(int(seq), n) if n else int(seq),
             "batch_dim": normalize_axis(int(batch), n) if n else int(batch)}
    return make_op("ReverseSequence", [x, int_tensor(seq_lengths, "seq_lengths")], attrs,
                   name=name or "ReverseSequence")


def _cumsum_shape(shapes, attrs, values):
    if values[1] is not None and shapes[0].ndims is not None:
        normalize_axis(int(values[1]), shapes[0].ndims)
    return [shapes[0]]


def _scan_lower(scan, first):
    """The lowering of a cumulative op: scan(x, axis) from the start (or the end: reverse); exclusive
    shifts the inclusive result by one with `first(dtype)` ahead (exact, unlike out - x)."""
    def lower(a, x, axis):
        ax = normalize_axis(int(axis), x.ndim)
        if a["reverse"]:
            x = jnp.flip(x, ax)
        out = scan(x, ax)
        if a["exclusive"] and x.shape[ax]:   # (an empty axis: nothing to shift)
            out = jnp.concatenate([jnp.full_like(lax.slice_in_dim(out, 0, 1, axis=ax), first(x.dtype)),
                                   lax.slice_in_dim(out, 0, x.shape[ax] - 1, axis=ax)], axis=ax)
        return jnp.flip(out, ax) if a["reverse"] else out
    return lower


register_op("Cumsum", shape=_cumsum_shape, dtype=same_as_input(0),
            lower=_scan_lower(lambda x, ax: jnp.cumsum(x, axis=ax, dtype=x.dtype), lambda d: 0),
            grad=lambda op, g: [cumsum(g, op.inputs[1], exclusive=op.attrs["exclusive"],
                                       reverse=not op.attrs["reverse"]), None])


def _cumulative_logsumexp_grad(op, g):
    """TF's rule: the incoming gradient split by sign, each part's log carried by a reversed scan."""
    M = math_ops
    x, axis = op.inputs
    out, ex, rev = op.outputs[0], op.attrs["exclusive"], op.attrs["reverse"]
    lowest = M.scalar_like(g.dtype.min, g)
    parts = []
    for sign in (M.greater, M.less):
        logg = M.where_v2(sign(g, M.zeros_like_scalar(g)), M.log(M.abs(g)), lowest)
        parts.append(M.exp(M.add(cumulative_logsumexp(M.subtract(logg, out), axis, ex, not rev), x)))
    return [M.subtract(*parts), None]


# TF's kernel: a scan of log(exp(a) + exp(b)) from the dtype's lowest value (an exclusive scan's first)
register_op("CumulativeLogsumexp", shape=_cumsum_shape, dtype=same_as_input(0),
            lower=_scan_lower(lambda x, ax: lax.cumlogsumexp(x, axis=ax), lambda d: jnp.finfo(d).min),
            grad=_cumulative_logsumexp_grad)


def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    """log(cumsum(exp(x))) along `axis`, as a scan of pairwise log-sum-exps (TF's CumulativeLogsumexp)."""
    with name_scope(name or "CumulativeLogsumexp") as scope:
        return make_op("CumulativeLogsumexp", [convert_to_tensor(x, name="x"), int_tensor(axis, "axis")],
                       {"exclusive": bool(exclusive), "reverse": bool(reverse)}, name=scope)


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative sum along `axis`; exclusive leaves out the element itself, reverse sums from the end."""
    with name_scope(name or "Cumsum") as scope:
        return make_op("Cumsum", [convert_to_tensor(x, name="x"), int_tensor(axis, "axis")],
                       {"exclusive": bool(exclusive), "reverse": bool(reverse)}, name=scope)


def _cumprod_lower(a, x, axis):
    ax = normalize_axis(int(axis), x.ndim)
    if a["reverse"]:
        x = jnp.flip(x, ax)
    if a["exclusive"] and x.shape[ax]:  # shift by one, a leading 1: exact, unlike out / x (empty: nothing to)
        x = jnp.concatenate([jnp.ones_like(lax.slice_in_dim(x, 0, 1, axis=ax)),
                             lax.slice_in_dim(x, 0, x.shape[ax] - 1, axis=ax)], axis=ax)
    out = jnp.cumprod(x, axis=ax, dtype=x.dtype)
    return jnp.flip(out, ax) if a["reverse"] else out


def _cumprod_grad(op, g):
    """TF's rule: cumsum(prod * g, reversed) / x (like TF it assumes no x is 0)."""
    x, axis = op.inputs
    ex, rev = op.attrs["exclusive"], op.attrs["reverse"]
    prod = cumprod(x, axis, exclusive=ex, reverse=rev)
    out = cumsum(math_ops.multiply(prod, g), axis, exclusive=ex, reverse=not rev)
    return [math_ops.divide(out, x), None]


register_op("Cumprod", shape=_cumsum_shape, dtype=same_as_input(0), lower=_cumprod_lower, grad=_cumprod_grad)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative product along `axis`; exclusive leaves out the element itself, reverse runs from the end."""
    with name_scope(name or "Cumprod") as scope:
        return make_op("Cumprod", [convert_to_tensor(x, name="x"), int_tensor(axis, "axis")],
                       {"exclusive": bool(exclusive), "reverse": bool(reverse)}, name=scope)


# ---- roll -----------------------------------------------------------------------------------------
def _roll_shape(shapes, attrs, values):
    x, shift, axis = shapes[0], shapes[1], shapes[2]
    if shift.ndims is not None and axis.ndims is not None and shift.ndims > 1:
        raise ShapeError("Shape must be at most rank 1 but is rank %d" % shift.ndims)
    if not shift.is_compatible_with(axis):
        raise ShapeError("shift and axis must have the same size, got %s and %s" % (shift, axis))
    if values[2] is not None and x.ndims is not None:
        for a in ints(values[2]):
            normalize_axis(a, x.ndims)
    return [x]


def _roll_lower(a, x, shift, axis):
    axes = [normalize_axis(i, x.ndim) for i in ints(axis)]
    shift = jnp.reshape(shift, -1)  # may be a run-time value: jnp.roll handles a traced shift
    for k, ax in enumerate(axes):
        x = jnp.roll(x, shift[k], axis=ax)
    return x


register_op("Roll", shape=_roll_shape, dtype=same_as_input(0), lower=_roll_lower,
            grad=lambda op, g: [roll(g, math_ops.negative(op.inputs[1]), op.inputs[2]), None, None])


def roll(input, shift, axis, name=None):
    """Elements shifted by `shift` along `axis` (both scalars or equal-length lists), wrapping around."""
    with name_scope(name or "Roll") as scope:
        shift = int_tensor(shift, "shift")
        return make_op("Roll", [convert_to_tensor(input, name="input"), shift,
                                convert_to_tensor(axis, dtype=shift.dtype, name="axis")], name=scope)


# ---- top_k, and sort and argsort: TF builds them from top_k ---------------------------------------
def _top_k_shape(shapes, attrs, values):
    x, k = shapes[0], values[1]
    if k is not None and int(k) < 0:
        raise ShapeError("Need k >= 0, got %d" % int(k))
    if x.ndims is None:
        return [x, x]
    if x.ndims < 1:
        raise ShapeError("Shape must be at least rank 1 but is rank %d" % x.ndims)
    last = x[-1].value
    if k is not None and last is not None and last < int(k):
        raise ShapeError("input must have last dimension >= k = %d but is %d" % (int(k), last))
    out = x[:-1].concatenate([None if k is None else int(k)])
    return [out, out]


def _top_k_grad(op, g_values, g_indices):
    """Each value's gradient goes back to the position it came from."""
    x, idx = op.inputs[0], op.outputs[1]
    n = x.shape[-1].value if x.shape.ndims else None
    if n is None:
        n = _shape(x)[-1]
    hot = one_hot(idx, n, dtype=g_values.dtype)
    return [math_ops.reduce_sum(math_ops.multiply(expand_dims(g_values, -1), hot), axis=-2), None]


def _top_k_lower(a, x, k):
    """lax.top_k on keys where -0.0 is 0.0: TF's comparison ties them, lax's total order does not (XLA
    simplifies x + 0 to x, so a where)."""
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return tuple(r.astype(d) for r, d in zip(lax.top_k(x, int(k)), (x.dtype, np.int32)))
    _, idx = lax.top_k(jnp.where(x == 0, jnp.zeros((), x.dtype), x), int(k))
    return jnp.take_along_axis(x, idx, axis=-1), idx.astype(np.int32)


register_op("TopKV2", shape=_top_k_shape, dtype=lambda d, a: [d[0], dt.int32], grad=_top_k_grad,
            lower=_top_k_lower)


def top_k(input, k=1, sorted=True, name=None):
    """(values, indices) of the k largest entries of the last dimension, largest first; equal values
    keep their order. Indices are int32."""
    x = convert_to_tensor(input, name="input")
    k = convert_to_tensor(k, dtype=dt.int32, name="k")
    return TopKV2(*make_op("TopKV2", [x, k], {"sorted": bool(sorted)}, name=name or "TopKV2"))


TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


# ---- sort and argsort --------------------------------------------------
def _sorted_along(values, axis, direction, want_indices):
    """TF's sort_ops: move `axis` last, top_k over all of it (negated for ASCENDING), move it back.
    top_k keeps equal values in order, so the result is stable either way."""
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError('"direction" should be one of ASCENDING, DESCENDING')
    x = convert_to_tensor(values, name="values")
    rank = x.shape.ndims
    if rank is None:
        raise ValueError("tinyflow: sort needs a tensor of known rank")
    if rank == 0:
        raise ValueError("sort axis must be a constant scalar of a tensor with rank >= 1")
    ax = constant_value(convert_to_tensor(axis)) if isinstance(axis, Tensor) else axis
    if ax is None:
        raise ValueError("axis must be a constant scalar")
    ax = normalize_axis(int(ax), rank)
    perm = list(pyrange(rank))
    perm[ax], perm[-1] = perm[-1], perm[ax]
    if ax != rank - 1:
        x = _transpose(x, perm)
    n = x.shape[-1].value
    k = n if n is not None else _shape(x)[-1]
    if direction == "DESCENDING":
        vals, idx = top_k(x, k)
    elif x.dtype.is_unsigned:  # negation wraps around for unsigned ints: flip against the max instead
        top = math_ops.scalar_like(x.dtype.max, x)
        vals, idx = top_k(math_ops.subtract(top, x), k)
        vals = math_ops.subtract(top, vals)
    else:
        vals, idx = top_k(math_ops.negative(x), k)
        vals = math_ops.negative(vals)
    out = idx if want_indices else vals
    return _transpose(out, perm) if ax != rank - 1 else out


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """`values` sorted along `axis` (ASCENDING or DESCENDING)."""
    with name_scope(name or "sort"):
        return _sorted_along(values, axis, direction, False)


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The int32 indices that sort `values` along `axis`; always stable in tinyflow (as top_k is)."""
    with name_scope(name or "argsort"):
        return _sorted_along(values, axis, direction, True)


# ---- meshgrid, sequence_mask ------------------------------------------------------------------------
def meshgrid(*args, **kwargs):
    """N-D coordinate grids from 1-D tensors; indexing 'xy' (default) swaps the first two axes."""
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        raise TypeError("'%s' is an invalid keyword argument for this function" % next(iter(kwargs)))
    if indexing not in ("xy", "ij"):
        raise ValueError("indexing parameter must be either 'xy' or 'ij'")
    with name_scope(name):
        xs = [reshape(x, [-1]) for x in convert_n(list(args))]
        n = len(xs)
        sizes = [size(x) for x in xs]
        if indexing == "xy" and n > 1:
            sizes[0], sizes[1] = sizes[1], sizes[0]
        out_shape = stack(sizes)
        outs = []
        for i, x in enumerate(xs):
            axis = i
            if indexing == "xy" and n > 1 and i < 2:
                axis = 1 - i
            view = [1] * n
            view[axis] = -1
            outs.append(broadcast_to(reshape(x, view), out_shape))
        return outs


def sequence_mask(lengths, maxlen=None, dtype=dt.bool_, name=None):
    """mask[..., j] = j < lengths[...] for j < maxlen (default max(lengths): a run-time length
    when `lengths` is, see docs/dynamic_shapes.md)."""
    with name_scope(name or "SequenceMask"):
        lengths = convert_to_tensor(lengths)
        if maxlen is None:
            maxlen = math_ops.maximum(constant(0, lengths.dtype), math_ops.reduce_max(lengths))
        else:
            maxlen = convert_to_tensor(maxlen)
        row = range(constant(0, maxlen.dtype), maxlen, constant(1, maxlen.dtype))
        result = math_ops.less(row, math_ops.cast(expand_dims(lengths, -1), maxlen.dtype))
        dtype = dt.as_dtype(dtype)
        return result if dtype == dt.bool_ else math_ops.cast(result, dtype)


# ---- unique ---------------------------------------------------------------------------------------
def _unique_lower(a, x):
    if not is_concrete(x):
        raise ValueError("tf.unique has a shape that depends on the values of its input; inside tf.cond / "
                         "tf.while_loop bodies tinyflow needs the input known at compile time")
    x = np.asarray(x)
    vals, first, inverse = np.unique(x, return_index=True, return_inverse=True)
    order = np.argsort(first)  # TF's order: by first occurrence, not sorted
    position = np.empty_like(order)
    position[order] = np.arange(len(order))
    return vals[order], position[inverse.reshape(-1)].astype(a["out_idx"].np)


register_op("Unique", shape=lambda s, a, v: [TensorShape([None]), s[0]],
            dtype=lambda d, a: [d[0], a["out_idx"]], grad=None, lower=_unique_lower, dynamic_shape=True)


def unique(x, out_idx=dt.int32, name=None):
    """(y, idx): the distinct values of 1-D `x` in order of first occurrence, and x == gather(y, idx).
    With a run-time `x` it runs between jitted segments (docs/dynamic_shapes.md)."""
    op = get_default_graph().create_op("Unique", [convert_to_tensor(x)], {"out_idx": dt.as_dtype(out_idx)},
                                       name=name or "Unique")
    return UniqueOutput(*op.outputs)


# ---- constant folding (the folder is array_ops') ----------------------------------------------------
