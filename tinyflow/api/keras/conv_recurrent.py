"""tf.keras.layers.ConvLSTM2D (TF 1.15): an LSTM whose input and recurrent transforms are 2-D convolutions, run
over the time axis of [batch, time, rows, cols, channels] (channels_first: [batch, time, channels, rows, cols]).
Its weights are TF's: kernel [kh, kw, in, 4 * filters], recurrent_kernel [kh, kw, filters, 4 * filters] and bias
[4 * filters], gates in TF's order i, f, c, o, so get_weights / set_weights and .h5 files match TF's."""
import numpy as np

from tinyflow.api.keras import activations, constraints, initializers, regularizers
from tinyflow.api.keras.config import base_config, serialize_value
from tinyflow.api.keras.engine import Layer
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops import conv_ops
from tinyflow.ops.core import array_ops, math_ops


def _pair(value):
    return (int(value),) * 2 if isinstance(value, int) else tuple(int(v) for v in value)


class ConvLSTM2D(Layer):
    """Per step: z = conv(x, kernel) + bias + conv_same(h, recurrent_kernel), split into gates i, f, c, o;
    c = f * c + i * activation(z_c), h = o * activation(c). The states start at zeros of the output's shape."""

    _fields = ("filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate", "activation",
               "recurrent_activation", "use_bias", "kernel_initializer", "recurrent_initializer", "bias_initializer",
               "unit_forget_bias", "kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
               "activity_regularizer", "kernel_constraint", "recurrent_constraint", "bias_constraint", "dropout",
               "recurrent_dropout")

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1),
                 activation="tanh", recurrent_activation="hard_sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
                 return_sequences=False, return_state=False, go_backwards=False, stateful=False, dropout=0.,
                 recurrent_dropout=0., **kwargs):
        super().__init__(activity_regularizer=regularizers.get(activity_regularizer), **kwargs)
        if stateful or dropout or recurrent_dropout:
            raise NotImplementedError("tinyflow's ConvLSTM2D has no stateful mode and no dropout (TF 1.15 has them): "
                                      "stateful=%s, dropout=%s, recurrent_dropout=%s" % (stateful, dropout,
                                                                                         recurrent_dropout))
        self.filters, self.kernel_size, self.strides = int(filters), _pair(kernel_size), _pair(strides)
        self.padding, self.dilation_rate = padding.lower(), _pair(dilation_rate)
        self.data_format = data_format or "channels_last"
        self.activation, self.recurrent_activation = activations.get(activation), activations.get(recurrent_activation)
        self.use_bias, self.unit_forget_bias = use_bias, unit_forget_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.return_sequences, self.return_state, self.go_backwards = return_sequences, return_state, go_backwards
        self.stateful, self.unroll, self.time_major = False, False, False
        self.dropout = self.recurrent_dropout = 0.

    def build(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        if len(dims) != 5:
            raise ValueError("Input 0 of layer %s is incompatible with the layer: expected ndim=5, found ndim=%d. "
                             "Full shape received: %s" % (self.name, len(dims), input_shape))
        channels = dims[2] if self.data_format == "channels_first" else dims[-1]
        if channels is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
        n = 4 * self.filters
        self.kernel = self.add_weight("kernel", shape=self.kernel_size + (channels, n),
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight("recurrent_kernel", shape=self.kernel_size + (self.filters, n),
                                                initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint)
        self.bias = None
        if self.use_bias:
            base, f = self.bias_initializer, self.filters

            def forget_ones(shape, dtype=None, partition_info=None):   # TF's: zeros, ones (forget gate), zeros
                return array_ops.concat([math_ops.cast(base([f], dtype=dtype), dtype), np.ones([f], "float32"),
                                         math_ops.cast(base([2 * f], dtype=dtype), dtype)], 0)
            self.bias = self.add_weight("bias", shape=[n], initializer=forget_ones if self.unit_forget_bias else base,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        self.built = True

    def _conv(self, x, w, strides, padding, dilation):
        return conv_ops.conv2d(x, w, strides=[1, strides[0], strides[1], 1], padding=padding.upper(),
                               dilations=[1, dilation[0], dilation[1], 1])

    def call(self, inputs, mask=None, training=None, initial_state=None):
        if isinstance(inputs, (list, tuple)):
            inputs, initial_state = inputs[0], list(inputs[1:])
        if self.data_format == "channels_first":   # steps computed channels_last (NHWC), as XLA's CPU prefers
            inputs = array_ops.transpose(inputs, [0, 1, 3, 4, 2])
        if inputs.shape[1].value is None:
            raise ValueError("%s: the number of timesteps must be known (got input shape %s)" % (self.name,
                                                                                                 inputs.shape))
        xs = array_ops.unstack(inputs, axis=1)
        if self.go_backwards:
            xs = xs[::-1]
        if initial_state:
            states = list(initial_state)
            if self.data_format == "channels_first":
                states = [array_ops.transpose(s, [0, 2, 3, 1]) for s in states]
        else:   # TF's: the convolution of zeros with a zero kernel, for the output's shape
            zero_kernel = array_ops.zeros(list(self.kernel_size) + [xs[0].shape[-1].value, self.filters],
                                          dtype=inputs.dtype)
            zero = self._conv(array_ops.zeros_like(xs[0]), zero_kernel, self.strides, self.padding, self.dilation_rate)
            states = [zero, zero]
        f, rec, act = self.filters, self.recurrent_activation, self.activation
        outputs = []
        for x in xs:
            h, c = states
            z = self._conv(x, self.kernel, self.strides, self.padding, self.dilation_rate)
            if self.bias is not None:
                z = conv_ops.bias_add(z, self.bias)
            z = z + self._conv(h, self.recurrent_kernel, (1, 1), "same", (1, 1))
            i, fg, o = rec(z[..., :f]), rec(z[..., f:2 * f]), rec(z[..., 3 * f:])
            c = fg * c + i * act(z[..., 2 * f:3 * f])
            h = o * act(c)
            states = [h, c]
            outputs.append(h)
        result = array_ops.stack(outputs, axis=1) if self.return_sequences else outputs[-1]
        if self.data_format == "channels_first":
            result = array_ops.transpose(result, [0, 1, 4, 2, 3] if self.return_sequences else [0, 3, 1, 2])
            states = [array_ops.transpose(s, [0, 3, 1, 2]) for s in states]
        return [result] + states if self.return_state else result

    def get_config(self):
        config = base_config(self)
        config.update(return_sequences=self.return_sequences, return_state=self.return_state,
                      go_backwards=self.go_backwards, stateful=False, unroll=False, time_major=False)
        config.update((k, serialize_value(k, getattr(self, k))) for k in self._fields)
        return config
