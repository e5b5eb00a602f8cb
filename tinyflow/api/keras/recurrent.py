"""tf.keras.layers' recurrent layers as TF 1.15 (graph mode) has them: the cells (SimpleRNNCell,
LSTMCell, GRUCell, StackedRNNCells, or a user's layer with `state_size` and `call(inputs, states)`),
the generic RNN layer that runs one over the time axis, SimpleRNN / LSTM / GRU as RNN layers of those
cells (the v1 layers: recurrent_activation 'hard_sigmoid', GRU reset_after=False, LSTM's unit forget
bias), CuDNNLSTM / CuDNNGRU (cuDNN's math and weight layout, on any device) and Masking.

A cell's weights are created in its RNN layer's scope ("lstm/kernel", "lstm/recurrent_kernel",
"lstm/bias"; a second stacked cell's "rnn/kernel_1"), the gates side by side (LSTM i, f, c, o; GRU z,
r, h). The time loop is unrolled while building (the sequence length must be known): XLA fuses the
steps of one jitted function, and the gradient is the ordinary graph gradient of the unrolled steps.
Masked steps keep the previous output and states (TF 1.15's K.rnn); dropout masks are drawn once per
call and shared by all steps, in the training phase only.
"""
import inspect

import numpy as np

from tinyflow.api import nn
from tinyflow.api.keras import activations, initializers, regularizers
from tinyflow.api.keras import backend as K
from tinyflow.api.keras.config import base_config, serialize_value
from tinyflow.api.keras.engine import Layer
from tinyflow.graph import nest
from tinyflow.graph.core import get_default_graph
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops import state_ops
from tinyflow.ops.core import array_ops, math_ops


def _unique(items):
    out = []
    for x in items:
        if not any(x is y for y in out):
            out.append(x)
    return out


class _Nested:
    """A layer made of layers (an RNN's cell, a wrapper's layers): their weights, updates and losses
    are the layer's too, its own first."""

    def _sublayers(self):
        return []

    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        return _unique(list(self._trainable_weights) + [w for s in self._sublayers() for w in s.trainable_weights])

    @property
    def non_trainable_weights(self):
        if not self.trainable:
            return _unique(self._trainable_weights + self._non_trainable_weights +
                           [w for s in self._sublayers() for w in s.weights])
        return _unique(list(self._non_trainable_weights) +
                       [w for s in self._sublayers() for w in s.non_trainable_weights])

    weights = variables = property(lambda self: self.trainable_weights + self.non_trainable_weights)
    trainable_variables = property(lambda self: self.trainable_weights)
    non_trainable_variables = property(lambda self: self.non_trainable_weights)
    updates = property(lambda self: list(self._updates) + [u for s in self._sublayers() for u in s.updates])
    losses = property(lambda self: list(self._losses) + [x for s in self._sublayers() for x in s.losses])


def from_record(record, custom_objects=None):
    """The layer of a {"class_name", "config"} record (an RNN's cell, a wrapper's layer given to
    from_config as a record): a tf.keras layer class of that name, or one of `custom_objects`.
    (Model files go through serialization.py, which rebuilds such records before from_config.)"""
    if not isinstance(record, dict):
        return record
    name = record.get("class_name")
    classes, todo = {}, [Layer]
    while todo:
        c = todo.pop()
        if c.__module__.startswith("tinyflow.api.keras"):
            classes.setdefault(c.__name__, c)
        todo.extend(c.__subclasses__())
    cls = (custom_objects or {}).get(name) or classes.get(name)
    if cls is None:
        raise ValueError("Unknown layer: %s" % (name,))
    config = dict(record.get("config") or {})
    if getattr(cls.from_config, "__func__", None) is Layer.from_config.__func__:
        return cls.from_config(config)
    return cls.from_config(config, custom_objects)


# ---- cells ----------------------------------------------------------------------------------------------
class _Cell(Layer):
    """What SimpleRNNCell, LSTMCell and GRUCell share: the arguments, the weights, the dropout masks.

    `_gates` blocks of `units` columns per kernel; `_fields` are the config's entries (TF's order)."""

    _gates = 1
    _fields = ("units", "activation", "use_bias", "kernel_initializer", "recurrent_initializer", "bias_initializer",
               "kernel_regularizer", "recurrent_regularizer", "bias_regularizer", "kernel_constraint",
               "recurrent_constraint", "bias_constraint", "dropout", "recurrent_dropout")

    def __init__(self, units, activation="tanh", recurrent_activation="hard_sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, **kwargs):
        super().__init__(**kwargs)
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
        self.dropout = min(1.0, max(0.0, float(dropout)))
        self.recurrent_dropout = min(1.0, max(0.0, float(recurrent_dropout)))
        self._masks = {}

    @property
    def state_size(self):
        return self.units

    output_size = property(lambda self: self.units)

    def add_weight(self, name=None, shape=None, **kwargs):
        # a cell's weights live in its RNN layer's scope: a second cell there (StackedRNNCells) gets
        # "kernel_1", as TF 1.15's graph names it
        prefix = self._scope.name + "/" if self._scope is not None and self._scope.name else ""
        taken = {v.op.name for v in get_default_graph().get_collection("variables")}
        unique, i = name, 0
        while prefix + unique in taken:
            i += 1
            unique = "%s_%d" % (name, i)
        return super().add_weight(unique, shape, **kwargs)

    def _bias_shape(self):
        return [self.units * self._gates]

    def _bias_init(self):
        return self.bias_initializer

    def build(self, input_shape):
        n = self.units * self._gates
        self.kernel = self.add_weight("kernel", shape=[TensorShape(input_shape)[-1].value, n],
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight("recurrent_kernel", shape=[self.units, n],
                                                initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=self._bias_shape(), initializer=self._bias_init(),
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        self.built = True

    def _biases(self):
        """(input bias, recurrent bias) added to x @ kernel and h @ recurrent_kernel (None: none)."""
        return self.bias, None

    # dropout: one mask per gate, drawn on the first step of a call and kept for the others
    def reset_dropout_mask(self):
        self._masks = {}

    reset_recurrent_dropout_mask = reset_dropout_mask

    def _per_gate(self, key, x, rate, training):
        """x once per gate, times that gate's dropout mask in the training phase."""
        if not 0.0 < rate < 1.0:
            return [x] * self._gates
        if key not in self._masks:
            ones = array_ops.ones_like(x)
            self._masks[key] = [K.in_train_phase(lambda: nn.dropout(ones, rate=rate), ones, training=training)
                                for _ in range(self._gates)]
        return [x * m for m in self._masks[key]]

    def _matmul(self, xs, kernel):
        """[x_0 @ kernel's gate-0 columns, x_1 @ gate 1's, ...] side by side (one matmul for one x)."""
        if all(x is xs[0] for x in xs):
            return math_ops.matmul(xs[0], kernel)
        u = self.units
        return array_ops.concat([math_ops.matmul(x, kernel[:, g * u:(g + 1) * u]) for g, x in enumerate(xs)], 1)

    def _project(self, inputs, h, training, gates=None):
        """(x @ kernel + input bias, [h per gate]) with the dropout masks applied."""
        proj = self._matmul(self._per_gate("input", inputs, self.dropout, training), self.kernel)
        input_bias, _ = self._biases()
        if input_bias is not None:
            proj = proj + input_bias
        return proj, self._per_gate("recurrent", h, self.recurrent_dropout, training)

    def get_config(self):
        config = base_config(self)
        config.update((k, serialize_value(k, getattr(self, k))) for k in self._fields)
        return config


class SimpleRNNCell(_Cell):
    """h = activation(x @ kernel + bias + h @ recurrent_kernel)."""

    def __init__(self, units, activation="tanh", **kwargs):
        kwargs.pop("recurrent_activation", None)
        super().__init__(units, activation=activation, **kwargs)

    def call(self, inputs, states, training=None):
        proj, hs = self._project(inputs, states[0], training)
        h = self.activation(proj + math_ops.matmul(hs[0], self.recurrent_kernel))
        return h, [h]


class LSTMCell(_Cell):
    """Gates i, f, c, o: c = f * c + i * activation(.), h = o * activation(c); the forget bias starts at 1."""

    _gates = 4
    _fields = _Cell._fields[:2] + ("recurrent_activation",) + _Cell._fields[2:6] + ("unit_forget_bias",) + \
        _Cell._fields[6:] + ("implementation",)

    def __init__(self, units, unit_forget_bias=True, implementation=1, **kwargs):
        super().__init__(units, **kwargs)
        self.unit_forget_bias, self.implementation = unit_forget_bias, implementation

    @property
    def state_size(self):
        return [self.units, self.units]

    def _bias_init(self):
        if not self.unit_forget_bias:
            return self.bias_initializer
        units, base, n = self.units, self.bias_initializer, self._bias_shape()[0]

        def init(shape, dtype=None, partition_info=None):
            # TF's layout: [input gate, ones for the forget gate, the rest] (cuDNN: the recurrent half's forget gate)
            parts = [base([n - 3 * units], dtype=dtype), np.ones([units], dtype="float32"),
                     base([units * 2], dtype=dtype)]
            return array_ops.concat([math_ops.cast(p, dtype) for p in parts], 0)
        return init

    def call(self, inputs, states, training=None):
        h, c = states[0], states[1]
        proj, hs = self._project(inputs, h, training)
        z = proj + self._matmul(hs, self.recurrent_kernel)
        recurrent_bias = self._biases()[1]
        if recurrent_bias is not None:
            z = z + recurrent_bias
        c, o = self._carry_and_output(z, c)
        h = o * self.activation(c)
        return h, [h, c]

    def _carry_and_output(self, z, c):
        u, act, rec = self.units, self.activation, self.recurrent_activation
        i, f, o = rec(z[:, :u]), rec(z[:, u:2 * u]), rec(z[:, 3 * u:])
        return f * c + i * act(z[:, 2 * u:3 * u]), o


class PeepholeLSTMCell(LSTMCell):
    """tf.keras.experimental.PeepholeLSTMCell: an LSTMCell whose gates also see the cell state through
    three diagonal weights (Gers & Schmidhuber): i and f the previous c, o the new one."""

    def build(self, input_shape):
        super().build(input_shape)
        self.built = False   # (a built layer's add_weight reuses: these are new)
        for gate in ("input", "forget", "output"):
            setattr(self, gate + "_gate_peephole_weights",
                    self.add_weight(gate + "_gate_peephole_weights", shape=[self.units],
                                    initializer=self.kernel_initializer))
        self.built = True

    def _carry_and_output(self, z, c):
        u, act, rec = self.units, self.activation, self.recurrent_activation
        i = rec(z[:, :u] + self.input_gate_peephole_weights * c)
        f = rec(z[:, u:2 * u] + self.forget_gate_peephole_weights * c)
        c = f * c + i * act(z[:, 2 * u:3 * u])
        return c, rec(z[:, 3 * u:] + self.output_gate_peephole_weights * c)


class GRUCell(_Cell):
    """Gates z, r, h: h = z * h + (1 - z) * activation(x_h + r * h @ U_h) (reset_after: r * (h @ U_h + b))."""

    _gates = 3
    _fields = LSTMCell._fields[:7] + _Cell._fields[6:] + ("implementation", "reset_after")

    def __init__(self, units, implementation=1, reset_after=False, **kwargs):
        super().__init__(units, **kwargs)
        self.implementation, self.reset_after = implementation, reset_after

    def _bias_shape(self):
        return [2, 3 * self.units] if self.reset_after else [3 * self.units]

    def _biases(self):
        if self.bias is None or not self.reset_after:
            return self.bias, None
        return self.bias[0], self.bias[1]

    def call(self, inputs, states, training=None):
        h = states[0]
        u, rec = self.units, self.recurrent_activation
        proj, hs = self._project(inputs, h, training)
        recurrent_bias = self._biases()[1]
        if self.reset_after:
            inner = self._matmul(hs, self.recurrent_kernel)
            if recurrent_bias is not None:
                inner = inner + recurrent_bias
        else:
            inner = self._matmul(hs[:2], self.recurrent_kernel[:, :2 * u])
        z = rec(proj[:, :u] + inner[:, :u])
        r = rec(proj[:, u:2 * u] + inner[:, u:2 * u])
        if self.reset_after:
            hh = self.activation(proj[:, 2 * u:] + r * inner[:, 2 * u:])
        else:
            hh = self.activation(proj[:, 2 * u:] + math_ops.matmul(r * hs[2], self.recurrent_kernel[:, 2 * u:]))
        h = z * h + (1.0 - z) * hh
        return h, [h]


class StackedRNNCells(_Nested, Layer):
    """Cells run one after the other at each step (the output of one is the input of the next)."""

    def __init__(self, cells, **kwargs):
        for cell in cells:
            if not hasattr(cell, "call"):
                raise ValueError("All cells must have a `call` method. received cells:", cells)
            if not hasattr(cell, "state_size"):
                raise ValueError("All cells must have a `state_size` attribute. received cells:", cells)
        kwargs.pop("reverse_state_order", None)
        super().__init__(**kwargs)
        self.cells = list(cells)

    def _sublayers(self):
        return list(self.cells)

    @property
    def state_size(self):
        return tuple(c.state_size for c in self.cells)

    @property
    def output_size(self):
        return _output_size(self.cells[-1])

    def build(self, input_shape):
        shape = TensorShape(input_shape).as_list()
        for cell in self.cells:
            _build_cell(cell, self, shape)
            shape = shape[:-1] + [_output_size(cell)]
        self.built = True

    def call(self, inputs, states, training=None):
        new = []
        for cell in self.cells:
            n = len(_state_sizes(cell))
            inputs, cell_states = _call_cell(cell, inputs, list(states[:n]), training)
            states = states[n:]
            new += cell_states
        return inputs, new

    def reset_dropout_mask(self):
        for cell in self.cells:
            if hasattr(cell, "reset_dropout_mask"):
                cell.reset_dropout_mask()

    def get_config(self):
        return dict(base_config(self), cells=[{"class_name": type(c).__name__, "config": c.get_config()}
                                              for c in self.cells])

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        cells = [from_record(c, custom_objects) for c in config.pop("cells")]
        return cls(cells, **config)


class AbstractRNNCell(Layer):
    """The base class of a custom RNN cell: `state_size`, `output_size` and `call(inputs, states) ->
    (output, new_states)`; get_initial_state gives zeros of the state sizes."""

    def call(self, inputs, states):
        raise NotImplementedError("Abstract method")

    @property
    def state_size(self):
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self):
        raise NotImplementedError("Abstract method")

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        """Zero states ([batch, size] each) for `inputs`' batch, or batch_size and dtype."""
        if inputs is not None:
            batch_size, dtype = array_ops.shape(inputs)[0], inputs.dtype.base_dtype
        states = [array_ops.zeros(array_ops.stack([batch_size, n]), dtype=dtype or "float32")
                  for n in _state_sizes(self)]
        return states[0] if len(states) == 1 else states


def _state_sizes(cell):
    """The sizes of a cell's states, flat (StackedRNNCells: all its cells' in order)."""
    size = cell.state_size
    return [int(s) for s in nest.flatten(list(size) if isinstance(size, (list, tuple)) else [size])]


def _output_size(cell):
    size = getattr(cell, "output_size", None)
    return int(size) if size is not None else _state_sizes(cell)[0]


def _build_cell(cell, layer, input_shape):
    """Builds `cell` for steps of `input_shape`, its weights in `layer`'s scope."""
    if getattr(cell, "built", True):
        return
    if getattr(cell, "_scope", 0) is None:
        cell._scope = layer._scope
    if getattr(cell, "_dtype", 0) is None:
        cell._dtype = layer._dtype
    cell.build(TensorShape(input_shape))
    cell.built = True


def _call_cell(cell, inputs, states, training):
    kwargs = {"training": training} if "training" in inspect.signature(cell.call).parameters else {}
    out, new = cell.call(inputs, states, **kwargs)
    return out, list(new) if isinstance(new, (list, tuple)) else [new]


# ---- the RNN layer ------------------------------------------------------------------------------------
class RNN(_Nested, Layer):
    """Runs `cell` (a cell, or a list of cells: StackedRNNCells) over the time axis of
    [batch, time, features]: the last output, or all of them (return_sequences), and the final
    states (return_state); `initial_state=` in the call, `stateful` keeps the states across batches."""

    supports_masking = True
    _uses_mask = True

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False, stateful=False,
                 unroll=False, time_major=False, **kwargs):
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if not hasattr(cell, "call"):
            raise ValueError("`cell` should have a `call` method. The RNN was passed:", cell)
        if not hasattr(cell, "state_size"):
            raise ValueError("The RNN cell should have an attribute `state_size` (tuple of integers, one integer per "
                             "RNN state).")
        self.zero_output_for_mask = kwargs.pop("zero_output_for_mask", False)
        kwargs.pop("constants", None)
        super().__init__(**kwargs)
        self.cell = cell
        self.return_sequences, self.return_state, self.go_backwards = return_sequences, return_state, go_backwards
        self.stateful, self.unroll, self.time_major = stateful, unroll, time_major
        self.states = None

    def _sublayers(self):
        return [self.cell] if isinstance(self.cell, Layer) else []

    def __call__(self, inputs, initial_state=None, **kwargs):
        # TF 1.15: initial states join the inputs (a model's graph then reaches the layers computing them)
        if isinstance(inputs, (list, tuple)) and initial_state is None and len(inputs) > 1:
            inputs, initial_state = inputs[0], list(inputs[1:])
        if initial_state is not None:
            initial_state = list(initial_state) if isinstance(initial_state, (list, tuple)) else [initial_state]
            return super().__call__([inputs] + initial_state, **kwargs)
        return super().__call__(inputs, **kwargs)

    def build(self, input_shape):
        if isinstance(input_shape, list) and input_shape and isinstance(input_shape[0], TensorShape):
            input_shape = input_shape[0]   # [inputs, initial states...]
        input_shape = TensorShape(input_shape)
        if input_shape.ndims is not None and input_shape.ndims < 3:
            raise ValueError("Input 0 of layer %s is incompatible with the layer: expected ndim=3, found ndim=%s. "
                             "Full shape received: %s" % (self.name, input_shape.ndims, input_shape))
        dims = input_shape.as_list()
        step = [dims[1] if self.time_major else dims[0]] + dims[2:]
        if isinstance(self.cell, Layer):
            _build_cell(self.cell, self, step)
        if self.stateful:
            batch = dims[1] if self.time_major else dims[0]
            if batch is None:
                raise ValueError("If a RNN is stateful, it needs to know its batch size. Specify the batch size of "
                                 "your input tensors: \n- If using a Sequential model, specify the batch size by "
                                 "passing a `batch_input_shape` argument to your first layer.\n- If using the "
                                 "functional API, specify the batch size by passing a `batch_shape` argument to your "
                                 "Input layer.")
            self.states = [K.zeros((batch, n)) for n in _state_sizes(self.cell)]
        self.built = True

    def reset_states(self, states=None):
        """Sets a stateful layer's states to zeros (or to the given arrays)."""
        if not self.stateful:
            raise AttributeError("Layer must be stateful.")
        values = [None] * len(self.states) if states is None else (
            list(states) if isinstance(states, (list, tuple)) else [states])
        if len(values) != len(self.states):
            raise ValueError("Layer %s expects %d states, but it received %d state values. Input received: %s"
                             % (self.name, len(self.states), len(values), states))
        K.batch_set_value([(v, np.zeros(v.shape.as_list()) if x is None else x) for v, x in zip(self.states, values)])

    def compute_mask(self, inputs, mask):
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        out = mask if self.return_sequences else None
        return [out] + [None] * len(_state_sizes(self.cell)) if self.return_state else out

    def call(self, inputs, mask=None, training=None, initial_state=None):
        if isinstance(inputs, (list, tuple)):
            inputs, initial_state = inputs[0], list(inputs[1:])
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        if not self._uses_mask:
            mask = None
        sizes = _state_sizes(self.cell)
        if initial_state:
            states = list(initial_state)
            if len(states) != len(sizes):
                raise ValueError("Layer %s expects %d states, but it received %d initial states." % (self.name,
                                                                                                     len(sizes),
                                                                                                     len(states)))
        elif self.stateful:
            states = [s.value() for s in self.states]
        else:
            batch = array_ops.shape(inputs)[1 if self.time_major else 0]
            states = [array_ops.zeros(array_ops.stack([batch, n]), dtype=inputs.dtype.base_dtype) for n in sizes]
        if hasattr(self.cell, "reset_dropout_mask"):
            self.cell.reset_dropout_mask()
        batch_dim = inputs.shape[1 if self.time_major else 0].value

        def step(x, states):
            out, new = _call_cell(self.cell, x, states, training)
            out.set_shape([batch_dim, _output_size(self.cell)])
            return out, new
        # unrolled when the number of timesteps is known, else a tf.while_loop over time (K.rnn)
        last, outputs, states = K.rnn(step, inputs, states, self.go_backwards, mask, time_major=self.time_major,
                                      zero_output_for_mask=self.zero_output_for_mask)
        if self.stateful:
            self.add_update([state_ops.assign(v, s) for v, s in zip(self.states, states)])
        result = outputs if self.return_sequences else last
        if not self.return_state:
            return result
        if isinstance(self.cell, StackedRNNCells):   # TF: one entry per cell (a list for a cell of two states)
            grouped = []
            for cell in self.cell.cells:
                n = len(_state_sizes(cell))
                grouped.append(states[0] if n == 1 else list(states[:n]))
                states = states[n:]
            states = grouped
        return [result] + list(states)

    def get_config(self):
        config = base_config(self)
        config.update(return_sequences=self.return_sequences, return_state=self.return_state,
                      go_backwards=self.go_backwards, stateful=self.stateful, unroll=self.unroll,
                      time_major=self.time_major)
        if self.zero_output_for_mask:
            config["zero_output_for_mask"] = True
        config["cell"] = {"class_name": type(self.cell).__name__, "config": self.cell.get_config()}
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        cell = from_record(config.pop("cell"), custom_objects)
        return cls(cell, **config)


class _CellRNN(RNN):
    """An RNN layer that makes its own cell (`_cell_class`) from its arguments: SimpleRNN, LSTM, GRU.
    Its config is the cell's fields with the layer's (TF 1.15's get_config)."""

    _cell_class = None
    _layer_fields = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll", "time_major")

    def __init__(self, units, **kwargs):
        names = set()
        for c in type(self)._cell_class.__mro__:
            if "__init__" in vars(c) and issubclass(c, _Cell):
                names |= set(inspect.signature(c.__init__).parameters) - {"self", "kwargs"}
        cell_kwargs = {k: kwargs.pop(k) for k in list(kwargs) if k in names}
        layer_kwargs = {k: kwargs.pop(k) for k in list(kwargs)
                        if k in self._layer_fields or k == "zero_output_for_mask"}
        cell = self._cell_class(units, name=self._cell_name(), dtype=kwargs.get("dtype"), **cell_kwargs)
        super().__init__(cell, activity_regularizer=regularizers.get(kwargs.pop("activity_regularizer", None)),
                         **layer_kwargs, **kwargs)

    def _cell_name(self):
        return None   # TF 1.15 names the cell as any new layer ("lstm_cell", "lstm_cell_1", ...)

    def __getattr__(self, name):
        # units, activation, kernel, ... are the cell's (TF's properties)
        cell = self.__dict__.get("cell")
        if cell is not None and name in tuple(cell._fields) + ("kernel", "recurrent_kernel", "bias", "state_size"):
            return getattr(cell, name)
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))

    def get_config(self):
        config = RNN.get_config(self)
        del config["cell"]
        for k in self.cell._fields:
            config[k] = serialize_value(k, getattr(self.cell, k))
            if k == "bias_regularizer":
                config["activity_regularizer"] = serialize_value("activity_regularizer", self.activity_regularizer)
        return {k: v for k, v in config.items() if k not in getattr(self, "_config_skip", ())}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from tinyflow.api.keras.config import _arguments
        return cls(**_arguments(dict(config), custom_objects))


class SimpleRNN(_CellRNN):
    """A fully-connected RNN whose output is fed back: h = activation(x @ kernel + h @ recurrent_kernel + bias)."""

    _cell_class = SimpleRNNCell


class LSTM(_CellRNN):
    """Long short-term memory (Hochreiter 1997), TF 1.15's v1 layer (hard_sigmoid gates)."""

    _cell_class = LSTMCell


class GRU(_CellRNN):
    """Gated recurrent unit (Cho et al. 2014), TF 1.15's v1 layer (reset_after=False by default)."""

    _cell_class = GRUCell


# ---- cuDNN's layers: the same math on any device ---------------------------------------------------------
class _CuDNNBias:
    """cuDNN's biases: an input and a recurrent one, stored one after the other (2 * gates * units)."""

    def _bias_shape(self):
        return [2 * self._gates * self.units]

    def _biases(self):
        n = self._gates * self.units
        return (None, None) if self.bias is None else (self.bias[:n], self.bias[n:])


class _CuDNNLSTMCell(_CuDNNBias, LSTMCell):
    """cuDNN's LSTM: sigmoid gates, an input and a recurrent bias (bias of 8 * units, as TF stores it)."""

    _fields = ("units", "kernel_initializer", "recurrent_initializer", "bias_initializer", "unit_forget_bias",
               "kernel_regularizer", "recurrent_regularizer", "bias_regularizer", "kernel_constraint",
               "recurrent_constraint", "bias_constraint")

    def __init__(self, units, **kwargs):
        super().__init__(units, activation="tanh", recurrent_activation="sigmoid", **kwargs)


class _CuDNNGRUCell(_CuDNNBias, GRUCell):
    """cuDNN's GRU: sigmoid gates, the reset gate applied after the recurrent product, bias of 6 * units."""

    _fields = _CuDNNLSTMCell._fields[:4] + _CuDNNLSTMCell._fields[5:]

    def __init__(self, units, **kwargs):
        super().__init__(units, activation="tanh", recurrent_activation="sigmoid", reset_after=True, **kwargs)


class CuDNNLSTM(_CellRNN):
    """TF 1.15's CuDNNLSTM (a GPU-only kernel there): cuDNN's math and weight layout, on any device, so
    weights TF saved load here. Masks are not supported (as in TF)."""

    _cell_class = _CuDNNLSTMCell
    _uses_mask = False
    supports_masking = False
    _layer_fields = ("return_sequences", "return_state", "go_backwards", "stateful", "time_major")
    _config_skip = ("unroll",)

    def _cell_name(self):
        return "cudnn_lstm_cell"


class CuDNNGRU(CuDNNLSTM):
    """TF 1.15's CuDNNGRU: cuDNN's math (reset gate after the recurrent product) and weight layout."""

    _cell_class = _CuDNNGRUCell

    def _cell_name(self):
        return "cudnn_gru_cell"


# ---- masking ----------------------------------------------------------------------------------------
class Masking(Layer):
    """Masks the time steps whose features all equal `mask_value` (the layers after it skip them)."""

    supports_masking = True

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = mask_value

    def compute_mask(self, inputs, mask=None):
        return math_ops.reduce_any(math_ops.not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs):
        keep = math_ops.reduce_any(math_ops.not_equal(inputs, self.mask_value), axis=-1, keepdims=True)
        return inputs * math_ops.cast(keep, inputs.dtype)
