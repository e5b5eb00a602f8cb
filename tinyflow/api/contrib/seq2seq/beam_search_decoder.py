"""tf.contrib.seq2seq.BeamSearchDecoder, TF 1.15's beam search step for step (length penalty,
coverage penalty over AttentionWrapper alignments, finished beams that only extend with end_token),
with gather_tree (ops/beam_ops.py) rebuilding the beams in finalize. Run it with dynamic_decode:
the predicted ids come back as FinalBeamSearchDecoderOutput(predicted_ids [batch, time, beam], ...).
The cell's initial state must have batch_size * beam_width rows (tile_batch)."""
import collections

import numpy as np

from tinyflow.api.contrib.seq2seq.attention_wrapper import AttentionWrapperState
from tinyflow.api.contrib.seq2seq.decoder import Decoder, map_structure
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import name_scope
from tinyflow.graph.shapes import TensorShape, as_shape
from tinyflow.ops import nn_ops
from tinyflow.ops.beam_ops import gather_tree
from tinyflow.ops.control_flow_ops import cond
from tinyflow.ops.core import array_ops, indexing_ops, math_ops
from tinyflow.ops.core.base import constant_value_of, convert_to_tensor
from tinyflow.ops.core.sequence_ops import one_hot, top_k
from tinyflow.ops.core.sequence_ops import range as _range

__all__ = ["BeamSearchDecoder", "BeamSearchDecoderOutput", "BeamSearchDecoderState", "FinalBeamSearchDecoderOutput",
           "gather_tree"]


class BeamSearchDecoderState(collections.namedtuple("BeamSearchDecoderState", (
        "cell_state", "log_probs", "finished", "lengths", "accumulated_attention_probs"))):
    __slots__ = ()


class BeamSearchDecoderOutput(collections.namedtuple("BeamSearchDecoderOutput",
                                                     ("scores", "predicted_ids", "parent_ids"))):
    __slots__ = ()


class FinalBeamSearchDecoderOutput(collections.namedtuple("FinalBeamDecoderOutput",
                                                          ["predicted_ids", "beam_search_decoder_output"])):
    """predicted_ids [batch, time, beam] (the full beams) and the per-step outputs."""
    __slots__ = ()


def _size_shape(s):
    """A state size as a shape; TF's: a size that is a tensor (an attention over a memory of unknown
    length: its alignments) counts by its constant value, else as unknown."""
    if hasattr(s, "op"):
        value = constant_value_of(s)
        return as_shape(None if value is None else np.atleast_1d(value).tolist())
    return as_shape(s)


def _static(x):
    v = constant_value_of(x)
    return int(v) if v is not None else None


class BeamSearchDecoder(Decoder):
    """Keeps beam_width hypotheses per batch entry: each step scores every (beam, word) by
    log-probability (divided by the length penalty ((5 + length) / 6) ** length_penalty_weight)
    and keeps the top beam_width."""

    tracks_own_finished = True

    def __init__(self, cell, embedding, start_tokens, end_token, initial_state, beam_width, output_layer=None,
                 length_penalty_weight=0.0, coverage_penalty_weight=0.0, reorder_tensor_arrays=True):
        if not callable(cell):
            raise TypeError("cell must be an RNNCell, received: %s" % type(cell))
        self._cell, self._output_layer, self._beam_width = cell, output_layer, beam_width
        self._length_penalty_weight, self._coverage_penalty_weight = length_penalty_weight, coverage_penalty_weight
        self._embedding_fn = embedding if callable(embedding) else (
            lambda ids: nn_ops.embedding_lookup(embedding, ids))
        self._start_tokens = convert_to_tensor(start_tokens, dtype=dt.int32, name="start_tokens")
        if self._start_tokens.shape.ndims != 1:
            raise ValueError("start_tokens must be a vector")
        self._end_token = convert_to_tensor(end_token, dtype=dt.int32, name="end_token")
        if self._end_token.shape.ndims != 0:
            raise ValueError("end_token must be a scalar")
        # a static batch size where there is one: inside the loop's body a captured tensor is a run-time value
        self._batch_size = self._start_tokens.shape[0].value or array_ops.size(self._start_tokens)
        self._initial_cell_state = map_structure(self._maybe_split_batch_beams, initial_state,
                                                 self._state_template())
        self._start_tokens = array_ops.tile(array_ops.expand_dims(self._start_tokens, 1), [1, beam_width])
        self._start_inputs = self._embedding_fn(self._start_tokens)
        # as TF builds it: its static shape [batch, beam_width] (a tile by a tensor would lose beam_width)
        self._finished = one_hot(array_ops.zeros(array_ops.stack([self._batch_size]), dtype=dt.int32), depth=beam_width,
                                 on_value=False, off_value=True, dtype=dt.bool_)

    batch_size = property(lambda self: self._batch_size)

    def _state_template(self):
        return self._cell.state_size

    def _rnn_output_size(self):
        size = self._cell.output_size
        if self._output_layer is None:
            return size
        return map_structure(lambda s: self._output_layer.compute_output_shape(
            TensorShape([None]).concatenate(as_shape(s)))[1:], size)

    @property
    def output_size(self):
        w = TensorShape([self._beam_width])
        return BeamSearchDecoderOutput(scores=w, predicted_ids=w, parent_ids=w)

    @property
    def output_dtype(self):
        dtype = _flat_first(self._initial_cell_state).dtype
        return BeamSearchDecoderOutput(scores=map_structure(lambda _: dtype, self._rnn_output_size()),
                                       predicted_ids=dt.int32, parent_ids=dt.int32)

    def initialize(self, name=None):
        dtype = _flat_first(self._initial_cell_state).dtype
        zeros = array_ops.zeros(array_ops.stack([self._batch_size]), dtype=dt.int32)
        log_probs = one_hot(zeros, depth=self._beam_width, on_value=convert_to_tensor(0.0, dtype=dtype),
                            off_value=convert_to_tensor(-np.inf, dtype=dtype), dtype=dtype)
        attention_probs = _attention_probs(self._initial_cell_state, self._coverage_penalty_weight)
        state = BeamSearchDecoderState(
            cell_state=self._initial_cell_state, log_probs=log_probs, finished=self._finished,
            lengths=array_ops.zeros(array_ops.stack([self._batch_size, self._beam_width]), dtype=dt.int64),
            accumulated_attention_probs=attention_probs if attention_probs is not None else ())
        return self._finished, self._start_inputs, state

    def finalize(self, outputs, final_state, sequence_lengths):
        max_lengths = math_ops.cast(math_ops.reduce_max(final_state.lengths, axis=1), dt.int32)
        predicted_ids = gather_tree(outputs.predicted_ids, outputs.parent_ids, max_sequence_lengths=max_lengths,
                                    end_token=self._end_token)
        return FinalBeamSearchDecoderOutput(beam_search_decoder_output=outputs, predicted_ids=predicted_ids), \
            final_state

    def _merge_batch_beams(self, t, s):
        batch, rest = _static(self._batch_size), _size_shape(s)
        out = array_ops.reshape(t, array_ops.concat([[-1], array_ops.shape(t)[2:]], 0))
        out.set_shape(TensorShape([batch * self._beam_width if batch is not None else None]).concatenate(rest))
        return out

    def _split_batch_beams(self, t, s):
        batch = _static(self._batch_size)
        out = array_ops.reshape(t, array_ops.concat([[-1, self._beam_width], array_ops.shape(t)[1:]], 0))
        expected = TensorShape([batch, self._beam_width]).concatenate(_size_shape(s))
        if not out.shape.is_compatible_with(expected):
            raise ValueError("Unexpected behavior when reshaping between beam width and batch size.  The reshaped "
                             "tensor has shape: %s.  We expected it to have shape (batch_size, beam_width, depth) == "
                             "%s.  Perhaps you forgot to create a zero_state with batch_size=encoder_batch_size * "
                             "beam_width?" % (out.shape, expected))
        out.set_shape(expected)
        return out

    def _maybe_split_batch_beams(self, t, s):
        return self._split_batch_beams(t, s) if t.shape.ndims >= 1 else t

    def _maybe_merge_batch_beams(self, t, s):
        return self._merge_batch_beams(t, s) if t.shape.ndims >= 2 else t

    def step(self, time, inputs, state, name=None):
        with name_scope(name, "BeamSearchDecoderStep"):
            inputs = map_structure(lambda inp: self._merge_batch_beams(inp, inp.shape[2:]), inputs)
            cell_state = map_structure(self._maybe_merge_batch_beams, state.cell_state, self._state_template())
            cell_outputs, next_cell_state = self._cell(inputs, cell_state)
            cell_outputs = map_structure(lambda out: self._split_batch_beams(out, out.shape[1:]), cell_outputs)
            next_cell_state = map_structure(self._maybe_split_batch_beams, next_cell_state, self._state_template())
            if self._output_layer is not None:
                cell_outputs = self._output_layer(cell_outputs)
            batch = _static(self._batch_size) or array_ops.shape(state.log_probs)[0]
            output, beam_state = _beam_search_step(time, cell_outputs, next_cell_state, state, batch,
                                                   self._beam_width, self._end_token, self._length_penalty_weight,
                                                   self._coverage_penalty_weight)
            finished = beam_state.finished
            next_inputs = cond(math_ops.reduce_all(finished), lambda: self._start_inputs,
                               lambda: self._embedding_fn(output.predicted_ids))
        return output, beam_state, next_inputs, finished


def _flat_first(structure):
    from tinyflow.graph.nest import flatten
    return flatten(structure)[0]


def _attention_probs(cell_state, coverage_penalty_weight):
    if coverage_penalty_weight == 0.0:
        return None
    states = [cell_state] if isinstance(cell_state, AttentionWrapperState) else [
        s for s in (cell_state if isinstance(cell_state, tuple) else ()) if isinstance(s, AttentionWrapperState)]
    if not states:
        raise ValueError("coverage_penalty_weight must be 0.0 if no cell is attentional.")
    probs = [_mean_alignments(s.alignments) for s in states]
    return probs[0] if len(probs) == 1 else _mean_alignments(tuple(probs))


def _mean_alignments(alignments):
    if not isinstance(alignments, tuple):
        return alignments
    return math_ops.reduce_mean(array_ops.concat([array_ops.expand_dims(a, -1) for a in alignments], -1), -1)


def _length_penalty(sequence_lengths, penalty_factor):
    penalty_factor = convert_to_tensor(penalty_factor, name="penalty_factor")
    static = constant_value_of(penalty_factor)
    if static is not None and static == 0:
        return 1.0
    return (5. + math_ops.cast(sequence_lengths, dt.float32)) ** penalty_factor / (5. + 1.) ** penalty_factor


def _mask_probs(probs, eos_token, finished):
    """A finished beam may only continue with eos (log-probability 0), every other word at dtype.min."""
    vocab_size = array_ops.shape(probs)[2]
    finished_row = one_hot(eos_token, vocab_size, dtype=probs.dtype, on_value=convert_to_tensor(0., dtype=probs.dtype),
                           off_value=convert_to_tensor(np.finfo(probs.dtype.as_numpy_dtype).min, dtype=probs.dtype))
    finished_probs = array_ops.tile(array_ops.reshape(finished_row, [1, 1, -1]),
                                    array_ops.concat([array_ops.shape(finished), [1]], 0))
    finished_mask = array_ops.tile(array_ops.expand_dims(finished, 2), array_ops.stack([1, 1, vocab_size]))
    return indexing_ops.where(finished_mask, finished_probs, probs)


def _gather(gather_indices, gather_from, batch_size, range_size, gather_shape):
    """gather_from's rows picked per batch entry by gather_indices (TF's _tensor_gather_helper)."""
    with name_scope(None, "tensor_gather_helper"):
        range_ = array_ops.expand_dims(_range(batch_size) * range_size, 1)
        indices = array_ops.reshape(gather_indices + range_, [-1])
        output = indexing_ops.gather(array_ops.reshape(gather_from, gather_shape), indices)
        output = array_ops.reshape(output, array_ops.shape(gather_from)[:1 + len(gather_shape)], name="output")
        output.set_shape(TensorShape([_static(batch_size)]).concatenate(gather_from.shape[1:1 + len(gather_shape)]))
        return output


def _beam_search_step(time, logits, next_cell_state, beam_state, batch_size, beam_width, end_token,
                      length_penalty_weight, coverage_penalty_weight):
    previously_finished = beam_state.finished
    not_finished = math_ops.logical_not(previously_finished)
    step_log_probs = _mask_probs(nn_ops.log_softmax(logits), end_token, previously_finished)
    total_probs = array_ops.expand_dims(beam_state.log_probs, 2) + step_log_probs
    vocab_size = logits.shape[-1].value or array_ops.shape(logits)[-1]
    lengths_to_add = one_hot(array_ops.fill(array_ops.stack([batch_size, beam_width]), end_token), depth=vocab_size,
                             on_value=convert_to_tensor(0, dtype=dt.int64),
                             off_value=convert_to_tensor(1, dtype=dt.int64), dtype=dt.int64)
    lengths_to_add *= array_ops.expand_dims(math_ops.cast(not_finished, dt.int64), 2)
    new_lengths = lengths_to_add + array_ops.expand_dims(beam_state.lengths, 2)
    accumulated = None
    attention_probs = _attention_probs(next_cell_state, coverage_penalty_weight)
    if attention_probs is not None:
        attention_probs *= array_ops.expand_dims(math_ops.cast(not_finished, dt.float32), 2)
        accumulated = beam_state.accumulated_attention_probs + attention_probs
    scores = total_probs / math_ops.cast(_length_penalty(new_lengths, length_penalty_weight), total_probs.dtype)
    if coverage_penalty_weight != 0.0:
        acc = indexing_ops.where(math_ops.equal(accumulated, 0.0), array_ops.ones_like(accumulated), accumulated)
        coverage = math_ops.reduce_sum(math_ops.log(math_ops.minimum(acc, 1.0)), 2)
        coverage *= math_ops.cast(previously_finished, dt.float32)
        scores += array_ops.expand_dims(coverage * coverage_penalty_weight, 2)
    scores_flat = array_ops.reshape(scores, array_ops.stack([batch_size, -1]))
    next_beam_scores, word_indices = top_k(scores_flat, k=beam_width)
    static_batch = _static(batch_size)
    next_beam_scores.set_shape([static_batch, beam_width])
    word_indices.set_shape([static_batch, beam_width])
    next_beam_probs = _gather(word_indices, total_probs, batch_size, beam_width * vocab_size, [-1])
    next_word_ids = math_ops.cast(math_ops.floormod(word_indices, vocab_size), dt.int32)
    next_beam_ids = math_ops.cast(math_ops.floordiv(word_indices, vocab_size), dt.int32)
    previously_finished = _gather(next_beam_ids, previously_finished, batch_size, beam_width, [-1])
    next_finished = math_ops.logical_or(previously_finished, math_ops.equal(next_word_ids, end_token))
    next_lengths = _gather(next_beam_ids, beam_state.lengths, batch_size, beam_width, [-1])
    next_lengths += math_ops.cast(math_ops.logical_not(previously_finished), dt.int64)
    next_accumulated = ()
    if accumulated is not None:
        next_accumulated = _gather(next_beam_ids, accumulated, batch_size, beam_width, [batch_size * beam_width, -1])
    next_cell_state = map_structure(
        lambda g: _gather(next_beam_ids, g, batch_size, beam_width, [batch_size * beam_width, -1])
        if g.shape.ndims >= 2 else g, next_cell_state)
    state = BeamSearchDecoderState(cell_state=next_cell_state, log_probs=next_beam_probs, lengths=next_lengths,
                                   finished=next_finished, accumulated_attention_probs=next_accumulated)
    return BeamSearchDecoderOutput(scores=next_beam_scores, predicted_ids=next_word_ids,
                                   parent_ids=next_beam_ids), state
