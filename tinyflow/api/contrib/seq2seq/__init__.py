"""tf.contrib.seq2seq: sequence_loss (the loss of the RNN language-model tutorials), tile_batch and
hardmax; the helpers, BasicDecoder and dynamic_decode (decoder.py) and the attention
mechanisms and AttentionWrapper (attention_wrapper.py), beam search (beam_search_decoder.py)."""
from tinyflow.graph.core import name_scope
from tinyflow.ops import nn_ops
from tinyflow.ops.core import array_ops, math_ops
from tinyflow.ops.core.base import convert_to_tensor

from tinyflow.api.contrib.seq2seq.decoder import (BasicDecoder, BasicDecoderOutput, CustomHelper, Decoder,  # noqa: F401
                                                  GreedyEmbeddingHelper, Helper, InferenceHelper, SampleEmbeddingHelper,
                                                  ScheduledEmbeddingTrainingHelper, ScheduledOutputTrainingHelper,
                                                  TrainingHelper, dynamic_decode)
from tinyflow.api.contrib.seq2seq.attention_wrapper import (AttentionMechanism, AttentionWrapper, AttentionWrapperState,  # noqa: F401
                                                            BahdanauAttention, LuongAttention)
from tinyflow.api.contrib.seq2seq import attention_wrapper as _attention
from tinyflow.api.contrib.seq2seq.beam_search_decoder import (BeamSearchDecoder, BeamSearchDecoderOutput,  # noqa: F401
                                                              BeamSearchDecoderState, FinalBeamSearchDecoderOutput,
                                                              gather_tree)
from tinyflow.api.contrib.seq2seq import beam_search_decoder as _beam
from tinyflow.api.contrib.seq2seq import decoder as _decoder

__all__ = (["SequenceLoss", "hardmax", "sequence_loss", "tile_batch"] + _decoder.__all__ + _attention.__all__
           + _beam.__all__)


def sequence_loss(logits, targets, weights, average_across_timesteps=True, average_across_batch=True,
                  sum_over_timesteps=False, sum_over_batch=False, softmax_loss_function=None, name=None):
    """Weighted cross entropy of [batch, time, classes] logits against [batch, time] targets.

    With both averages (the default) the weighted sum is divided by the sum of the weights; with
    both sums by the count of non-zero weights; with one of them, per-timestep ([time]) or
    per-example ([batch]) results, as TF 1.15 computes them.
    """
    logits, targets, weights = (convert_to_tensor(t) for t in (logits, targets, weights))
    if logits.shape.ndims != 3:
        raise ValueError("Logits must be a [batch_size x sequence_length x logits] tensor")
    if targets.shape.ndims != 2:
        raise ValueError("Targets must be a [batch_size x sequence_length] tensor")
    if weights.shape.ndims != 2:
        raise ValueError("Weights must be a [batch_size x sequence_length] tensor")
    if average_across_timesteps and sum_over_timesteps:
        raise ValueError("average_across_timesteps and sum_over_timesteps cannot be set to True at same time.")
    if average_across_batch and sum_over_batch:
        raise ValueError("average_across_batch and sum_over_batch cannot be set to True at same time.")
    with name_scope(name, "sequence_loss", [logits, targets, weights]):
        num_classes = array_ops.shape(logits)[2]
        logits_flat = array_ops.reshape(logits, array_ops.stack([-1, num_classes]))
        targets = array_ops.reshape(targets, [-1])
        if softmax_loss_function is None:
            crossent = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=targets, logits=logits_flat)
        else:
            crossent = softmax_loss_function(labels=targets, logits=logits_flat)
        crossent = math_ops.multiply(crossent, array_ops.reshape(weights, [-1]))
        if average_across_timesteps and average_across_batch:
            return math_ops.div_no_nan(math_ops.reduce_sum(crossent), math_ops.reduce_sum(weights))
        if sum_over_timesteps and sum_over_batch:
            count = math_ops.cast(math_ops.count_nonzero(weights), crossent.dtype)
            return math_ops.div_no_nan(math_ops.reduce_sum(crossent), count)
        crossent = array_ops.reshape(crossent, array_ops.shape(logits)[0:2])
        if average_across_timesteps or average_across_batch:
            axis = [0] if average_across_batch else [1]
            return math_ops.div_no_nan(math_ops.reduce_sum(crossent, axis=axis),
                                       math_ops.reduce_sum(weights, axis=axis))
        if sum_over_timesteps or sum_over_batch:
            axis = [0] if sum_over_batch else [1]
            count = math_ops.cast(math_ops.count_nonzero(weights, axis=axis), crossent.dtype)
            return math_ops.div_no_nan(math_ops.reduce_sum(crossent, axis=axis), count)
        return crossent


class SequenceLoss:
    """The Keras-style loss object: sums over timesteps and batch by default."""

    def __init__(self, average_across_timesteps=False, average_across_batch=False, sum_over_timesteps=True,
                 sum_over_batch=True, softmax_loss_function=None, name=None):
        self.options = dict(average_across_timesteps=average_across_timesteps,
                            average_across_batch=average_across_batch, sum_over_timesteps=sum_over_timesteps,
                            sum_over_batch=sum_over_batch, softmax_loss_function=softmax_loss_function)
        self.name = name

    def __call__(self, y_true, y_pred, sample_weight=None):
        return sequence_loss(y_pred, y_true, sample_weight, name=self.name, **self.options)


def tile_batch(t, multiplier, name=None):
    """Repeats each batch entry `multiplier` times along axis 0 ([a, b] -> [a, a, b, b]); `t` may
    be a nested structure (an LSTMStateTuple, an encoder's states)."""
    with name_scope(name, "tile_batch"):
        return _decoder.map_structure(lambda x: _tile(convert_to_tensor(x, name="t"), multiplier), t)


def _tile(t, multiplier):
    rank = t.shape.ndims
    expanded = array_ops.expand_dims(t, 1)
    tiled = array_ops.tile(expanded, [1, multiplier] + [1] * (rank - 1))
    shape = array_ops.shape(t)
    new_shape = array_ops.concat([[shape[0] * multiplier], shape[1:]], 0) if rank > 1 else [shape[0] * multiplier]
    out = array_ops.reshape(tiled, new_shape)
    dims = t.shape.as_list()
    out.set_shape([None if dims[0] is None else dims[0] * multiplier] + dims[1:])
    return out


def hardmax(logits, name=None):
    """One-hot of the argmax over the last axis, in the logits' dtype."""
    with name_scope(name, "Hardmax", [logits]):
        logits = convert_to_tensor(logits, name="logits")
        depth = logits.shape[-1].value if logits.shape.ndims else None   # static where known, as TF's
        depth = depth if depth is not None else array_ops.shape(logits)[-1]
        from tinyflow.ops.core.sequence_ops import one_hot
        return one_hot(math_ops.argmax(logits, -1), depth, dtype=logits.dtype)
