"""TF1's conditional accumulators (tf.ConditionalAccumulator, tf.SparseConditionalAccumulator): host ops over
a per-session state, kept the way queue_ops keeps a queue's (the API classes are api/accumulators.py).

An accumulator sums the gradients applied to it whose local_step is at least its global step (staler ones
are dropped without a word, as TF drops them); take_grad waits until `num_required` were summed, returns
their mean (or sum), starts a new sum and advances the global step by one; set_global_step sets it. The
sparse one merges each gradient's (indices, values) into its sum as TF does, a merge of two lists it
expects sorted (unsorted indices come out in the merge's order), and its mean divides each row by the
number of gradients that held that index."""
import threading

import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph import errors
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.host_ops import register_host_op
from tinyflow.ops.queue_ops import queue_state


class _AccumulatorState:
    """One session's sum of one accumulator: dense `total`, or sparse (indices, values, counts)."""

    def __init__(self, acc):
        self.acc = acc
        self.cond = threading.Condition()
        self.global_step = 0
        self.count = 0
        self.total = None

    def apply(self, local_step, grad, merge):
        with self.cond:
            if local_step < self.global_step:
                return
            self.total = grad if self.total is None else merge(self.total, grad)
            self.count += 1
            self.cond.notify_all()

    def take(self, op, num_required):
        if num_required < 1:
            raise errors.InvalidArgumentError(op.node_def, op, "Argument num_required must be positive, but was %d"
                                              % num_required)
        with self.cond:
            while self.count < num_required:
                self.cond.wait()
            total, count = self.total, self.count
            self.total, self.count = None, 0
            self.global_step += 1
        return total, count


def _state(session, op):
    return queue_state(session, op.attrs["accumulator"], _AccumulatorState)


def _check_shape(op, want, got):
    if not want.is_compatible_with(TensorShape(got)):
        raise errors.InvalidArgumentError(op.node_def, op, "Shape mismatch: expected shape %s, got %s"
                                          % (want.as_proto_str(), TensorShape(got).as_proto_str()))


def _apply_dense(session, op, inputs):
    local_step, grad = inputs
    acc = op.attrs["accumulator"]
    _check_shape(op, acc._shape, np.shape(grad))
    _state(session, op).apply(int(local_step), np.array(grad, acc._dtype.np), np.add)
    return []


def _take_dense(session, op, inputs):
    acc = op.attrs["accumulator"]
    total, count = _state(session, op).take(op, int(inputs[0]))
    return [(total / count if acc._reduction_type == "MEAN" else total).astype(acc._dtype.np)]


def _merge_sparse(accum, grad):
    """TF's merge of two (indices, values, counts) triples: walks both lists in order, taking the smaller
    index first and adding the rows of an index both hold."""
    (ai, av, ac), (gi, gv, gc) = accum, grad
    idx, val, cnt = [], [], []
    i = j = 0
    while i < len(ai) or j < len(gi):
        if j == len(gi) or i < len(ai) and ai[i] < gi[j]:
            idx.append(ai[i]), val.append(av[i]), cnt.append(ac[i])
            i += 1
        elif i == len(ai) or gi[j] < ai[i]:
            idx.append(gi[j]), val.append(gv[j]), cnt.append(gc[j])
            j += 1
        else:
            idx.append(ai[i]), val.append(av[i] + gv[j]), cnt.append(ac[i] + gc[j])
            i, j = i + 1, j + 1
    return np.array(idx, np.int64), np.stack(val), np.array(cnt, np.int64)


def _apply_sparse(session, op, inputs):
    local_step, indices, values, shape = inputs
    acc = op.attrs["accumulator"]
    values = np.array(values, acc._dtype.np)
    if op.attrs["has_known_shape"]:
        _check_shape(op, acc._shape, [int(d) for d in shape])
    if acc._shape.ndims is not None:
        _check_shape(op, TensorShape([None]).concatenate(acc._shape[1:]), values.shape)
    grad = (np.array(indices, np.int64).reshape(-1), values, np.ones(len(values), np.int64))
    _state(session, op).apply(int(local_step), grad, _merge_sparse)
    return []


def _take_sparse(session, op, inputs):
    acc = op.attrs["accumulator"]
    (indices, values, counts), _ = _state(session, op).take(op, int(inputs[0]))
    if acc._reduction_type == "MEAN":
        values = values / counts.reshape((-1,) + (1,) * (values.ndim - 1))
    first = acc._shape[0].value if acc._shape.ndims else None
    shape = np.array([-1 if first is None else first] + list(values.shape[1:]), np.int64)
    return [indices, values.astype(acc._dtype.np), shape]


def _num_accumulated(session, op, inputs):
    st = _state(session, op)
    with st.cond:
        return [np.int32(st.count)]


def _set_global_step(session, op, inputs):
    st = _state(session, op)
    with st.cond:
        st.global_step = int(inputs[0])
    return []


_NONE = lambda s, a, v: []  # noqa: E731
_NO_TYPES = lambda d, a: []  # noqa: E731
_SCALAR = lambda s, a, v: [TensorShape([])]  # noqa: E731
register_host_op("ResourceAccumulatorApplyGradient", _NONE, _NO_TYPES, _apply_dense, stateful=True)
register_host_op("ResourceAccumulatorTakeGradient", lambda s, a, v: [a["accumulator"]._shape],
                 lambda d, a: [a["accumulator"]._dtype], _take_dense, stateful=True)
register_host_op("SparseAccumulatorApplyGradient", _NONE, _NO_TYPES, _apply_sparse, stateful=True)
register_host_op("SparseAccumulatorTakeGradient", lambda s, a, v: [TensorShape(None)] * 3,
                 lambda d, a: [dt.int64, a["accumulator"]._dtype, dt.int64], _take_sparse, stateful=True)
register_host_op("AccumulatorNumAccumulated", _SCALAR, lambda d, a: [dt.int32], _num_accumulated, stateful=True)
register_host_op("AccumulatorSetGlobalStep", _NONE, _NO_TYPES, _set_global_step, stateful=True)
