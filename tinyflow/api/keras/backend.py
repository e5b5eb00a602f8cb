"""tf.keras.backend: the Keras session, the learning phase, unique layer names and the common math,
as TF 1.15's graph-mode Keras has them.

Keras runs everything through one Session: the default session when there is one, else one Keras
makes on the default graph (`get_session`). Keras initializes only the variables it finds
uninitialized there, so a user's own initialization is never overwritten.
"""
import weakref

import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import get_default_graph, get_default_session, reset_default_graph
from tinyflow.ops import state_ops
from tinyflow.ops.core import array_ops, math_ops

_SESSION = None                            # the session Keras made (set_session replaces it)
_LEARNING_PHASE = weakref.WeakKeyDictionary()   # graph -> the keras_learning_phase placeholder
_FLOATX, _EPSILON, _IMAGE_DATA_FORMAT = "float32", 1e-7, "channels_last"


def floatx():
    return _FLOATX


def set_floatx(value):
    global _FLOATX
    _FLOATX = str(value)


def epsilon():
    """The fuzz factor Keras adds to avoid divisions by zero (1e-7)."""
    return _EPSILON


def set_epsilon(value):
    global _EPSILON
    _EPSILON = float(value)


def image_data_format():
    return _IMAGE_DATA_FORMAT


def get_session():
    """The default session if there is one, else the session Keras made for the default graph;
    variables of the graph still uninitialized in it are initialized now."""
    sess = _session()
    initialize_variables(sess)
    return sess


def _session():
    global _SESSION
    sess = get_default_session()
    if sess is None:
        if _SESSION is None or _SESSION.graph is not get_default_graph():
            from tinyflow.runtime.session import Session
            _SESSION = Session(graph=get_default_graph())
        sess = _SESSION
    return sess


def initialize_variables(sess, var_list=None):
    """Initializes the variables of `var_list` (default: all global ones) that `sess` has not."""
    if var_list is None:
        var_list = state_ops.global_variables()
    todo = [v for v in var_list if not sess._is_initialized(v.op)]
    if todo:
        sess.run(state_ops.variables_initializer(todo))


def set_session(session):
    global _SESSION
    _SESSION = session


def clear_session():
    """A fresh default graph (unique layer names start again) and no Keras session."""
    global _SESSION
    _SESSION = None
    reset_default_graph()


def learning_phase():
    """A bool scalar placeholder (default False) that fit feeds True: Dropout and BatchNormalization
    behave as in training when it is True."""
    graph = get_default_graph()
    if graph not in _LEARNING_PHASE:
        with graph.name_scope(None):
            _LEARNING_PHASE[graph] = array_ops.placeholder_with_default(False, shape=(), name="keras_learning_phase")
    return _LEARNING_PHASE[graph]


def set_learning_phase(value):
    """Fixes the learning phase of the default graph to 0 (test) or 1 (train): layers built after it
    see a Python int, and fit no longer feeds one (TF 1.15)."""
    if value not in {0, 1}:
        raise ValueError("Expected learning phase to be 0 or 1.")
    _LEARNING_PHASE[get_default_graph()] = value


def placeholder(shape=None, ndim=None, dtype=None, sparse=False, name=None):
    if shape is None and ndim is not None:
        shape = (None,) * ndim
    return array_ops.placeholder(dt.as_dtype(dtype or floatx()), shape=shape, name=name)


def variable(value, dtype=None, name=None, constraint=None):
    value = np.asarray(value, dtype=dt.as_dtype(dtype or floatx()).np)
    return state_ops.Variable(value, name=name, constraint=constraint)


def constant(value, dtype=None, shape=None, name=None):
    from tinyflow.ops.core.base import constant as _constant
    return _constant(value, dtype=dt.as_dtype(dtype or floatx()), shape=shape, name=name)


def get_value(x):
    return get_session().run(x)


def batch_get_value(tensors):
    return get_session().run(list(tensors)) if tensors else []


def set_value(x, value):
    """Writes `value` into variable `x` (no op is added to the graph)."""
    x.load(np.asarray(value, dtype=x.dtype.base_dtype.np), get_session())


def batch_set_value(tuples):
    """Writes each value into its variable; the variables written need no initializer run (loading a whole
    model's weights compiles nothing)."""
    sess = _session()
    for x, value in tuples:
        x.load(np.asarray(value, dtype=x.dtype.base_dtype.np), sess)


def int_shape(x):
    return tuple(x.shape.as_list()) if x.shape.ndims is not None else None


def ndim(x):
    return x.shape.ndims


def dtype(x):
    return x.dtype.base_dtype.name


def eval(x):  # noqa: A001 (Keras' name)
    return get_value(x)


def zeros(shape, dtype=None, name=None):
    return variable(np.zeros(shape), dtype=dtype, name=name)


def ones(shape, dtype=None, name=None):
    return variable(np.ones(shape), dtype=dtype, name=name)


class Function:
    """K.function(inputs, outputs, updates): one fetch set run with the inputs fed."""

    def __init__(self, inputs, outputs, updates=None, name=None):
        self.inputs, self.outputs = list(inputs), list(outputs)
        self._single = not isinstance(outputs, (list, tuple))
        if self._single:
            self.outputs = [outputs]
        self.updates = list(updates or [])

    def __call__(self, inputs):
        feed = dict(zip(self.inputs, inputs))
        values = get_session().run(self.outputs + self.updates, feed_dict=feed)
        return values[:len(self.outputs)]


def function(inputs, outputs, updates=None, name=None, **kwargs):
    return Function(inputs, outputs, updates=updates, name=name)


# ---- the common math (the tf ops under Keras' names) ------------------------------------------------
def _axis_op(fn):
    def op(x, axis=None, keepdims=False):
        return fn(x, axis=axis, keepdims=keepdims)
    op.__name__ = fn.__name__
    return op


sum = _axis_op(math_ops.reduce_sum)  # noqa: A001
mean = _axis_op(math_ops.reduce_mean)
max = _axis_op(math_ops.reduce_max)  # noqa: A001
min = _axis_op(math_ops.reduce_min)  # noqa: A001
exp, log, sqrt, square, abs = math_ops.exp, math_ops.log, math_ops.sqrt, math_ops.square, math_ops.abs  # noqa: A001
dot, cast, reshape, transpose = math_ops.matmul, math_ops.cast, array_ops.reshape, array_ops.transpose


def concatenate(tensors, axis=-1):
    return array_ops.concat(list(tensors), axis)


def clip(x, min_value, max_value):
    return math_ops.clip_by_value(x, min_value, max_value)


def shape(x):
    return array_ops.shape(x)


def flatten(x):
    return array_ops.reshape(x, [-1])


def expand_dims(x, axis=-1):
    return array_ops.expand_dims(x, axis)


def squeeze(x, axis):
    return array_ops.squeeze(x, [axis])


def stack(x, axis=0):
    return array_ops.stack(x, axis=axis)


def argmax(x, axis=-1):
    return math_ops.argmax(x, axis)


def equal(x, y):
    return math_ops.equal(x, y)


def relu(x, alpha=0.0, max_value=None, threshold=0):
    from tinyflow.api.keras import activations
    return activations.relu(x, alpha, max_value, threshold)


def softmax(x, axis=-1):
    from tinyflow.api import nn
    return nn.softmax(x, axis=axis)


def sigmoid(x):
    return math_ops.sigmoid(x)


def tanh(x):
    return math_ops.tanh(x)
