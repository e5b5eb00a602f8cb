"""GatherTree (tf.contrib.seq2seq.gather_tree): the full beams of a beam search, read backwards
along the parent pointers from each sequence's last step, end_token after the first end_token
and past each batch entry's max_sequence_lengths (TF's kernel, as one lax.scan over time)."""
import jax
import jax.numpy as jnp

from tinyflow.graph.registry import register_op, same_as_input
from tinyflow.ops.core.base import convert_to_tensor, make_op

__all__ = ["gather_tree"]


def _gather_tree_lower(attrs, step_ids, parent_ids, max_sequence_lengths, end_token):
    step_ids, parent_ids = jnp.asarray(step_ids), jnp.asarray(parent_ids)   # (numpy when folded)
    max_time, _, beam_width = step_ids.shape
    lengths = jnp.minimum(max_time, jnp.asarray(max_sequence_lengths).astype(jnp.int32))[:, None]     # [batch, 1]

    def back(beam, t):   # beam: [batch, beam] the beam each output beam is at on step t
        valid = t < lengths
        ids = jnp.take_along_axis(step_ids[t], beam, axis=1, mode="clip")
        parents = jnp.take_along_axis(parent_ids[t], beam, axis=1, mode="clip")
        return jnp.where(valid, parents, beam), jnp.where(valid, ids, end_token)
    start = jnp.broadcast_to(jnp.arange(beam_width, dtype=step_ids.dtype), step_ids.shape[1:])
    _, beams = jax.lax.scan(back, start, jnp.arange(max_time - 1, -1, -1))
    beams = beams[::-1]
    is_end = (beams == end_token).astype(jnp.int32)
    after_end = (jnp.cumsum(is_end, axis=0) - is_end) > 0    # strictly after the first end_token
    return jnp.where(after_end, end_token, beams).astype(step_ids.dtype)


def _gather_tree_check(attrs, step_ids, parent_ids, max_sequence_lengths, end_token):
    """TF's kernel's check of each parent id it follows (all but the first step's): in [0, beam_width]
    (TF lets beam_width itself pass). The data: the first bad id (by batch, beam; then from the last
    step back) and where: (ok, id, batch, time, beam)."""
    parent_ids = jnp.asarray(parent_ids)
    max_time, batch, beam_width = parent_ids.shape
    lengths = jnp.minimum(max_time, jnp.asarray(max_sequence_lengths).astype(jnp.int32))[:, None]

    def back(carry, t):
        beam, found, bad_id, bad_t = carry
        bad = (t < lengths - 1) & ((beam < 0) | (beam > beam_width)) & ~found
        parents = jnp.take_along_axis(parent_ids[t], beam, axis=1, mode="clip")
        beam = jnp.where((t < lengths) & ~found & ~bad, parents, beam)
        return (beam, found | bad, jnp.where(bad, beam, bad_id), jnp.where(bad, t, bad_t)), None
    start = jnp.broadcast_to(jnp.arange(beam_width, dtype=parent_ids.dtype), parent_ids.shape[1:])
    zeros = jnp.zeros(parent_ids.shape[1:], jnp.int32)
    (_, found, bad_id, bad_t), _ = jax.lax.scan(back, (start, zeros > 0, zeros.astype(parent_ids.dtype), zeros),
                                                jnp.arange(max_time - 1, -1, -1, dtype=jnp.int32))
    first = jnp.argmax(found.reshape(-1))
    return (~jnp.any(found), bad_id.reshape(-1)[first], first // beam_width, bad_t.reshape(-1)[first],
            first % beam_width)


def _gather_tree_shape(shapes, attrs, values=None):
    if shapes[0].ndims not in (None, 3) or shapes[1].ndims not in (None, 3):
        raise ValueError("step_ids and parent_ids must be rank 3 [max_time, batch_size, beam_width]")
    return [shapes[0].merge_with(shapes[1])]


register_op("GatherTree", shape=_gather_tree_shape, dtype=same_as_input(0), grad=None, lower=_gather_tree_lower,
            check=_gather_tree_check, check_message=lambda op, parent, batch, time, beam: (
                "Saw invalid parent id %d at (batch, time, beam) == (%d, %d, %d)" % (parent, batch, time, beam)))


def gather_tree(step_ids, parent_ids, max_sequence_lengths, end_token, name=None):
    """[max_time, batch, beam] ids of each full beam (int32 or int64, like step_ids)."""
    step_ids = convert_to_tensor(step_ids, name="step_ids")
    parent_ids = convert_to_tensor(parent_ids, dtype=step_ids.dtype, name="parent_ids")
    max_sequence_lengths = convert_to_tensor(max_sequence_lengths, name="max_sequence_lengths")
    end_token = convert_to_tensor(end_token, dtype=step_ids.dtype, name="end_token")
    return make_op("GatherTree", [step_ids, parent_ids, max_sequence_lengths, end_token], name=name or "GatherTree")
