"""tf.queue: the queues of ops/queue_ops.py under TF 1.15's namespace (and tf.io's)."""
from tinyflow.ops.queue_ops import (FIFOQueue, PaddingFIFOQueue, PriorityQueue, QueueBase,  # noqa: F401
                                    RandomShuffleQueue)
