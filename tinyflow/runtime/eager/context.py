"""Which mode ops run in: TF 1.15's `tf.enable_eager_execution()` and `tf.executing_eagerly()`.

Eager mode is a default graph of its own kind, `EagerGraph`: its `create_op` runs the op at once
(execute.py) instead of recording it, so every op builder of tinyflow works unchanged. A block
`with tf.Graph().as_default():` inside an eager program builds a graph as usual, as in TF.
"""
import contextlib

from tinyflow.graph import core
from tinyflow.graph.core import Graph, GraphKeys

# Collections TF does not fill while executing eagerly (their ops have already run); keeping
# them would make an eager training loop grow a list every step.
_NOT_COLLECTED = {GraphKeys.TRAIN_OP, GraphKeys.UPDATE_OPS, GraphKeys.LOSSES, GraphKeys.SUMMARIES,
                  GraphKeys.ACTIVATIONS, GraphKeys.REGULARIZATION_LOSSES}


class EagerGraph(Graph):
    """The default graph in eager mode: holds no ops; `create_op` executes (see execute.py).

    Names are not made unique (TF's eager tensors have no names); collections work except the
    ones TF leaves empty in eager mode.
    """

    _eager = True

    def create_op(self, op_type, inputs, attrs=None, name=None, dtypes=None):
        from tinyflow.runtime.eager.execute import execute
        return execute(self, op_type, inputs, attrs, name, dtypes)

    def unique_name(self, name, mark_as_used=True):
        return self._name_stack + "/" + name if self._name_stack else name

    def add_to_collection(self, name, value):
        if name not in _NOT_COLLECTED:
            Graph.add_to_collection(self, name, value)

    def get_collection_ref(self, name):
        if name in _NOT_COLLECTED:
            return []
        return Graph.get_collection_ref(self, name)

    def __repr__(self):
        return "<tinyflow.EagerGraph>"


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
