"""The global step variable (tf.train.get_or_create_global_step)."""
from ..graph import dtypes as dt
from ..graph.core import GraphKeys, get_default_graph
from ..ops import array_ops
from ..ops.state_ops import Variable


def get_global_step(graph=None):
    """The graph's global step variable, or None."""
    graph = graph or get_default_graph()
    steps = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if len(steps) > 1:
        raise TypeError("There are multiple items in collection global_step.")
    return steps[0] if steps else None


def create_global_step(graph=None):
    """Creates the int64 'global_step' variable (ValueError if there is one already)."""
    graph = graph or get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError("'global_step' already exists.")
    with graph.as_default(), graph.name_scope(None):
        return Variable(array_ops.zeros([], dt.int64), trainable=False, name="global_step",
                        collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP])


def get_or_create_global_step(graph=None):
    return get_global_step(graph) or create_global_step(graph)
