"""tf.keras.layers SimpleRNN, LSTM and GRU as TF 1.15 (graph mode) has them: the v1 layers, with
weights "<name>/kernel", "<name>/recurrent_kernel", "<name>/bias" (gates side by side: LSTM i, f, c, o;
GRU z, r, h with reset_after=False), recurrent_activation 'hard_sigmoid', LSTM's unit forget bias.

The time loop is unrolled while building (the sequence length must be known): XLA fuses the steps
of one jitted function, and the gradient is the ordinary graph gradient of the unrolled steps.
"""
import numpy as np

from tinyflow.api.keras import activations, initializers, regularizers
from tinyflow.api.keras.engine import Layer
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core import array_ops, math_ops


class RNN(Layer):
    """The shared loop: `_gates` columns per unit, `_step(x_proj_t, states) -> (output, states)`."""

    _gates = 1
    _n_states = 1

    def __init__(self, units, activation="tanh", recurrent_activation="hard_sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, return_sequences=False, return_state=False, go_backwards=False, stateful=False,
                 unroll=False, **kwargs):
        for k in ("implementation", "unit_forget_bias", "reset_after"):
            kwargs.pop(k, None)
        if kwargs.pop("time_major", False):
            raise NotImplementedError("time_major RNN layers are not supported yet")
        super().__init__(activity_regularizer=regularizers.get(activity_regularizer), **kwargs)
        if dropout or recurrent_dropout or stateful:
            raise NotImplementedError("dropout, recurrent_dropout and stateful RNN layers are not supported yet")
        self.units = int(units)
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint, self.recurrent_constraint = kernel_constraint, recurrent_constraint
        self.bias_constraint = bias_constraint
        self.return_sequences, self.return_state, self.go_backwards = return_sequences, return_state, go_backwards

    def _bias_initializer(self):
        return self.bias_initializer

    def get_config(self):
        config = dict(super().get_config(), time_major=False)
        if self._gates > 1:
            config["implementation"] = 1
        return config

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        if input_shape.ndims != 3:
            raise ValueError("Input 0 of layer %s is incompatible with the layer: expected ndim=3, found ndim=%s. "
                             "Full shape received: %s" % (self.name, input_shape.ndims, input_shape))
        n = self.units * self._gates
        self.kernel = self.add_weight("kernel", shape=[input_shape[-1].value, n], initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight("recurrent_kernel", shape=[self.units, n],
                                                initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=[n], initializer=self._bias_initializer(),
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        self.built = True

    def _u(self, i):
        """The recurrent kernel's columns of gate i."""
        return self.recurrent_kernel[:, i * self.units:(i + 1) * self.units]

    def call(self, inputs, mask=None, training=None, initial_state=None):
        steps = inputs.shape[1].value
        if steps is None:
            raise ValueError("%s: the number of timesteps must be known (got input shape %s)" % (self.name,
                                                                                                 inputs.shape))
        xs = array_ops.unstack(inputs, axis=1)
        if self.go_backwards:
            xs = xs[::-1]
        batch = array_ops.shape(inputs)[0]
        zeros = array_ops.zeros(array_ops.stack([batch, self.units]), dtype=inputs.dtype.base_dtype)
        states = list(initial_state) if initial_state is not None else [zeros] * self._n_states
        outputs = []
        for x in xs:
            proj = math_ops.matmul(x, self.kernel)
            if self.bias is not None:
                proj = proj + self.bias
            out, states = self._step(proj, states)
            out.set_shape([inputs.shape[0].value, self.units])
            outputs.append(out)
        result = array_ops.stack(outputs, axis=1) if self.return_sequences else outputs[-1]
        return [result] + list(states) if self.return_state else result


class SimpleRNN(RNN):
    """h = activation(x @ kernel + bias + h @ recurrent_kernel)."""

    _config_skip = ("recurrent_activation",)

    def __init__(self, units, activation="tanh", **kwargs):
        kwargs.pop("recurrent_activation", None)
        super().__init__(units, activation=activation, **kwargs)

    def _step(self, proj, states):
        h = self.activation(proj + math_ops.matmul(states[0], self.recurrent_kernel))
        return h, [h]


class LSTM(RNN):
    """Gates i, f, c, o: c = f * c + i * tanh(.), h = o * tanh(c); the forget bias starts at 1."""

    _gates, _n_states = 4, 2

    def __init__(self, units, unit_forget_bias=True, **kwargs):
        super().__init__(units, **kwargs)
        self.unit_forget_bias = unit_forget_bias

    def _bias_initializer(self):
        if not self.unit_forget_bias:
            return self.bias_initializer
        units, base = self.units, self.bias_initializer

        def init(shape, dtype=None, partition_info=None):
            parts = [base([units], dtype=dtype), np.ones([units], dtype="float32"), base([units * 2], dtype=dtype)]
            return array_ops.concat([math_ops.cast(p, dtype) for p in parts], 0)
        return init

    def _step(self, proj, states):
        h, c = states
        u = self.units
        rec = math_ops.matmul(h, self.recurrent_kernel)
        z = proj + rec
        i = self.recurrent_activation(z[:, :u])
        f = self.recurrent_activation(z[:, u:2 * u])
        c = f * c + i * self.activation(z[:, 2 * u:3 * u])
        o = self.recurrent_activation(z[:, 3 * u:])
        h = o * self.activation(c)
        return h, [h, c]


class GRU(RNN):
    """Gates z, r, h (reset before the recurrent product): h = z * h + (1 - z) * activation(.)."""

    _gates = 3

    def __init__(self, units, reset_after=False, **kwargs):
        if reset_after:
            raise NotImplementedError("GRU(reset_after=True) is not supported yet")
        super().__init__(units, **kwargs)

    def _step(self, proj, states):
        h = states[0]
        u = self.units
        rec_zr = math_ops.matmul(h, self.recurrent_kernel[:, :2 * u])
        z = self.recurrent_activation(proj[:, :u] + rec_zr[:, :u])
        r = self.recurrent_activation(proj[:, u:2 * u] + rec_zr[:, u:])
        hh = self.activation(proj[:, 2 * u:] + math_ops.matmul(r * h, self._u(2)))
        h = z * h + (1.0 - z) * hh
        return h, [h]
