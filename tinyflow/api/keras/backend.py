"""tf.keras.backend: the Keras session, the learning phase, unique layer names and the common math,
as TF 1.15's graph-mode Keras has them.

Keras runs everything through one Session: the default session when there is one, else one Keras
makes on the default graph (`get_session`). Keras initializes only the variables it finds
uninitialized there, so a user's own initialization is never overwritten.
"""
import contextlib
import itertools
import weakref

import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import get_default_graph, get_default_session, reset_default_graph
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops import functional_ops, random_ops, state_ops
from tinyflow.ops.core import array_ops, indexing_ops, math_ops, sequence_ops
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.sparse import sparse_tensor_to_dense
from tinyflow.passes.gradients import gradients as _gradients

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


# ---- the rest of TF 1.15's backend: math, convolutions, random tensors, variable updates, RNN loop, CTC ---------
def _nn_module():
    from tinyflow.api import nn
    return nn


def _map_fn(fn, elems, name=None, dtype=None):
    from tinyflow.api.functional import map_fn
    return map_fn(fn, elems, name=name, dtype=dtype)


def backend():
    """The backend's name: 'tensorflow' (multi-backend Keras' API)."""
    return "tensorflow"


def cast_to_floatx(x):
    """A numpy array of `x` in the default float type."""
    return np.asarray(x, dtype=floatx())


def set_image_data_format(data_format):
    global _IMAGE_DATA_FORMAT
    if data_format not in {"channels_last", "channels_first"}:
        raise ValueError("Unknown data_format: " + str(data_format))
    _IMAGE_DATA_FORMAT = str(data_format)


def manual_variable_initialization(value):
    """True: get_session() no longer initializes the variables it finds uninitialized."""
    global _MANUAL_VAR_INIT
    _MANUAL_VAR_INIT = bool(value)


def get_uid(prefix=""):
    """A per-graph counter of `prefix`: 1, 2, 3, ... (the one Keras' unique layer names use)."""
    from tinyflow.api.layers import _NAME_UIDS
    uids = _NAME_UIDS.setdefault(get_default_graph(), {})
    uids[prefix] = uids.get(prefix, 0) + 1
    return uids[prefix]


def reset_uids():
    """Layer names start again from their base names."""
    from tinyflow.api.layers import _NAME_UIDS
    _NAME_UIDS.clear()


@contextlib.contextmanager
def learning_phase_scope(value):
    """The learning phase fixed to `value` (0 or 1) inside the block, restored after it."""
    if value not in {0, 1}:
        raise ValueError("Expected learning phase to be 0 or 1.")
    graph = get_default_graph()
    previous = _LEARNING_PHASE.get(graph)
    try:
        set_learning_phase(value)
        yield
    finally:
        if previous is not None:
            _LEARNING_PHASE[graph] = previous
        else:
            _LEARNING_PHASE.pop(graph, None)


def name_scope(name):
    return get_default_graph().name_scope(name)


def is_sparse(tensor):
    from tinyflow.ops.sparse import SparseTensor
    return isinstance(tensor, SparseTensor)


def to_dense(tensor):
    return sparse_tensor_to_dense(tensor) if is_sparse(tensor) else tensor


def count_params(x):
    """The static number of elements of `x`."""
    return np.prod(x.shape.as_list())


# ---- variables ---------------------------------------------------------------------------------------------
def _variable_of(value, dtype, name):
    return state_ops.Variable(math_ops.cast(value, dt.as_dtype(dtype or floatx())), name=name)


def _seed(seed, high=10e6):
    return np.random.randint(high) if seed is None else seed


def eye(size, dtype=None, name=None):
    """A variable holding the `size` x `size` identity matrix (size may be (rows, cols))."""
    rows, cols = (size, size) if isinstance(size, int) else size
    return variable(np.eye(rows, cols), dtype=dtype, name=name)


def random_uniform_variable(shape, low, high, dtype=None, name=None, seed=None):
    return _variable_of(random_uniform(shape, low, high, dtype=dtype, seed=_seed(seed, 10e8)), dtype, name)


def random_normal_variable(shape, mean, scale, dtype=None, name=None, seed=None):
    return _variable_of(random_normal(shape, mean, scale, dtype=dtype, seed=_seed(seed, 10e8)), dtype, name)


def update(x, new_x):
    return state_ops.assign(x, new_x)


def update_add(x, increment):
    return state_ops.assign_add(x, increment)


def update_sub(x, decrement):
    return state_ops.assign_sub(x, decrement)


def moving_average_update(x, value, momentum):
    """x <- x * momentum + value * (1 - momentum), zero-debiased (TF 1.15's graph mode)."""
    from tinyflow.api.train.moving_averages import assign_moving_average
    return assign_moving_average(x, value, momentum, zero_debias=True)


# ---- random tensors -------------------------------------------------------------------------------------------
def random_uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    return random_ops.random_uniform(shape, minval=minval, maxval=maxval, dtype=dtype or floatx(), seed=_seed(seed))


def random_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    return random_ops.random_normal(shape, mean=mean, stddev=stddev, dtype=dtype or floatx(), seed=_seed(seed))


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    return random_ops.truncated_normal(shape, mean, stddev, dtype=dtype or floatx(), seed=_seed(seed))


def random_binomial(shape, p=0.0, dtype=None, seed=None):
    """1 with probability p, else 0."""
    dtype = dtype or floatx()
    uniform = random_ops.random_uniform(shape, dtype=dtype, seed=_seed(seed))
    return indexing_ops.where(uniform <= p, array_ops.ones(shape, dtype=dtype), array_ops.zeros(shape, dtype=dtype))


def dropout(x, level, noise_shape=None, seed=None):
    """Entries of x zeroed with probability `level`, the rest scaled by 1 / (1 - level)."""
    return _nn_module().dropout(x, rate=level, noise_shape=noise_shape, seed=_seed(seed))


# ---- element-wise and reductions ------------------------------------------------------------------------------
greater, greater_equal, less, less_equal = math_ops.greater, math_ops.greater_equal, math_ops.less, math_ops.less_equal
not_equal, maximum, minimum = math_ops.not_equal, math_ops.maximum, math_ops.minimum
sign, cos, sin = math_ops.sign, math_ops.cos, math_ops.sin


def round(x):  # noqa: A001 (Keras' name)
    """Rounds half to even."""
    return math_ops.round(x)


def pow(x, a):  # noqa: A001 (Keras' name)
    return math_ops.pow(x, a)


def _as_bool(x):
    x = convert_to_tensor(x)
    return x if x.dtype.base_dtype == dt.bool_ else math_ops.cast(x, dt.bool_)


def all(x, axis=None, keepdims=False):  # noqa: A001 (Keras' name)
    return math_ops.reduce_all(_as_bool(x), axis, keepdims)


def any(x, axis=None, keepdims=False):  # noqa: A001 (Keras' name)
    return math_ops.reduce_any(_as_bool(x), axis, keepdims)


def prod(x, axis=None, keepdims=False):
    return math_ops.reduce_prod(x, axis, keepdims)


def cumsum(x, axis=0):
    return sequence_ops.cumsum(x, axis=axis)


def cumprod(x, axis=0):
    return sequence_ops.cumprod(x, axis=axis)


def _float_if_bool(x):
    x = convert_to_tensor(x)
    return math_ops.cast(x, floatx()) if x.dtype.base_dtype == dt.bool_ else x


def var(x, axis=None, keepdims=False):
    """The variance (divided by n) along `axis`."""
    return math_ops.reduce_variance(_float_if_bool(x), axis=axis, keepdims=keepdims)


def std(x, axis=None, keepdims=False):
    return math_ops.reduce_std(_float_if_bool(x), axis=axis, keepdims=keepdims)


def argmin(x, axis=-1):
    return math_ops.argmin(x, axis)


def arange(start, stop=None, step=1, dtype="int32"):
    """range(start, stop, step) as a tensor of `dtype`; a negative start alone gives an empty range."""
    if stop is None and start < 0:
        start = 0
    result = sequence_ops.range(start, limit=stop, delta=step, name="arange")
    return result if dtype == "int32" else math_ops.cast(result, dtype)


def zeros_like(x, dtype=None, name=None):
    return array_ops.zeros_like(x, dtype=dtype, name=name)


def ones_like(x, dtype=None, name=None):
    return array_ops.ones_like(x, dtype=dtype, name=name)


def gather(reference, indices):
    return indexing_ops.gather(reference, indices)


def tile(x, n):
    return array_ops.tile(x, [n] if isinstance(n, int) else n)


def reverse(x, axes):
    return sequence_ops.reverse(x, [axes] if isinstance(axes, int) else list(axes))


def permute_dimensions(x, pattern):
    return array_ops.transpose(x, perm=list(pattern))


def repeat(x, n):
    """A 2-D tensor (samples, dim) repeated into (samples, n, dim)."""
    if ndim(x) != 2:
        raise ValueError("repeat expects a 2D tensor, got %d dimensions" % ndim(x))
    return array_ops.tile(array_ops.expand_dims(x, 1), [1, n, 1])


def batch_flatten(x):
    """(batch, ...) -> (batch, prod(...))."""
    x = convert_to_tensor(x)
    return array_ops.reshape(x, array_ops.stack([-1, math_ops.reduce_prod(array_ops.shape(x)[1:])]))


def one_hot(indices, num_classes):
    return sequence_ops.one_hot(indices, depth=num_classes, axis=-1)


def stop_gradient(variables):
    if isinstance(variables, (list, tuple)):
        return [array_ops.stop_gradient(v) for v in variables]
    return array_ops.stop_gradient(variables)


def gradients(loss, variables):
    return _gradients(loss, variables, colocate_gradients_with_ops=True)


def print_tensor(x, message=""):
    """x, printing `message` and its value to stdout whenever it is computed."""
    import sys
    from tinyflow.ops.logging_ops import print_v2
    op = print_v2(message, x, output_stream=sys.stdout)
    with get_default_graph().control_dependencies([op]):
        return array_ops.identity(x)


# ---- activations and losses of the backend --------------------------------------------------------------------
def elu(x, alpha=1.0):
    res = _nn_module().elu(x)
    return res if alpha == 1 else indexing_ops.where(x > 0, res, alpha * res)


def softplus(x):
    return _nn_module().softplus(x)


def softsign(x):
    return _nn_module().softsign(x)


def hard_sigmoid(x):
    """clip(0.2 * x + 0.5, 0, 1)."""
    x = convert_to_tensor(x)
    point_two, point_five = math_ops.cast(0.2, x.dtype.base_dtype), math_ops.cast(0.5, x.dtype.base_dtype)
    return math_ops.clip_by_value(x * point_two + point_five, 0.0, 1.0)


def l2_normalize(x, axis=None):
    return _nn_module().l2_normalize(x, axis=axis)


def in_top_k(predictions, targets, k):
    return _nn_module().in_top_k(predictions, targets, k)


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Per-sample cross-entropy of probabilities (normalized, clipped) or logits along `axis`; a Softmax
    output uses its logits."""
    output = convert_to_tensor(output)
    target = math_ops.cast(target, output.dtype.base_dtype)
    rank = output.shape.ndims
    if axis not in (-1, rank - 1):
        perm = [i for i in range(rank) if i != axis % rank] + [axis % rank]
        target, output = array_ops.transpose(target, perm), array_ops.transpose(output, perm)
    if from_logits or output.op.type == "Softmax":
        logits = output if from_logits else output.op.inputs[0]
        return _nn_module().softmax_cross_entropy_with_logits_v2(labels=target, logits=logits)
    eps = math_ops.cast(epsilon(), output.dtype.base_dtype)
    output = output / math_ops.reduce_sum(output, axis=-1, keepdims=True)
    output = math_ops.clip_by_value(output, eps, 1.0 - eps)
    return -math_ops.reduce_sum(target * math_ops.log(output), axis=-1)


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Per-sample cross-entropy of integer labels against probabilities (clipped) or logits."""
    output = convert_to_tensor(output)
    nn = _nn_module()
    if from_logits or output.op.type == "Softmax":
        logits = output if from_logits else output.op.inputs[0]
    else:
        eps = math_ops.cast(epsilon(), output.dtype.base_dtype)
        logits = math_ops.log(math_ops.clip_by_value(output, eps, 1.0 - eps))
    target = math_ops.cast(target, "int64")
    rank = logits.shape.ndims
    if target.shape.ndims != rank - 1:   # labels [batch, 1]: flattened, as TF 1.15's backend does
        target = array_ops.reshape(target, [-1])
        if rank > 2:
            logits_shape = array_ops.shape(logits)
            flat = array_ops.reshape(logits, [-1, logits.shape[-1].value])
            out = nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=flat)
            return array_ops.reshape(out, logits_shape[:-1])
    return nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=logits)


def binary_crossentropy(target, output, from_logits=False):
    """Element-wise binary cross-entropy (no mean: the backend's form)."""
    output = convert_to_tensor(output)
    target = math_ops.cast(target, output.dtype.base_dtype)
    if from_logits or output.op.type == "Sigmoid":
        logits = output if from_logits else output.op.inputs[0]
        return _nn_module().sigmoid_cross_entropy_with_logits(labels=target, logits=logits)
    eps = math_ops.cast(epsilon(), output.dtype.base_dtype)
    output = math_ops.clip_by_value(output, eps, 1.0 - eps)
    return -(target * math_ops.log(output + eps) + (1.0 - target) * math_ops.log(1.0 - output + eps))


# ---- control flow ----------------------------------------------------------------------------------------------
def switch(condition, then_expression, else_expression):
    """then_expression where `condition` holds, else else_expression: a tf.cond for a scalar condition,
    a tf.where (the condition broadcast by tiling) otherwise."""
    from tinyflow.ops.control_flow_ops import cond
    condition = _as_bool(condition)
    if not ndim(condition):
        then_fn = then_expression if callable(then_expression) else (lambda: then_expression)
        else_fn = else_expression if callable(else_expression) else (lambda: else_expression)
        return cond(condition, then_fn, else_fn)
    then_expression = then_expression() if callable(then_expression) else then_expression
    else_expression = else_expression() if callable(else_expression) else else_expression
    cond_ndim, expr_ndim = ndim(condition), ndim(then_expression)
    if cond_ndim > expr_ndim:
        raise ValueError("Rank of `condition` should be less than or equal to rank of `then_expression` and "
                         "`else_expression`. ndim(condition)=%d, ndim(then_expression)=%d" % (cond_ndim, expr_ndim))
    if cond_ndim > 1:
        cond_shape = array_ops.concat([array_ops.shape(condition), [1] * (expr_ndim - cond_ndim)], 0)
        condition = array_ops.reshape(condition, cond_shape)
        expr_shape = array_ops.shape(then_expression)
        condition = array_ops.tile(condition, indexing_ops.where(expr_shape - cond_shape > 0, expr_shape,
                                                              array_ops.ones_like(expr_shape)))
    return indexing_ops.where(condition, then_expression, else_expression)


def map_fn(fn, elems, name=None, dtype=None):
    return _map_fn(fn, elems, name=name, dtype=dtype)


def foldl(fn, elems, initializer=None, name=None):
    return functional_ops.foldl(fn, elems, initializer=initializer, name=name)


def foldr(fn, elems, initializer=None, name=None):
    return functional_ops.foldr(fn, elems, initializer=initializer, name=name)


def rnn(step_function, inputs, initial_states, go_backwards=False, mask=None, constants=None, unroll=False,
        input_length=None, time_major=False, zero_output_for_mask=False):
    """Iterates `step_function(input_t, states [+ constants]) -> (output_t, new_states)` over the time axis
    of `inputs`; returns (last_output, outputs stacked on the time axis, new_states). A masked step keeps
    the previous states and output (zeros when `zero_output_for_mask`). The loop is unrolled when the
    number of timesteps is known, else a tf.while_loop (as TF's, whatever `unroll` says)."""
    inputs = convert_to_tensor(inputs)
    time_axis = 0 if time_major else 1
    steps = inputs.shape[time_axis].value
    if steps is None:
        return _rnn_loop(step_function, inputs, list(initial_states), go_backwards, mask, list(constants or []),
                         time_major, zero_output_for_mask)
    xs = array_ops.unstack(inputs, axis=time_axis)
    masks = [None] * steps
    if mask is not None:
        mask = _as_bool(mask)
        masks = array_ops.unstack(mask, axis=time_axis)
    if go_backwards:
        xs, masks = xs[::-1], masks[::-1]
    states, outputs, prev = list(initial_states), [], None
    for x, m in zip(xs, masks):
        out, new = step_function(x, states + list(constants or []))
        new = list(new) if isinstance(new, (list, tuple)) else [new]
        if m is not None:
            held = array_ops.zeros_like(out) if prev is None or zero_output_for_mask else prev
            out = math_ops.where_v2(_expand_mask(m, out), out, held)
            new = [math_ops.where_v2(_expand_mask(m, n), n, s) for n, s in zip(new, states)]
        prev, states = out, new
        outputs.append(out)
    return outputs[-1], array_ops.stack(outputs, axis=time_axis), states


def _rnn_loop(step_function, inputs, states, go_backwards, mask, constants, time_major, zero_output_for_mask):
    """rnn over a time axis of unknown length: a tf.while_loop writing each step's output (TF's K.rnn:
    the step function runs once first, on step 0, for the output's shape and dtype)."""
    from tinyflow.ops.control_flow_ops import while_loop
    time_first = lambda t: t if time_major else array_ops.transpose(t, [1, 0] + list(range(2, ndim(t))))
    xs = time_first(inputs)
    masks = None if mask is None else time_first(_as_bool(mask))
    if go_backwards:
        xs, masks = sequence_ops.reverse(xs, [0]), (None if masks is None else sequence_ops.reverse(masks, [0]))
    n = array_ops.shape(xs)[0]
    out0, _ = step_function(xs[0], states + constants)
    outputs = array_ops.zeros(array_ops.concat([[n], array_ops.shape(out0)], 0), out0.dtype)

    def body(t, prev, outputs, states):
        out, new = step_function(functional_ops.get_item(xs, t), list(states) + constants)
        new = list(new) if isinstance(new, (list, tuple)) else [new]
        if masks is not None:
            m = functional_ops.get_item(masks, t)
            held = array_ops.zeros_like(out) if zero_output_for_mask else prev
            out = math_ops.where_v2(_expand_mask(m, out), out, held)
            new = [math_ops.where_v2(_expand_mask(m, a), a, s) for a, s in zip(new, states)]
        return t + 1, out, functional_ops.set_item(outputs, t, out), new
    _, last, outputs, states = while_loop(lambda t, *_: t < n, body, [0, array_ops.zeros_like(out0), outputs, states],
                                          maximum_iterations=n, return_same_structure=True)
    outputs.set_shape(TensorShape([None]).concatenate(out0.shape))
    return last, time_first(outputs), states


def _expand_mask(m, like):
    while ndim(m) < ndim(like):
        m = array_ops.expand_dims(m, -1)
    return m


# ---- normalization ---------------------------------------------------------------------------------------------
def batch_normalization(x, mean, var, beta, gamma, axis=-1, epsilon=1e-3):
    """(x - mean) / sqrt(var + epsilon) * gamma + beta."""
    return _nn_module().batch_normalization(x, mean, var, beta, gamma, epsilon)


def normalize_batch_in_training(x, gamma, beta, reduction_axes, epsilon=1e-3):
    """The batch normalized over `reduction_axes` with its own mean and variance: (normed, mean, variance),
    mean and variance of the kept axes' shape (None gamma / beta: 1 and 0)."""
    x = convert_to_tensor(x)
    rank, axes = ndim(x), sorted(a % ndim(x) for a in reduction_axes)
    mean, variance = _nn_module().moments(x, axes)
    if axes == list(range(rank))[:-1]:
        normed = _nn_module().batch_normalization(x, mean, variance, beta, gamma, epsilon)
        if rank == 4:   # TF 1.15 takes the fused kernel here: the variance it returns is the unbiased one
            n = math_ops.cast(math_ops.reduce_prod(array_ops.shape(x)[:3]), variance.dtype.base_dtype)
            variance = variance * n / math_ops.maximum(n - 1.0, 1.0)
        return normed, mean, variance
    shape = array_ops.stack([1 if i in axes else array_ops.shape(x)[i] for i in range(rank)])
    reshape = (lambda t: None if t is None else array_ops.reshape(t, shape))
    normed = _nn_module().batch_normalization(x, reshape(mean), reshape(variance), reshape(beta), reshape(gamma),
                                              epsilon)
    return normed, mean, variance


def bias_add(x, bias, data_format=None):
    """x + bias on the channels axis (last, or 1 for channels_first); bias is a vector or of x's rank - 1."""
    data_format = _data_format(data_format)
    x, bias = convert_to_tensor(x), convert_to_tensor(bias)
    bias_shape = bias.shape.as_list()
    if len(bias_shape) != 1 and len(bias_shape) != ndim(x) - 1:
        raise ValueError("Unexpected bias dimensions %d, expect to be 1 or %d dimensions"
                         % (len(bias_shape), ndim(x)))
    if len(bias_shape) == 1:
        if data_format == "channels_first" and ndim(x) > 2:
            return x + array_ops.reshape(bias, [1, bias_shape[0]] + [1] * (ndim(x) - 2))
        return _nn_module().bias_add(x, bias)
    if data_format == "channels_first":
        bias = array_ops.transpose(bias, [len(bias_shape) - 1] + list(range(len(bias_shape) - 1)))
    return x + array_ops.expand_dims(bias, 0)


# ---- convolutions and pooling ----------------------------------------------------------------------------------
def _padding(padding):
    if padding not in ("same", "valid", "causal"):
        raise ValueError("Invalid padding: " + str(padding))
    return padding.upper()


def _channels_last(x, data_format, rank):
    """x in NWC / NHWC / NDHWC, and whether it was moved there from channels_first."""
    first = _data_format(data_format) == "channels_first"
    if first:
        x = array_ops.transpose(convert_to_tensor(x), [0] + list(range(2, rank + 2)) + [1])
    return x, first


def _back(x, first, rank):
    return array_ops.transpose(x, [0, rank + 1] + list(range(1, rank + 1))) if first else x


def _conv(x, kernel, strides, padding, data_format, dilation_rate, rank):
    x, first = _channels_last(x, data_format, rank)
    strides = (strides,) * rank if isinstance(strides, int) else tuple(strides)
    dilation_rate = (dilation_rate,) * rank if isinstance(dilation_rate, int) else tuple(dilation_rate)
    if padding == "causal":   # pad the start of the steps so that no output sees a later input
        left = dilation_rate[0] * (kernel.shape[0].value - 1)
        x = array_ops.pad(x, [[0, 0], [left, 0], [0, 0]])
        padding = "valid"
    if rank == 3:
        out = _nn_module().conv3d(x, kernel, (1,) + strides + (1,), _padding(padding),
                                  dilations=(1,) + dilation_rate + (1,))
    else:
        out = _nn_module().convolution(x, kernel, padding=_padding(padding), strides=strides,
                                       dilation_rate=dilation_rate)
    return _back(out, first, rank)


def conv1d(x, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    return _conv(x, kernel, strides, padding, data_format, dilation_rate, 1)


def conv2d(x, kernel, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1)):
    return _conv(x, kernel, strides, padding, data_format, dilation_rate, 2)


def conv3d(x, kernel, strides=(1, 1, 1), padding="valid", data_format=None, dilation_rate=(1, 1, 1)):
    return _conv(x, kernel, strides, padding, data_format, dilation_rate, 3)


def conv2d_transpose(x, kernel, output_shape, strides=(1, 1), padding="valid", data_format=None,
                     dilation_rate=(1, 1)):
    """The transpose of conv2d: the output of shape `output_shape` (in `data_format`'s order)."""
    x, first = _channels_last(x, data_format, 2)
    output_shape = list(output_shape) if isinstance(output_shape, (list, tuple)) else output_shape
    if first:
        output_shape = [output_shape[0], output_shape[2], output_shape[3], output_shape[1]]
    if isinstance(output_shape, list):
        if output_shape[0] is None:
            output_shape[0] = array_ops.shape(x)[0]
        output_shape = array_ops.stack(output_shape)
    if tuple(dilation_rate) == (1, 1):
        out = _nn_module().conv2d_transpose(x, kernel, output_shape, (1,) + tuple(strides) + (1,),
                                            padding=_padding(padding))
    else:
        out = _nn_module().atrous_conv2d_transpose(x, kernel, output_shape, dilation_rate[0], _padding(padding))
    return _back(out, first, 2)


def separable_conv2d(x, depthwise_kernel, pointwise_kernel, strides=(1, 1), padding="valid", data_format=None,
                     dilation_rate=(1, 1)):
    x, first = _channels_last(x, data_format, 2)
    out = _nn_module().separable_conv2d(x, depthwise_kernel, pointwise_kernel, (1,) + tuple(strides) + (1,),
                                 padding=_padding(padding), rate=dilation_rate)
    return _back(out, first, 2)


def _pool(x, pool_size, strides, padding, data_format, pool_mode, rank):
    x, first = _channels_last(x, data_format, rank)
    if pool_mode not in ("max", "avg"):
        raise ValueError("Invalid pooling mode: " + str(pool_mode))
    nn, window, strides = _nn_module(), (1,) + tuple(pool_size) + (1,), (1,) + tuple(strides) + (1,)
    if rank == 2:
        pool = (nn.max_pool if pool_mode == "max" else nn.avg_pool)(x, window, strides, _padding(padding))
    else:
        pool = (nn.max_pool3d if pool_mode == "max" else nn.avg_pool3d)(x, window, strides, _padding(padding))
    return _back(pool, first, rank)


def pool2d(x, pool_size, strides=(1, 1), padding="valid", data_format=None, pool_mode="max"):
    if len(pool_size) != 2 or len(strides) != 2:
        raise ValueError("`pool_size` and `strides` must be tuples of 2 integers.")
    return _pool(x, pool_size, strides, padding, data_format, pool_mode, 2)


def pool3d(x, pool_size, strides=(1, 1, 1), padding="valid", data_format=None, pool_mode="max"):
    return _pool(x, pool_size, strides, padding, data_format, pool_mode, 3)


def local_conv(inputs, kernel, kernel_size, strides, output_shape, data_format=None):
    """A convolution with one kernel per output position: kernel (positions, window * channels, filters)."""
    first = _data_format(data_format) == "channels_first"
    feature_dim, channels_out = int_shape(kernel)[1], int_shape(kernel)[-1]
    rank, xs = len(output_shape), []
    for position in itertools.product(*[range(n) for n in output_shape]):
        slices = [slice(None)] * (2 if first else 1)
        slices += [slice(position[d] * strides[d], position[d] * strides[d] + kernel_size[d]) for d in range(rank)]
        slices += [] if first else [slice(None)]
        xs.append(array_ops.reshape(convert_to_tensor(inputs)[tuple(slices)], (1, -1, feature_dim)))
    out = batch_dot(array_ops.concat(xs, 0), kernel)
    out = array_ops.reshape(out, tuple(output_shape) + (-1, channels_out))
    spatial = list(range(rank))
    return array_ops.transpose(out, [rank, rank + 1] + spatial if first else [rank] + spatial + [rank + 1])


def local_conv1d(inputs, kernel, kernel_size, strides, data_format=None):
    return local_conv(inputs, kernel, kernel_size, strides, (kernel.shape[0].value,), data_format)


def local_conv2d(inputs, kernel, kernel_size, strides, output_shape, data_format=None):
    return local_conv(inputs, kernel, kernel_size, strides, output_shape, data_format)


# ---- CTC ----------------------------------------------------------------------------------------------------------
def ctc_label_dense_to_sparse(labels, label_lengths):
    """The first label_lengths[b] labels of each row of the dense `labels` as an int64-indexed SparseTensor."""
    from tinyflow.ops.sparse import SparseTensor
    labels = convert_to_tensor(labels)
    shape = array_ops.shape(labels)
    keep = math_ops.less(array_ops.expand_dims(sequence_ops.range(shape[1]), 0),
                         array_ops.expand_dims(math_ops.cast(label_lengths, shape.dtype), 1))
    indices = indexing_ops.where(keep)
    return SparseTensor(indices, indexing_ops.gather_nd(labels, indices), math_ops.cast(shape, "int64"))


def ctc_batch_cost(y_true, y_pred, input_length, label_length):
    """The CTC loss of each sample, (batch, 1): y_pred softmax outputs (batch, time, classes), the last class
    the blank; input_length / label_length (batch, 1)."""
    label_length = math_ops.cast(array_ops.squeeze(label_length, axis=-1), "int32")
    input_length = math_ops.cast(array_ops.squeeze(input_length, axis=-1), "int32")
    sparse = ctc_label_dense_to_sparse(y_true, label_length)
    from tinyflow.ops.sparse import SparseTensor
    sparse = SparseTensor(sparse.indices, math_ops.cast(sparse.values, "int32"), sparse.dense_shape)
    y_pred = math_ops.log(array_ops.transpose(y_pred, perm=[1, 0, 2]) + epsilon())
    return array_ops.expand_dims(_nn_module().ctc_loss(inputs=y_pred, labels=sparse, sequence_length=input_length), 1)


def ctc_decode(y_pred, input_length, greedy=True, beam_width=100, top_paths=1):
    """([dense decoded paths, -1 padded], log probabilities) of softmax outputs (batch, time, classes)."""
    nn = _nn_module()
    y_pred = math_ops.log(array_ops.transpose(y_pred, perm=[1, 0, 2]) + epsilon())
    input_length = math_ops.cast(input_length, "int32")
    if greedy:
        decoded, log_prob = nn.ctc_greedy_decoder(inputs=y_pred, sequence_length=input_length)
    else:
        decoded, log_prob = nn.ctc_beam_search_decoder(inputs=y_pred, sequence_length=input_length,
                                                       beam_width=beam_width, top_paths=top_paths)
    dense = [sparse_tensor_to_dense(st, default_value=-1) for st in decoded]
    return dense, log_prob

