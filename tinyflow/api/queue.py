"""tf.queue: the queues of ops/queue_ops.py under TF 1.15's namespace (and tf.io's)."""
from tinyflow.ops.queue_ops import FIFOQueue, PaddingFIFOQueue, QueueBase, RandomShuffleQueue  # noqa: F401
from tinyflow.api.framework import unimplemented as _unimplemented

PriorityQueue = _unimplemented("queue.PriorityQueue", "tf.queue.FIFOQueue over items sorted beforehand")
