"""tf.contrib.crf: linear-chain conditional random fields, TF 1.15's functions op for op.

crf_log_likelihood(inputs [batch, time, tags], tag_indices, sequence_lengths) gives the log
likelihood of each tag sequence and the "transitions" [tags, tags] variable (made in the current
scope unless given); crf_decode is Viterbi in the graph (two dynamic_rnn passes, as TF), and
viterbi_decode the numpy one for a single sequence.
"""
import numpy as np

from tinyflow.api.rnn import dynamic_rnn
from tinyflow.api.rnn_cell import RNNCell
from tinyflow.graph import dtypes as dt
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.control_flow_ops import cond
from tinyflow.ops.core import array_ops, indexing_ops, math_ops
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.core.sequence_ops import range as _range
from tinyflow.ops.core.sequence_ops import reverse_sequence, sequence_mask

__all__ = ["CrfDecodeBackwardRnnCell", "CrfDecodeForwardRnnCell", "CrfForwardRnnCell", "crf_binary_score",
           "crf_decode", "crf_log_likelihood", "crf_log_norm", "crf_multitag_sequence_score", "crf_sequence_score",
           "crf_unary_score", "viterbi_decode"]


def _smart_cond(inputs, single, multi):
    """TF's smart_cond on `inputs.shape[1] == 1`: decided now when the length is static."""
    steps = inputs.shape[1].value
    if steps is not None:
        return single() if steps == 1 else multi()
    return cond(math_ops.equal(array_ops.shape(inputs)[1], 1), single, multi)


def _zero_where_empty(lengths, x):
    return indexing_ops.where(math_ops.less_equal(lengths, 0), array_ops.zeros_like(x), x)


def crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params):
    """The unnormalised score of each tag sequence: unary plus binary (transition) scores."""
    inputs, tag_indices = convert_to_tensor(inputs), convert_to_tensor(tag_indices)

    def single():
        batch = array_ops.shape(inputs, out_type=tag_indices.dtype)[0]
        example_inds = array_ops.reshape(_range(batch, dtype=tag_indices.dtype), [-1, 1])
        scores = indexing_ops.gather_nd(array_ops.squeeze(inputs, [1]),
                                        array_ops.concat([example_inds, tag_indices], axis=1))
        return _zero_where_empty(sequence_lengths, scores)
    return _smart_cond(inputs, single, lambda: crf_unary_score(tag_indices, sequence_lengths, inputs)
                       + crf_binary_score(tag_indices, sequence_lengths, transition_params))


def crf_multitag_sequence_score(inputs, tag_bitmap, sequence_lengths, transition_params):
    """The score of all tag sequences allowed by tag_bitmap [batch, time, tags] (bool)."""
    inputs = convert_to_tensor(inputs)
    filtered = indexing_ops.where(tag_bitmap, inputs, array_ops.fill(array_ops.shape(inputs), float("-inf")))
    return _smart_cond(inputs, lambda: math_ops.reduce_logsumexp(filtered, axis=[1, 2]),
                       lambda: crf_log_norm(filtered, sequence_lengths, transition_params))


def crf_log_norm(inputs, sequence_lengths, transition_params):
    """The log partition function of each sequence (the forward algorithm over CrfForwardRnnCell)."""
    inputs = convert_to_tensor(inputs)
    first_input = array_ops.squeeze(indexing_ops.slice(inputs, [0, 0, 0], [-1, 1, -1]), [1])

    def single():
        return _zero_where_empty(sequence_lengths, math_ops.reduce_logsumexp(first_input, [1]))

    def multi():
        rest = indexing_ops.slice(inputs, [0, 1, 0], [-1, -1, -1])
        lengths = convert_to_tensor(sequence_lengths)
        less_one = math_ops.maximum(convert_to_tensor(0, dtype=lengths.dtype), lengths - 1)
        _, alphas = dynamic_rnn(CrfForwardRnnCell(transition_params), rest, sequence_length=less_one,
                                initial_state=first_input, dtype=dt.float32)
        return _zero_where_empty(sequence_lengths, math_ops.reduce_logsumexp(alphas, [1]))
    return _smart_cond(inputs, single, multi)


def crf_log_likelihood(inputs, tag_indices, sequence_lengths, transition_params=None):
    """(log likelihood of each tag sequence [batch], transition_params)."""
    inputs = convert_to_tensor(inputs)
    if transition_params is None:
        num_tags = inputs.shape[2].value
        transition_params = vs.get_variable("transitions", [num_tags, num_tags])
    scores = crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params)
    return scores - crf_log_norm(inputs, sequence_lengths, transition_params), transition_params


def crf_unary_score(tag_indices, sequence_lengths, inputs):
    """The sum over each sequence's steps of inputs[b, t, tag_indices[b, t]]."""
    inputs, tag_indices = convert_to_tensor(inputs), convert_to_tensor(tag_indices)
    batch, max_len, num_tags = (array_ops.shape(inputs)[i] for i in range(3))
    offsets = array_ops.expand_dims(_range(batch) * max_len * num_tags, 1)
    offsets += array_ops.expand_dims(_range(max_len) * num_tags, 0)
    if tag_indices.dtype == dt.int64:
        offsets = math_ops.cast(offsets, dt.int64)
    flat_tags = array_ops.reshape(offsets + tag_indices, [-1])
    unary = array_ops.reshape(indexing_ops.gather(array_ops.reshape(inputs, [-1]), flat_tags), [batch, max_len])
    masks = sequence_mask(sequence_lengths, maxlen=array_ops.shape(tag_indices)[1], dtype=dt.float32)
    return math_ops.reduce_sum(unary * masks, 1)


def crf_binary_score(tag_indices, sequence_lengths, transition_params):
    """The sum over each sequence of transition_params[tag_t, tag_t+1]."""
    tag_indices, transition_params = convert_to_tensor(tag_indices), convert_to_tensor(transition_params)
    num_tags = transition_params.shape[0].value
    num_transitions = array_ops.shape(tag_indices)[1] - 1
    start = indexing_ops.slice(tag_indices, [0, 0], array_ops.stack([-1, num_transitions]))
    end = indexing_ops.slice(tag_indices, [0, 1], array_ops.stack([-1, num_transitions]))
    binary = indexing_ops.gather(array_ops.reshape(transition_params, [-1]), start * num_tags + end)
    masks = sequence_mask(sequence_lengths, maxlen=array_ops.shape(tag_indices)[1], dtype=dt.float32)
    return math_ops.reduce_sum(binary * indexing_ops.slice(masks, [0, 1], [-1, -1]), 1)


class CrfForwardRnnCell(RNNCell):
    """One step of the forward algorithm: alphas' = inputs + logsumexp(alphas + transitions)."""

    def __init__(self, transition_params):
        super().__init__()
        transition_params = convert_to_tensor(transition_params)
        self._transition_params = array_ops.expand_dims(transition_params, 0)
        self._num_tags = transition_params.shape[0].value

    state_size = property(lambda self: self._num_tags)
    output_size = property(lambda self: self._num_tags)

    def __call__(self, inputs, state, scope=None):
        new_alphas = inputs + math_ops.reduce_logsumexp(array_ops.expand_dims(state, 2) + self._transition_params,
                                                        [1])
        return new_alphas, new_alphas


class CrfDecodeForwardRnnCell(CrfForwardRnnCell):
    """One Viterbi step: the best score per tag (state) and its backpointers (int32 output)."""

    output_dtype = dt.int32   # its outputs are not its state's dtype (rnn.dynamic_rnn reads this)

    def __call__(self, inputs, state, scope=None):
        scores = array_ops.expand_dims(state, 2) + self._transition_params
        backpointers = math_ops.cast(math_ops.argmax(scores, 1), dt.int32)
        return backpointers, inputs + math_ops.reduce_max(scores, [1])


class CrfDecodeBackwardRnnCell(RNNCell):
    """One step back along the backpointers: state [batch, 1] is the current tag."""

    def __init__(self, num_tags):
        super().__init__()
        self._num_tags = num_tags

    state_size = property(lambda self: 1)
    output_size = property(lambda self: 1)

    def __call__(self, inputs, state, scope=None):
        state = array_ops.squeeze(state, axis=[1])
        indices = array_ops.stack([_range(array_ops.shape(inputs)[0]), state], axis=1)
        new_tags = array_ops.expand_dims(indexing_ops.gather_nd(inputs, indices), axis=-1)
        return new_tags, new_tags


def viterbi_decode(score, transition_params):
    """The best tag sequence of one [time, tags] score matrix (numpy): (list of tags, its score)."""
    score, transition_params = np.asarray(score), np.asarray(transition_params)
    trellis = np.zeros_like(score)
    backpointers = np.zeros_like(score, dtype=np.int32)
    trellis[0] = score[0]
    for t in range(1, score.shape[0]):
        v = np.expand_dims(trellis[t - 1], 1) + transition_params
        trellis[t] = score[t] + np.max(v, 0)
        backpointers[t] = np.argmax(v, 0)
    viterbi = [np.argmax(trellis[-1])]
    for bp in reversed(backpointers[1:]):
        viterbi.append(bp[viterbi[-1]])
    viterbi.reverse()
    return viterbi, np.max(trellis[-1])


def crf_decode(potentials, transition_params, sequence_length):
    """Viterbi in the graph: (best tags [batch, time] int32, their scores [batch])."""
    potentials = convert_to_tensor(potentials)

    def single():
        squeezed = array_ops.squeeze(potentials, [1])
        tags = array_ops.expand_dims(math_ops.argmax(squeezed, axis=1), 1)
        return math_ops.cast(tags, dt.int32), math_ops.reduce_max(squeezed, axis=1)

    def multi():
        lengths = convert_to_tensor(sequence_length)
        initial = array_ops.squeeze(indexing_ops.slice(potentials, [0, 0, 0], [-1, 1, -1]), axis=[1])
        inputs = indexing_ops.slice(potentials, [0, 1, 0], [-1, -1, -1])
        less_one = math_ops.maximum(convert_to_tensor(0, dtype=lengths.dtype), lengths - 1)
        backpointers, last_score = dynamic_rnn(CrfDecodeForwardRnnCell(transition_params), inputs,
                                               sequence_length=less_one, initial_state=initial, dtype=dt.int32)
        backpointers = reverse_sequence(backpointers, less_one, seq_axis=1)
        initial = array_ops.expand_dims(math_ops.cast(math_ops.argmax(last_score, axis=1), dt.int32), axis=-1)
        tags, _ = dynamic_rnn(CrfDecodeBackwardRnnCell(potentials.shape[2].value), backpointers,
                              sequence_length=less_one, initial_state=initial, dtype=dt.int32)
        tags = array_ops.concat([initial, array_ops.squeeze(tags, axis=[2])], axis=1)
        return reverse_sequence(tags, lengths, seq_axis=1), math_ops.reduce_max(last_score, axis=1)
    return _smart_cond(potentials, single, multi)
