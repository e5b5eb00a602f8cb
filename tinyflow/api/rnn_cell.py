"""tf.nn.rnn_cell: TF 1.15's RNN cells, with TF's math, defaults and variable names.

A cell is a layer (layers.py): its variables are made on its first call, in its own scope
("rnn/basic_lstm_cell/kernel"), and reused by every later call, so one cell serves every time step
of tf.nn.static_rnn and the body of tf.nn.dynamic_rnn's while loop.

    cell(inputs, state) -> (output, new_state)

Each cell concatenates [inputs, h] and multiplies by one kernel, as TF does, so a checkpoint's
"kernel" and "bias" mean the same thing here and in TF.
"""
import collections

from tinyflow.api import layers
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import get_default_graph
from tinyflow.ops import init_ops, nn_ops
from tinyflow.ops.core import array_ops, math_ops
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.control_flow_ops import flatten, pack_as

__all__ = ["DeviceWrapper",
           "RNNCell", "BasicRNNCell", "BasicLSTMCell", "LSTMCell", "GRUCell", "MultiRNNCell", "DropoutWrapper",
           "ResidualWrapper", "LSTMStateTuple"]


class LSTMStateTuple(collections.namedtuple("LSTMStateTuple", ("c", "h"))):
    """An LSTM state: the cell state c and the output h, each [batch, num_units]."""
    __slots__ = ()

    @property
    def dtype(self):
        if self.c.dtype != self.h.dtype:
            raise TypeError("Inconsistent internal state: %s vs %s" % (self.c.dtype, self.h.dtype))
        return self.c.dtype


def _zeros(batch_size, size, dtype):
    if isinstance(size, (tuple, list)):
        return pack_as(size, [_zeros(batch_size, s, dtype) for s in flatten(size)])
    return array_ops.zeros([batch_size, size], dtype=dtype)  # batch_size may be a tensor


class RNNCell(layers.Layer):
    """Base class: `state_size`, `output_size`, `zero_state`, and `cell(inputs, state)`."""

    def __call__(self, inputs, state, scope=None):
        return super().__call__(inputs, state, scope=scope)

    @property
    def state_size(self):
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self):
        raise NotImplementedError("Abstract method")

    def zero_state(self, batch_size, dtype):
        """Zeros of [batch_size, s] for each s of state_size (nested the same way)."""
        with get_default_graph().name_scope(type(self).__name__ + "ZeroState"):
            return _zeros(batch_size, self.state_size, dt.as_dtype(dtype))

    def _input_depth(self, inputs_shape):
        depth = inputs_shape[-1].value if inputs_shape.ndims else None
        if depth is None:
            raise ValueError("Expected inputs.shape[-1] to be known, saw shape: %s" % inputs_shape)
        return depth


def _activation(activation):
    return math_ops.tanh if activation is None else activation


class BasicRNNCell(RNNCell):
    """output = new_state = activation(W [inputs, state] + b)."""

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype, _reuse=reuse, **kwargs)
        self._num_units = num_units
        self._activation = _activation(activation)

    state_size = property(lambda self: self._num_units)
    output_size = property(lambda self: self._num_units)

    def build(self, inputs_shape):
        depth = self._input_depth(inputs_shape)
        self._kernel = self.add_weight("kernel", shape=[depth + self._num_units, self._num_units])
        self._bias = self.add_weight("bias", shape=[self._num_units], initializer=init_ops.zeros_initializer())

    def call(self, inputs, state):
        out = self._activation(nn_ops.bias_add(math_ops.matmul(array_ops.concat([inputs, state], 1), self._kernel),
                                               self._bias))
        return out, out


class GRUCell(RNNCell):
    """Gated recurrent unit: gates r, u = sigmoid(W_g [x, h] + b_g) (b_g starts at 1);
    c = activation(W_c [x, r * h] + b_c); h' = u * h + (1 - u) * c."""

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None, bias_initializer=None,
                 name=None, dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype, _reuse=reuse, **kwargs)
        self._num_units = num_units
        self._activation = _activation(activation)
        self._kernel_initializer, self._bias_initializer = kernel_initializer, bias_initializer

    state_size = property(lambda self: self._num_units)
    output_size = property(lambda self: self._num_units)
    # the weights' names (contrib.rnn.GRUBlockCell: w_ru, b_ru, w_c, b_c)
    _weight_names = ("gates/kernel", "gates/bias", "candidate/kernel", "candidate/bias")

    def build(self, inputs_shape):
        depth, n = self._input_depth(inputs_shape), self._num_units
        gate_kernel, gate_bias, candidate_kernel, candidate_bias = self._weight_names
        self._gate_kernel = self.add_weight(gate_kernel, shape=[depth + n, 2 * n],
                                            initializer=self._kernel_initializer)
        self._gate_bias = self.add_weight(gate_bias, shape=[2 * n], initializer=self._bias_initializer
                                          or init_ops.constant_initializer(1.0, dtype=self.dtype))
        self._candidate_kernel = self.add_weight(candidate_kernel, shape=[depth + n, n],
                                                 initializer=self._kernel_initializer)
        self._candidate_bias = self.add_weight(candidate_bias, shape=[n], initializer=self._bias_initializer
                                               or init_ops.zeros_initializer(dtype=self.dtype))

    def call(self, inputs, state):
        gates = math_ops.sigmoid(nn_ops.bias_add(
            math_ops.matmul(array_ops.concat([inputs, state], 1), self._gate_kernel), self._gate_bias))
        r, u = array_ops.split(gates, 2, axis=1)
        candidate = self._activation(nn_ops.bias_add(
            math_ops.matmul(array_ops.concat([inputs, r * state], 1), self._candidate_kernel), self._candidate_bias))
        new_h = u * state + (1 - u) * candidate
        return new_h, new_h


def _lstm_state(state, num_units, state_is_tuple):
    if state_is_tuple:
        return state
    return array_ops.split(state, [num_units, state.shape[1].value - num_units], axis=1)


class BasicLSTMCell(RNNCell):
    """LSTM without peepholes: i, j, f, o = split(W [x, h] + b); c' = c * sigmoid(f + forget_bias)
    + sigmoid(i) * activation(j); h' = activation(c') * sigmoid(o). The state is LSTMStateTuple(c, h)
    (or [c, h] concatenated when state_is_tuple=False)."""

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None, reuse=None, name=None,
                 dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype, _reuse=reuse, **kwargs)
        self._num_units, self._forget_bias = num_units, forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = _activation(activation)

    @property
    def state_size(self):
        n = self._num_units
        return LSTMStateTuple(n, n) if self._state_is_tuple else 2 * n

    output_size = property(lambda self: self._num_units)

    def build(self, inputs_shape):
        depth = self._input_depth(inputs_shape)
        self._kernel = self.add_weight("kernel", shape=[depth + self._num_units, 4 * self._num_units])
        self._bias = self.add_weight("bias", shape=[4 * self._num_units], initializer=init_ops.zeros_initializer())

    def call(self, inputs, state):
        c, h = _lstm_state(state, self._num_units, self._state_is_tuple)
        gates = nn_ops.bias_add(math_ops.matmul(array_ops.concat([inputs, h], 1), self._kernel), self._bias)
        i, j, f, o = array_ops.split(gates, 4, axis=1)
        forget = convert_to_tensor(self._forget_bias, dtype=f.dtype)
        new_c = c * math_ops.sigmoid(f + forget) + math_ops.sigmoid(i) * self._activation(j)
        new_h = self._activation(new_c) * math_ops.sigmoid(o)
        new_state = LSTMStateTuple(new_c, new_h) if self._state_is_tuple else array_ops.concat([new_c, new_h], 1)
        return new_h, new_state


class LSTMCell(RNNCell):
    """TF's LSTMCell: BasicLSTMCell plus optional peepholes (w_f_diag, w_i_diag, w_o_diag), cell
    clipping, and a projection of h to num_proj units (proj_clip)."""

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None, num_proj=None,
                 proj_clip=None, num_unit_shards=None, num_proj_shards=None, forget_bias=1.0, state_is_tuple=True,
                 activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype, _reuse=reuse, **kwargs)
        self._num_units, self._use_peepholes, self._cell_clip = num_units, use_peepholes, cell_clip
        self._initializer, self._num_proj, self._proj_clip = initializer, num_proj, proj_clip
        self._forget_bias, self._state_is_tuple = forget_bias, state_is_tuple
        self._activation = _activation(activation)

    @property
    def state_size(self):
        h = self._num_proj or self._num_units
        return LSTMStateTuple(self._num_units, h) if self._state_is_tuple else self._num_units + h

    output_size = property(lambda self: self._num_proj or self._num_units)

    def build(self, inputs_shape):
        depth, n = self._input_depth(inputs_shape), self._num_units
        h_depth = self._num_proj or n
        self._kernel = self.add_weight("kernel", shape=[depth + h_depth, 4 * n], initializer=self._initializer)
        self._bias = self.add_weight("bias", shape=[4 * n], initializer=init_ops.zeros_initializer(dtype=self.dtype))
        if self._use_peepholes:
            self._w_f_diag, self._w_i_diag, self._w_o_diag = [
                self.add_weight(w, shape=[n], initializer=self._initializer)
                for w in ("w_f_diag", "w_i_diag", "w_o_diag")]
        if self._num_proj is not None:
            self._proj_kernel = self.add_weight("projection/kernel", shape=[n, self._num_proj],
                                                initializer=self._initializer)

    def call(self, inputs, state):
        c, h = _lstm_state(state, self._num_units, self._state_is_tuple)
        gates = nn_ops.bias_add(math_ops.matmul(array_ops.concat([inputs, h], 1), self._kernel), self._bias)
        i, j, f, o = array_ops.split(gates, 4, axis=1)
        forget = convert_to_tensor(self._forget_bias, dtype=f.dtype)
        if self._use_peepholes:
            new_c = (math_ops.sigmoid(f + forget + self._w_f_diag * c) * c
                     + math_ops.sigmoid(i + self._w_i_diag * c) * self._activation(j))
        else:
            new_c = math_ops.sigmoid(f + forget) * c + math_ops.sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            new_c = math_ops.clip_by_value(new_c, -self._cell_clip, self._cell_clip)
        out_gate = o + self._w_o_diag * new_c if self._use_peepholes else o
        new_h = math_ops.sigmoid(out_gate) * self._activation(new_c)
        if self._num_proj is not None:
            new_h = math_ops.matmul(new_h, self._proj_kernel)
            if self._proj_clip is not None:
                new_h = math_ops.clip_by_value(new_h, -self._proj_clip, self._proj_clip)
        new_state = LSTMStateTuple(new_c, new_h) if self._state_is_tuple else array_ops.concat([new_c, new_h], 1)
        return new_h, new_state


class _Wrapper:
    """A cell around another cell (no variables of its own): sizes and zero_state are the inner one's."""

    def __init__(self, cell):
        self._cell = cell

    state_size = property(lambda self: self._cell.state_size)
    output_size = property(lambda self: self._cell.output_size)

    def zero_state(self, batch_size, dtype):
        return self._cell.zero_state(batch_size, dtype)


class MultiRNNCell(_Wrapper):
    """Cells stacked: each one's output is the next one's input; the state is a tuple of their
    states. Variables: "multi_rnn_cell/cell_<i>/<cell name>/..."."""

    def __init__(self, cells, state_is_tuple=True):
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        super().__init__(cells[0])
        self._cells, self._state_is_tuple = list(cells), state_is_tuple
        self._scope = None

    state_size = property(lambda self: tuple(c.state_size for c in self._cells))
    output_size = property(lambda self: self._cells[-1].output_size)

    def zero_state(self, batch_size, dtype):
        with get_default_graph().name_scope("MultiRNNCellZeroState"):
            return tuple(c.zero_state(batch_size, dtype) for c in self._cells)

    def __call__(self, inputs, state, scope=None):
        if self._scope is None:
            with vs.variable_scope(scope, default_name="multi_rnn_cell") as captured:
                self._scope = captured
        new_states = []
        with vs.variable_scope(self._scope, auxiliary_name_scope=False):
            for i, cell in enumerate(self._cells):
                with vs.variable_scope("cell_%d" % i):
                    inputs, s = cell(inputs, state[i])
                new_states.append(s)
        return inputs, tuple(new_states)


class DropoutWrapper(_Wrapper):
    """Dropout on a cell's inputs, outputs and (state_keep_prob) new state, a new mask each call."""

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None):
        if variational_recurrent:
            raise NotImplementedError("tinyflow: DropoutWrapper(variational_recurrent=True) is not supported")
        super().__init__(cell)
        self._keep = (input_keep_prob, output_keep_prob, state_keep_prob)
        self._seed = seed

    def _drop(self, x, keep_prob):
        if isinstance(keep_prob, (int, float)) and keep_prob == 1.0:
            return x
        return nn_ops.dropout(x, keep_prob=keep_prob, seed=self._seed)

    def __call__(self, inputs, state, scope=None):
        input_keep, output_keep, state_keep = self._keep
        output, new_state = self._cell(self._drop(inputs, input_keep), state, scope=scope)
        if not (isinstance(state_keep, (int, float)) and state_keep == 1.0):
            leaves = flatten(new_state)
            # TF leaves an LSTM's c alone and drops only the rest of the state
            kept = [x if isinstance(new_state, LSTMStateTuple) and x is new_state.c else self._drop(x, state_keep)
                    for x in leaves]
            new_state = pack_as(new_state, kept)
        return self._drop(output, output_keep), new_state


class ResidualWrapper(_Wrapper):
    """The inner cell's output plus its input (residual_fn(inputs, outputs), by default their sum)."""

    def __init__(self, cell, residual_fn=None):
        super().__init__(cell)
        self._residual_fn = residual_fn or (lambda i, o: i + o)

    def __call__(self, inputs, state, scope=None):
        output, new_state = self._cell(inputs, state, scope=scope)
        return self._residual_fn(inputs, output), new_state


class DeviceWrapper(_Wrapper):
    """The inner cell, run on `device` (tinyflow's one XLA program places nothing: the cell as it is)."""

    def __init__(self, cell, device):
        super().__init__(cell)
        self._device = device

    def __call__(self, inputs, state, scope=None):
        return self._cell(inputs, state, scope=scope)
