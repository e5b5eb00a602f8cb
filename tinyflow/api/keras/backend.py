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
from tinyflow.ops.core.base import convert_to_tensor

_SESSION = None                            # the session Keras made (set_session replaces it)
_LEARNING_PHASE = weakref.WeakKeyDictionary()   # graph -> the keras_learning_phase placeholder
_FLOATX, _EPSILON, _IMAGE_DATA_FORMAT = "float32", 1e-7, "channels_last"
_MANUAL_VAR_INIT = False                   # manual_variable_initialization(True): get_session initializes nothing


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
    if not _MANUAL_VAR_INIT:
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


def in_train_phase(x, alt, training=None):
    """`x` while training, else `alt` (either may be a function building it): chosen now when
    `training` is known while building, else both are built and selected by the learning phase."""
    from tinyflow.api.layers import _static_bool
    training = learning_phase() if training is None else training
    static = _static_bool(training)
    if static is not None:
        return (x if static else alt)() if callable(x if static else alt) else (x if static else alt)
    x, alt = (x() if callable(x) else x), (alt() if callable(alt) else alt)
    from tinyflow.ops.core.indexing_ops import where
    out = where(math_ops.cast(training, dt.bool_), x, alt)
    out.set_shape(x.shape)
    return out


def in_test_phase(x, alt, training=None):
    return in_train_phase(alt, x, training=training)


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


# ---- padding and resizing of the spatial axes (what ZeroPadding* / UpSampling* do) -----------------------
def _data_format(data_format):
    data_format = data_format or image_data_format()
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError("Unknown data_format: " + str(data_format))
    return data_format


def _pad_spatial(x, pairs, data_format):
    x = convert_to_tensor(x)
    pads = [[0, 0]] * x.shape.ndims
    first = 1 if _data_format(data_format) == "channels_last" else 2
    for i, pair in enumerate(pairs):
        pads[first + i] = [int(p) for p in pair]
    return array_ops.pad(x, pads)


def temporal_padding(x, padding=(1, 1)):
    """Zeros before / after the steps (axis 1) of a 3-D tensor."""
    return _pad_spatial(x, [padding], "channels_last")


def spatial_2d_padding(x, padding=((1, 1), (1, 1)), data_format=None):
    """Zeros around the rows and columns of a 4-D tensor: ((top, bottom), (left, right))."""
    return _pad_spatial(x, padding, data_format)


def spatial_3d_padding(x, padding=((1, 1), (1, 1), (1, 1)), data_format=None):
    """Zeros around the 3 spatial axes of a 5-D tensor."""
    return _pad_spatial(x, padding, data_format)


def repeat_elements(x, rep, axis):
    """Each entry of x along `axis` repeated `rep` times: [a, b] -> [a, a, b, b] for rep 2."""
    x = convert_to_tensor(x)
    shape, rank = x.shape.as_list(), x.shape.ndims
    axis = axis % rank
    if rep == 1:
        return x
    tiled = array_ops.tile(array_ops.expand_dims(x, axis + 1), [1] * (axis + 1) + [rep] + [1] * (rank - axis - 1))
    if None not in shape:
        return array_ops.reshape(tiled, shape[:axis] + [shape[axis] * rep] + shape[axis + 1:])
    dyn = array_ops.shape(x)
    out = array_ops.reshape(tiled, array_ops.concat([dyn[:axis], dyn[axis:axis + 1] * rep, dyn[axis + 1:]], 0))
    out.set_shape(shape[:axis] + [shape[axis] * rep if shape[axis] is not None else None] + shape[axis + 1:])
    return out


def resize_images(x, height_factor, width_factor, data_format, interpolation="nearest"):
    """Rows and columns of a 4-D tensor `height_factor` / `width_factor` times as many: repeated ('nearest') or
    interpolated ('bilinear', TF 1.15's resize_images_v2: half-pixel centers)."""
    first, x = _data_format(data_format) == "channels_first", convert_to_tensor(x)
    if interpolation == "nearest":
        return repeat_elements(repeat_elements(x, height_factor, 2 if first else 1), width_factor, 3 if first else 2)
    if interpolation != "bilinear":
        raise ValueError("interpolation should be one of \"nearest\" or \"bilinear\".")
    from tinyflow.api import image
    x = array_ops.transpose(x, [0, 2, 3, 1]) if first else x
    h, w = x.shape.as_list()[1:3]
    if h is None or w is None:
        size = array_ops.shape(x)[1:3] * np.array([height_factor, width_factor], np.int32)
    else:
        size = [h * height_factor, w * width_factor]
    x = image.resize_bilinear(x, size, half_pixel_centers=True)
    return array_ops.transpose(x, [0, 3, 1, 2]) if first else x


def resize_volumes(x, depth_factor, height_factor, width_factor, data_format):
    """The 3 spatial axes of a 5-D tensor each repeated by its factor."""
    first = 2 if _data_format(data_format) == "channels_first" else 1
    for i, rep in enumerate((depth_factor, height_factor, width_factor)):
        x = repeat_elements(x, rep, first + i)
    return x


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


def batch_dot(x, y, axes=None):
    """The dot product of each pair of samples of x and y along `axes` (an int or (ax_x, ax_y); by default
    x's last and y's second-to-last), as TF 1.15's K.batch_dot: [batch, 1] for two matrices."""
    if isinstance(axes, int):
        axes = (axes, axes)
    x_ndim, y_ndim = ndim(x), ndim(y)
    if axes is None:
        axes = [x_ndim - 1, y_ndim - 2]
    diff = x_ndim - y_ndim if x_ndim > y_ndim else y_ndim - x_ndim   # (abs and max are Keras' ops here)
    if x_ndim > y_ndim:
        y = array_ops.reshape(y, array_ops.concat([array_ops.shape(y), np.ones(diff, np.int32)], 0))
    elif y_ndim > x_ndim:
        x = array_ops.reshape(x, array_ops.concat([array_ops.shape(x), np.ones(diff, np.int32)], 0))
    if ndim(x) == 2 and ndim(y) == 2:
        if axes[0] == axes[1]:
            out = math_ops.reduce_sum(math_ops.multiply(x, y), axes[0])
        else:
            out = math_ops.reduce_sum(math_ops.multiply(array_ops.transpose(x, [1, 0]), y), axes[1])
    else:
        out = math_ops.matmul(x, y, adjoint_a=axes[0] != ndim(x) - 1, adjoint_b=axes[1] == ndim(y) - 1)
    if diff:
        idx = x_ndim + y_ndim - 3 if x_ndim > y_ndim else x_ndim - 1
        out = array_ops.squeeze(out, list(range(idx, idx + diff)))
    if ndim(out) == 1:
        out = array_ops.expand_dims(out, 1)
    return out


from tinyflow.api.keras.backend_ops import *  # noqa: E402,F401,F403 (the rest of the backend's functions)
