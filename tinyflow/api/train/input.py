"""TF1's queue-based input pipeline: input producers and batching (tf.train.*_input_producer,
tf.train.batch, tf.train.shuffle_batch).

Each builds the ops TF builds: a queue (ops/queue_ops.py), an enqueue op, and a QueueRunner in the
QUEUE_RUNNERS collection whose threads run it after tf.train.start_queue_runners. num_epochs, as in
TF, counts epochs in a local variable (`<scope>/limit_epochs/epochs`), so a script must run
tf.local_variables_initializer(); past the last epoch the producer's queue is closed and a
dequeue raises OutOfRangeError.
"""
import threading
import weakref

import numpy as np

from tinyflow.graph import errors
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import GraphKeys, get_default_graph, name_scope
from tinyflow.graph.shapes import TensorShape, as_shape
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.host_ops import make_host_op, register_host_op
from tinyflow.ops.queue_ops import FIFOQueue, RandomShuffleQueue
from tinyflow.ops.random_ops import get_seed
from tinyflow.api.train.queue_runner import QueueRunner, add_queue_runner


_RNGS = weakref.WeakKeyDictionary()  # Session -> {producer op: its shuffling generator}
_LOCK = threading.Lock()


def _epoch(session, op, inputs):
    """One epoch of the producer's input: counts it in the epochs variable, shuffles it."""
    a = inputs[0]
    var, limit = op.attrs["epochs"], op.attrs["num_epochs"]
    if var is not None:
        n = int(session._variable_value(var))
        if n >= limit:
            raise errors.OutOfRangeError(op.node_def, op, "Reached limit of %d\n\t [[{{node %s}}]]" % (limit, op.name))
        session._set_variable(var, n + 1)
    if op.attrs["shuffle"]:
        with _LOCK:
            rng = _RNGS.setdefault(session, {}).setdefault(op, np.random.RandomState(op.attrs["seed"]))
        a = a[rng.permutation(len(a))]
    return [a]


register_host_op("InputProducerEpoch", lambda s, a, v: [s[0]], lambda d, a: [d[0]], _epoch, stateful=True)


def input_producer(input_tensor, element_shape=None, num_epochs=None, shuffle=True, seed=None, capacity=32,
                   shared_name=None, summary_name=None, name=None, cancel_op=None):
    """A FIFOQueue filled, by a queue runner, with the rows of `input_tensor`, epoch after epoch
    (each epoch shuffled when `shuffle`; `num_epochs` of them, or forever)."""
    with name_scope(name, "input_producer", [input_tensor]) as scope:
        x = convert_to_tensor(input_tensor, name="input_tensor")
        shape = TensorShape(x.shape.as_list()[1:]) if x.shape.ndims else TensorShape(None)
        if element_shape is not None:
            shape = shape.merge_with(as_shape(element_shape))
        if not shape.is_fully_defined():
            raise ValueError("Either `input_tensor` must have a fully defined shape or `element_shape` must be "
                             "specified")
        epochs_var = None
        if num_epochs is not None:
            if num_epochs <= 0:
                raise ValueError("num_epochs must be > 0 not %d." % num_epochs)
            from tinyflow.ops.state_ops import Variable
            with name_scope("limit_epochs"):
                epochs_var = Variable(np.int64(0), name="epochs", trainable=False,
                                      collections=[GraphKeys.LOCAL_VARIABLES])
        seeds = get_seed(seed)
        rng_seed = None if seeds[0] is None else (seeds[0] * 7919 + seeds[1]) % 2 ** 32
        epoch = make_host_op("InputProducerEpoch", [x], {
            "epochs": None if epochs_var is None else epochs_var.op, "num_epochs": num_epochs,
            "shuffle": bool(shuffle), "seed": rng_seed}, name="limit_epochs/epoch").outputs[0]
        q = FIFOQueue(capacity, [x.dtype], shapes=[shape], shared_name=shared_name, name="input_producer")
        q._name = scope.rstrip("/")  # TF names the producer's queue after its scope
        q._resource = shared_name or "_%d_%s" % (get_default_graph()._queue_count - 1, q._name)
        enq = q.enqueue_many([epoch])
        add_queue_runner(QueueRunner(q, [enq], cancel_op=cancel_op))
        return q


def string_input_producer(string_tensor, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None,
                          name=None, cancel_op=None):
    """A queue of file names (strings) for a reader, refilled epoch after epoch."""
    x = convert_to_tensor(string_tensor, dtype=dt.string)
    if x.shape.ndims is not None and x.shape.ndims != 1:
        raise ValueError("Shape must be rank 1 but is rank %d" % x.shape.ndims)
    if x.op.type == "Const" and x.op.attrs["value"].size == 0:
        raise ValueError("string_input_producer requires a non-null input tensor")
    return input_producer(x, [], num_epochs, shuffle, seed, capacity, shared_name, "", name or "input_producer",
                          cancel_op)


def range_input_producer(limit, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None, name=None):
    """A queue of the integers 0 .. limit-1 (int32), refilled epoch after epoch."""
    from tinyflow.ops.core.sequence_ops import range as tf_range
    with name_scope(name, "input_producer", [limit]) as scope:
        r = tf_range(limit)
        return input_producer(r, [], num_epochs, shuffle, seed, capacity, shared_name, "", scope.rstrip("/").split(
            "/")[-1] if scope else "input_producer")


def slice_input_producer(tensor_list, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None,
                         name=None):
    """One row of each tensor of `tensor_list` per run (the same row of each), in order or shuffled."""
    from tinyflow.ops.core.array_ops import shape
    from tinyflow.ops.core.indexing_ops import gather
    with name_scope(name, "input_producer", tensor_list):
        ts = [convert_to_tensor(t) for t in tensor_list]
        if not ts:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        n = ts[0].shape.as_list()[0] if ts[0].shape.ndims else None
        size = n if n is not None else shape(ts[0])[0]
        q = range_input_producer(size, num_epochs, shuffle, seed, capacity, shared_name)
        index = q.dequeue()
        return [gather(t, index) for t in ts]


def _flatten(tensors):
    if isinstance(tensors, dict):
        keys = sorted(tensors)
        return [tensors[k] for k in keys], lambda outs: dict(zip(keys, outs))
    if isinstance(tensors, (list, tuple)):
        # TF gives a list of one back as the tensor itself
        return list(tensors), lambda outs: outs[0] if len(outs) == 1 else list(outs)
    return [tensors], lambda outs: outs[0]


def _batch(queue_cls, tensors, batch_size, num_threads, enqueue_many, shapes, allow_smaller, name, **qargs):
    flat, pack = _flatten(tensors)
    with name_scope(name, "batch", flat) as scope:
        ts = [convert_to_tensor(t) for t in flat]
        if shapes is None:
            shapes = [TensorShape(t.shape.as_list()[1:]) if enqueue_many else t.shape for t in ts]
            for t, s in zip(ts, shapes):
                if not s.is_fully_defined():
                    raise ValueError("All shapes must be fully defined: %s" % [t.shape for t in ts])
        q = queue_cls(dtypes=[t.dtype for t in ts], shapes=[as_shape(s) for s in shapes],
                      name=("random_shuffle_queue" if queue_cls is RandomShuffleQueue else "fifo_queue"), **qargs)
        enq = q.enqueue_many(ts) if enqueue_many else q.enqueue(ts)
        add_queue_runner(QueueRunner(q, [enq] * num_threads))
        op_name = scope or "batch"  # the dequeue op is named like the scope ("batch:0"), as in TF
        out = q.dequeue_up_to(batch_size, name=op_name) if allow_smaller else q.dequeue_many(batch_size, name=op_name)
        outs = out if isinstance(out, list) else [out]
        return pack(outs)


def batch(tensors, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None, dynamic_pad=False,
          allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches of `batch_size` elements of `tensors` (a list or dict, like the result), in order,
    filled by `num_threads` queue-runner threads through a FIFOQueue of `capacity`."""
    if dynamic_pad:
        raise NotImplementedError("tinyflow: tf.train.batch(dynamic_pad=True) is not supported")
    return _batch(FIFOQueue, tensors, batch_size, num_threads, enqueue_many, shapes, allow_smaller_final_batch, name,
                  capacity=capacity, shared_name=shared_name)


def shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads=1, seed=None, enqueue_many=False,
                  shapes=None, allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches of random elements: a RandomShuffleQueue keeps `min_after_dequeue` elements to mix
    (until its input ends)."""
    return _batch(RandomShuffleQueue, tensors, batch_size, num_threads, enqueue_many, shapes,
                  allow_smaller_final_batch, name or "shuffle_batch", capacity=capacity,
                  min_after_dequeue=min_after_dequeue, seed=seed, shared_name=shared_name)


def batch_join(tensors_list, batch_size, capacity=32, enqueue_many=False, shapes=None, dynamic_pad=False,
               allow_smaller_final_batch=False, shared_name=None, name=None):
    """Like batch, with one enqueuing thread per element of `tensors_list`."""
    flat0, pack = _flatten(tensors_list[0])
    with name_scope(name, "batch_join", flat0) as scope:
        lists = [[convert_to_tensor(t) for t in _flatten(ts)[0]] for ts in tensors_list]
        shapes = shapes or [t.shape for t in lists[0]]
        q = FIFOQueue(capacity, [t.dtype for t in lists[0]], shapes=shapes, shared_name=shared_name)
        enqs = [q.enqueue_many(ts) if enqueue_many else q.enqueue(ts) for ts in lists]
        add_queue_runner(QueueRunner(q, enqs))
        op_name = scope or "batch_join"
        out = q.dequeue_up_to(batch_size, name=op_name) if allow_smaller_final_batch else q.dequeue_many(
            batch_size, name=op_name)
        return pack(out if isinstance(out, list) else [out])


def shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, seed=None, enqueue_many=False,
                       shapes=None, allow_smaller_final_batch=False, shared_name=None, name=None):
    """Like shuffle_batch, with one enqueuing thread per element of `tensors_list`."""
    flat0, pack = _flatten(tensors_list[0])
    with name_scope(name, "shuffle_batch_join", flat0) as scope:
        lists = [[convert_to_tensor(t) for t in _flatten(ts)[0]] for ts in tensors_list]
        shapes = shapes or [t.shape for t in lists[0]]
        q = RandomShuffleQueue(capacity, min_after_dequeue, [t.dtype for t in lists[0]], shapes=shapes, seed=seed,
                               shared_name=shared_name)
        enqs = [q.enqueue_many(ts) if enqueue_many else q.enqueue(ts) for ts in lists]
        add_queue_runner(QueueRunner(q, enqs))
        op_name = scope or "shuffle_batch_join"
        out = q.dequeue_up_to(batch_size, name=op_name) if allow_smaller_final_batch else q.dequeue_many(
            batch_size, name=op_name)
        return pack(out if isinstance(out, list) else [out])


def limit_epochs(tensor, num_epochs=None, name=None):
    """`tensor` for `num_epochs` runs, then OutOfRangeError (counted in a local variable)."""
    x = convert_to_tensor(tensor)
    if num_epochs is None:
        return x
    from tinyflow.ops.state_ops import Variable
    with name_scope(name, "limit_epochs", [x]):
        var = Variable(np.int64(0), name="epochs", trainable=False, collections=[GraphKeys.LOCAL_VARIABLES])
        return make_host_op("InputProducerEpoch", [x], {"epochs": var.op, "num_epochs": num_epochs, "shuffle": False,
                                                        "seed": None}, name="epoch").outputs[0]





def _kept(tensors, keep_input, enqueue_many):
    """`tensors` as a batch of the elements keep_input keeps (enqueued many: a scalar keep_input keeps an
    element as a batch of 1 or 0; a vector keeps the rows it marks), and the elements' shapes."""
    from tinyflow.ops.core import array_ops, indexing_ops
    flat, pack = _flatten(tensors)
    flat = [convert_to_tensor(t) for t in flat]
    keep = convert_to_tensor(keep_input)
    if keep.shape.ndims not in (0, 1):
        raise ValueError("`keep_input` must be 0 or 1 dimensions.")
    if keep.shape.ndims == 1 and not enqueue_many:
        raise ValueError("`keep_input` cannot be a vector when `enqueue_many=False`.")
    shapes = [TensorShape(t.shape.as_list()[1:]) if enqueue_many else t.shape for t in flat]
    rows = flat if enqueue_many else [array_ops.expand_dims(t, 0) for t in flat]
    if keep.shape.ndims == 0:
        keep = array_ops.fill(array_ops.shape(rows[0])[:1], keep)
    kept = [indexing_ops.boolean_mask(t, keep) for t in rows]
    return (pack(kept) if not isinstance(tensors, (list, tuple)) or len(kept) > 1 else kept), shapes


def maybe_batch(tensors, keep_input, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None,
                dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    """tf.train.batch of the elements for which keep_input is True."""
    kept, element_shapes = _kept(tensors, keep_input, enqueue_many)
    return batch(kept, batch_size, num_threads, capacity, True, shapes or element_shapes, dynamic_pad,
                 allow_smaller_final_batch, shared_name, name)


def maybe_shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input, num_threads=1, seed=None,
                        enqueue_many=False, shapes=None, allow_smaller_final_batch=False, shared_name=None, name=None):
    """tf.train.shuffle_batch of the elements for which keep_input is True."""
    kept, element_shapes = _kept(tensors, keep_input, enqueue_many)
    return shuffle_batch(kept, batch_size, capacity, min_after_dequeue, num_threads, seed, True,
                         shapes or element_shapes, allow_smaller_final_batch, shared_name, name)


def maybe_batch_join(tensors_list, keep_input, batch_size, capacity=32, enqueue_many=False, shapes=None,
                     dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    """tf.train.batch_join of the elements for which keep_input is True."""
    kept = [_kept(ts, keep_input, enqueue_many) for ts in tensors_list]
    return batch_join([k for k, _ in kept], batch_size, capacity, True, shapes or kept[0][1], dynamic_pad,
                      allow_smaller_final_batch, shared_name, name)


def maybe_shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, keep_input, seed=None,
                             enqueue_many=False, shapes=None, allow_smaller_final_batch=False, shared_name=None,
                             name=None):
    """tf.train.shuffle_batch_join of the elements for which keep_input is True."""
    kept = [_kept(ts, keep_input, enqueue_many) for ts in tensors_list]
    return shuffle_batch_join([k for k, _ in kept], batch_size, capacity, min_after_dequeue, seed, True,
                              shapes or kept[0][1], allow_smaller_final_batch, shared_name, name)
