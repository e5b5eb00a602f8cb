"""tf.train.QueueRunner and start_queue_runners: threads that keep a queue filled.

Each runner thread runs one enqueue op in a loop through `Session.run` (the op's inputs, e.g. a
reader's next line parsed by decode_csv, are computed by the host stage and the jitted step). A
thread stops when the coordinator says so, or when its enqueue raises OutOfRangeError (the input
is exhausted: the last such thread closes the queue, so dequeues drain it and then raise
OutOfRangeError too). Any other error is reported to the coordinator and closes the queue with
its pending enqueues cancelled. A request_stop() cancels blocked enqueues the same way. Threads
are daemons: a script that never stops them still exits, cleanly: at exit their coordinators are
told to stop and their queues are cancelled, and the Session lets the runs under way end before
JAX is torn down (runtime/session.py, EXIT_GATE).
"""
import atexit
import threading
import weakref

from tinyflow.graph import errors
from tinyflow.graph.core import GraphKeys, add_to_collection
from tinyflow.graph.serialize import register_serializable


class _Runtime:
    def __init__(self, closed_types):
        self.closed_types = tuple(closed_types or (errors.OutOfRangeError,))
        self.lock = threading.Lock()
        self.runs = weakref.WeakKeyDictionary()  # Session -> enqueue threads still running
        self.exceptions = []


_RUNTIME = weakref.WeakKeyDictionary()  # QueueRunner -> _Runtime
_STARTED = weakref.WeakSet()            # runners whose threads were made (stopped at exit)
_COORDS = weakref.WeakSet()
_HOOKED = []


def _stop_at_exit():
    """Stops every runner's threads: their coordinators stop and their queues close, cancelling a
    blocked enqueue (registered after jax's and the Session's hooks, so it runs before them)."""
    for coord in list(_COORDS):
        coord.request_stop()
    for qr in list(_STARTED):
        for sess in list(qr._rt.runs):
            if not getattr(sess, "_closed", False):
                try:
                    sess.run(qr._cancel_op)
                except Exception:   # noqa: BLE001 (the session or its queue is gone: nothing to cancel)
                    pass


@register_serializable   # a graph file may hold runners: a queue and its ops (threads live outside, _RUNTIME)
class QueueRunner:
    """Holds a queue and the enqueue ops that fill it (one thread each)."""

    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None,
                 queue_closed_exception_types=None, queue_runner_def=None, import_scope=None):
        if queue is None or not enqueue_ops:
            raise ValueError("QueueRunner needs a queue and at least one enqueue op")
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = close_op if close_op is not None else queue.close()
        self._cancel_op = cancel_op if cancel_op is not None else queue.close(cancel_pending_enqueues=True)
        # threads' bookkeeping lives outside the object, so a graph with its runners saves (to_json)
        _RUNTIME[self] = _Runtime(queue_closed_exception_types)

    queue = property(lambda self: self._queue)
    enqueue_ops = property(lambda self: list(self._enqueue_ops))
    close_op = property(lambda self: self._close_op)
    cancel_op = property(lambda self: self._cancel_op)
    queue_closed_exception_types = property(lambda self: self._rt.closed_types)
    exceptions_raised = property(lambda self: list(self._rt.exceptions))

    @property
    def _rt(self):
        rt = _RUNTIME.get(self)
        if rt is None:  # a runner loaded from a saved graph
            rt = _RUNTIME[self] = _Runtime(None)
        return rt
    name = property(lambda self: self._queue.name)

    def _run(self, sess, enqueue_op, coord):
        try:
            while not (coord is not None and coord.should_stop()):
                try:
                    sess.run(enqueue_op)
                except self._rt.closed_types:
                    rt = self._rt
                    with rt.lock:
                        rt.runs[sess] -= 1
                        last = rt.runs[sess] == 0
                    if last:
                        try:
                            sess.run(self._close_op)
                        except Exception:
                            pass
                    return
        except errors.CancelledError:
            return  # the queue was closed under a blocked enqueue: a stop
        except Exception as e:
            if getattr(sess, "_closed", False):
                return  # the session went away under this thread
            with self._rt.lock:
                self._rt.exceptions.append(e)
            if coord is not None:
                coord.request_stop(e)
            try:
                sess.run(self._cancel_op)
            except Exception:
                pass

    def _close_on_stop(self, sess, coord):
        coord.wait_for_stop()
        try:
            sess.run(self._cancel_op)
        except Exception:
            pass

    def create_threads(self, sess, coord=None, daemon=False, start=False):
        """The threads that run the enqueue ops (and, with a coordinator, one that cancels the queue
        when a stop is requested); started when `start`."""
        rt = self._rt
        with rt.lock:
            rt.runs[sess] = len(self._enqueue_ops)
            rt.exceptions = []
        if not _HOOKED:
            _HOOKED.append(atexit.register(_stop_at_exit))   # once per process
        _STARTED.add(self)
        if coord is not None:
            _COORDS.add(coord)
        threads = [threading.Thread(target=self._run, args=(sess, op, coord), daemon=daemon,
                                    name="QueueRunnerThread-%s-%s" % (self.name, op.name))
                   for op in self._enqueue_ops]
        if coord is not None:
            threads.append(threading.Thread(target=self._close_on_stop, args=(sess, coord), daemon=True,
                                            name="QueueRunnerThread-%s-close_on_stop" % self.name))
        for t in threads:
            if coord is not None:
                coord.register_thread(t)
            if start:
                t.start()
        return threads


def add_queue_runner(qr, collection=GraphKeys.QUEUE_RUNNERS):
    """Adds `qr` to the graph's QUEUE_RUNNERS collection (start_queue_runners starts them)."""
    add_to_collection(collection, qr)


def start_queue_runners(sess=None, coord=None, daemon=True, start=True, collection=GraphKeys.QUEUE_RUNNERS):
    """Starts the threads of every QueueRunner in `collection` for `sess` (the default session);
    returns them (pass them to coord.join)."""
    if sess is None:
        from tinyflow.runtime.session import get_default_session
        sess = get_default_session()
        if sess is None:
            raise ValueError("Cannot start queue runners: No default session is registered. Use `with "
                             "sess.as_default()` or pass an explicit session to tf.start_queue_runners(sess=sess)")
    runners = sess.graph.get_collection(collection)
    threads = []
    for qr in runners:
        threads.extend(qr.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads
