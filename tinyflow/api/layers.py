"""tf.layers: TF1's layer classes and functions (dense, conv2d, pooling, dropout, flatten,
batch_normalization, conv2d_transpose, conv1d, 1-D pooling), with TF's variable names ("dense/kernel",
"dense_1/bias", ...).

A layer owns a VariableScope. The class API picks a unique scope ("dense", "dense_1") on its first
call; the function API (`tf.layers.dense(x, 10, name="fc")`) opens scope "fc" as given, so calling
it twice without reuse=True raises "Variable fc/kernel already exists". Ops go into the scope's
original name scope ("dense/MatMul", then "dense/MatMul_1" when the layer is called again).
Update ops (batch norm's moving averages) are added to tf.GraphKeys.UPDATE_OPS.
"""
import contextlib
import re
import types
import weakref

import numpy as np

from tinyflow.api import nn
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import GraphKeys, Tensor, get_default_graph
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops import matrix_ops, state_ops
from tinyflow.ops.core import array_ops, math_ops
from tinyflow.ops import init_ops
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.core.base import constant_value_of, convert_to_tensor

__all__ = ["Layer", "Dense", "Conv2D", "MaxPooling2D", "AveragePooling2D", "Dropout", "Flatten",
           "BatchNormalization", "dense", "conv2d", "max_pooling2d", "average_pooling2d", "dropout", "flatten",
           "batch_normalization"]

_NAME_UIDS = weakref.WeakKeyDictionary()  # graph -> {base name: count}: Keras' unique layer names


def _unique_layer_name(base, zero_based=True):
    """base, base_1, ... per graph (a Keras-style layer's count from 1: dense_1, dense_2, as TF's)."""
    uids = _NAME_UIDS.setdefault(get_default_graph(), {})
    n = uids.get(base, 0)
    uids[base] = n + 1
    return base if n == 0 and zero_based else "%s_%d" % (base, n if zero_based else n + 1)


_KERAS_STYLE = [False]


@contextlib.contextmanager
def keras_style_scope():
    """tf.layers.experimental.keras_style_scope: tf.layers made inside behave as Keras layers: each one's
    variables live under its own unique name (no `scope=` / `_reuse=` sharing), so two models built from
    the same code get distinct weights."""
    previous, _KERAS_STYLE[0] = _KERAS_STYLE[0], True
    try:
        yield
    finally:
        _KERAS_STYLE[0] = previous


def set_keras_style():
    """tf.layers.experimental.set_keras_style: keras_style_scope from now on, for every tf.layers layer."""
    _KERAS_STYLE[0] = True


def _snake_case(name):
    s = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


class Layer:
    """Base class: a callable that creates its variables (in `build`) on the first call."""

    def __init__(self, trainable=True, name=None, dtype=None, activity_regularizer=None, _scope=None, _reuse=None,
                 **kwargs):
        unknown = set(kwargs) - {"input_shape", "batch_input_shape", "batch_size", "autocast"}
        if unknown:
            raise TypeError("Keyword argument not understood:", sorted(unknown)[0])
        self._keras_style = _KERAS_STYLE[0]
        if self._keras_style and _scope is not None:
            raise ValueError("scope argument not allowed when keras style layers are enabled, but saw: %s" % _scope)
        if self._keras_style and _reuse is not None:
            raise ValueError("reuse argument not allowed when keras style layers are enabled, but saw: %s" % _reuse)
        self.trainable = trainable
        self.built = False
        self._dtype = dt.as_dtype(dtype) if dtype is not None else None
        self._reuse = _reuse
        self.activity_regularizer = activity_regularizer
        self._trainable_weights, self._non_trainable_weights = [], []
        self._updates, self._losses = [], []
        if name:
            self._name, self._base_name = name, name
        else:
            self._base_name = _snake_case(type(self).__name__)
            self._name = _unique_layer_name(self._base_name, zero_based=not self._keras_style)
        self._scope = None
        if _scope:  # the function API: the scope is opened now, exactly as named
            with vs.variable_scope(_scope) as captured:
                self._scope = captured
        self._current_scope = None

    # ---- what the layer holds -------------------------------------------------------------------
    name = property(lambda self: self._name)
    dtype = property(lambda self: self._dtype)
    scope_name = property(lambda self: self._scope.name if self._scope else None)
    trainable_weights = property(lambda self: list(self._trainable_weights) if self.trainable else [])
    non_trainable_weights = property(lambda self: (list(self._non_trainable_weights) if self.trainable else
                                                   self._trainable_weights + self._non_trainable_weights))
    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    weights = property(lambda self: self.trainable_weights + self.non_trainable_weights)
    variables = weights
    updates = property(lambda self: list(self._updates))
    losses = property(lambda self: list(self._losses))

    def build(self, input_shape):
        self.built = True

    def call(self, inputs, **kwargs):
        return inputs

    def compute_output_shape(self, input_shape):
        raise NotImplementedError

    def add_update(self, updates, inputs=None):
        self._updates.extend(updates if isinstance(updates, (list, tuple)) else [updates])

    def add_loss(self, losses, inputs=None):
        self._losses.extend(losses if isinstance(losses, (list, tuple)) else [losses])

    def add_weight(self, name, shape, dtype=None, initializer=None, regularizer=None, trainable=True,
                   constraint=None, **kwargs):
        """get_variable(name) in the layer's scope; regularizer losses go to REGULARIZATION_LOSSES."""
        dtype = dt.as_dtype(dtype or self._dtype or dt.float32)
        reuse = self.built or self._reuse
        with vs.variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as scope:
            self._current_scope = scope
            with get_default_graph().name_scope(scope.original_name_scope or None):
                v = vs.get_variable(name, shape=shape, dtype=dtype, initializer=initializer,
                                    regularizer=regularizer, trainable=trainable and self.trainable,
                                    constraint=constraint)
        trainables = get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES)
        if any(v is t for t in trainables) or (_eager_variable(v) and v.trainable):  # eager: no collections
            if not any(v is w for w in self._trainable_weights):
                self._trainable_weights.append(v)
        elif not any(v is w for w in self._non_trainable_weights):
            self._non_trainable_weights.append(v)
        return v

    # ---- calling --------------------------------------------------------------------------------
    def _set_scope(self, scope=None):
        if self._scope is None and getattr(self, "_keras_style", False):
            if scope is not None:
                raise ValueError("scope argument not allowed when keras style layers are enabled, but saw: %s"
                                 % scope)
            with vs.variable_scope(self._name) as captured:   # its unique name, as a Keras layer
                self._scope = captured
        if self._scope is None:
            if self._reuse:
                with vs.variable_scope(scope if scope is not None else self._base_name) as captured:
                    self._scope = captured
            else:
                with vs.variable_scope(scope, default_name=self._base_name) as captured:
                    self._scope = captured

    def __call__(self, inputs, *args, **kwargs):
        """Builds the layer on its first call (creating its variables), then applies it."""
        self._set_scope(kwargs.pop("scope", None))
        graph = get_default_graph()
        reuse = True if self.built else self._reuse
        with vs.variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as scope:
            self._current_scope = scope
            with graph.name_scope(scope.original_name_scope or None):
                inputs = _to_tensor(inputs)
                if not self.built:
                    if self._dtype is None:  # TF1 layers take their dtype from the first input
                        self._dtype = inputs.dtype.base_dtype if inputs.dtype.is_floating else dt.float32
                    self.build(inputs.shape)
                    self.built = True
                n_updates = len(self._updates)
                outputs = self.call(inputs, *args, **kwargs)
                if self.activity_regularizer is not None:
                    with graph.name_scope("ActivityRegularizer"):
                        self._losses.append(self.activity_regularizer(outputs))
                        graph.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, self._losses[-1])
        for u in self._updates[n_updates:]:
            graph.add_to_collection(GraphKeys.UPDATE_OPS, u)
        return outputs

    apply = __call__


def _eager_variable(v):
    from tinyflow.runtime.eager.variables import EagerVariable
    return isinstance(v, EagerVariable)


def _to_tensor(x):
    return x if isinstance(x, Tensor) else convert_to_tensor(x)


def _tuple(value, n, what):
    """An int or a sequence of n ints, as a tuple of n ints (TF's conv_utils.normalize_tuple)."""
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    if len(value) != n or not all(isinstance(v, (int, np.integer)) for v in value):
        raise ValueError("The `%s` argument must be a tuple of %d integers. Received: %s" % (what, n, value))
    return tuple(int(v) for v in value)


def _padding(padding):
    p = padding.lower()
    if p not in ("valid", "same"):
        raise ValueError("The `padding` argument must be one of \"valid\", \"same\". Received: %s" % padding)
    return p.upper()


def _data_format(data_format):
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError("The `data_format` argument must be one of \"channels_first\", \"channels_last\". "
                         "Received: %s" % data_format)
    return "NHWC" if data_format == "channels_last" else "NCHW"


def _get_initializer(init):
    return init() if isinstance(init, type) else init


# ---- Dense ------------------------------------------------------------------------------------------
class _KernelBiasLayer(Layer):
    """What Dense and Conv2D share: a kernel, an optional bias, their initializers, regularizers and
    constraints, and the activation applied after the bias."""

    def _set_kernel_bias(self, activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                         bias_regularizer, kernel_constraint, bias_constraint):
        self.activation, self.use_bias = activation, use_bias
        self.kernel_initializer = _get_initializer(kernel_initializer)
        self.bias_initializer = _get_initializer(bias_initializer)
        self.kernel_regularizer, self.bias_regularizer = kernel_regularizer, bias_regularizer
        self.kernel_constraint, self.bias_constraint = kernel_constraint, bias_constraint
        self.kernel = self.bias = None

    def _build_kernel_bias(self, kernel_shape, outputs=None):
        """The kernel, and a bias of `outputs` (the kernel's last dimension unless given) values."""
        self.kernel = self.add_weight("kernel", shape=kernel_shape, initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
                                      dtype=self.dtype, trainable=True)
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=[outputs or kernel_shape[-1]], initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                        dtype=self.dtype, trainable=True)
        self.built = True

    def _bias_and_activation(self, outputs, data_format=None):
        if self.use_bias:
            outputs = nn.bias_add(outputs, self.bias, data_format=data_format)
        if self.activation is not None:
            return self.activation(outputs)
        return outputs


class Dense(_KernelBiasLayer):
    """outputs = activation(inputs @ kernel + bias); a rank > 2 input is multiplied on its last axis."""

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        super().__init__(trainable=trainable, name=name, activity_regularizer=activity_regularizer, **kwargs)
        self.units = int(units)
        self._set_kernel_bias(activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                              bias_regularizer, kernel_constraint, bias_constraint)

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        if input_shape.ndims is None or input_shape[-1].value is None:
            raise ValueError("The last dimension of the inputs to `Dense` should be defined. Found `None`.")
        self._build_kernel_bias([input_shape[-1].value, self.units])

    def call(self, inputs):
        inputs = math_ops.cast(inputs, self.dtype)
        rank = inputs.shape.ndims
        if rank is not None and rank > 2:
            inner = inputs.shape.as_list()[1:-1]
            if None in inner:  # only the batch may be unknown for the reshape route
                outputs = matrix_ops.tensordot(inputs, self.kernel, [[rank - 1], [0]])
            else:
                flat = math_ops.matmul(array_ops.reshape(inputs, [-1, self.kernel.shape[0].value]), self.kernel)
                outputs = array_ops.reshape(flat, [-1] + inner + [self.units])
            outputs.set_shape(inputs.shape.as_list()[:-1] + [self.units])
        else:
            outputs = math_ops.matmul(inputs, self.kernel)
        return self._bias_and_activation(outputs)

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)[:-1].concatenate([self.units])


def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None,
          bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
          activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
          reuse=None):
    """Functional interface for the densely-connected layer (variables "<name>/kernel", "<name>/bias")."""
    layer = Dense(units, activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
                  bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                  bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
                  kernel_constraint=kernel_constraint, bias_constraint=bias_constraint, trainable=trainable,
                  name=name, _scope=name, _reuse=reuse)
    return layer.apply(inputs)


# ---- Conv2D -----------------------------------------------------------------------------------------
class Conv2D(_KernelBiasLayer):
    """2-D convolution with a [kh, kw, in, filters] kernel, plus bias and activation."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
                 dilation_rate=(1, 1), activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        super().__init__(trainable=trainable, name=name, activity_regularizer=activity_regularizer, **kwargs)
        self.filters = int(filters)
        self.kernel_size = _tuple(kernel_size, 2, "kernel_size")
        self.strides = _tuple(strides, 2, "strides")
        self.padding = _padding(padding)
        self.data_format = _data_format(data_format)
        self.dilation_rate = _tuple(dilation_rate, 2, "dilation_rate")
        self._set_kernel_bias(activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                              bias_regularizer, kernel_constraint, bias_constraint)

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        if input_shape.ndims != 4:
            raise ValueError("Input 0 of layer %s is incompatible with the layer: expected ndim=4, found ndim=%s. "
                             "Full shape received: %s" % (self.name, input_shape.ndims, input_shape.as_list()
                                                          if input_shape.ndims is not None else None))
        channel_axis = 3 if self.data_format == "NHWC" else 1
        in_dim = input_shape[channel_axis].value
        if in_dim is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
        self._build_kernel_bias(list(self.kernel_size) + [in_dim, self.filters])

    def _spatial(self, v):
        return [1, v[0], v[1], 1] if self.data_format == "NHWC" else [1, 1, v[0], v[1]]

    def call(self, inputs):
        outputs = nn.conv2d(inputs, self.kernel, strides=self._spatial(self.strides), padding=self.padding,
                            data_format=self.data_format, dilations=self._spatial(self.dilation_rate))
        return self._bias_and_activation(outputs, self.data_format)


def conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
           dilation_rate=(1, 1), activation=None, use_bias=True, kernel_initializer=None,
           bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
           activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
           reuse=None):
    """Functional interface for the 2-D convolution layer (variables "conv2d/kernel", "conv2d/bias")."""
    layer = Conv2D(filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
                   dilation_rate=dilation_rate, activation=activation, use_bias=use_bias,
                   kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                   kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                   activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
                   bias_constraint=bias_constraint, trainable=trainable, name=name, _scope=name, _reuse=reuse)
    return layer.apply(inputs)


# ---- pooling ----------------------------------------------------------------------------------------
class _Pooling2D(Layer):
    _pool = None  # the tf.nn function name

    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last", name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.pool_size = _tuple(pool_size, 2, "pool_size")
        self.strides = _tuple(strides if strides is not None else pool_size, 2, "strides")
        self.padding = _padding(padding)
        self.data_format = _data_format(data_format)

    def call(self, inputs):
        nhwc = self.data_format == "NHWC"
        ksize = [1, *self.pool_size, 1] if nhwc else [1, 1, *self.pool_size]
        strides = [1, *self.strides, 1] if nhwc else [1, 1, *self.strides]
        return getattr(nn, self._pool)(inputs, ksize=ksize, strides=strides, padding=self.padding,
                                       data_format=self.data_format)


class MaxPooling2D(_Pooling2D):
    """Max over pool_size windows."""
    _pool = "max_pool"


class AveragePooling2D(_Pooling2D):
    """Mean over pool_size windows (SAME padding averages real elements only)."""
    _pool = "avg_pool"


def max_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """Functional interface for 2-D max pooling."""
    return MaxPooling2D(pool_size, strides, padding=padding, data_format=data_format, name=name).apply(inputs)


def average_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """Functional interface for 2-D average pooling."""
    return AveragePooling2D(pool_size, strides, padding=padding, data_format=data_format, name=name).apply(inputs)


# ---- dropout, flatten -------------------------------------------------------------------------------
def _static_bool(training):
    """A Python bool for `training` when known while building (bool, constant tensor), else None."""
    if isinstance(training, (bool, np.bool_, int)):
        return bool(training)
    v = constant_value_of(training)
    return None if v is None else bool(v)


class Dropout(Layer):
    """Zeroes a `rate` fraction of the inputs (scaling the rest by 1/(1-rate)) when training.

    `training` is a Python bool or a scalar bool tensor (then both branches are built and selected).
    """

    def __init__(self, rate=0.5, noise_shape=None, seed=None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.rate, self.noise_shape, self.seed = rate, noise_shape, seed

    def call(self, inputs, training=False):
        return in_train_phase(lambda: nn.dropout(inputs, noise_shape=self.noise_shape, seed=self.seed,
                                                 rate=self.rate), inputs, training)


def in_train_phase(train_fn, inputs, training):
    """train_fn() when training, `inputs` otherwise; `training` a Python bool or a scalar bool tensor
    (then both are built and selected, keeping the inputs' static shape)."""
    static = _static_bool(training)
    if static is False:
        return array_ops.identity(inputs)
    out = train_fn()
    if static is True:
        return out
    training = convert_to_tensor(training, dtype=dt.bool_)
    # TF selects with smart_cond, whose output keeps the inputs' static shape; Select (TF1's
    # where) merges its branch shapes too, where SelectV2 would broadcast with a shapeless
    # predicate (a `tf.placeholder(tf.bool)`) and lose the shape.
    from tinyflow.ops.core.indexing_ops import where
    out = where(training, out, inputs)
    out.set_shape(inputs.shape)
    return out


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """Functional interface for dropout: identity unless `training`."""
    return Dropout(rate, noise_shape=noise_shape, seed=seed, name=name).apply(inputs, training=training)


class Flatten(Layer):
    """Reshapes [batch, ...] to [batch, prod(...)]."""

    def __init__(self, data_format="channels_last", name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.data_format = data_format

    def call(self, inputs):
        shape = inputs.shape
        if self.data_format == "channels_first" and shape.ndims is not None and shape.ndims > 2:
            inputs = array_ops.transpose(inputs, [0] + list(range(2, shape.ndims)) + [1])
            shape = inputs.shape
        if shape.ndims is not None and TensorShape(shape.as_list()[1:]).is_fully_defined():
            return array_ops.reshape(inputs, [-1, int(np.prod(shape.as_list()[1:]))])
        batch = shape[0].value if shape.ndims else None
        return array_ops.reshape(inputs, array_ops.stack([batch if batch is not None else
                                                          array_ops.shape(inputs)[0], -1]))


def flatten(inputs, name=None, data_format="channels_last"):
    """Functional interface for Flatten."""
    return Flatten(name=name, data_format=data_format).apply(inputs)


# ---- batch normalization ----------------------------------------------------------------------------
class BatchNormalization(Layer):
    """Normalizes over all axes but `axis` with batch statistics when training, else with the moving
    averages; training adds moving-average updates (decay 1 - momentum) to UPDATE_OPS.

    As in TF, 4-D inputs normalized on the channel axis take TF's fused path: the moving variance
    is then fed the unbiased batch variance (n / (n - 1) times the one used to normalize).
    """

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer=init_ops.zeros_initializer(), gamma_initializer=init_ops.ones_initializer(),
                 moving_mean_initializer=init_ops.zeros_initializer(),
                 moving_variance_initializer=init_ops.ones_initializer(), beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None, renorm=False,
                 renorm_clipping=None, renorm_momentum=0.99, fused=None, trainable=True, virtual_batch_size=None,
                 adjustment=None, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name, **kwargs)
        if renorm or virtual_batch_size or adjustment:
            raise NotImplementedError("renorm, virtual_batch_size and adjustment are not supported")
        self.axis = axis
        self.momentum, self.epsilon, self.center, self.scale = momentum, epsilon, center, scale
        self.beta_initializer = _get_initializer(beta_initializer)
        self.gamma_initializer = _get_initializer(gamma_initializer)
        self.moving_mean_initializer = _get_initializer(moving_mean_initializer)
        self.moving_variance_initializer = _get_initializer(moving_variance_initializer)
        self.beta_regularizer, self.gamma_regularizer = beta_regularizer, gamma_regularizer
        self.beta_constraint, self.gamma_constraint = beta_constraint, gamma_constraint
        self.fused = fused
        self.gamma = self.beta = None

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        ndims = input_shape.ndims
        if ndims is None:
            raise ValueError("Input has undefined rank:", input_shape)
        axes = [self.axis] if isinstance(self.axis, int) else list(self.axis)
        axes = [a % ndims if -ndims <= a < ndims else None for a in axes]
        if None in axes:
            raise ValueError("Invalid axis: %s" % (self.axis,))
        self._axes = axes
        dims = [input_shape[a].value for a in axes]
        if None in dims:
            raise ValueError("Input has undefined `axis` dimension. Input shape: ", input_shape)
        param_shape = dims if len(dims) > 1 else dims[:1]
        if len(axes) > 1:  # params broadcast over the kept axes in place
            param_shape = [input_shape[i].value if i in axes else 1 for i in range(ndims)]
        self._fused = (self.fused is not False and ndims == 4 and axes in ([3], [1]))
        pdtype = dt.float32 if self.dtype in (dt.float16, dt.bfloat16) else self.dtype
        if self.scale:
            self.gamma = self.add_weight("gamma", shape=param_shape, dtype=pdtype, initializer=self.gamma_initializer,
                                         regularizer=self.gamma_regularizer, constraint=self.gamma_constraint)
        if self.center:
            self.beta = self.add_weight("beta", shape=param_shape, dtype=pdtype, initializer=self.beta_initializer,
                                        regularizer=self.beta_regularizer, constraint=self.beta_constraint)
        self.moving_mean = self.add_weight("moving_mean", shape=param_shape, dtype=pdtype,
                                           initializer=self.moving_mean_initializer, trainable=False)
        self.moving_variance = self.add_weight("moving_variance", shape=param_shape, dtype=pdtype,
                                               initializer=self.moving_variance_initializer, trainable=False)
        self.built = True

    def _broadcast(self, v, ndims):
        """A parameter shaped for the input: [C] on the last axis broadcasts as is, else reshape."""
        if v is None or len(self._axes) > 1 or self._axes == [ndims - 1]:
            return v
        shape = [1] * ndims
        shape[self._axes[0]] = -1
        return array_ops.reshape(v, shape)

    def _assign_moving_average(self, variable, value, decay):
        with get_default_graph().name_scope("AssignMovingAvg") as scope:
            delta = math_ops.multiply(math_ops.subtract(variable, math_ops.cast(value, variable.dtype)), decay)
            return state_ops.assign_sub(variable, delta, name=scope)

    def call(self, inputs, training=False):
        ndims = inputs.shape.ndims
        reduce_axes = [i for i in range(ndims) if i not in self._axes]
        static = _static_bool(training)
        gamma, beta = self._broadcast(self.gamma, ndims), self._broadcast(self.beta, ndims)
        moving_mean = self._broadcast(self.moving_mean.value(), ndims)
        moving_var = self._broadcast(self.moving_variance.value(), ndims)
        if static is False:
            return nn.batch_normalization(inputs, moving_mean, moving_var, beta, gamma, self.epsilon)
        keep = len(self._axes) > 1
        mean, variance = nn.moments(inputs, reduce_axes, keep_dims=keep)
        update_var = variance
        if self._fused:  # TF's fused kernel feeds the moving variance the unbiased batch variance
            n = math_ops.cast(math_ops.div(array_ops.size(inputs), array_ops.size(mean)), variance.dtype)
            factor = math_ops.div_no_nan(n, math_ops.maximum(math_ops.subtract(n, 1.0), 0.0))
            update_var = math_ops.multiply(variance, factor)
        if static is None:
            training = convert_to_tensor(training, dtype=dt.bool_)
            decay = math_ops.where_v2(training, math_ops.cast(1.0 - self.momentum, mean.dtype),
                                      math_ops.cast(0.0, mean.dtype))
            mean_b = math_ops.where_v2(training, self._broadcast(mean, ndims), moving_mean)
            var_b = math_ops.where_v2(training, self._broadcast(variance, ndims), moving_var)
        else:
            decay = math_ops.cast(1.0 - self.momentum, mean.dtype)
            mean_b, var_b = self._broadcast(mean, ndims), self._broadcast(variance, ndims)
        outputs = nn.batch_normalization(inputs, mean_b, var_b, beta, gamma, self.epsilon)
        outputs.set_shape(inputs.shape)  # TF's smart_cond keeps it; a bool placeholder must not lose it
        self.add_update([self._assign_moving_average(self.moving_mean, mean, decay),
                         self._assign_moving_average(self.moving_variance, update_var, decay)])
        return outputs


def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                        beta_initializer=init_ops.zeros_initializer(), gamma_initializer=init_ops.ones_initializer(),
                        moving_mean_initializer=init_ops.zeros_initializer(),
                        moving_variance_initializer=init_ops.ones_initializer(), beta_regularizer=None,
                        gamma_regularizer=None, beta_constraint=None, gamma_constraint=None, training=False,
                        trainable=True, name=None, reuse=None, renorm=False, renorm_clipping=None,
                        renorm_momentum=0.99, fused=None, virtual_batch_size=None, adjustment=None):
    """Functional interface for batch normalization. With training=True, run the ops in
    tf.GraphKeys.UPDATE_OPS (e.g. as control dependencies of the train op) to update the moving
    mean and variance."""
    layer = BatchNormalization(axis=axis, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
                               beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
                               moving_mean_initializer=moving_mean_initializer,
                               moving_variance_initializer=moving_variance_initializer,
                               beta_regularizer=beta_regularizer, gamma_regularizer=gamma_regularizer,
                               beta_constraint=beta_constraint, gamma_constraint=gamma_constraint, renorm=renorm,
                               renorm_clipping=renorm_clipping, renorm_momentum=renorm_momentum, fused=fused,
                               trainable=trainable, virtual_batch_size=virtual_batch_size, adjustment=adjustment,
                               name=name, _scope=name, _reuse=reuse)
    return layer.apply(inputs, training=training)


# ---- Conv2DTranspose, Conv1D and 1-D pooling, with TF 1.15's variable names ("conv2d_transpose/kernel",
# "conv1d/kernel") and output sizes ----------------------------------------------------------------
__all__ += ["Conv2DTranspose", "Conv1D", "MaxPooling1D", "AveragePooling1D", "conv2d_transpose", "conv1d",
           "max_pooling1d", "average_pooling1d"]


def _kernel_bias_args(kwargs):
    names = ("activation", "use_bias", "kernel_initializer", "bias_initializer", "kernel_regularizer",
             "bias_regularizer", "kernel_constraint", "bias_constraint")
    defaults = (None, True, None, init_ops.zeros_initializer(), None, None, None, None)
    return [kwargs.pop(n, d) for n, d in zip(names, defaults)]


def _deconv_length(n, kernel, stride, padding, output_padding=None, dilation=1):
    """TF's conv_utils.deconv_output_length: a transposed convolution's output length along one axis."""
    if n is None:
        return None
    kernel = kernel + (kernel - 1) * (dilation - 1)
    if output_padding is None:
        return n * stride if padding == "SAME" else n * stride + max(kernel - stride, 0)
    return (n - 1) * stride + kernel - 2 * (kernel // 2 if padding == "SAME" else 0) + output_padding


def _output_padding(output_padding, strides, rank):
    """None, or `rank` ints each below its stride (TF's check)."""
    if output_padding is None:
        return None
    output_padding = _tuple(output_padding, rank, "output_padding")
    for stride, pad in zip(strides, output_padding):
        if pad >= stride:
            raise ValueError("Stride " + str(strides) + " must be greater than output padding " + str(output_padding))
    return output_padding


class Conv2DTranspose(_KernelBiasLayer):
    """The transpose of a 2-D convolution: a [kh, kw, filters, in] kernel, output `strides` times larger."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last", *,
                 output_padding=None, dilation_rate=(1, 1), **kwargs):   # keywords: TF's next positional is activation
        kernel_bias = _kernel_bias_args(kwargs)
        super().__init__(**kwargs)
        self.filters = int(filters)
        self.kernel_size, self.strides = _tuple(kernel_size, 2, "kernel_size"), _tuple(strides, 2, "strides")
        self.padding, self.data_format = _padding(padding), _data_format(data_format)
        self.output_padding = _output_padding(output_padding, self.strides, 2)
        self.dilation_rate = _tuple(dilation_rate, 2, "dilation_rate")
        self._set_kernel_bias(*kernel_bias)

    def build(self, input_shape):
        axis = 3 if self.data_format == "NHWC" else 1
        if input_shape.ndims != 4 or input_shape[axis].value is None:
            raise ValueError("Inputs should have rank 4 and a defined channel dimension. Received input shape: %s"
                             % input_shape)
        # the kernel maps filters back to the inputs' channels: [kh, kw, filters, in]
        self._build_kernel_bias(list(self.kernel_size) + [self.filters, input_shape[axis].value], self.filters)

    def call(self, inputs):
        nhwc = self.data_format == "NHWC"
        h_axis = 1 if nhwc else 2
        dims = []
        for i, (k, s) in enumerate(zip(self.kernel_size, self.strides)):
            n = inputs.shape[h_axis + i].value
            n = n if n is not None else array_ops.shape(inputs)[h_axis + i]
            dims.append(_deconv_length(n, k, s, self.padding, self.output_padding and self.output_padding[i],
                                       self.dilation_rate[i]))
        batch = inputs.shape[0].value if inputs.shape[0].value is not None else array_ops.shape(inputs)[0]
        out = [batch] + dims + [self.filters] if nhwc else [batch, self.filters] + dims
        strides = [1, *self.strides, 1] if nhwc else [1, 1, *self.strides]
        dilations = [1, *self.dilation_rate, 1] if nhwc else [1, 1, *self.dilation_rate]
        outputs = nn.conv2d_transpose(inputs, self.kernel, out, strides, padding=self.padding,
                                      data_format=self.data_format, dilations=dilations)
        outputs.set_shape([d if isinstance(d, int) else None for d in out])
        return self._bias_and_activation(outputs, self.data_format)


def conv2d_transpose(inputs, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
                     name=None, reuse=None, **kwargs):
    """Functional interface for Conv2DTranspose (variables "conv2d_transpose/kernel", ".../bias")."""
    return Conv2DTranspose(filters, kernel_size, strides, padding, data_format, name=name, _scope=name,
                           _reuse=reuse, **kwargs).apply(inputs)


class Conv1D(_KernelBiasLayer):
    """1-D convolution of [batch, width, channels] with a [k, in, filters] kernel."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format="channels_last",
                 dilation_rate=1, **kwargs):
        kernel_bias = _kernel_bias_args(kwargs)
        super().__init__(**kwargs)
        self.filters = int(filters)
        self.kernel_size, self.strides = _tuple(kernel_size, 1, "kernel_size"), _tuple(strides, 1, "strides")
        self.dilation_rate = _tuple(dilation_rate, 1, "dilation_rate")
        self.padding = _padding(padding)
        self.data_format = "NWC" if _data_format(data_format) == "NHWC" else "NCW"
        self._set_kernel_bias(*kernel_bias)

    def build(self, input_shape):
        axis = 2 if self.data_format == "NWC" else 1
        if input_shape.ndims != 3 or input_shape[axis].value is None:
            raise ValueError("Inputs should have rank 3 and a defined channel dimension. Received input shape: %s"
                             % input_shape)
        self._build_kernel_bias([self.kernel_size[0], input_shape[axis].value, self.filters])

    def call(self, inputs):
        outputs = nn.conv1d(inputs, self.kernel, self.strides[0], self.padding, data_format=self.data_format,
                            dilations=self.dilation_rate[0])
        return self._bias_and_activation(outputs, "NHWC" if self.data_format == "NWC" else "NCHW")


def conv1d(inputs, filters, kernel_size, strides=1, padding="valid", data_format="channels_last", dilation_rate=1,
           name=None, reuse=None, **kwargs):
    """Functional interface for Conv1D (variables "conv1d/kernel", "conv1d/bias")."""
    return Conv1D(filters, kernel_size, strides, padding, data_format, dilation_rate, name=name, _scope=name,
                  _reuse=reuse, **kwargs).apply(inputs)


class _Pooling1D(Layer):
    _pool = None  # the tf.nn function name

    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last", name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.pool_size, self.strides = _tuple(pool_size, 1, "pool_size"), _tuple(strides, 1, "strides")
        self.padding = _padding(padding)
        self.data_format = "NWC" if _data_format(data_format) == "NHWC" else "NCW"

    def call(self, inputs):
        return getattr(nn, self._pool)(inputs, self.pool_size[0], self.strides[0], self.padding,
                                       data_format=self.data_format)


class MaxPooling1D(_Pooling1D):
    """Max over pool_size windows of [batch, width, channels]."""
    _pool = "max_pool1d"


class AveragePooling1D(_Pooling1D):
    """Mean over pool_size windows of [batch, width, channels]."""
    _pool = "avg_pool1d"


def max_pooling1d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """Functional interface for 1-D max pooling."""
    return MaxPooling1D(pool_size, strides, padding, data_format, name=name).apply(inputs)


def average_pooling1d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """Functional interface for 1-D average pooling."""
    return AveragePooling1D(pool_size, strides, padding, data_format, name=name).apply(inputs)


# ---- 3-D convolution and pooling (TF 1.15's tf.layers.Conv3D, Conv3DTranspose, Max/AveragePooling3D) ----------
def _fmt3d(data_format):
    return "NDHWC" if _data_format(data_format) == "NHWC" else "NCDHW"


def _window3d(values, fmt):
    return [1, *values, 1] if fmt == "NDHWC" else [1, 1, *values]


class Conv3D(_KernelBiasLayer):
    """3-D convolution with a [kd, kh, kw, in, filters] kernel, plus bias and activation."""

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid", data_format="channels_last",
                 dilation_rate=(1, 1, 1), **kwargs):
        kernel_bias = _kernel_bias_args(kwargs)
        super().__init__(**kwargs)
        self.filters = int(filters)
        self.kernel_size, self.strides = _tuple(kernel_size, 3, "kernel_size"), _tuple(strides, 3, "strides")
        self.dilation_rate = _tuple(dilation_rate, 3, "dilation_rate")
        self.padding, self.data_format = _padding(padding), _fmt3d(data_format)
        self._set_kernel_bias(*kernel_bias)

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        axis = 4 if self.data_format == "NDHWC" else 1
        if input_shape.ndims != 5 or input_shape[axis].value is None:
            raise ValueError("Input 0 of layer %s is incompatible with the layer: expected ndim=5 with a defined "
                             "channel dimension, found shape %s" % (self.name, input_shape))
        self._build_kernel_bias(list(self.kernel_size) + [input_shape[axis].value, self.filters])

    def call(self, inputs):
        from tinyflow.ops.conv3d_ops import conv3d
        outputs = conv3d(inputs, self.kernel, _window3d(self.strides, self.data_format), self.padding,
                         self.data_format, _window3d(self.dilation_rate, self.data_format))
        return self._bias_and_activation(outputs, "NHWC" if self.data_format == "NDHWC" else "NCHW")


def conv3d(inputs, filters, kernel_size, strides=(1, 1, 1), padding="valid", data_format="channels_last",
           dilation_rate=(1, 1, 1), name=None, reuse=None, **kwargs):
    """Functional interface for Conv3D (variables "conv3d/kernel", "conv3d/bias")."""
    return Conv3D(filters, kernel_size, strides, padding, data_format, dilation_rate, name=name, _scope=name,
                  _reuse=reuse, **kwargs).apply(inputs)


class Conv3DTranspose(_KernelBiasLayer):
    """The transpose of a 3-D convolution: a [kd, kh, kw, filters, in] kernel, output `strides` times larger."""

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid", data_format="channels_last", *,
                 output_padding=None, **kwargs):
        kernel_bias = _kernel_bias_args(kwargs)
        super().__init__(**kwargs)
        self.filters = int(filters)
        self.kernel_size, self.strides = _tuple(kernel_size, 3, "kernel_size"), _tuple(strides, 3, "strides")
        self.padding, self.data_format = _padding(padding), _fmt3d(data_format)
        self.output_padding = _output_padding(output_padding, self.strides, 3)
        self._set_kernel_bias(*kernel_bias)

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        axis = 4 if self.data_format == "NDHWC" else 1
        if input_shape.ndims != 5 or input_shape[axis].value is None:
            raise ValueError("Inputs should have rank 5 and a defined channel dimension. Received input shape: %s"
                             % input_shape)
        self._build_kernel_bias(list(self.kernel_size) + [self.filters, input_shape[axis].value], self.filters)

    def call(self, inputs):
        from tinyflow.ops.conv3d_ops import conv3d_transpose
        first = 1 if self.data_format == "NDHWC" else 2
        # unknown dimensions from tf.shape at run time, as TF's layer does
        shape = [d if d is not None else array_ops.shape(inputs)[i] for i, d in enumerate(inputs.shape.as_list())]
        dims = [_deconv_length(shape[first + i], k, s, self.padding, self.output_padding and self.output_padding[i])
                for i, (k, s) in enumerate(zip(self.kernel_size, self.strides))]
        out = [shape[0]] + dims + [self.filters] if first == 1 else [shape[0], self.filters] + dims
        outputs = conv3d_transpose(inputs, self.kernel, out, _window3d(self.strides, self.data_format), self.padding,
                                   self.data_format)
        outputs.set_shape([d if isinstance(d, int) else None for d in out])
        return self._bias_and_activation(outputs, "NHWC" if self.data_format == "NDHWC" else "NCHW")


def conv3d_transpose(inputs, filters, kernel_size, strides=(1, 1, 1), padding="valid", data_format="channels_last",
                     name=None, reuse=None, **kwargs):
    """Functional interface for Conv3DTranspose (variables "conv3d_transpose/kernel", ".../bias")."""
    return Conv3DTranspose(filters, kernel_size, strides, padding, data_format, name=name, _scope=name,
                           _reuse=reuse, **kwargs).apply(inputs)


class _Pooling3D(Layer):
    _pool = None

    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last", name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.pool_size = _tuple(pool_size, 3, "pool_size")
        self.strides = _tuple(strides if strides is not None else pool_size, 3, "strides")
        self.padding, self.data_format = _padding(padding), _fmt3d(data_format)

    def call(self, inputs):
        return getattr(nn, self._pool)(inputs, _window3d(self.pool_size, self.data_format),
                                       _window3d(self.strides, self.data_format), self.padding,
                                       data_format=self.data_format)


class MaxPooling3D(_Pooling3D):
    """Max over pool_size windows of a 5-D input."""
    _pool = "max_pool3d"


class AveragePooling3D(_Pooling3D):
    """Mean over pool_size windows of a 5-D input (SAME averages real elements only)."""
    _pool = "avg_pool3d"


def max_pooling3d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """Functional interface for 3-D max pooling."""
    return MaxPooling3D(pool_size, strides, padding=padding, data_format=data_format, name=name).apply(inputs)


def average_pooling3d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """Functional interface for 3-D average pooling."""
    return AveragePooling3D(pool_size, strides, padding=padding, data_format=data_format, name=name).apply(inputs)


__all__ += ["AveragePooling3D", "Conv3D", "Conv3DTranspose", "MaxPooling3D", "average_pooling3d", "conv3d",
            "conv3d_transpose", "max_pooling3d"]


# ---- separable convolutions (TF 1.15's tf.layers.SeparableConv1D / SeparableConv2D) -----------------------------
class SeparableConv2D(_KernelBiasLayer):
    """A depthwise convolution ([kh, kw, in, depth_multiplier] "depthwise_kernel") then a 1x1 pointwise one
    ([1, 1, in * depth_multiplier, filters] "pointwise_kernel"), plus bias and activation."""
    _rank = 2

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format="channels_last",
                 dilation_rate=1, depth_multiplier=1, depthwise_initializer=None, pointwise_initializer=None,
                 depthwise_regularizer=None, pointwise_regularizer=None, depthwise_constraint=None,
                 pointwise_constraint=None, **kwargs):
        kwargs.pop("kernel_initializer", None)
        kernel_bias = _kernel_bias_args(kwargs)
        super().__init__(**kwargs)
        r = self._rank
        self.filters, self.depth_multiplier = int(filters), int(depth_multiplier)
        self.kernel_size, self.strides = _tuple(kernel_size, r, "kernel_size"), _tuple(strides, r, "strides")
        self.dilation_rate = _tuple(dilation_rate, r, "dilation_rate")
        self.padding, self.data_format = _padding(padding), _data_format(data_format)
        self.depthwise_initializer = _get_initializer(depthwise_initializer)
        self.pointwise_initializer = _get_initializer(pointwise_initializer)
        self._regs = (depthwise_regularizer, pointwise_regularizer, depthwise_constraint, pointwise_constraint)
        self._set_kernel_bias(*kernel_bias)

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        axis = -1 if self.data_format == "NHWC" else 1
        if input_shape.ndims != self._rank + 2 or input_shape[axis].value is None:
            raise ValueError("Inputs to %s should have rank %d and a defined channel dimension, got shape %s"
                             % (type(self).__name__, self._rank + 2, input_shape))
        cin = input_shape[axis].value
        dreg, preg, dcon, pcon = self._regs
        self.depthwise_kernel = self.add_weight("depthwise_kernel",
                                                list(self.kernel_size) + [cin, self.depth_multiplier],
                                                initializer=self.depthwise_initializer, regularizer=dreg,
                                                constraint=dcon, dtype=self.dtype, trainable=True)
        self.pointwise_kernel = self.add_weight("pointwise_kernel",
                                                [1] * self._rank + [cin * self.depth_multiplier, self.filters],
                                                initializer=self.pointwise_initializer, regularizer=preg,
                                                constraint=pcon, dtype=self.dtype, trainable=True)
        if self.use_bias:
            self.bias = self.add_weight("bias", [self.filters], initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                        dtype=self.dtype, trainable=True)
        self.built = True

    def _separable(self, inputs, depthwise, pointwise, strides, rate):
        nhwc = self.data_format == "NHWC"
        return nn.separable_conv2d(inputs, depthwise, pointwise, [1, *strides, 1] if nhwc else [1, 1, *strides],
                                   self.padding, rate=rate, data_format=self.data_format)

    def call(self, inputs):
        outputs = self._separable(inputs, self.depthwise_kernel, self.pointwise_kernel, self.strides,
                                  self.dilation_rate)
        return self._bias_and_activation(outputs, self.data_format)


class SeparableConv1D(SeparableConv2D):
    """SeparableConv2D over one spatial axis: kernels [k, in, depth_multiplier] and [1, in * m, filters]."""
    _rank = 1

    def call(self, inputs):
        axis = 1 if self.data_format == "NHWC" else 2   # a height-1 image, as TF runs it
        outputs = self._separable(array_ops.expand_dims(inputs, axis), array_ops.expand_dims(self.depthwise_kernel, 0),
                                  array_ops.expand_dims(self.pointwise_kernel, 0), (1, self.strides[0]),
                                  (1, self.dilation_rate[0]))
        return self._bias_and_activation(array_ops.squeeze(outputs, [axis]), self.data_format)


def separable_conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
                     dilation_rate=(1, 1), depth_multiplier=1, name=None, reuse=None, **kwargs):
    """Functional interface for SeparableConv2D (variables "separable_conv2d/depthwise_kernel", ...)."""
    return SeparableConv2D(filters, kernel_size, strides, padding, data_format, dilation_rate, depth_multiplier,
                           name=name, _scope=name, _reuse=reuse, **kwargs).apply(inputs)


def separable_conv1d(inputs, filters, kernel_size, strides=1, padding="valid", data_format="channels_last",
                     dilation_rate=1, depth_multiplier=1, name=None, reuse=None, **kwargs):
    """Functional interface for SeparableConv1D (variables "separable_conv1d/depthwise_kernel", ...)."""
    return SeparableConv1D(filters, kernel_size, strides, padding, data_format, dilation_rate, depth_multiplier,
                           name=name, _scope=name, _reuse=reuse, **kwargs).apply(inputs)


__all__ += ["SeparableConv1D", "SeparableConv2D", "separable_conv1d", "separable_conv2d"]


class InputSpec:
    """What a layer accepts: dtype, shape, ndim / max_ndim / min_ndim and {axis: size} (TF's InputSpec)."""

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None, axes=None):
        self.dtype = None if dtype is None else dt.as_dtype(dtype).name
        self.shape = shape
        self.ndim = len(shape) if shape is not None else ndim
        self.max_ndim, self.min_ndim, self.axes = max_ndim, min_ndim, axes or {}

    def __repr__(self):
        spec = [("dtype=" + str(self.dtype)) if self.dtype else "", ("shape=" + str(self.shape)) if self.shape else "",
                ("ndim=" + str(self.ndim)) if self.ndim else "", ("max_ndim=" + str(self.max_ndim)) if self.max_ndim
                else "", ("min_ndim=" + str(self.min_ndim)) if self.min_ndim else "",
                ("axes=" + str(self.axes)) if self.axes else ""]
        return "InputSpec(%s)" % ", ".join(x for x in spec if x)


__all__ += ["InputSpec", "experimental"]


experimental = types.SimpleNamespace(keras_style_scope=keras_style_scope, set_keras_style=set_keras_style)
