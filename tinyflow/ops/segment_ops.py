"""Segment reductions and counting: segment_sum/mean/max/min/prod (sorted ids),
unsorted_segment_max/min/prod/mean (unsorted_segment_sum lives in indexing_ops.py), bincount and
confusion_matrix. Each op: one register_op with all its rules, next to its TF-style builder.

Output lengths: the sorted segment ops take theirs from `segment_ids` (its last id + 1),
bincount from max(arr) + 1, the unsorted ones from num_segments, confusion_matrix from num_classes
or constant inputs. When such a length is only known at run time the op runs between jitted
segments (OpDef.dynamic_shape, docs/dynamic_shapes.md); otherwise it is known at compile time.
"""
import jax
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import errors
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import ShapeError
from tinyflow.graph.registry import register_op, same_as_input
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core import math_ops as M
from tinyflow.ops.core.array_ops import concat, ones_like, reshape, shape, stack, zeros_like
from tinyflow.ops.core.util import int_tensor, name_scope
from tinyflow.ops.core.base import constant, constant_value_of, convert_to_tensor, make_op
from tinyflow.ops.core.indexing_ops import (segment_ids_check, segment_ids_message, segment_shape, gather,
                                            gather_drop_negatives, scatter_nd, segments_at_run_time,
                                            unsorted_segment_sum, where)

__all__ = [
    'bincount',
    'confusion_matrix',
    'segment_max',
    'segment_mean',
    'segment_min',
    'segment_prod',
    'segment_sum',
    'unsorted_segment_max',
    'unsorted_segment_mean',
    'unsorted_segment_min',
    'unsorted_segment_prod',
]

_JAX_SEGMENT = {"Sum": jax.ops.segment_sum, "Max": jax.ops.segment_max, "Min": jax.ops.segment_min,
                "Prod": jax.ops.segment_prod}


def _reduce_segments(kind, data, ids, n, empty):
    """jax's segment reduction of data (leading dims = ids' dims) into n rows; a row no id names is
    `empty` (TF's value for an empty segment; jax would give +-inf for max and min)."""
    flat = data.reshape((ids.size,) + data.shape[ids.ndim:])   # not -1: rows of zero size
    ids = ids.reshape(-1)
    if kind == "Mean":
        total = jax.ops.segment_sum(flat, ids, n)
        count = jax.ops.segment_sum(jnp.ones(ids.shape, flat.dtype), ids, n)
        return (total / jnp.maximum(count, 1).reshape((-1,) + (1,) * (flat.ndim - 1))).astype(data.dtype)
    if kind in ("Max", "Min") and jnp.issubdtype(flat.dtype, jnp.floating) and empty is not _UNSORTED_EMPTY.get(kind):
        # TF's sorted kernels skip NaN (Eigen's reducers compare with < and >): a segment of NaN gives -inf / inf
        flat = jnp.where(jnp.isnan(flat), jnp.asarray(-np.inf if kind == "Max" else np.inf, flat.dtype), flat)
    out = _JAX_SEGMENT[kind](flat, ids, n)
    hit = jax.ops.segment_sum(jnp.ones(ids.shape, np.int32), ids, n) > 0
    out = jnp.where(hit.reshape((-1,) + (1,) * (flat.ndim - 1)), out, jnp.asarray(empty(data.dtype), out.dtype))
    if kind in ("Max", "Min") and empty is _UNSORTED_EMPTY[kind]:   # TF starts from the dtype's lowest / highest
        out = (jnp.maximum if kind == "Max" else jnp.minimum)(out, jnp.asarray(empty(data.dtype), out.dtype))
    return out.astype(data.dtype)


def _lowest(dtype):
    return np.finfo(dtype).min if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).min


def _highest(dtype):
    return np.finfo(dtype).max if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).max


# ---- gradients (TF's math_grad.py rules, built from graph ops) ------------------------------------
def _n_of(op):
    """The number of segments of a segment op (an attr of the sorted ones, input 2 of the others)."""
    return op.inputs[2] if len(op.inputs) == 3 else op.attrs["num_segments"]


def _rows(x, ids, data):
    """x (one entry per id) with trailing 1-dims so that it broadcasts against data."""
    extra = data.shape.ndims - ids.shape.ndims if data.shape.ndims is not None else None
    if extra is None or ids.shape.ndims is None:
        raise NotImplementedError("tinyflow: the gradient of a segment op needs the data's rank")
    return x[(Ellipsis,) + (None,) * extra] if extra else x


def _gather_rows(x, ids):
    """gather that reads row 0 for the negative ids unsorted ops drop (callers mask those out)."""
    return gather(x, M.maximum(ids, M.scalar_like(0, ids)))


def _dropped(op, dx):
    """dx with the entries of negative ids (dropped by the forward op) zeroed; None for the other inputs."""
    ids, data = op.inputs[1], op.inputs[0]
    keep = _rows(M.greater_equal(ids, M.scalar_like(0, ids)), ids, data)
    return [M.where_v2(keep, dx, zeros_like(dx))] + [None] * (len(op.inputs) - 1)


def _sum_grad(op, g):
    return [gather_drop_negatives(g, op.inputs[1])] + [None] * (len(op.inputs) - 1)


def _mean_grad(op, g):
    data, ids = op.inputs[0], op.inputs[1]
    count = unsorted_segment_sum(ones_like(ids, dtype=g.dtype), ids, _n_of(op))
    count = _rows(M.maximum(count, M.scalar_like(1, count)), ids, data)
    return _dropped(op, _gather_rows(M.divide(g, count), ids))


def _min_max_grad(op, g):
    """The gradient goes to the entries equal to their segment's result, shared among ties."""
    data, ids = op.inputs[0], op.inputs[1]
    picked = M.equal(data, _gather_rows(op.outputs[0], ids))
    n_picked = unsorted_segment_sum(M.cast(picked, g.dtype), ids, _n_of(op))
    return _dropped(op, where(picked, _gather_rows(M.divide(g, n_picked), ids), zeros_like(data)))


def _prod_grad(op, g):
    """TF's rule: d prod / d x_i is the product of the others, exact when some x are zero."""
    data, ids = op.inputs[0], op.inputs[1]
    n = _n_of(op)
    zero = M.equal(data, M.scalar_like(0, data))
    n_zeros = unsorted_segment_sum(M.cast(zero, dt.int32), ids, n)
    g = where(M.greater(n_zeros, 1), zeros_like(g), g)  # two zeros: every partial derivative is 0
    nonzero = where(zero, ones_like(data), data)
    nonzero_prod = make_op("UnsortedSegmentProd", [nonzero, ids, int_tensor(n, "num_segments")])
    others = where(zero, _gather_rows(nonzero_prod, ids), M.divide(_gather_rows(op.outputs[0], ids), nonzero))
    return _dropped(op, M.multiply(_gather_rows(g, ids), others))


_GRADS = {"Sum": _sum_grad, "Mean": _mean_grad, "Max": _min_max_grad, "Min": _min_max_grad, "Prod": _prod_grad}
# the value of a segment no id names: TF's sorted ops give 0 (1 for prod); its unsorted max and min
# give the dtype's lowest and highest values
_SORTED_EMPTY = {"Sum": 0, "Mean": 0, "Max": 0, "Min": 0, "Prod": 1}
_UNSORTED_EMPTY = {"Max": _lowest, "Min": _highest, "Prod": lambda dtype: 1}


# ---- sorted segment ops: SegmentSum, SegmentMean, SegmentMax, SegmentMin, SegmentProd ---------------
# With constant ids the number of segments is the attr num_segments; with run-time ids it is a third
# input (ids[-1] + 1, computed when the graph runs) and the op runs between jitted segments, its
# ids then concrete: TF's run-time checks of them happen in its rule.
def _sorted_shape(shapes, attrs, values):
    data, ids, known = shapes[0], shapes[1], values[1]
    if ids.ndims is not None and ids.ndims != 1:
        raise ShapeError("Shape must be rank 1 but is rank %d" % ids.ndims)
    if len(shapes) > 2:
        return segment_shape(shapes, attrs, values)
    n = None if known is None else (int(np.asarray(known)[-1]) + 1 if np.size(known) else 0)
    return segment_shape([data, ids], attrs, [None, None, n])


def _sorted_lower(kind):
    def lower(a, data, ids, *n):
        if not n:
            return _reduce_segments(kind, data, ids, a["num_segments"], lambda dtype: _SORTED_EMPTY[kind])
        _check_sorted_ids(np.asarray(ids))
        return _reduce_segments(kind, data, ids, int(n[0]), lambda dtype: _SORTED_EMPTY[kind])
    return lower


def _check_sorted_ids(ids):
    if np.any(ids < 0):
        raise errors.InvalidArgumentError(None, None, "segment ids must be >= 0")
    if np.any(np.diff(ids) < 0):
        raise errors.InvalidArgumentError(None, None, "segment ids are not increasing")


for _kind in ("Sum", "Mean", "Max", "Min", "Prod"):
    register_op("Segment" + _kind, shape=_sorted_shape, dtype=same_as_input(0), grad=_GRADS[_kind],
                lower=_sorted_lower(_kind), dynamic_shape=segments_at_run_time)
for _kind in ("Max", "Min", "Prod"):  # UnsortedSegmentSum is indexing_ops'; unsorted mean is built from sums
    register_op("UnsortedSegment" + _kind, shape=segment_shape, dtype=same_as_input(0), grad=_GRADS[_kind],
                lower=lambda a, d, i, n, _k=_kind: _reduce_segments(_k, d, i, int(n), _UNSORTED_EMPTY[_k]),
                dynamic_shape=segments_at_run_time, check=segment_ids_check, check_message=segment_ids_message)


def _sorted_segment(kind, data, segment_ids, name):
    op_type = "Segment" + kind
    with name_scope(name or op_type) as scope:
        d = convert_to_tensor(data, name="data")
        ids = int_tensor(segment_ids, "segment_ids")
        known = constant_value_of(ids)
        if known is None:   # ids[-1] + 1 rows (0 for no ids), computed when the graph runs
            n = M.multiply(M.cast(M.greater(M.reduce_prod(shape(ids)), 0), ids.dtype),
                           M.add(M.reduce_max(ids), M.scalar_like(1, ids)))
            return make_op(op_type, [d, ids, n], {"num_segments": -1}, name=scope)
        known = np.asarray(known).reshape(-1)
        if np.any(known < 0):
            raise errors.InvalidArgumentError(None, None, "segment ids must be >= 0")
        if np.any(np.diff(known) < 0):
            raise errors.InvalidArgumentError(None, None, "segment ids are not increasing")
        n = int(known[-1]) + 1 if known.size else 0
        return make_op(op_type, [d, ids], {"num_segments": n}, name=scope)


def segment_sum(data, segment_ids, name=None):
    """out[j] = sum of data[i] over the i with segment_ids[i] == j (ids sorted; constant in tinyflow)."""
    return _sorted_segment("Sum", data, segment_ids, name)


def segment_mean(data, segment_ids, name=None):
    """out[j] = mean of data[i] over the i with segment_ids[i] == j; 0 for an empty segment."""
    return _sorted_segment("Mean", data, segment_ids, name)


def segment_max(data, segment_ids, name=None):
    """out[j] = max of data[i] over the i with segment_ids[i] == j; 0 for an empty segment."""
    return _sorted_segment("Max", data, segment_ids, name)


def segment_min(data, segment_ids, name=None):
    """out[j] = min of data[i] over the i with segment_ids[i] == j; 0 for an empty segment."""
    return _sorted_segment("Min", data, segment_ids, name)


def segment_prod(data, segment_ids, name=None):
    """out[j] = product of data[i] over the i with segment_ids[i] == j; 1 for an empty segment."""
    return _sorted_segment("Prod", data, segment_ids, name)


# ---- unsorted segment ops: UnsortedSegmentMax, UnsortedSegmentMin, UnsortedSegmentProd ---------------
def _unsorted(kind, data, segment_ids, num_segments, name):
    op_type = "UnsortedSegment" + kind
    with name_scope(name or op_type) as scope:
        d = convert_to_tensor(data, name="data")
        ids = int_tensor(segment_ids, "segment_ids")
        n = int_tensor(num_segments, "num_segments")
        return make_op(op_type, [d, ids, n], name=scope)


def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """out[j] = max of data[i...] over segment_ids[i...] == j; the dtype's lowest value if none."""
    return _unsorted("Max", data, segment_ids, num_segments, name)


def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """out[j] = min of data[i...] over segment_ids[i...] == j; the dtype's largest value if none."""
    return _unsorted("Min", data, segment_ids, num_segments, name)


def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """out[j] = product of data[i...] over segment_ids[i...] == j; 1 if none."""
    return _unsorted("Prod", data, segment_ids, num_segments, name)


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """out[j] = mean of data[i...] over segment_ids[i...] == j; 0 if none (TF builds it from sums)."""
    with name_scope(name or "unsorted_segment_mean"):
        d = convert_to_tensor(data, name="data")
        ids = int_tensor(segment_ids, "segment_ids")
        total = unsorted_segment_sum(d, ids, num_segments)
        count = unsorted_segment_sum(ones_like(ids, dtype=d.dtype), ids, num_segments)
        count = M.maximum(count, M.scalar_like(1, count))
        extra = d.shape.ndims - ids.shape.ndims if d.shape.ndims is not None and ids.shape.ndims is not None else 0
        if extra:
            count = reshape(count, concat([shape(count), constant(np.ones(extra, np.int32))], 0))
        return M.divide(total, count)


# ---- bincount and confusion_matrix ----------------------------------------------------------------
def _bincount_lower(a, arr, size, weights):
    w = jnp.ones(arr.shape, weights.dtype) if weights.size == 0 else weights
    # ids >= size are dropped, as TF's kernel does
    return jax.ops.segment_sum(w.reshape(-1), arr.reshape(-1), int(size)).astype(weights.dtype)


register_op("Bincount", shape=lambda s, a, v: [TensorShape([None if v[1] is None else int(v[1])])],
            dtype=same_as_input(2), grad=None, lower=_bincount_lower,
            dynamic_shape=lambda op, known: not known[1],   # a run-time length: runs between segments
            check=lambda a, arr, size, w: (jnp.all(arr >= 0),),
            check_message=lambda op: "Input arr must be non-negative!")


def _static_length(arr, minlength, maxlength):
    """TF's output length max(max(arr) + 1, minlength) capped at maxlength, as a Python int when it
    is known while building the graph, else None (computed at run time: _run_time_length)."""
    minlength = None if minlength is None else constant_value_of(minlength)
    maxlength = None if maxlength is None else constant_value_of(maxlength)
    values = constant_value_of(arr)
    if values is not None:
        values = np.asarray(values)
        n = int(values.max()) + 1 if values.size else 0
        if minlength is not None:
            n = max(n, int(minlength))
        return n if maxlength is None else min(n, int(maxlength))
    if minlength is not None and maxlength is not None and int(minlength) >= int(maxlength):
        return int(maxlength)  # max(.., minlength) >= maxlength, so the cap decides
    return None


def _run_time_length(arr, minlength, maxlength):
    """TF's length computation as graph ops (max(arr) + 1, 0 for an empty arr): a run-time value,
    so the Bincount runs between jitted segments (docs/dynamic_shapes.md)."""
    nonempty = M.cast(M.greater(M.reduce_prod(shape(arr)), 0), dt.int32)
    n = M.multiply(nonempty, M.add(M.reduce_max(arr), 1))
    if minlength is not None:
        n = M.maximum(n, M.cast(convert_to_tensor(minlength), dt.int32))
    if maxlength is not None:
        n = M.minimum(n, M.cast(convert_to_tensor(maxlength), dt.int32))
    return n


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=dt.int32):
    """Counts of each value in the non-negative int32 `arr` (or the sums of `weights` at each value).
    The length is max(max(arr) + 1, minlength) capped at maxlength: known while building for a
    constant `arr` (or minlength >= maxlength), else computed when the graph runs."""
    with name_scope("bincount"):
        arr = convert_to_tensor(arr, dtype=dt.int32, name="arr")
        n = _static_length(arr, minlength, maxlength)
        size = constant(n, dt.int32, name="size") if n is not None else _run_time_length(arr, minlength, maxlength)
        if weights is not None:   # TF 1.15's Python: a segment sum (negative values dropped; a gradient)
            from tinyflow.ops.core.indexing_ops import unsorted_segment_sum
            return unsorted_segment_sum(convert_to_tensor(weights, name="weights"), arr, size)
        return make_op("Bincount", [arr, size, constant(np.zeros([0], dt.as_dtype(dtype).np))])


def confusion_matrix(labels, predictions, num_classes=None, dtype=dt.int32, name=None, weights=None):
    """out[i, j] = the number (or total weight) of examples with label i predicted as j. Without
    num_classes it is max(labels, predictions) + 1: known while building for constants, else a
    run-time value (the scatter then runs between jitted segments, as bincount's)."""
    with name_scope(name or "confusion_matrix"):
        labels = M.cast(convert_to_tensor(labels, name="labels"), dt.int64)
        predictions = M.cast(convert_to_tensor(predictions, name="predictions"), dt.int64)
        checks = _confusion_checks(labels, predictions, num_classes)
        with labels.graph.control_dependencies(checks):
            labels, predictions = M.identity(labels), M.identity(predictions)
        if num_classes is None:
            values = [constant_value_of(labels), constant_value_of(predictions)]
            if any(v is None for v in values):
                # TF's max(reduce_max(predictions), reduce_max(labels)) + 1; of empty inputs the
                # dtype's lowest + 1, a negative size its kernel refuses (as the scatter does here)
                n = M.add(M.maximum(M.reduce_max(predictions), M.reduce_max(labels)), constant(1, dt.int64))
                return scatter_nd(stack([labels, predictions], axis=1), _confusion_updates(labels, weights, dtype),
                                  stack([n, n]))
            num_classes = max([int(np.max(v)) + 1 if np.size(v) else 0 for v in values])
        n = int(constant_value_of(num_classes))
        return scatter_nd(stack([labels, predictions], axis=1), _confusion_updates(labels, weights, dtype),
                          constant([n, n], dt.int64))


def _confusion_checks(labels, predictions, num_classes):
    """TF's asserts: no negative label or prediction, none past num_classes (InvalidArgumentError)."""
    from tinyflow.ops.check_ops import assert_less, assert_non_negative
    checks = [assert_non_negative(labels, message="`labels` contains negative values"),
              assert_non_negative(predictions, message="`predictions` contains negative values")]
    if num_classes is not None:
        n = M.cast(convert_to_tensor(num_classes), dt.int64)
        checks += [assert_less(labels, n, message="`labels` out of bound"),
                   assert_less(predictions, n, message="`predictions` out of bound")]
    return checks


def _confusion_updates(labels, weights, dtype):
    """What each (label, prediction) pair adds: 1, or its weight."""
    if weights is None:
        return M.cast(ones_like(labels), dtype)
    return M.cast(convert_to_tensor(weights, name="weights"), dtype)
