"""The global step variable (tf.train.get_or_create_global_step, tf.train.global_step)."""
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import GraphKeys, get_default_graph
from tinyflow.ops.core import array_ops
from tinyflow.ops.state_ops import Variable


def get_global_step(graph=None):
    """The graph's global step: the GLOBAL_STEP collection's variable, else a variable named
    'global_step', else None."""
    graph = graph or get_default_graph()
    steps = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if len(steps) > 1:
        raise TypeError("There are multiple items in collection global_step.")
    if steps:
        return steps[0]
    for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES):
        if v.op.name == "global_step":
            assert_global_step(v)
            return v
    return None


def assert_global_step(global_step_tensor):
    """TypeError unless the tensor is an integer scalar."""
    if not global_step_tensor.dtype.is_integer:
        raise TypeError("Existing \"global_step\" does not have integer type: %s" % global_step_tensor.dtype)
    if global_step_tensor.shape.ndims != 0 and global_step_tensor.shape.is_fully_defined():
        raise TypeError("Existing \"global_step\" is not scalar: %s" % global_step_tensor.shape)


def create_global_step(graph=None):
    """Creates the int64 'global_step' variable (ValueError if there is one already)."""
    graph = graph or get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError("'global_step' already exists.")
    with graph.as_default(), graph.name_scope(None), graph.control_dependencies(None):
        return Variable(array_ops.zeros([], dt.int64), trainable=False, name="global_step",
                        collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP])


def get_or_create_global_step(graph=None):
    """The graph's global step, created (int64, 0) when there is none."""
    step = get_global_step(graph)
    return step if step is not None else create_global_step(graph)


def global_step(sess, global_step_tensor):
    """The value of the global step in `sess`, as a Python int."""
    return int(sess.run(global_step_tensor))
