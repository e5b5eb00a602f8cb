"""More of tf.layers: Conv2DTranspose, Conv1D and 1-D pooling, with TF 1.15's variable names
("conv2d_transpose/kernel", "conv1d/kernel") and output sizes. Loaded into tf.layers by layers.py."""
from tinyflow.api import nn
from tinyflow.api.layers import Layer, _KernelBiasLayer, _data_format, _padding, _tuple
from tinyflow.ops import array_ops, init_ops

__all__ = ["Conv2DTranspose", "Conv1D", "MaxPooling1D", "AveragePooling1D", "conv2d_transpose", "conv1d",
           "max_pooling1d", "average_pooling1d"]


def _kernel_bias_args(kwargs):
    names = ("activation", "use_bias", "kernel_initializer", "bias_initializer", "kernel_regularizer",
             "bias_regularizer", "kernel_constraint", "bias_constraint")
    defaults = (None, True, None, init_ops.zeros_initializer(), None, None, None, None)
    return [kwargs.pop(n, d) for n, d in zip(names, defaults)]


def _deconv_length(n, kernel, stride, padding):
    """TF's conv_utils.deconv_output_length (no output_padding)."""
    if n is None:
        return None
    return n * stride if padding == "SAME" else n * stride + max(kernel - stride, 0)


class Conv2DTranspose(_KernelBiasLayer):
    """The transpose of a 2-D convolution: a [kh, kw, filters, in] kernel, output `strides` times larger."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last", **kwargs):
        kernel_bias = _kernel_bias_args(kwargs)
        super().__init__(**kwargs)
        self.filters = int(filters)
        self.kernel_size, self.strides = _tuple(kernel_size, 2, "kernel_size"), _tuple(strides, 2, "strides")
        self.padding, self.data_format = _padding(padding), _data_format(data_format)
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
            dims.append(_deconv_length(n, k, s, self.padding) if n is not None else
                        _deconv_length(array_ops.shape(inputs)[h_axis + i], k, s, self.padding))
        batch = inputs.shape[0].value if inputs.shape[0].value is not None else array_ops.shape(inputs)[0]
        out = [batch] + dims + [self.filters] if nhwc else [batch, self.filters] + dims
        strides = [1, *self.strides, 1] if nhwc else [1, 1, *self.strides]
        outputs = nn.conv2d_transpose(inputs, self.kernel, out, strides, padding=self.padding,
                                      data_format=self.data_format)
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
