"""tf.keras.layers' convolutions beyond Conv2D: DepthwiseConv2D, SeparableConv1D/2D (tf.layers' classes with
Keras' defaults, string arguments and TF 1.15's configs).

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


class DepthwiseConv2D(tf_layers.Conv2D, Layer):
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


class SeparableConv2D(_Separable, tf_layers.SeparableConv2D, Layer):
    """A depthwise convolution ([kh, kw, in, depth_multiplier] "depthwise_kernel") then a pointwise one
    ([1, 1, in * depth_multiplier, filters] "pointwise_kernel"), plus bias and activation."""


class SeparableConv1D(_Separable, tf_layers.SeparableConv1D, Layer):
    """SeparableConv2D over one spatial axis: [k, in, depth_multiplier] and [1, in * depth_multiplier, filters]."""


SeparableConvolution1D, SeparableConvolution2D = SeparableConv1D, SeparableConv2D
