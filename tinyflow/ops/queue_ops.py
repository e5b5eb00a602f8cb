"""TF1 queues (tf.FIFOQueue, tf.RandomShuffleQueue, tf.PriorityQueue): host objects feeding the jitted step.

A queue is a per-session resource, as in TF: its elements (tuples of numpy values) live in a
`_QueueState` of this session, guarded by a condition variable. Enqueue, dequeue, size and close are
host ops (ops/host_ops.py): queue-runner threads run the enqueue ops (filling the queue through
`Session.run`), and a training step's dequeue is computed by the host stage before its jitted
function, which the batch is fed to.

Blocking follows TF: an enqueue waits while the queue is full, a dequeue while it holds too few
elements. Closing wakes both: a dequeue that can no longer be served raises OutOfRangeError, an
enqueue to a closed queue CancelledError.
"""
import threading
import warnings
import weakref

import numpy as np

from tinyflow.graph import errors
from tinyflow.graph.serialize import register_serializable
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import get_default_graph
from tinyflow.graph.shapes import TensorShape, as_shape
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.host_ops import make_host_op, register_host_op
from tinyflow.ops.random_ops import get_seed

# Session -> {queue resource name: _QueueState}. By name, not object: a graph loaded from JSON has one
# copy of the queue object per op that names it, and they must share their elements.
_STATES = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()
_PATIENCE = 10  # seconds a dequeue waits before warning that nothing seems to fill its queue


def _state(session, queue, make=None):
    """This session's state of `queue` (or of another per-session resource with a `_resource` name: an
    accumulator, made by `make(owner)`), created on first use."""
    with _LOCK:
        per = _STATES.setdefault(session, {})
        st = per.get(queue._resource)
        if st is None:
            st = per[queue._resource] = (make or _QueueState)(queue)
        return st


class _QueueState:
    """One session's contents of one queue."""

    def __init__(self, queue):
        self.queue = queue
        self.items = []
        self.cond = threading.Condition()
        self.closed = False
        seed = queue._seed
        self.rng = np.random.RandomState(None if seed[0] is None else (seed[0] * 7919 + seed[1]) % 2 ** 32)

    def put(self, op, rows):
        q = self.queue
        with self.cond:
            for row in rows:
                while len(self.items) >= q._capacity and not self.closed:
                    self.cond.wait()
                if self.closed:
                    raise errors.CancelledError(op.node_def, op, "%s '%s' is closed.\n\t [[{{node %s}}]]"
                                                % (q._kind, q._resource, op.name))
                self.items.append(row)
                self.cond.notify_all()

    def take(self, op, n, up_to=False):
        """n elements (n=None: one, unbatched); fewer only when up_to and closed."""
        q = self.queue
        want = 1 if n is None else n
        with self.cond:
            waited = 0
            while not self.closed and len(self.items) < want + q._min_after_dequeue:
                if not self.cond.wait(_PATIENCE):
                    waited += 1
                    if waited == 1:  # TF waits silently forever; say what is probably missing
                        warnings.warn("tinyflow: %s waited %d s for elements of %s '%s' (size %d, needs %d): are "
                                      "its queue runners started (tf.train.start_queue_runners)?"
                                      % (op.name, _PATIENCE, q._kind, q._resource, len(self.items),
                                         want + q._min_after_dequeue), RuntimeWarning, stacklevel=2)
            if len(self.items) < want and not (up_to and self.items):
                raise errors.OutOfRangeError(
                    op.node_def, op, "%s '%s' is closed and has insufficient elements (requested %d, current size "
                    "%d)\n\t [[{{node %s}}]]" % (q._kind, q._resource, want, len(self.items), op.name))
            rows = []
            for _ in range(min(want, len(self.items))):
                rows.append(self.items.pop(q._next(self.items, self.rng)))
            self.cond.notify_all()
        if n is None:
            return list(rows[0])
        return [_stack([r[c] for r in rows], d) for c, d in enumerate(q._dtypes)]

    def close(self, cancel):
        # pending enqueues wake up and raise CancelledError (put checks `closed`), cancel or not:
        # TF lets them finish only when there is room, which a closed queue never makes
        with self.cond:
            self.closed = True
            self.cond.notify_all()


def _stack(values, dtype):
    if dtype is dt.string:
        return np.stack([np.asarray(v, dtype=object) for v in values])
    return np.stack(values).astype(dtype.np, copy=False)


def _check_row(op, q, row):
    out = []
    for c, (v, d, s) in enumerate(zip(row, q._dtypes, q._shapes)):
        a = np.asarray(v)
        if not s.is_compatible_with(TensorShape(a.shape)):
            raise errors.InvalidArgumentError(
                op.node_def, op, "Shape mismatch in tuple component %d. Expected %s, got %s"
                % (c, s.as_proto_str(), TensorShape(a.shape).as_proto_str()))
        out.append(a)
    return tuple(out)


def _enqueue(session, op, inputs):
    q = op.attrs["queue"]
    _state(session, q).put(op, [_check_row(op, q, inputs)])
    return []


def _enqueue_many(session, op, inputs):
    q = op.attrs["queue"]
    sizes = {np.shape(v)[0] if np.ndim(v) else None for v in inputs}
    if len(sizes) != 1 or None in sizes:
        raise errors.InvalidArgumentError(op.node_def, op, "Shape mismatch in tuple component 0. Expected [...], "
                                          "every component of enqueue_many needs the same 0th dimension, got %s"
                                          % [np.shape(v) for v in inputs])
    rows = [_check_row(op, q, [v[i] for v in inputs]) for i in range(sizes.pop())]
    _state(session, q).put(op, rows)
    return []


def _dequeue(session, op, inputs):
    return _state(session, op.attrs["queue"]).take(op, None)


def _dequeue_many(session, op, inputs):
    q = op.attrs["queue"]
    if not all(s.is_fully_defined() for s in q._shapes):
        raise errors.InvalidArgumentError(op.node_def, op, "%s's DequeueMany and DequeueUpTo require the components "
                                          "to have specified shapes." % q._kind)
    return _state(session, q).take(op, int(inputs[0]), up_to=op.type == "QueueDequeueUpToV2")


def _size(session, op, inputs):
    st = _state(session, op.attrs["queue"])
    with st.cond:
        return [np.int32(len(st.items))]


def _close(session, op, inputs):
    _state(session, op.attrs["queue"]).close(op.attrs["cancel"])
    return []


def _is_closed(session, op, inputs):
    return [np.bool_(_state(session, op.attrs["queue"]).closed)]


_NONE = lambda s, a, v: []  # noqa: E731
_NO_TYPES = lambda d, a: []  # noqa: E731
register_host_op("QueueEnqueueV2", _NONE, _NO_TYPES, _enqueue, stateful=True)
register_host_op("QueueEnqueueManyV2", _NONE, _NO_TYPES, _enqueue_many, stateful=True)
register_host_op("QueueDequeueV2", lambda s, a, v: list(a["queue"]._shapes), lambda d, a: list(a["queue"]._dtypes),
                 _dequeue, stateful=True)


def _many_shapes(shapes, attrs, values):
    n = None if values[0] is None or attrs.get("up_to") else int(values[0])
    return [TensorShape([n]).concatenate(s) for s in attrs["queue"]._shapes]


register_host_op("QueueDequeueManyV2", _many_shapes, lambda d, a: list(a["queue"]._dtypes), _dequeue_many,
                 stateful=True)
register_host_op("QueueDequeueUpToV2", _many_shapes, lambda d, a: list(a["queue"]._dtypes), _dequeue_many,
                 stateful=True)
register_host_op("QueueSizeV2", lambda s, a, v: [TensorShape([])], lambda d, a: [dt.int32], _size, stateful=True)
register_host_op("QueueCloseV2", _NONE, _NO_TYPES, _close, stateful=True)
register_host_op("QueueIsClosedV2", lambda s, a, v: [TensorShape([])], lambda d, a: [dt.bool_], _is_closed,
                 stateful=True)


class QueueBase:
    """A TF1 queue of tuples of tensors (fixed dtypes, optional shapes and names)."""

    _kind = "Queue"

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None, name="queue", seed=None,
                 min_after_dequeue=0):
        g = get_default_graph()
        single = not isinstance(dtypes, (list, tuple))
        self._dtypes = [dt.as_dtype(d) for d in ([dtypes] if single else dtypes)]
        if shapes is None:
            self._shapes = [TensorShape(None)] * len(self._dtypes)
        else:
            shapes = list(shapes)
            if shapes and not isinstance(shapes[0], (list, tuple, TensorShape)) and shapes[0] is not None:
                shapes = [shapes]  # one component's shape, e.g. shapes=[] handled below
            self._shapes = [as_shape(s) for s in shapes] if shapes else [TensorShape([])] * len(self._dtypes)
            if len(self._shapes) != len(self._dtypes):
                raise ValueError("Queue shapes must have the same length as dtypes")
        self._names = None if names is None else ([names] if isinstance(names, str) else list(names))
        if self._names is not None and len(self._names) != len(self._dtypes):
            raise ValueError("Queue names must have the same length as dtypes")
        self._capacity = int(capacity)
        self._min_after_dequeue = int(min_after_dequeue)
        self._seed = get_seed(seed)
        self._name = g.unique_name(name)
        self._prefix = self._name.split("/")[-1]  # op names get the current scope from create_op
        count = getattr(g, "_queue_count", 0)
        g._queue_count = count + 1
        self._resource = shared_name or "_%d_%s" % (count, self._name)

    name = property(lambda self: self._name)
    dtypes = property(lambda self: list(self._dtypes))
    shapes = property(lambda self: list(self._shapes))
    names = property(lambda self: self._names)

    @property
    def queue_ref(self):
        return self

    def _next(self, items, rng):
        """Which of the queued `items` a dequeue takes next (first in, first out)."""
        return 0

    def _components(self, vals):
        if isinstance(vals, dict):
            if self._names is None:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(vals) != sorted(self._names):
                raise ValueError("Keys in dictionary to enqueue do not match names of Queue.  Dictionary: %s, "
                                 "Queue: %s" % (sorted(vals), sorted(self._names)))
            vals = [vals[k] for k in self._names]
        elif not isinstance(vals, (list, tuple)):
            vals = [vals]
        if len(vals) != len(self._dtypes):
            raise ValueError("Expected %d components to enqueue, got %d" % (len(self._dtypes), len(vals)))
        return [convert_to_tensor(v, dtype=d) for v, d in zip(vals, self._dtypes)]

    def _pack(self, outs):
        outs = list(outs)
        if self._names is not None:
            return dict(zip(self._names, outs))
        return outs[0] if len(outs) == 1 else outs

    def enqueue(self, vals, name=None):
        """An op that adds one element (blocks while the queue is full)."""
        ts = self._components(vals)
        for t, s in zip(ts, self._shapes):
            if not s.is_compatible_with(t.shape):
                raise ValueError("Shapes %s and %s are incompatible" % (t.shape, s))
        return make_host_op("QueueEnqueueV2", ts, {"queue": self}, name=name or self._prefix + "_enqueue")

    def enqueue_many(self, vals, name=None):
        """An op that adds the slices of `vals` along their first dimension, one element each."""
        ts = self._components(vals)
        for t, s in zip(ts, self._shapes):
            if t.shape.ndims is not None and (t.shape.ndims == 0 or not s.is_compatible_with(TensorShape(
                    t.shape.as_list()[1:]))):
                raise ValueError("Shapes %s and %s are incompatible" % (t.shape, TensorShape([None]).concatenate(s)))
        return make_host_op("QueueEnqueueManyV2", ts, {"queue": self}, name=name or self._prefix + "_EnqueueMany")

    def dequeue(self, name=None):
        """One element (blocks until there is one; OutOfRangeError once closed and empty)."""
        op = make_host_op("QueueDequeueV2", [], {"queue": self}, name=name or self._prefix + "_Dequeue")
        return self._pack(op.outputs)

    def dequeue_many(self, n, name=None):
        """`n` elements stacked (blocks until there are n; OutOfRangeError once closed with fewer)."""
        op = make_host_op("QueueDequeueManyV2", [convert_to_tensor(n, dt.int32)], {"queue": self},
                          name=name or self._prefix + "_DequeueMany")
        return self._pack(op.outputs)

    def dequeue_up_to(self, n, name=None):
        """Like dequeue_many, but once closed returns the remaining elements (fewer than n)."""
        op = make_host_op("QueueDequeueUpToV2", [convert_to_tensor(n, dt.int32)], {"queue": self, "up_to": True},
                          name=name or self._prefix + "_DequeueUpTo")
        return self._pack(op.outputs)

    def size(self, name=None):
        """The number of elements in the queue now (int32 scalar)."""
        return make_host_op("QueueSizeV2", [], {"queue": self}, name=name or self._prefix + "_Size").outputs[0]

    def close(self, cancel_pending_enqueues=False, name=None):
        """An op that closes the queue: no more enqueues; dequeues drain what is left."""
        return make_host_op("QueueCloseV2", [], {"queue": self, "cancel": bool(cancel_pending_enqueues)},
                            name=name or self._prefix + "_Close")

    def is_closed(self, name=None):
        return make_host_op("QueueIsClosedV2", [], {"queue": self}, name=name or self._prefix + "_IsClosed").outputs[0]


class FIFOQueue(QueueBase):
    """tf.FIFOQueue: elements come out in the order they went in."""
    _kind = "FIFOQueue"

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None, name="fifo_queue"):
        super().__init__(capacity, dtypes, shapes, names, shared_name, name)


class PaddingFIFOQueue(FIFOQueue):
    """tf.PaddingFIFOQueue (without padding: elements of one dequeue_many must have equal shapes)."""

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None, name="padding_fifo_queue"):
        QueueBase.__init__(self, capacity, dtypes, shapes, names, shared_name, name)


class RandomShuffleQueue(QueueBase):
    """tf.RandomShuffleQueue: a dequeue takes a uniformly random element, and (until the queue is
    closed) waits until `min_after_dequeue` elements would remain."""
    _kind = "RandomShuffleQueue"

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None, names=None, seed=None, shared_name=None,
                 name="random_shuffle_queue"):
        if min_after_dequeue >= capacity:
            raise ValueError("min_after_dequeue (%d) must be less than capacity (%d)" % (min_after_dequeue, capacity))
        super().__init__(capacity, dtypes, shapes, names, shared_name, name, seed, min_after_dequeue)

    def _next(self, items, rng):
        return rng.randint(len(items))


class PriorityQueue(QueueBase):
    """tf.PriorityQueue: each element's first component is its int64 priority (scalar), added before
    `types`; a dequeue takes the lowest priority first (equal priorities in the order they came)."""
    _kind = "PriorityQueue"

    def __init__(self, capacity, types, shapes, names=None, shared_name=None, name="priority_queue"):
        types, shapes = list(types), list(shapes)
        if len(types) != len(shapes):
            raise ValueError("Queue shapes must have the same length as dtypes")
        super().__init__(capacity, [dt.int64] + types, [()] + shapes, names, shared_name, name)

    def _next(self, items, rng):
        return min(range(len(items)), key=lambda i: int(items[i][0]))


def queue_state(session, queue, make=None):
    """This session's state of `queue` (for readers, which dequeue file names; accumulators pass `make`)."""
    return _state(session, queue, make)


# Graph files may describe queues (their capacity, dtypes, shapes and shared resource name: plain
# data; the contents live in the process, keyed by that name).
for _cls in (FIFOQueue, PaddingFIFOQueue, PriorityQueue, RandomShuffleQueue):
    register_serializable(_cls)
