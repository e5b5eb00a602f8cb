"""tf.contrib.seq2seq's attention: BahdanauAttention, LuongAttention and AttentionWrapper, TF 1.15's
math and variable names. A mechanism's "memory_layer" is made (and applied to the memory) when the
mechanism is constructed, in the scope current then ("memory_layer/kernel"); its query layer and
score variables on the first call, inside the wrapper's scope
("decoder/attention_wrapper/bahdanau_attention/query_layer/kernel", ".../attention_v")."""
import collections
import math

import numpy as np

from tinyflow.api import layers
from tinyflow.api.rnn_cell import RNNCell
from tinyflow.api.contrib.seq2seq.decoder import map_structure
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import get_default_graph, name_scope
from tinyflow.graph.nest import flatten
from tinyflow.ops import init_ops, nn_ops
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.core import array_ops, indexing_ops, math_ops
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.core.sequence_ops import sequence_mask

__all__ = ["AttentionMechanism", "AttentionWrapper", "AttentionWrapperState", "BahdanauAttention",
           "LuongAttention"]


class AttentionMechanism:
    """The base of the attention mechanisms (isinstance checks)."""


def _prepare_memory(memory, memory_sequence_length):
    """The memory with the rows past each sequence's length zeroed."""
    memory = map_structure(lambda m: convert_to_tensor(m, name="memory"), memory)
    if memory_sequence_length is None:
        return memory
    lengths = convert_to_tensor(memory_sequence_length, name="memory_sequence_length")

    def mask(m):
        seq_mask = sequence_mask(lengths, maxlen=array_ops.shape(m)[1], dtype=m.dtype)
        # TF's run-time shape: [batch, time] + ones (both may be unknown while building)
        extra = array_ops.ones([m.shape.ndims - 2], dtype=dt.int32)
        return m * array_ops.reshape(seq_mask, array_ops.concat([array_ops.shape(seq_mask), extra], 0))
    return map_structure(mask, memory)


def _maybe_mask_score(score, memory_sequence_length, score_mask_value):
    if memory_sequence_length is None:
        return score
    score_mask = sequence_mask(memory_sequence_length, maxlen=array_ops.shape(score)[1])
    return indexing_ops.where(score_mask, score, score_mask_value * array_ops.ones_like(score))


class _BaseAttentionMechanism(AttentionMechanism):
    def __init__(self, query_layer, memory, probability_fn, memory_sequence_length=None, memory_layer=None,
                 score_mask_value=None, name=None):
        self._query_layer, self._memory_layer = query_layer, memory_layer
        self.dtype = memory_layer.dtype if memory_layer is not None else None
        self._memory_sequence_length = memory_sequence_length
        with name_scope(name, "BaseAttentionMechanismInit", flatten(memory)):
            self._values = _prepare_memory(memory, memory_sequence_length)
            if score_mask_value is None:
                score_mask_value = self._values.dtype.as_numpy_dtype(-np.inf)
            self._probability_fn = lambda score, prev: probability_fn(
                _maybe_mask_score(score, memory_sequence_length, score_mask_value), prev)
            self._keys = self.memory_layer(self._values) if self.memory_layer else self._values
            self._batch_size = self._keys.shape[0].value or array_ops.shape(self._keys)[0]
            self._alignments_size = self._keys.shape[1].value or array_ops.shape(self._keys)[1]

    memory_layer = property(lambda self: self._memory_layer)
    query_layer = property(lambda self: self._query_layer)
    values = property(lambda self: self._values)
    keys = property(lambda self: self._keys)
    batch_size = property(lambda self: self._batch_size)
    alignments_size = property(lambda self: self._alignments_size)
    state_size = property(lambda self: self._alignments_size)

    def initial_alignments(self, batch_size, dtype):
        """Zeros [batch_size, max_time]."""
        return array_ops.zeros([batch_size, self._alignments_size] if isinstance(batch_size, int)
                               and isinstance(self._alignments_size, int) else
                               array_ops.stack([batch_size, self._alignments_size]), dtype=dtype)

    def initial_state(self, batch_size, dtype):
        return self.initial_alignments(batch_size, dtype)


def _probability(probability_fn):
    fn = probability_fn if probability_fn is not None else nn_ops.softmax
    return lambda score, _: fn(score)


class LuongAttention(_BaseAttentionMechanism):
    """Multiplicative attention: score = query . keys (times a learned scalar "attention_g" when
    scale=True); the memory is projected to num_units by "memory_layer" (no bias)."""

    def __init__(self, num_units, memory, memory_sequence_length=None, scale=False, probability_fn=None,
                 score_mask_value=None, dtype=None, name="LuongAttention"):
        dtype = dtype or dt.float32
        super().__init__(query_layer=None, memory=memory, probability_fn=_probability(probability_fn),
                         memory_layer=layers.Dense(num_units, name="memory_layer", use_bias=False, dtype=dtype),
                         memory_sequence_length=memory_sequence_length, score_mask_value=score_mask_value, name=name)
        self._num_units, self._scale, self._name = num_units, scale, name

    def __call__(self, query, state):
        with vs.variable_scope(None, "luong_attention", [query]):
            depth, key_units = query.shape[-1].value, self._keys.shape[-1].value
            if depth != key_units:
                raise ValueError("Incompatible or unknown inner dimensions between query and keys.  Query (%s) has "
                                 "units: %s.  Keys (%s) have units: %s.  Perhaps you need to set num_units to the "
                                 "keys' dimension (%s)?" % (query, depth, self._keys, key_units, key_units))
            score = array_ops.squeeze(math_ops.matmul(array_ops.expand_dims(query, 1), self._keys,
                                                      transpose_b=True), [1])
            if self._scale:
                g = vs.get_variable("attention_g", dtype=query.dtype, initializer=init_ops.ones_initializer(),
                                    shape=())
                score = g * score
        alignments = self._probability_fn(score, state)
        return alignments, alignments


class BahdanauAttention(_BaseAttentionMechanism):
    """Additive attention: score = v . tanh(keys + W query) ("attention_v"); normalize=True uses
    the weight-normalised v (g v / |v|, "attention_g", "attention_b")."""

    def __init__(self, num_units, memory, memory_sequence_length=None, normalize=False, probability_fn=None,
                 score_mask_value=None, dtype=None, name="BahdanauAttention"):
        dtype = dtype or dt.float32
        super().__init__(query_layer=layers.Dense(num_units, name="query_layer", use_bias=False, dtype=dtype),
                         memory=memory, probability_fn=_probability(probability_fn),
                         memory_layer=layers.Dense(num_units, name="memory_layer", use_bias=False, dtype=dtype),
                         memory_sequence_length=memory_sequence_length, score_mask_value=score_mask_value, name=name)
        self._num_units, self._normalize, self._name = num_units, normalize, name

    def __call__(self, query, state):
        with vs.variable_scope(None, "bahdanau_attention", [query]):
            processed = array_ops.expand_dims(self.query_layer(query) if self.query_layer else query, 1)
            keys, dtype = self._keys, processed.dtype
            num_units = keys.shape[2].value
            v = vs.get_variable("attention_v", [num_units], dtype=dtype)
            if self._normalize:
                g = vs.get_variable("attention_g", dtype=dtype, shape=(),
                                    initializer=init_ops.constant_initializer(math.sqrt(1. / num_units)))
                b = vs.get_variable("attention_b", [num_units], dtype=dtype, initializer=init_ops.zeros_initializer())
                normed_v = g * v * math_ops.rsqrt(math_ops.reduce_sum(math_ops.square(v)))
                score = math_ops.reduce_sum(normed_v * math_ops.tanh(keys + processed + b), [2])
            else:
                score = math_ops.reduce_sum(v * math_ops.tanh(keys + processed), [2])
        alignments = self._probability_fn(score, state)
        return alignments, alignments


class AttentionWrapperState(collections.namedtuple("AttentionWrapperState", (
        "cell_state", "attention", "time", "alignments", "alignment_history", "attention_state"))):
    """The AttentionWrapper's state: the inner cell's state, the last attention vector, the step,
    the alignments (and their history when asked for) and each mechanism's own state."""
    __slots__ = ()

    def clone(self, **kwargs):
        """A copy with some fields replaced (e.g. cell_state=encoder_state)."""
        return self._replace(**kwargs)


def _compute_attention(mechanism, cell_output, attention_state, attention_layer):
    alignments, next_attention_state = mechanism(cell_output, state=attention_state)
    context = array_ops.squeeze(math_ops.matmul(array_ops.expand_dims(alignments, 1), mechanism.values), [1])
    attention = attention_layer(array_ops.concat([cell_output, context], 1)) if attention_layer is not None \
        else context
    return attention, alignments, next_attention_state


class AttentionWrapper(RNNCell):
    """A cell with attention: its input is cell_input_fn(inputs, previous attention) (their concat),
    its output the attention vector (attention_layer([cell output, context]) when
    attention_layer_size is given, else the context) unless output_attention=False."""

    def __init__(self, cell, attention_mechanism, attention_layer_size=None, alignment_history=False,
                 cell_input_fn=None, output_attention=True, initial_cell_state=None, name=None,
                 attention_layer=None):
        super().__init__(name=name)
        self._is_multi = isinstance(attention_mechanism, (list, tuple))
        mechanisms = tuple(attention_mechanism) if self._is_multi else (attention_mechanism,)
        for m in mechanisms:
            if not isinstance(m, AttentionMechanism):
                raise TypeError("attention_mechanism must be an AttentionMechanism or list of multiple "
                                "AttentionMechanism instances, saw type: %s" % type(m).__name__)
        if alignment_history:
            raise NotImplementedError("tinyflow: AttentionWrapper(alignment_history=True) is not supported")
        if attention_layer_size is not None and attention_layer is not None:
            raise ValueError("Only one of attention_layer_size and attention_layer should be set")
        self._cell_input_fn = cell_input_fn or (lambda inputs, attention: array_ops.concat([inputs, attention], -1))
        if attention_layer_size is not None:
            sizes = tuple(attention_layer_size if isinstance(attention_layer_size, (list, tuple))
                          else (attention_layer_size,))
            if len(sizes) != len(mechanisms):
                raise ValueError("If provided, attention_layer_size must contain exactly one integer per "
                                 "attention_mechanism, saw: %d vs %d" % (len(sizes), len(mechanisms)))
            self._attention_layers = tuple(layers.Dense(s, name="attention_layer", use_bias=False, dtype=m.dtype)
                                           for s, m in zip(sizes, mechanisms))
            self._attention_layer_size = sum(sizes)
        elif attention_layer is not None:
            self._attention_layers = tuple(attention_layer if isinstance(attention_layer, (list, tuple))
                                           else (attention_layer,))
            self._attention_layer_size = sum(
                layer.compute_output_shape([None, cell.output_size + m.values.shape[-1].value])[-1].value
                for layer, m in zip(self._attention_layers, mechanisms))
        else:
            self._attention_layers = None
            self._attention_layer_size = sum(m.values.shape[-1].value for m in mechanisms)
        self._cell, self._mechanisms = cell, mechanisms
        self._output_attention, self._initial_cell_state = output_attention, initial_cell_state

    def _item_or_tuple(self, seq):
        t = tuple(seq)
        return t if self._is_multi else t[0]

    @property
    def output_size(self):
        return self._attention_layer_size if self._output_attention else self._cell.output_size

    @property
    def state_size(self):
        from tinyflow.graph.shapes import TensorShape
        return AttentionWrapperState(
            cell_state=self._cell.state_size, time=TensorShape([]), attention=self._attention_layer_size,
            alignments=self._item_or_tuple(m.alignments_size for m in self._mechanisms),
            attention_state=self._item_or_tuple(m.state_size for m in self._mechanisms),
            alignment_history=self._item_or_tuple(() for _ in self._mechanisms))

    def zero_state(self, batch_size, dtype):
        with get_default_graph().name_scope(type(self).__name__ + "ZeroState"):
            cell_state = self._initial_cell_state if self._initial_cell_state is not None else \
                self._cell.zero_state(batch_size, dtype)
            cell_state = map_structure(lambda s: array_ops.identity(s, name="checked_cell_state"), cell_state)
            size = self._attention_layer_size
            return AttentionWrapperState(
                cell_state=cell_state, time=array_ops.zeros([], dtype=dt.int32),
                attention=array_ops.zeros([batch_size, size] if isinstance(batch_size, int)
                                          else array_ops.stack([batch_size, size]), dtype=dtype),
                alignments=self._item_or_tuple(m.initial_alignments(batch_size, dtype) for m in self._mechanisms),
                attention_state=self._item_or_tuple(m.initial_state(batch_size, dtype) for m in self._mechanisms),
                alignment_history=self._item_or_tuple(() for _ in self._mechanisms))

    def call(self, inputs, state):
        if not isinstance(state, AttentionWrapperState):
            raise TypeError("Expected state to be instance of AttentionWrapperState. Received type %s instead."
                            % type(state))
        cell_output, next_cell_state = self._cell(self._cell_input_fn(inputs, state.attention), state.cell_state)
        previous = state.attention_state if self._is_multi else [state.attention_state]
        attentions, alignments, attention_states = [], [], []
        for i, mechanism in enumerate(self._mechanisms):
            attention, align, next_attention_state = _compute_attention(
                mechanism, cell_output, previous[i], self._attention_layers[i] if self._attention_layers else None)
            attentions.append(attention)
            alignments.append(align)
            attention_states.append(next_attention_state)
        attention = array_ops.concat(attentions, 1)
        next_state = AttentionWrapperState(
            time=state.time + 1, cell_state=next_cell_state, attention=attention,
            attention_state=self._item_or_tuple(attention_states), alignments=self._item_or_tuple(alignments),
            alignment_history=state.alignment_history)
        return (attention if self._output_attention else cell_output), next_state
