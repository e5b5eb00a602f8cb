"""Which mode ops run in: TF 1.15's `tf.enable_eager_execution()` and `tf.executing_eagerly()`.

Eager mode is a default graph of its own kind, `EagerGraph` (execute.py): its `create_op` runs the op
at once instead of recording it, so every op builder of tinyflow works unchanged. A block
`with tf.Graph().as_default():` inside an eager program builds a graph as usual, as in TF.
"""
import contextlib

from tinyflow.graph import core
from tinyflow.graph.core import Graph
from tinyflow.runtime.eager.execute import EagerGraph

__all__ = ["EagerGraph", "executing_eagerly", "enable_eager_execution", "disable_eager_execution", "eager_mode"]

def executing_eagerly():
    """Whether ops run immediately (eager mode, outside any `Graph.as_default()` block)."""
    return isinstance(core.get_default_graph(), EagerGraph)


def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    """Switches the program to eager execution. Must come before any op is created (TF's rule)."""
    if isinstance(core._default[0], EagerGraph):
        return
    if core._stack or core._default[0].get_operations():
        raise ValueError("tf.enable_eager_execution must be called at program startup.")
    core._default[0] = EagerGraph()


def disable_eager_execution():
    """Back to graph mode (tf.compat.v1.disable_eager_execution); a new empty default graph."""
    if isinstance(core._default[0], EagerGraph):
        core._default[0] = Graph()


@contextlib.contextmanager
def eager_mode():
    """Runs the block eagerly and restores the previous default graph after (for tests)."""
    saved = core._default[0]
    core._default[0] = EagerGraph()
    try:
        yield
    finally:
        core._default[0] = saved
