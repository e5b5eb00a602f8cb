"""slim.queues.QueueRunners and slim.prefetch_queue.prefetch_queue (TF 1.15)."""
import contextlib

from tinyflow.api.train.coordinator import Coordinator
from tinyflow.api.train.queue_runner import QueueRunner, add_queue_runner, start_queue_runners
from tinyflow.graph.core import name_scope
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.queue_ops import FIFOQueue, PaddingFIFOQueue


@contextlib.contextmanager
def QueueRunners(session):  # noqa: N802 (TF's name)
    """Starts the graph's queue runners for the block; stops and joins them after it."""
    coord = Coordinator()
    threads = start_queue_runners(session, coord=coord)
    try:
        yield coord
    finally:
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=120)


def prefetch_queue(tensors, capacity=8, num_threads=1, dynamic_pad=False, shared_name=None, name=None):
    """A FIFO queue that num_threads queue runners keep filled with `tensors` (a list or a dict);
    dequeue() gives them back in the same structure."""
    if isinstance(tensors, dict):
        names = sorted(tensors)
        values = [convert_to_tensor(tensors[k]) for k in names]
    else:
        names = None
        values = [convert_to_tensor(t) for t in tensors]
    if not values:
        raise ValueError("Empty tensor list, nothing to prefetch.")
    with name_scope(name, "prefetch_queue", values):
        dtypes = [t.dtype.base_dtype for t in values]
        shapes = [t.shape for t in values]
        cls = PaddingFIFOQueue if dynamic_pad else FIFOQueue
        queue = cls(capacity, dtypes, shapes=shapes, names=names, shared_name=shared_name)
        enqueue = queue.enqueue(dict(zip(names, values)) if names else values)
        add_queue_runner(QueueRunner(queue, [enqueue] * num_threads))
        return queue
