"""tf.keras.layers' convolutions, pooling and shape layers beyond Conv2D: DepthwiseConv2D, SeparableConv1D/2D,
Conv1D (with 'causal'), Conv2DTranspose (output_padding, dilation_rate), Conv3D, Conv3DTranspose, 3-D and
global pooling, ZeroPadding1D/2D/3D, Cropping1D/2D/3D and UpSampling1D/2D/3D, with Keras' defaults, string
arguments and TF 1.15's configs.

As in TF 1.15 a Keras layer here IS the tf.layers class of the same name (variables, shapes and ops come
from tinyflow/api/layers.py); this module adds Keras' constructor signatures, the `data_format=None`
default (K.image_data_format()) and the config entries TF 1.15 writes beyond the constructor's arguments.
"""
from tinyflow.api import layers as tf_layers
from tinyflow.api import nn
from tinyflow.api.keras import activations, constraints, initializers, regularizers
from tinyflow.api.keras import backend as K
from tinyflow.api.keras.config import layer_config, serialize_value
from tinyflow.api.keras.engine import Layer
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core import array_ops, math_ops


def keras_args(**kw):
    """Keras' arguments as the objects tf.layers takes: the activation by name, initializers, regularizers and
    constraints by name, record or object (ValueError for an unknown name, as Keras)."""
    out = {}
    for k, v in kw.items():
        if k == "activation":
            v = activations.get(v)
        elif k.endswith("_initializer"):
            v = initializers.get(v)
        elif k.endswith("_regularizer"):
            v = regularizers.get(v)
        elif k.endswith("_constraint"):
            v = constraints.get(v)
        out[k] = v
    return out


def _config(layer, **extra):
    """layer_config plus entries TF 1.15 writes that are not constructor arguments (they come from **kwargs)."""
    config = layer_config(layer)
    config.update((k, serialize_value(k, v)) for k, v in extra.items())
    return config


class _Shape:
    """compute_output_shape from the layer's rule for one spatial length (`_length(i, n)`, i the spatial axis) and
    for the channels (`_channels(c)`)."""

    def compute_output_shape(self, input_shape):
        shape = TensorShape(input_shape).as_list()
        last = getattr(self, "data_format", "channels_last") in ("channels_last", "NWC", "NHWC", "NDHWC")
        first = 1 if last else 2
        for i in range(len(shape) - 2):
            shape[first + i] = None if shape[first + i] is None else self._length(i, shape[first + i])
        channel = -1 if last else 1
        shape[channel] = self._channels(shape[channel])
        return TensorShape(shape)

    def _channels(self, c):
        return c


def _conv_length(n, k, padding, stride, dilation=1):
    """TF's conv_utils.conv_output_length."""
    k = k + (k - 1) * (dilation - 1)
    return ((n if padding.lower() in ("same", "causal") else n - k + 1) + stride - 1) // stride


class _ConvShape(_Shape):
    def _length(self, i, n):
        padding = "causal" if getattr(self, "_causal", False) else self.padding
        return _conv_length(n, self.kernel_size[i], padding, self.strides[i], self.dilation_rate[i])

    def _channels(self, c):
        return self.filters if self.filters is not None else None if c is None else c * self.depth_multiplier


class _DeconvShape(_Shape):
    def _length(self, i, n):
        return tf_layers._deconv_length(n, self.kernel_size[i], self.strides[i], self.padding,
                                        self.output_padding and self.output_padding[i],
                                        getattr(self, "dilation_rate", (1, 1, 1))[i])

    def _channels(self, c):
        return self.filters


class _PoolShape(_Shape):
    def _length(self, i, n):
        return _conv_length(n, self.pool_size[i], self.padding, self.strides[i])


class DepthwiseConv2D(_ConvShape, tf_layers.Conv2D, Layer):
    """Each input channel convolved with its own `depth_multiplier` filters: a [kh, kw, in, depth_multiplier]
    "depthwise_kernel", then bias (in * depth_multiplier values) and activation. `dilation_rate` goes through
    **kwargs as in TF 1.15 (whose config records it)."""

    def __init__(self, kernel_size, strides=(1, 1), padding="valid", depth_multiplier=1, data_format=None,
                 activation=None, use_bias=True, depthwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, bias_constraint=None, **kwargs):
        dilation_rate = kwargs.pop("dilation_rate", (1, 1))
        kw = keras_args(activation=activation, bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                        activity_regularizer=activity_regularizer, bias_constraint=bias_constraint)
        super().__init__(0, kernel_size, strides=strides, padding=padding,
                         data_format=data_format or K.image_data_format(), dilation_rate=dilation_rate,
                         use_bias=use_bias, **kw, **kwargs)
        self.filters, self.depth_multiplier = None, int(depth_multiplier)
        d = keras_args(depthwise_initializer=depthwise_initializer, depthwise_regularizer=depthwise_regularizer,
                       depthwise_constraint=depthwise_constraint)
        self.depthwise_initializer = d["depthwise_initializer"]
        self.depthwise_regularizer, self.depthwise_constraint = d["depthwise_regularizer"], d["depthwise_constraint"]

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        if input_shape.ndims != 4:
            raise ValueError("Inputs to `DepthwiseConv2D` should have rank 4. Received input shape: %s" % input_shape)
        channels = input_shape[3 if self.data_format == "NHWC" else 1].value
        if channels is None:
            raise ValueError("The channel dimension of the inputs to `DepthwiseConv2D` should be defined. "
                             "Found `None`.")
        self.depthwise_kernel = self.add_weight("depthwise_kernel",
                                                list(self.kernel_size) + [channels, self.depth_multiplier],
                                                initializer=self.depthwise_initializer,
                                                regularizer=self.depthwise_regularizer,
                                                constraint=self.depthwise_constraint)
        if self.use_bias:
            self.bias = self.add_weight("bias", [channels * self.depth_multiplier], initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        self.built = True

    def call(self, inputs):
        outputs = nn.depthwise_conv2d(inputs, self.depthwise_kernel, self._spatial(self.strides), self.padding,
                                      rate=self.dilation_rate, data_format=self.data_format)
        return self._bias_and_activation(outputs, self.data_format)

    def get_config(self):
        return _config(self, dilation_rate=self.dilation_rate)


class _Separable:
    """Keras' constructor of SeparableConv1D / SeparableConv2D (the tf.layers class follows in the MRO). TF 1.15
    takes kernel_initializer / kernel_regularizer / kernel_constraint through **kwargs, unused, and writes them in
    the config."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 depth_multiplier=1, activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 pointwise_initializer="glorot_uniform", bias_initializer="zeros", depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None, **kwargs):
        unused = keras_args(kernel_initializer=kwargs.pop("kernel_initializer", "glorot_uniform"),
                            kernel_regularizer=kwargs.pop("kernel_regularizer", None),
                            kernel_constraint=kwargs.pop("kernel_constraint", None))
        kw = keras_args(activation=activation, depthwise_initializer=depthwise_initializer,
                        pointwise_initializer=pointwise_initializer, bias_initializer=bias_initializer,
                        depthwise_regularizer=depthwise_regularizer, pointwise_regularizer=pointwise_regularizer,
                        bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
                        depthwise_constraint=depthwise_constraint, pointwise_constraint=pointwise_constraint,
                        bias_constraint=bias_constraint)
        super().__init__(filters, kernel_size, strides, padding, data_format or K.image_data_format(), dilation_rate,
                         depth_multiplier, use_bias=use_bias, **kw, **kwargs)
        for k in ("depthwise_regularizer", "pointwise_regularizer", "depthwise_constraint", "pointwise_constraint"):
            setattr(self, k, kw[k])   # the config's values (tf.layers keeps them as a tuple)
        self._unused_kernel_args = unused

    def get_config(self):
        return _config(self, **self._unused_kernel_args)


class SeparableConv2D(_Separable, _ConvShape, tf_layers.SeparableConv2D, Layer):
    """A depthwise convolution ([kh, kw, in, depth_multiplier] "depthwise_kernel") then a pointwise one
    ([1, 1, in * depth_multiplier, filters] "pointwise_kernel"), plus bias and activation."""


class SeparableConv1D(_Separable, _ConvShape, tf_layers.SeparableConv1D, Layer):
    """SeparableConv2D over one spatial axis: [k, in, depth_multiplier] and [1, in * depth_multiplier, filters]."""


SeparableConvolution1D, SeparableConvolution2D = SeparableConv1D, SeparableConv2D


# ---- convolutions with Keras' full signatures (tf.layers' Conv1D, Conv2DTranspose, Conv3D, Conv3DTranspose) -------
class Conv1D(_ConvShape, tf_layers.Conv1D, Layer):
    """1-D convolution of [batch, steps, channels]; padding 'causal' pads the start only (dilation * (k - 1))."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format="channels_last", dilation_rate=1,
                 activation=None, use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, **kwargs):
        self._causal = isinstance(padding, str) and padding.lower() == "causal"
        kw = keras_args(activation=activation, kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                        kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                        activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
                        bias_constraint=bias_constraint)
        super().__init__(filters, kernel_size, strides, "valid" if self._causal else padding, data_format,
                         dilation_rate, use_bias=use_bias, **kw, **kwargs)

    def call(self, inputs):
        if self._causal:
            pad = [[0, 0], [self.dilation_rate[0] * (self.kernel_size[0] - 1), 0]]
            inputs = array_ops.pad(inputs, pad + [[0, 0]] if self.data_format == "NWC" else [[0, 0]] + pad)
        return super().call(inputs)

    def get_config(self):
        return _config(self, padding="causal") if self._causal else _config(self)


class Conv2DTranspose(_DeconvShape, tf_layers.Conv2DTranspose, Layer):
    """The transpose of Conv2D (a [kh, kw, filters, in] kernel); output_padding adds rows / columns at the end."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", output_padding=None, data_format=None,
                 dilation_rate=(1, 1), activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        kw = keras_args(activation=activation, kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                        kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                        activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
                        bias_constraint=bias_constraint)
        super().__init__(filters, kernel_size, strides, padding, data_format or K.image_data_format(),
                         output_padding=output_padding, dilation_rate=dilation_rate, use_bias=use_bias, **kw, **kwargs)


class Conv3D(_ConvShape, tf_layers.Conv3D, Layer):
    """3-D convolution with a [kd, kh, kw, in, filters] kernel."""

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1, 1), activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        kw = keras_args(activation=activation, kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                        kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                        activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
                        bias_constraint=bias_constraint)
        super().__init__(filters, kernel_size, strides, padding, data_format or K.image_data_format(), dilation_rate,
                         use_bias=use_bias, **kw, **kwargs)


class Conv3DTranspose(_DeconvShape, tf_layers.Conv3DTranspose, Layer):
    """The transpose of Conv3D (a [kd, kh, kw, filters, in] kernel)."""

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid", output_padding=None,
                 data_format=None, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        kw = keras_args(activation=activation, kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                        kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                        activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
                        bias_constraint=bias_constraint)
        super().__init__(filters, kernel_size, strides, padding, data_format or K.image_data_format(),
                         output_padding=output_padding, use_bias=use_bias, **kw, **kwargs)


# ---- 3-D pooling, global pooling ---------------------------------------------------------------------------
class MaxPooling3D(_PoolShape, tf_layers.MaxPooling3D, Layer):
    """Max over pool_size windows of a 5-D input (strides default to pool_size)."""

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding=padding, data_format=data_format or K.image_data_format(),
                         **kwargs)


class AveragePooling3D(_PoolShape, tf_layers.AveragePooling3D, Layer):
    """Mean over pool_size windows of a 5-D input (strides default to pool_size)."""

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding=padding, data_format=data_format or K.image_data_format(),
                         **kwargs)


class GlobalAveragePooling2D(Layer):
    """The mean over the spatial axes: [batch, ..., channels] -> [batch, channels]."""
    _rank, _reduce = 2, staticmethod(math_ops.reduce_mean)

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format or K.image_data_format()

    def call(self, inputs):
        first = 1 if self.data_format == "channels_last" else 2
        return self._reduce(inputs, axis=list(range(first, first + self._rank)))

    def compute_output_shape(self, input_shape):
        shape = TensorShape(input_shape).as_list()
        return TensorShape([shape[0], shape[-1] if self.data_format == "channels_last" else shape[1]])


class GlobalMaxPooling2D(GlobalAveragePooling2D):
    """The max over the spatial axes."""
    _reduce = staticmethod(math_ops.reduce_max)


class GlobalAveragePooling3D(GlobalAveragePooling2D):
    """The mean over the 3 spatial axes of a 5-D input."""
    _rank = 3


class GlobalMaxPooling3D(GlobalMaxPooling2D):
    """The max over the 3 spatial axes of a 5-D input."""
    _rank = 3


MaxPool3D, AvgPool3D, Convolution3D, Convolution2DTranspose = MaxPooling3D, AveragePooling3D, Conv3D, Conv2DTranspose
Convolution3DTranspose, Deconvolution2D, Deconvolution3D = Conv3DTranspose, Conv2DTranspose, Conv3DTranspose
GlobalAvgPool2D, GlobalMaxPool2D = GlobalAveragePooling2D, GlobalMaxPooling2D
GlobalAvgPool3D, GlobalMaxPool3D = GlobalAveragePooling3D, GlobalMaxPooling3D


# ---- padding, cropping, upsampling -------------------------------------------------------------------------
def _pairs(value, rank, what, layer):
    """An int, `rank` ints or `rank` (before, after) pairs as `rank` pairs (Keras' padding / cropping)."""
    if isinstance(value, int):
        return ((value, value),) * rank
    value = tuple(value)
    if rank == 1 and len(value) == 2 and all(isinstance(v, int) for v in value):
        return (value,)
    if len(value) == rank:
        out = []
        for v in value:
            if isinstance(v, int):
                out.append((v, v))
            elif len(tuple(v)) == 2 and all(isinstance(i, int) for i in v):
                out.append(tuple(v))
            else:
                break
        else:
            return tuple(out)
    raise ValueError("`%s` of %s should be an int, a tuple of %d ints or a tuple of %d tuples of 2 ints. Found: %s"
                     % (what, layer, rank, rank, value))


class ZeroPadding2D(_Shape, Layer):
    """Pads rows and columns with zeros: an int, (rows, cols) or ((top, bottom), (left, right))."""
    _rank = 2

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format or K.image_data_format()
        self.padding = _pairs(padding, self._rank, "padding", type(self).__name__)

    def call(self, inputs):
        return K.spatial_2d_padding(inputs, self.padding, self.data_format)

    def _length(self, i, n):
        pair = self.padding if self._rank == 1 else self.padding[i]
        return n + pair[0] + pair[1]


class ZeroPadding1D(ZeroPadding2D):
    """Pads the steps of [batch, steps, channels]: an int or (start, end)."""
    _rank, _config_skip = 1, ("data_format",)

    def __init__(self, padding=1, **kwargs):
        super().__init__(padding, "channels_last", **kwargs)
        self.padding = self.padding[0]   # TF keeps (start, end)

    def call(self, inputs):
        return K.temporal_padding(inputs, self.padding)


class ZeroPadding3D(ZeroPadding2D):
    """Pads the 3 spatial axes of a 5-D input."""
    _rank = 3

    def __init__(self, padding=(1, 1, 1), data_format=None, **kwargs):
        super().__init__(padding, data_format, **kwargs)

    def call(self, inputs):
        return K.spatial_3d_padding(inputs, self.padding, self.data_format)


class Cropping2D(_Shape, Layer):
    """Crops rows and columns: an int, (rows, cols) or ((top, bottom), (left, right))."""
    _rank = 2

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format or K.image_data_format()
        self.cropping = _pairs(cropping, self._rank, "cropping", type(self).__name__)

    def _crops(self):
        return self.cropping

    def _length(self, i, n):
        return n - sum(self._crops()[i])

    def call(self, inputs):
        index = [slice(None)] * inputs.shape.ndims
        first = 1 if self.data_format == "channels_last" else 2
        for axis, (start, end) in enumerate(self._crops(), start=first):
            index[axis] = slice(start, -end if end else None)
        return inputs[tuple(index)]


class Cropping1D(Cropping2D):
    """Crops the steps of [batch, steps, channels]: an int or (start, end)."""
    _rank, _config_skip = 1, ("data_format",)

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(cropping, "channels_last", **kwargs)
        self.cropping = self.cropping[0]

    def _crops(self):
        return (self.cropping,)


class Cropping3D(Cropping2D):
    """Crops the 3 spatial axes of a 5-D input."""
    _rank = 3

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(cropping, data_format, **kwargs)


class UpSampling2D(_Shape, Layer):
    """Repeats rows and columns `size` times ('nearest'), or resizes bilinearly as TF 1.15 (half-pixel centers,
    corners not aligned)."""
    _rank = 2

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format or K.image_data_format()
        self.size = tf_layers._tuple(size, self._rank, "size")
        if interpolation not in ("nearest", "bilinear"):
            raise ValueError("interpolation should be one of \"nearest\" or \"bilinear\".")
        self.interpolation = interpolation

    def call(self, inputs):
        return K.resize_images(inputs, self.size[0], self.size[1], self.data_format, self.interpolation)

    def _length(self, i, n):
        return n * (self.size if self._rank == 1 else self.size[i])


class UpSampling1D(UpSampling2D):
    """Repeats each step of [batch, steps, channels] `size` times."""
    _rank, _config_skip = 1, ("data_format", "interpolation")   # TF 1.15's UpSampling1D has neither

    def __init__(self, size=2, **kwargs):
        super().__init__(size, "channels_last", **kwargs)
        self.size = self.size[0]

    def call(self, inputs):
        return K.repeat_elements(inputs, self.size, 1)


class UpSampling3D(UpSampling2D):
    """Repeats the 3 spatial axes of a 5-D input `size` times."""
    _rank, _config_skip = 3, ("interpolation",)

    def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
        super().__init__(size, data_format, **kwargs)

    def call(self, inputs):
        return K.resize_volumes(inputs, *self.size, self.data_format)
