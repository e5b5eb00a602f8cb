"""tf.keras.layers: Keras' layers on tinyflow's graph. Dense, Conv2D, pooling, Dropout, Flatten and
BatchNormalization are tf.layers' classes (as in TF 1.15, where tf.layers ARE Keras layers) with
Keras' defaults and string arguments ('relu', 'glorot_uniform'); the rest are Keras' own."""
import numpy as np

from tinyflow.api import layers as tf_layers
from tinyflow.api import nn
from tinyflow.api.keras import activations, initializers, regularizers
from tinyflow.api.keras import backend as K
from tinyflow.api.keras.engine import Input, InputLayer, Layer  # noqa: F401
from tinyflow.api.keras.layers_conv import (  # noqa: F401
    AveragePooling3D, AvgPool3D, Conv1D, Conv2DTranspose, Conv3D, Conv3DTranspose, Convolution2DTranspose,
    Convolution3D, Convolution3DTranspose, Cropping1D, Cropping2D, Cropping3D, Deconvolution2D, Deconvolution3D,
    DepthwiseConv2D, GlobalAveragePooling2D, GlobalAveragePooling3D, GlobalAvgPool2D, GlobalAvgPool3D,
    GlobalMaxPool2D, GlobalMaxPool3D, GlobalMaxPooling2D, GlobalMaxPooling3D, MaxPool3D, MaxPooling3D,
    SeparableConv1D, SeparableConv2D, SeparableConvolution1D, SeparableConvolution2D, UpSampling1D, UpSampling2D,
    UpSampling3D, ZeroPadding1D, ZeroPadding2D, ZeroPadding3D, keras_args)
from tinyflow.api.keras.layers_extra import (  # noqa: F401
    ELU, ActivityRegularization, AlphaDropout, Dot, GaussianDropout, GaussianNoise, InputSpec, LayerNormalization,
    PReLU, SpatialDropout1D, SpatialDropout2D, SpatialDropout3D, ThresholdedReLU, dot)
from tinyflow.api.keras.recurrent import (GRU, LSTM, RNN, CuDNNGRU, CuDNNLSTM, GRUCell, LSTMCell, Masking,  # noqa: F401
                                          AbstractRNNCell, SimpleRNN, SimpleRNNCell, StackedRNNCells)
from tinyflow.api.keras.wrappers import Bidirectional, TimeDistributed, Wrapper  # noqa: F401
from tinyflow.api.keras.conv_recurrent import ConvLSTM2D  # noqa: F401
from tinyflow.api.keras.layers_local import (AdditiveAttention, Attention, DenseFeatures,  # noqa: F401
                                             LocallyConnected1D, LocallyConnected2D)
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core import array_ops, math_ops


def _kernel_bias_args(kw):
    """Keras' string arguments (activation, initializers, regularizers) as the objects tf.layers takes."""
    return keras_args(**dict({"activation": None, "kernel_initializer": "glorot_uniform",
                              "bias_initializer": "zeros"}, **kw))


def _constraint(c):
    from tinyflow.api.keras import constraints
    return constraints.get(c)


class Dense(tf_layers.Dense, Layer):
    """activation(inputs @ kernel + bias); weights "dense/kernel:0", "dense/bias:0"."""

    supports_masking = True

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        kw = _kernel_bias_args(dict(activation=activation, kernel_initializer=kernel_initializer,
                                    bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                                    bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer))
        super().__init__(units, use_bias=use_bias, kernel_constraint=_constraint(kernel_constraint),
                         bias_constraint=_constraint(bias_constraint), **kw, **kwargs)
        self.input_spec = tf_layers.InputSpec(min_ndim=2)

    def build(self, input_shape):
        super().build(input_shape)
        self.input_spec = tf_layers.InputSpec(min_ndim=2, axes={-1: TensorShape(input_shape)[-1].value})

    def get_config(self):
        return dict(super().get_config(), units=self.units, activation=activations.serialize(self.activation),
                    use_bias=self.use_bias)


class Conv2D(tf_layers.Conv2D, Layer):
    """2-D convolution; Keras' defaults (glorot_uniform kernel, zero bias, 'valid', channels_last)."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1),
                 activation=None, use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, **kwargs):
        kw = _kernel_bias_args(dict(activation=activation, kernel_initializer=kernel_initializer,
                                    bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                                    bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer))
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format or K.image_data_format(), dilation_rate=dilation_rate,
                         use_bias=use_bias, kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         **kw, **kwargs)


class MaxPooling2D(tf_layers.MaxPooling2D, Layer):
    """Max over pool_size windows (strides default to pool_size)."""

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding=padding, data_format=data_format or K.image_data_format(),
                         **kwargs)


class AveragePooling2D(tf_layers.AveragePooling2D, Layer):
    """Mean over pool_size windows (strides default to pool_size)."""

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding=padding, data_format=data_format or K.image_data_format(),
                         **kwargs)


MaxPool2D, AvgPool2D = MaxPooling2D, AveragePooling2D


class Dropout(tf_layers.Dropout, Layer):
    """Drops a `rate` fraction of the inputs while training (Keras' learning phase by default)."""

    supports_masking = True

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(rate, noise_shape=noise_shape, seed=seed, **kwargs)

    def call(self, inputs, training=None):
        return super().call(inputs, training=K.learning_phase() if training is None else training)


class Flatten(tf_layers.Flatten, Layer):
    """[batch, ...] -> [batch, prod(...)]."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(data_format=data_format or K.image_data_format(), **kwargs)


class BatchNormalization(tf_layers.BatchNormalization, Layer):
    """Batch statistics while training (moving averages updated by fit), moving averages otherwise."""

    supports_masking = True

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 **kwargs):
        super().__init__(axis=axis, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
                         beta_initializer=initializers.get(beta_initializer),
                         gamma_initializer=initializers.get(gamma_initializer),
                         moving_mean_initializer=initializers.get(moving_mean_initializer),
                         moving_variance_initializer=initializers.get(moving_variance_initializer),
                         beta_regularizer=regularizers.get(beta_regularizer),
                         gamma_regularizer=regularizers.get(gamma_regularizer), beta_constraint=beta_constraint,
                         gamma_constraint=gamma_constraint, **kwargs)

    def call(self, inputs, training=None):
        return super().call(inputs, training=K.learning_phase() if training is None else training)


class Activation(Layer):
    """activation(inputs), the activation by name or function."""

    supports_masking = True

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)


class ReLU(Layer):
    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        self.max_value, self.negative_slope, self.threshold = max_value, negative_slope, threshold

    def call(self, inputs):
        return activations.relu(inputs, self.negative_slope, self.max_value, self.threshold)


class LeakyReLU(Layer):
    supports_masking = True
    def __init__(self, alpha=0.3, **kwargs):
        super().__init__(**kwargs)
        self.alpha = alpha

    def call(self, inputs):
        return nn.leaky_relu(inputs, alpha=self.alpha)


class Softmax(Layer):
    supports_masking = True
    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs):
        return nn.softmax(inputs, axis=self.axis)


class Reshape(Layer):
    """[batch, ...] -> [batch, *target_shape] (one -1 allowed)."""

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(target_shape)

    def call(self, inputs):
        target = self._fix(inputs.shape.as_list())
        if None not in target:
            return array_ops.reshape(inputs, [-1] + target)
        out = array_ops.reshape(inputs, array_ops.concat([array_ops.shape(inputs)[:1],
                                                          np.array(self.target_shape, np.int32)], 0))
        out.set_shape([inputs.shape[0].value] + target)
        return out

    def _fix(self, input_shape):
        shape = list(self.target_shape)
        if -1 in shape:
            known = int(np.prod([d for d in shape if d != -1]))
            total = TensorShape(input_shape[1:]).num_elements()
            if total is not None:
                shape[shape.index(-1)] = total // known
            else:
                shape[shape.index(-1)] = None
        return shape


class Permute(Layer):
    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(dims)

    def call(self, inputs):
        return array_ops.transpose(inputs, (0,) + self.dims)


class RepeatVector(Layer):
    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        self.n = n

    def call(self, inputs):
        return array_ops.tile(array_ops.expand_dims(inputs, 1), [1, self.n, 1])


class Lambda(Layer):
    """function(inputs, **arguments) as a layer."""

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        self.function, self.arguments = function, arguments or {}

    def call(self, inputs):
        return self.function(inputs, **self.arguments)

    def get_config(self):
        """TF 1.15's record: a named function by name; a lambda as its marshalled code (base64), which
        TF (of the same Python version) can load; tinyflow never runs it (load_model asks for
        custom_objects={layer name: function})."""
        import base64
        import marshal
        config = {"name": self.name, "trainable": self.trainable,
                  "dtype": self.dtype.name if self._dtype is not None else None}
        fn = self.function
        if getattr(fn, "__name__", "<lambda>") == "<lambda>" and hasattr(fn, "__code__"):
            closure = tuple(c.cell_contents for c in fn.__closure__) if fn.__closure__ else None
            config.update(function=[base64.encodebytes(marshal.dumps(fn.__code__)).decode("ascii"), fn.__defaults__,
                                    closure], function_type="lambda")
        else:
            config.update(function=getattr(fn, "__name__", str(fn)), function_type="function")
        config.update(module=getattr(fn, "__module__", None), output_shape=None, output_shape_type="raw",
                      output_shape_module=None, arguments=self.arguments)
        return config


class Embedding(Layer):
    """Rows of an [input_dim, output_dim] matrix "embedding/embeddings:0" looked up by integer ids."""

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform", embeddings_regularizer=None,
                 activity_regularizer=None, embeddings_constraint=None, mask_zero=False, input_length=None, **kwargs):
        if "input_shape" not in kwargs and "batch_input_shape" not in kwargs:   # TF 1.15: (None, input_length)
            kwargs["input_shape"] = (input_length,)
        super().__init__(activity_regularizer=regularizers.get(activity_regularizer), **kwargs)
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint, self.mask_zero, self.input_length = embeddings_constraint, mask_zero, input_length

    def build(self, input_shape):
        if self._dtype is None or not self._dtype.is_floating:
            from tinyflow.graph import dtypes as dt
            self._dtype = dt.as_dtype(K.floatx())
        self.embeddings = self.add_weight("embeddings", shape=[self.input_dim, self.output_dim],
                                          initializer=self.embeddings_initializer,
                                          regularizer=self.embeddings_regularizer,
                                          constraint=self.embeddings_constraint)
        self.built = True

    def call(self, inputs):
        if not inputs.dtype.is_integer:
            inputs = math_ops.cast(inputs, "int32")
        return nn.embedding_lookup(self.embeddings, inputs)

    def compute_mask(self, inputs, mask=None):
        """mask_zero: the ids that are not 0 (index 0 is padding)."""
        return math_ops.not_equal(inputs, 0) if self.mask_zero else None


# ---- merging ----------------------------------------------------------------------------------------
class _Merge(Layer):
    supports_masking = True

    def compute_mask(self, inputs, mask=None):
        """The steps every masked input keeps (TF 1.15: an input without a mask masks nothing)."""
        masks = [m for m in (mask or []) if m is not None]
        if not masks:
            return None
        return math_ops.reduce_all(array_ops.stack([math_ops.cast(m, "bool") for m in masks]), axis=0)

    def build(self, input_shape):
        if not isinstance(input_shape, (list, tuple)) or len(input_shape) < 2:
            raise ValueError("A merge layer should be called on a list of at least 2 inputs. Got %s inputs."
                             % (len(input_shape) if isinstance(input_shape, (list, tuple)) else 1))
        self.built = True

    def call(self, inputs):
        out = inputs[0]
        for x in inputs[1:]:
            out = self._merge(out, x)
        return out


class Add(_Merge):
    _merge = staticmethod(math_ops.add)


class Subtract(_Merge):
    _merge = staticmethod(math_ops.subtract)


class Multiply(_Merge):
    _merge = staticmethod(math_ops.multiply)


class Maximum(_Merge):
    _merge = staticmethod(math_ops.maximum)


class Minimum(_Merge):
    _merge = staticmethod(math_ops.minimum)


class Average(_Merge):
    def call(self, inputs):
        return super().call(inputs) / float(len(inputs))

    _merge = staticmethod(math_ops.add)


class Concatenate(_Merge):
    """Joins the inputs along `axis` (the last by default)."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs):
        return array_ops.concat(list(inputs), self.axis)


def _merge_function(cls):
    def merge(inputs, **kwargs):
        return cls(**kwargs)(inputs)
    merge.__name__ = cls.__name__.lower()
    merge.__doc__ = "Functional interface to the `%s` layer." % cls.__name__
    return merge


add, subtract, multiply, maximum, minimum, average = (_merge_function(c) for c in (Add, Subtract, Multiply, Maximum,
                                                                                    Minimum, Average))


def concatenate(inputs, axis=-1, **kwargs):
    """Functional interface to the `Concatenate` layer."""
    return Concatenate(axis=axis, **kwargs)(inputs)


# ---- 1-D pooling (tf.layers' classes, Keras' defaults; the convolutions are in layers_conv.py) ---------
class MaxPooling1D(tf_layers.MaxPooling1D, Layer):
    def __init__(self, pool_size=2, strides=None, padding="valid", data_format="channels_last", **kwargs):
        super().__init__(pool_size, strides if strides is not None else pool_size, padding=padding,
                         data_format=data_format, **kwargs)


class AveragePooling1D(tf_layers.AveragePooling1D, Layer):
    def __init__(self, pool_size=2, strides=None, padding="valid", data_format="channels_last", **kwargs):
        super().__init__(pool_size, strides if strides is not None else pool_size, padding=padding,
                         data_format=data_format, **kwargs)


class GlobalAveragePooling1D(Layer):
    def __init__(self, data_format="channels_last", **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format

    def call(self, inputs):
        return math_ops.reduce_mean(inputs, axis=1 if self.data_format == "channels_last" else 2)


class GlobalMaxPooling1D(GlobalAveragePooling1D):
    def call(self, inputs):
        return math_ops.reduce_max(inputs, axis=1 if self.data_format == "channels_last" else 2)


MaxPool1D, AvgPool1D, Convolution1D, Convolution2D = MaxPooling1D, AveragePooling1D, Conv1D, Conv2D
GlobalAvgPool1D, GlobalMaxPool1D = GlobalAveragePooling1D, GlobalMaxPooling1D
