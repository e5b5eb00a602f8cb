"""tf.keras.backend's math, convolutions, random tensors, variable updates, RNN loop and CTC helpers, as
TF 1.15's graph-mode Keras defines them over the tf ops (backend.py re-exports every name here).

CTC (`ctc_batch_cost`, `ctc_decode`) looks `tf.nn.ctc_loss` and the CTC decoders up when called: they are
ops of the tf.nn namespace, written once there.
"""
import contextlib
import itertools

import numpy as np

from tinyflow.api.keras import backend as K
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import get_default_graph
from tinyflow.ops import state_ops
from tinyflow.ops.core import array_ops, math_ops
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.core.indexing_ops import where as _where


def _nn():
    from tinyflow.api import nn
    return nn


def _tf():
    import tinyflow
    return tinyflow


def backend():
    """The backend's name: 'tensorflow' (multi-backend Keras' API)."""
    return "tensorflow"


def cast_to_floatx(x):
    """A numpy array of `x` in the default float type."""
    return np.asarray(x, dtype=K.floatx())


def set_image_data_format(data_format):
    if data_format not in {"channels_last", "channels_first"}:
        raise ValueError("Unknown data_format: " + str(data_format))
    K._IMAGE_DATA_FORMAT = str(data_format)


def manual_variable_initialization(value):
    """True: get_session() no longer initializes the variables it finds uninitialized."""
    K._MANUAL_VAR_INIT = bool(value)


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
    previous = K._LEARNING_PHASE.get(graph)
    try:
        K.set_learning_phase(value)
        yield
    finally:
        if previous is not None:
            K._LEARNING_PHASE[graph] = previous
        else:
            K._LEARNING_PHASE.pop(graph, None)


def name_scope(name):
    return get_default_graph().name_scope(name)


def is_sparse(tensor):
    from tinyflow.ops.sparse import SparseTensor
    return isinstance(tensor, SparseTensor)


def to_dense(tensor):
    return _tf().sparse.to_dense(tensor) if is_sparse(tensor) else tensor


def count_params(x):
    """The static number of elements of `x`."""
    return np.prod(x.shape.as_list())


# ---- variables ---------------------------------------------------------------------------------------------
def _variable_of(value, dtype, name):
    return state_ops.Variable(math_ops.cast(value, dt.as_dtype(dtype or K.floatx())), name=name)


def _seed(seed, high=10e6):
    return np.random.randint(high) if seed is None else seed


def eye(size, dtype=None, name=None):
    """A variable holding the `size` x `size` identity matrix (size may be (rows, cols))."""
    rows, cols = (size, size) if isinstance(size, int) else size
    return K.variable(np.eye(rows, cols), dtype=dtype, name=name)


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
    return _tf().random_uniform(shape, minval=minval, maxval=maxval, dtype=dtype or K.floatx(), seed=_seed(seed))


def random_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    return _tf().random_normal(shape, mean=mean, stddev=stddev, dtype=dtype or K.floatx(), seed=_seed(seed))


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    return _tf().truncated_normal(shape, mean, stddev, dtype=dtype or K.floatx(), seed=_seed(seed))


def random_binomial(shape, p=0.0, dtype=None, seed=None):
    """1 with probability p, else 0."""
    dtype = dtype or K.floatx()
    uniform = _tf().random_uniform(shape, dtype=dtype, seed=_seed(seed))
    return _where(uniform <= p, array_ops.ones(shape, dtype=dtype), array_ops.zeros(shape, dtype=dtype))


def dropout(x, level, noise_shape=None, seed=None):
    """Entries of x zeroed with probability `level`, the rest scaled by 1 / (1 - level)."""
    return _nn().dropout(x, rate=level, noise_shape=noise_shape, seed=_seed(seed))


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
    return _tf().cumsum(x, axis=axis)


def cumprod(x, axis=0):
    return _tf().cumprod(x, axis=axis)


def _float_if_bool(x):
    x = convert_to_tensor(x)
    return math_ops.cast(x, K.floatx()) if x.dtype.base_dtype == dt.bool_ else x


def var(x, axis=None, keepdims=False):
    """The variance (divided by n) along `axis`."""
    return _tf().math.reduce_variance(_float_if_bool(x), axis=axis, keepdims=keepdims)


def std(x, axis=None, keepdims=False):
    return _tf().math.reduce_std(_float_if_bool(x), axis=axis, keepdims=keepdims)


def argmin(x, axis=-1):
    return math_ops.argmin(x, axis)


def arange(start, stop=None, step=1, dtype="int32"):
    """range(start, stop, step) as a tensor of `dtype`; a negative start alone gives an empty range."""
    if stop is None and start < 0:
        start = 0
    result = _tf().range(start, limit=stop, delta=step, name="arange")
    return result if dtype == "int32" else math_ops.cast(result, dtype)


def zeros_like(x, dtype=None, name=None):
    return array_ops.zeros_like(x, dtype=dtype, name=name)


def ones_like(x, dtype=None, name=None):
    return array_ops.ones_like(x, dtype=dtype, name=name)


def gather(reference, indices):
    return _tf().gather(reference, indices)


def tile(x, n):
    return array_ops.tile(x, [n] if isinstance(n, int) else n)


def reverse(x, axes):
    return _tf().reverse(x, [axes] if isinstance(axes, int) else list(axes))


def permute_dimensions(x, pattern):
    return array_ops.transpose(x, perm=list(pattern))


def repeat(x, n):
    """A 2-D tensor (samples, dim) repeated into (samples, n, dim)."""
    if K.ndim(x) != 2:
        raise ValueError("repeat expects a 2D tensor, got %d dimensions" % K.ndim(x))
    return array_ops.tile(array_ops.expand_dims(x, 1), [1, n, 1])


def batch_flatten(x):
    """(batch, ...) -> (batch, prod(...))."""
    x = convert_to_tensor(x)
    return array_ops.reshape(x, array_ops.stack([-1, math_ops.reduce_prod(array_ops.shape(x)[1:])]))


def one_hot(indices, num_classes):
    return _tf().one_hot(indices, depth=num_classes, axis=-1)


def stop_gradient(variables):
    if isinstance(variables, (list, tuple)):
        return [array_ops.stop_gradient(v) for v in variables]
    return array_ops.stop_gradient(variables)


def gradients(loss, variables):
    return _tf().gradients(loss, variables, colocate_gradients_with_ops=True)


def print_tensor(x, message=""):
    """x, printing `message` and its value to stdout whenever it is computed."""
    tf = _tf()
    op = tf.print(message, x, output_stream=__import__("sys").stdout)
    with get_default_graph().control_dependencies([op]):
        return array_ops.identity(x)


# ---- activations and losses of the backend --------------------------------------------------------------------
def elu(x, alpha=1.0):
    res = _nn().elu(x)
    return res if alpha == 1 else _where(x > 0, res, alpha * res)


def softplus(x):
    return _nn().softplus(x)


def softsign(x):
    return _nn().softsign(x)


def hard_sigmoid(x):
    """clip(0.2 * x + 0.5, 0, 1)."""
    x = convert_to_tensor(x)
    point_two, point_five = math_ops.cast(0.2, x.dtype.base_dtype), math_ops.cast(0.5, x.dtype.base_dtype)
    return math_ops.clip_by_value(x * point_two + point_five, 0.0, 1.0)


def l2_normalize(x, axis=None):
    return _nn().l2_normalize(x, axis=axis)


def in_top_k(predictions, targets, k):
    return _nn().in_top_k(predictions, targets, k)


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Per-sample cross-entropy of probabilities (clipped) or logits; a Softmax output uses its logits."""
    from tinyflow.api.keras import losses
    if axis not in (-1, K.ndim(output) - 1):
        perm = [i for i in range(K.ndim(output)) if i != axis % K.ndim(output)] + [axis % K.ndim(output)]
        target, output = array_ops.transpose(target, perm), array_ops.transpose(output, perm)
    return losses.categorical_crossentropy(target, output, from_logits=from_logits)


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    from tinyflow.api.keras import losses
    return losses.sparse_categorical_crossentropy(target, output, from_logits=from_logits, axis=axis)


def binary_crossentropy(target, output, from_logits=False):
    """Element-wise binary cross-entropy (no mean: the backend's form)."""
    output = convert_to_tensor(output)
    target = math_ops.cast(target, output.dtype.base_dtype)
    if from_logits or output.op.type == "Sigmoid":
        logits = output if from_logits else output.op.inputs[0]
        return _nn().sigmoid_cross_entropy_with_logits(labels=target, logits=logits)
    eps = math_ops.cast(K.epsilon(), output.dtype.base_dtype)
    output = math_ops.clip_by_value(output, eps, 1.0 - eps)
    return -(target * math_ops.log(output + eps) + (1.0 - target) * math_ops.log(1.0 - output + eps))


# ---- control flow ----------------------------------------------------------------------------------------------
def switch(condition, then_expression, else_expression):
    """then_expression where `condition` holds, else else_expression: a tf.cond for a scalar condition,
    a tf.where (the condition broadcast by tiling) otherwise."""
    tf = _tf()
    condition = _as_bool(condition)
    if not K.ndim(condition):
        then_fn = then_expression if callable(then_expression) else (lambda: then_expression)
        else_fn = else_expression if callable(else_expression) else (lambda: else_expression)
        return tf.cond(condition, then_fn, else_fn)
    then_expression = then_expression() if callable(then_expression) else then_expression
    else_expression = else_expression() if callable(else_expression) else else_expression
    cond_ndim, expr_ndim = K.ndim(condition), K.ndim(then_expression)
    if cond_ndim > expr_ndim:
        raise ValueError("Rank of `condition` should be less than or equal to rank of `then_expression` and "
                         "`else_expression`. ndim(condition)=%d, ndim(then_expression)=%d" % (cond_ndim, expr_ndim))
    if cond_ndim > 1:
        cond_shape = array_ops.concat([array_ops.shape(condition), [1] * (expr_ndim - cond_ndim)], 0)
        condition = array_ops.reshape(condition, cond_shape)
        expr_shape = array_ops.shape(then_expression)
        condition = array_ops.tile(condition, _where(expr_shape - cond_shape > 0, expr_shape,
                                                              array_ops.ones_like(expr_shape)))
    return _where(condition, then_expression, else_expression)


def map_fn(fn, elems, name=None, dtype=None):
    return _tf().map_fn(fn, elems, name=name, dtype=dtype)


def foldl(fn, elems, initializer=None, name=None):
    return _tf().foldl(fn, elems, initializer=initializer, name=name)


def foldr(fn, elems, initializer=None, name=None):
    return _tf().foldr(fn, elems, initializer=initializer, name=name)


def rnn(step_function, inputs, initial_states, go_backwards=False, mask=None, constants=None, unroll=False,
        input_length=None, time_major=False, zero_output_for_mask=False):
    """Iterates `step_function(input_t, states [+ constants]) -> (output_t, new_states)` over the time axis
    of `inputs`; returns (last_output, outputs stacked on the time axis, new_states). A masked step keeps
    the previous states and output (zeros when `zero_output_for_mask`). The loop is unrolled: the number
    of timesteps must be known when building."""
    inputs = convert_to_tensor(inputs)
    time_axis = 0 if time_major else 1
    steps = inputs.shape[time_axis].value
    if steps is None:
        raise ValueError("Unrolling requires a fixed number of timesteps: got inputs of shape %s" % inputs.shape)
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


def _expand_mask(m, like):
    while K.ndim(m) < K.ndim(like):
        m = array_ops.expand_dims(m, -1)
    return m


# ---- normalization ---------------------------------------------------------------------------------------------
def batch_normalization(x, mean, var, beta, gamma, axis=-1, epsilon=1e-3):
    """(x - mean) / sqrt(var + epsilon) * gamma + beta."""
    return _nn().batch_normalization(x, mean, var, beta, gamma, epsilon)


def normalize_batch_in_training(x, gamma, beta, reduction_axes, epsilon=1e-3):
    """The batch normalized over `reduction_axes` with its own mean and variance: (normed, mean, variance),
    mean and variance of the kept axes' shape (None gamma / beta: 1 and 0)."""
    x = convert_to_tensor(x)
    rank, axes = K.ndim(x), sorted(a % K.ndim(x) for a in reduction_axes)
    mean, variance = _nn().moments(x, axes)
    if axes == list(range(rank))[:-1]:
        normed = _nn().batch_normalization(x, mean, variance, beta, gamma, epsilon)
        if rank == 4:   # TF 1.15 takes the fused kernel here: the variance it returns is the unbiased one
            n = math_ops.cast(math_ops.reduce_prod(array_ops.shape(x)[:3]), variance.dtype.base_dtype)
            variance = variance * n / math_ops.maximum(n - 1.0, 1.0)
        return normed, mean, variance
    shape = array_ops.stack([1 if i in axes else array_ops.shape(x)[i] for i in range(rank)])
    reshape = (lambda t: None if t is None else array_ops.reshape(t, shape))
    normed = _nn().batch_normalization(x, reshape(mean), reshape(variance), reshape(beta), reshape(gamma), epsilon)
    return normed, mean, variance


def bias_add(x, bias, data_format=None):
    """x + bias on the channels axis (last, or 1 for channels_first); bias is a vector or of x's rank - 1."""
    data_format = K._data_format(data_format)
    x, bias = convert_to_tensor(x), convert_to_tensor(bias)
    bias_shape = bias.shape.as_list()
    if len(bias_shape) != 1 and len(bias_shape) != K.ndim(x) - 1:
        raise ValueError("Unexpected bias dimensions %d, expect to be 1 or %d dimensions"
                         % (len(bias_shape), K.ndim(x)))
    if len(bias_shape) == 1:
        if data_format == "channels_first" and K.ndim(x) > 2:
            return x + array_ops.reshape(bias, [1, bias_shape[0]] + [1] * (K.ndim(x) - 2))
        return _nn().bias_add(x, bias)
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
    first = K._data_format(data_format) == "channels_first"
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
        out = _nn().conv3d(x, kernel, (1,) + strides + (1,), _padding(padding), dilations=(1,) + dilation_rate + (1,))
    else:
        out = _nn().convolution(x, kernel, padding=_padding(padding), strides=strides, dilation_rate=dilation_rate)
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
        out = _nn().conv2d_transpose(x, kernel, output_shape, (1,) + tuple(strides) + (1,), padding=_padding(padding))
    else:
        out = _nn().atrous_conv2d_transpose(x, kernel, output_shape, dilation_rate[0], _padding(padding))
    return _back(out, first, 2)


def separable_conv2d(x, depthwise_kernel, pointwise_kernel, strides=(1, 1), padding="valid", data_format=None,
                     dilation_rate=(1, 1)):
    x, first = _channels_last(x, data_format, 2)
    out = _nn().separable_conv2d(x, depthwise_kernel, pointwise_kernel, (1,) + tuple(strides) + (1,),
                                 padding=_padding(padding), rate=dilation_rate)
    return _back(out, first, 2)


def _pool(x, pool_size, strides, padding, data_format, pool_mode, rank):
    x, first = _channels_last(x, data_format, rank)
    if pool_mode not in ("max", "avg"):
        raise ValueError("Invalid pooling mode: " + str(pool_mode))
    nn, window, strides = _nn(), (1,) + tuple(pool_size) + (1,), (1,) + tuple(strides) + (1,)
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
    first = K._data_format(data_format) == "channels_first"
    feature_dim, channels_out = K.int_shape(kernel)[1], K.int_shape(kernel)[-1]
    rank, xs = len(output_shape), []
    for position in itertools.product(*[range(n) for n in output_shape]):
        slices = [slice(None)] * (2 if first else 1)
        slices += [slice(position[d] * strides[d], position[d] * strides[d] + kernel_size[d]) for d in range(rank)]
        slices += [] if first else [slice(None)]
        xs.append(array_ops.reshape(convert_to_tensor(inputs)[tuple(slices)], (1, -1, feature_dim)))
    out = K.batch_dot(array_ops.concat(xs, 0), kernel)
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
    keep = math_ops.less(array_ops.expand_dims(_tf().range(shape[1]), 0),
                         array_ops.expand_dims(math_ops.cast(label_lengths, shape.dtype), 1))
    indices = _tf().where(keep)
    return SparseTensor(indices, _tf().gather_nd(labels, indices), math_ops.cast(shape, "int64"))


def ctc_batch_cost(y_true, y_pred, input_length, label_length):
    """The CTC loss of each sample, (batch, 1): y_pred softmax outputs (batch, time, classes), the last class
    the blank; input_length / label_length (batch, 1)."""
    label_length = math_ops.cast(array_ops.squeeze(label_length, axis=-1), "int32")
    input_length = math_ops.cast(array_ops.squeeze(input_length, axis=-1), "int32")
    sparse = ctc_label_dense_to_sparse(y_true, label_length)
    from tinyflow.ops.sparse import SparseTensor
    sparse = SparseTensor(sparse.indices, math_ops.cast(sparse.values, "int32"), sparse.dense_shape)
    y_pred = math_ops.log(array_ops.transpose(y_pred, perm=[1, 0, 2]) + K.epsilon())
    return array_ops.expand_dims(_nn().ctc_loss(inputs=y_pred, labels=sparse, sequence_length=input_length), 1)


def ctc_decode(y_pred, input_length, greedy=True, beam_width=100, top_paths=1):
    """([dense decoded paths, -1 padded], log probabilities) of softmax outputs (batch, time, classes)."""
    nn = _nn()
    y_pred = math_ops.log(array_ops.transpose(y_pred, perm=[1, 0, 2]) + K.epsilon())
    input_length = math_ops.cast(input_length, "int32")
    if greedy:
        decoded, log_prob = nn.ctc_greedy_decoder(inputs=y_pred, sequence_length=input_length)
    else:
        decoded, log_prob = nn.ctc_beam_search_decoder(inputs=y_pred, sequence_length=input_length,
                                                       beam_width=beam_width, top_paths=top_paths)
    dense = [_tf().sparse.to_dense(st, default_value=-1) for st in decoded]
    return dense, log_prob


__all__ = [n for n, v in list(globals().items())   # what backend.py re-exports: this module's own names
           if not n.startswith("_") and getattr(v, "__module__", None) == __name__ or n in
           ("greater", "greater_equal", "less", "less_equal", "not_equal", "maximum", "minimum", "sign", "cos", "sin")]
