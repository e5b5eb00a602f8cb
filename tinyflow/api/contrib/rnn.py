"""tf.contrib.rnn's cells beyond tf.nn.rnn_cell, as TF 1.15 builds them (math, defaults, variable names):

- EmbeddingWrapper, InputProjectionWrapper, OutputProjectionWrapper (core_rnn_cell): each a cell
  of its own whose scope holds its variables ("output_projection_wrapper/kernel") and the inner
  cell's ("output_projection_wrapper/gru_cell/...");
- LayerNormBasicLSTMCell (layer-normalised gates, "kernel", "bias" and one "<gate>/gamma|beta" per
  gate; recurrent dropout not supported), NASCell (the cell found by neural architecture search).

`Linear` is core_rnn_cell._Linear: one kernel over the concatenated args, "kernel" and "bias" in
the current variable scope (the legacy seq2seq decoders use it directly).
"""
import math

from tinyflow.api.aliases import device
from tinyflow.api.rnn import bidirectional_dynamic_rnn, static_bidirectional_rnn
from tinyflow.api.rnn_cell import LSTMStateTuple, RNNCell
from tinyflow.graph.core import get_default_graph
from tinyflow.ops import init_ops, nn_ops
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.core import array_ops, math_ops

__all__ = ["DeviceWrapper", "EmbeddingWrapper", "InputProjectionWrapper", "LayerNormBasicLSTMCell", "NASCell",
           "OutputProjectionWrapper", "stack_bidirectional_dynamic_rnn", "stack_bidirectional_rnn",
           "transpose_batch_time"]


class Linear:
    """W [args...] + b over 2-D args: "kernel" [sum of depths, output_size] and "bias" (zeros) made
    at construction in the current variable scope."""

    def __init__(self, args, output_size, build_bias, bias_initializer=None, kernel_initializer=None):
        self._is_sequence = isinstance(args, (list, tuple))
        args = list(args) if self._is_sequence else [args]
        if not args:
            raise ValueError("`args` must be specified")
        total = 0
        for a in args:
            if a.shape.ndims != 2:
                raise ValueError("linear is expecting 2D arguments: %s" % [x.shape for x in args])
            if a.shape[1].value is None:
                raise ValueError("linear expects shape[1] to be provided for shape %s, but saw %s"
                                 % (a.shape, a.shape[1]))
            total += a.shape[1].value
        dtype = args[0].dtype.base_dtype
        self._build_bias = build_bias
        self._weights = vs.get_variable("kernel", [total, output_size], dtype=dtype, initializer=kernel_initializer)
        if build_bias:
            self._biases = vs.get_variable("bias", [output_size], dtype=dtype, initializer=bias_initializer
                                           or init_ops.constant_initializer(0.0, dtype=dtype))

    def __call__(self, args):
        args = list(args) if self._is_sequence else [args]
        x = args[0] if len(args) == 1 else array_ops.concat(args, 1)
        res = math_ops.matmul(x, self._weights)
        return nn_ops.bias_add(res, self._biases) if self._build_bias else res


class _CellWrapper(RNNCell):
    """A cell with variables of its own around an inner cell (called inside the wrapper's scope)."""

    def __init__(self, cell, reuse=None):
        super().__init__(_reuse=reuse)
        if not hasattr(cell, "state_size") or not callable(cell):
            raise TypeError("The argument 'cell' (%s) is not an RNNCell: 'output_size' property is missing, "
                            "'state_size' property is missing, either 'zero_state' or 'get_initial_state' "
                            "method is required, is not callable." % (cell,))
        self._cell = cell

    state_size = property(lambda self: self._cell.state_size)
    output_size = property(lambda self: self._cell.output_size)

    def zero_state(self, batch_size, dtype):
        with get_default_graph().name_scope(type(self).__name__ + "ZeroState"):
            return self._cell.zero_state(batch_size, dtype)


class DeviceWrapper(_CellWrapper):
    """The inner cell under tf.device(device), which tinyflow accepts and ignores (XLA places the
    whole step): the same outputs and variable names as the inner cell alone."""

    def __init__(self, cell, device, **kwargs):
        super().__init__(cell)
        self._device = device

    def __call__(self, inputs, state, scope=None):
        with device(self._device):
            return self._cell(inputs, state, scope=scope)


class EmbeddingWrapper(_CellWrapper):
    """Looks the int inputs up in "embedding" [embedding_classes, embedding_size] (uniform in
    +-sqrt(3) unless an initializer is given) and runs the inner cell on them."""

    def __init__(self, cell, embedding_classes, embedding_size, initializer=None, reuse=None):
        super().__init__(cell, reuse)
        if embedding_classes <= 0 or embedding_size <= 0:
            raise ValueError("Both embedding_classes and embedding_size must be > 0: %d, %d."
                             % (embedding_classes, embedding_size))
        self._embedding_classes, self._embedding_size = embedding_classes, embedding_size
        self._initializer = initializer

    def call(self, inputs, state):
        initializer = self._initializer or vs.get_variable_scope().initializer or \
            init_ops.random_uniform_initializer(-math.sqrt(3), math.sqrt(3))
        data_type = (state[0] if isinstance(state, tuple) else state).dtype
        while isinstance(data_type, tuple):
            data_type = data_type[0].dtype
        embedding = vs.get_variable("embedding", [self._embedding_classes, self._embedding_size],
                                    initializer=initializer, dtype=data_type)
        embedded = nn_ops.embedding_lookup(embedding, array_ops.reshape(inputs, [-1]))
        return self._cell(embedded, state)


class InputProjectionWrapper(_CellWrapper):
    """Projects the inputs to num_proj units (Linear, then `activation`) before the inner cell."""

    def __init__(self, cell, num_proj, activation=None, input_size=None, reuse=None):
        super().__init__(cell, reuse)
        self._num_proj, self._activation, self._linear = num_proj, activation, None

    def call(self, inputs, state):
        if self._linear is None:
            self._linear = Linear(inputs, self._num_proj, True)
        projected = self._linear(inputs)
        if self._activation:
            projected = self._activation(projected)
        return self._cell(projected, state)


class OutputProjectionWrapper(_CellWrapper):
    """Projects the inner cell's output to output_size units (Linear, then `activation`)."""

    def __init__(self, cell, output_size, activation=None, reuse=None):
        super().__init__(cell, reuse)
        if output_size < 1:
            raise ValueError("Parameter output_size must be > 0: %d." % output_size)
        self._output_size, self._activation, self._linear = output_size, activation, None

    output_size = property(lambda self: self._output_size)

    def call(self, inputs, state):
        output, res_state = self._cell(inputs, state)
        if self._linear is None:
            self._linear = Linear(output, self._output_size, True)
        projected = self._linear(output)
        if self._activation:
            projected = self._activation(projected)
        return projected, res_state


class LayerNormBasicLSTMCell(RNNCell):
    """BasicLSTMCell with layer normalisation of each gate and of the new cell state (Ba et al.,
    2016): "kernel" (no bias when layer_norm) and "<input|transform|forget|output|state>/gamma|beta".
    dropout_keep_prob < 1 drops the candidate g (recurrent dropout of Semeniuta et al.)."""

    def __init__(self, num_units, forget_bias=1.0, input_size=None, activation=math_ops.tanh, layer_norm=True,
                 norm_gain=1.0, norm_shift=0.0, dropout_keep_prob=1.0, dropout_prob_seed=None, reuse=None):
        super().__init__(_reuse=reuse)
        self._num_units, self._activation, self._forget_bias = num_units, activation, forget_bias
        self._keep_prob, self._seed = dropout_keep_prob, dropout_prob_seed
        self._layer_norm, self._norm_gain, self._norm_shift = layer_norm, norm_gain, norm_shift

    state_size = property(lambda self: LSTMStateTuple(self._num_units, self._num_units))
    output_size = property(lambda self: self._num_units)

    def _norm(self, inp, scope, dtype):
        shape = inp.shape[-1:]
        with vs.variable_scope(scope):
            gamma = vs.get_variable("gamma", shape=shape, dtype=dtype,
                                    initializer=init_ops.constant_initializer(self._norm_gain))
            beta = vs.get_variable("beta", shape=shape, dtype=dtype,
                                   initializer=init_ops.constant_initializer(self._norm_shift))
        with get_default_graph().name_scope(scope + "/LayerNorm"):   # contrib.layers.layer_norm's math
            mean, variance = nn_ops.moments(inp, [1], keep_dims=True)
            return nn_ops.batch_normalization(inp, mean, variance, beta, gamma, 1e-12)

    def call(self, inputs, state):
        c, h = state
        args = array_ops.concat([inputs, h], 1)
        dtype = args.dtype.base_dtype
        concat = math_ops.matmul(args, vs.get_variable("kernel", [args.shape[-1].value, 4 * self._num_units],
                                                       dtype=dtype))
        if not self._layer_norm:
            concat = nn_ops.bias_add(concat, vs.get_variable("bias", [4 * self._num_units], dtype=dtype))
        i, j, f, o = array_ops.split(concat, 4, axis=1)
        if self._layer_norm:
            i, j, f, o = (self._norm(x, s, dtype) for x, s in zip((i, j, f, o),
                                                                   ("input", "transform", "forget", "output")))
        g = self._activation(j)
        if not isinstance(self._keep_prob, float) or self._keep_prob < 1:
            g = nn_ops.dropout(g, self._keep_prob, seed=self._seed)
        new_c = c * math_ops.sigmoid(f + self._forget_bias) + math_ops.sigmoid(i) * g
        if self._layer_norm:
            new_c = self._norm(new_c, "state", dtype)
        new_h = self._activation(new_c) * math_ops.sigmoid(o)
        return new_h, LSTMStateTuple(new_c, new_h)


class NASCell(RNNCell):
    """The recurrent cell found by Neural Architecture Search (Zoph and Le, 2017): "kernel",
    "recurrent_kernel" (8 * num_units wide), optional "bias" and "projection_weights"."""

    _NAS_BASE = 8

    def __init__(self, num_units, num_proj=None, use_bias=False, reuse=None, **kwargs):
        super().__init__(_reuse=reuse, **kwargs)
        self._num_units, self._num_proj, self._use_bias = num_units, num_proj, use_bias

    state_size = property(lambda self: LSTMStateTuple(self._num_units, self._num_proj or self._num_units))
    output_size = property(lambda self: self._num_proj or self._num_units)

    def build(self, inputs_shape):
        if inputs_shape.ndims != 2 or inputs_shape[1].value is None:
            raise ValueError("Could not infer input size from inputs.get_shape()[-1]")
        width = self._NAS_BASE * self._num_units
        self.recurrent_kernel = self.add_weight("recurrent_kernel", [self._num_proj or self._num_units, width])
        self.kernel = self.add_weight("kernel", [inputs_shape[1].value, width])
        if self._use_bias:
            self.bias = self.add_weight("bias", [width], initializer=init_ops.zeros_initializer())
        if self._num_proj is not None:
            self.projection_weights = self.add_weight("projection_weights", [self._num_units, self._num_proj])

    def call(self, inputs, state):
        sigmoid, tanh, relu = math_ops.sigmoid, math_ops.tanh, nn_ops.relu
        c_prev, m_prev = state
        m_matrix = math_ops.matmul(m_prev, self.recurrent_kernel)
        if self._use_bias:
            m_matrix = nn_ops.bias_add(m_matrix, self.bias)
        m = array_ops.split(m_matrix, self._NAS_BASE, axis=1)
        x = array_ops.split(math_ops.matmul(inputs, self.kernel), self._NAS_BASE, axis=1)
        layer1 = [sigmoid(x[0] + m[0]), relu(x[1] + m[1]), sigmoid(x[2] + m[2]), relu(x[3] * m[3]),
                  tanh(x[4] + m[4]), sigmoid(x[5] + m[5]), tanh(x[6] + m[6]), sigmoid(x[7] + m[7])]
        l2_0 = tanh(tanh(layer1[0] * layer1[1]) + c_prev)
        l2_1 = tanh(layer1[2] + layer1[3])
        l2_2 = tanh(layer1[4] * layer1[5])
        l2_3 = sigmoid(layer1[6] + layer1[7])
        new_c = l2_0 * l2_1
        new_m = tanh(new_c * tanh(l2_2 + l2_3))
        if self._num_proj is not None:
            new_m = math_ops.matmul(new_m, self.projection_weights)
        return new_m, LSTMStateTuple(new_c, new_m)


def _check_stack(cells_fw, cells_bw, initial_states_fw, initial_states_bw):
    if not cells_fw:
        raise ValueError("Must specify at least one fw cell for BidirectionalRNN.")
    if not cells_bw:
        raise ValueError("Must specify at least one bw cell for BidirectionalRNN.")
    if not isinstance(cells_fw, list):
        raise ValueError("cells_fw must be a list of RNNCells (one per layer).")
    if not isinstance(cells_bw, list):
        raise ValueError("cells_bw must be a list of RNNCells (one per layer).")
    if len(cells_fw) != len(cells_bw):
        raise ValueError("Forward and Backward cells must have the same depth.")
    for states in (initial_states_fw, initial_states_bw):
        if states is not None and (not isinstance(states, list) or len(states) != len(cells_fw)):
            raise ValueError("initial_states_fw must be a list of state tensors (one per layer).")


def stack_bidirectional_rnn(cells_fw, cells_bw, inputs, initial_states_fw=None, initial_states_bw=None, dtype=None,
                            sequence_length=None, scope=None):
    """Layers of static_bidirectional_rnn, each reading the previous one's concatenated outputs
    ("stack_bidirectional_rnn/cell_<i>/bidirectional_rnn/fw/..."). Returns (outputs, states_fw, states_bw)."""
    _check_stack(cells_fw, cells_bw, initial_states_fw, initial_states_bw)
    states_fw, states_bw, prev_layer = [], [], inputs
    with vs.variable_scope(scope or "stack_bidirectional_rnn"):
        for i, (cell_fw, cell_bw) in enumerate(zip(cells_fw, cells_bw)):
            with vs.variable_scope("cell_%d" % i) as cell_scope:
                prev_layer, state_fw, state_bw = static_bidirectional_rnn(
                    cell_fw, cell_bw, prev_layer, initial_state_fw=initial_states_fw[i] if initial_states_fw else None,
                    initial_state_bw=initial_states_bw[i] if initial_states_bw else None,
                    sequence_length=sequence_length, dtype=dtype, scope=cell_scope)
            states_fw.append(state_fw)
            states_bw.append(state_bw)
    return prev_layer, tuple(states_fw), tuple(states_bw)


def stack_bidirectional_dynamic_rnn(cells_fw, cells_bw, inputs, initial_states_fw=None, initial_states_bw=None,
                                    dtype=None, sequence_length=None, parallel_iterations=None, time_major=False,
                                    scope=None, swap_memory=False):
    """Layers of bidirectional_dynamic_rnn over [batch, time, depth] inputs, each reading the previous
    one's [fw, bw] outputs concatenated. Returns (outputs, states_fw, states_bw)."""
    _check_stack(cells_fw, cells_bw, initial_states_fw, initial_states_bw)
    states_fw, states_bw, prev_layer = [], [], inputs
    with vs.variable_scope(scope or "stack_bidirectional_rnn"):
        for i, (cell_fw, cell_bw) in enumerate(zip(cells_fw, cells_bw)):
            with vs.variable_scope("cell_%d" % i):
                outputs, (state_fw, state_bw) = bidirectional_dynamic_rnn(
                    cell_fw, cell_bw, prev_layer, initial_state_fw=initial_states_fw[i] if initial_states_fw else None,
                    initial_state_bw=initial_states_bw[i] if initial_states_bw else None,
                    sequence_length=sequence_length, dtype=dtype, time_major=time_major)
                prev_layer = array_ops.concat(outputs, 2)
            states_fw.append(state_fw)
            states_bw.append(state_bw)
    return prev_layer, tuple(states_fw), tuple(states_bw)


def transpose_batch_time(x):
    """[batch, time, ...] <-> [time, batch, ...]."""
    if x.shape.ndims is not None and x.shape.ndims < 2:
        return x
    return array_ops.transpose(x, [1, 0] + list(range(2, x.shape.ndims)))


# tf.contrib.rnn is also tf.nn.rnn_cell's cells and the static RNNs (the block cells are the plain ones)
from tinyflow.api import rnn_cell as _cells  # noqa: E402
from tinyflow.api.rnn import static_rnn  # noqa: E402,F401

globals().update({_name: getattr(_cells, _name) for _name in _cells.__all__ if _name not in globals()})
LSTMBlockCell = _cells.LSTMCell


class GRUBlockCell(_cells.GRUCell):
    """tf.contrib.rnn.GRUBlockCell: GRUCell's math under the fused kernel's variable names (w_ru, b_ru,
    w_c, b_c in scope gru_cell), so its checkpoints and variable lists are TF's."""
    _weight_names = ("w_ru", "b_ru", "w_c", "b_c")

    def __init__(self, num_units=None, cell_size=None, reuse=None, name="gru_cell"):
        if (num_units is None) == (cell_size is None):
            raise ValueError("Exactly one of num_units or cell_size must be provided.")
        super().__init__(num_units if cell_size is None else cell_size, reuse=reuse, name=name)


__all__ = sorted(set(__all__) | set(_cells.__all__) | {"static_rnn", "static_bidirectional_rnn", "LSTMBlockCell",
                                                        "GRUBlockCell"})
