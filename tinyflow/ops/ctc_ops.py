"""Connectionist temporal classification: tf.nn.ctc_loss (v1: sparse labels, blank = the last class; v2:
dense or sparse labels, any blank), its gradient (JAX's VJP of the same forward recursion: softmax minus
the alignment posteriors, TF's), ctc_greedy_decoder, ctc_beam_search_decoder (TF's prefix beam search, on
the host), ctc_unique_labels and collapse_repeated.

The loss is -log p(labels | logits), p summed over the alignments by the forward (alpha) recursion in log
space over the labels with blanks between and around them; a sequence's steps beyond its logit_length are
skipped, its labels beyond its label_length never reached."""
import jax
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph import errors
from tinyflow.graph.core import get_default_graph
from tinyflow.graph.registry import register_op
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core import array_ops as A
from tinyflow.ops.core import math_ops as M
from tinyflow.ops.core.base import convert_to_tensor, make_op
from tinyflow.ops.core.indexing_ops import scatter_nd, unsorted_segment_sum
from tinyflow.ops.core.util import is_concrete
from tinyflow.ops.linalg_decomp import vjp_grad
from tinyflow.ops.sparse import SparseTensor

__all__ = ["collapse_repeated", "ctc_beam_search_decoder", "ctc_beam_search_decoder_v2", "ctc_greedy_decoder",
           "ctc_loss", "ctc_loss_v2", "ctc_unique_labels"]

_NEG = -1e30


def _ctc_lower(a, logits, labels, label_len, logit_len):
    """Per-sequence -log p; logits [T, B, C] (time major), labels [B, L] (padded), lengths [B]."""
    blank = a["blank"]
    merge = a.get("merge_repeated", True)
    labels = labels.astype(jnp.int32)
    raw_len = label_len.astype(jnp.int32)
    labels, label_len = _v1_labels(a, labels, raw_len)
    # sequences TF skips (ignore_longer: more labels than frames) or finds no path for (TF: an infinite
    # loss, a zero gradient): their logits are zeroed so that no NaN reaches the gradient through them
    skipped = (raw_len > logit_len) if a["ignore_longer"] else jnp.zeros_like(raw_len, bool)
    repeats = jnp.sum((labels[:, 1:] == labels[:, :-1]) & (jnp.arange(1, labels.shape[1]) < label_len[:, None]),
                      1) if merge and labels.shape[1] > 1 else 0
    no_path = ~skipped & (label_len + repeats > logit_len)
    raw = logits
    logits = jnp.where((skipped | no_path)[None, :, None], jnp.zeros_like(logits), logits)
    logp = jax.nn.log_softmax(logits.astype(jnp.float32) if logits.dtype == jnp.float16 else logits, axis=-1)
    steps, batch, _ = logp.shape
    n = labels.shape[1]
    s = 2 * n + 1
    ext = jnp.full((batch, s), blank, jnp.int32).at[:, 1::2].set(labels)          # blank l1 blank l2 ... blank
    prev2 = jnp.concatenate([jnp.full((batch, 2), blank, jnp.int32), ext[:, :-2]], 1)
    skip = (ext != blank) & ((ext != prev2) if merge else True)                     # alpha(s-2) may feed alpha(s)
    stay = (ext == blank) | merge                                                   # alpha(s) may feed alpha(s)
    neg = jnp.asarray(_NEG, logp.dtype)

    def emit(t):
        return jnp.take_along_axis(logp[t], ext, axis=1)                            # [B, S]
    alpha0 = jnp.full((batch, s), neg).at[:, 0].set(emit(0)[:, 0])
    alpha0 = alpha0.at[:, 1].set(jnp.where(n > 0, emit(0)[:, 1], neg)) if s > 1 else alpha0

    def step(alpha, t):
        a1 = jnp.concatenate([jnp.full((batch, 1), neg), alpha[:, :-1]], 1)
        a2 = jnp.where(skip, jnp.concatenate([jnp.full((batch, 2), neg), alpha[:, :-2]], 1), neg)
        new = jnp.logaddexp(jnp.logaddexp(jnp.where(stay, alpha, neg), a1), a2) + emit(t)
        return jnp.where((t < logit_len)[:, None], new, alpha), None
    alpha, _ = jax.lax.scan(step, alpha0, jnp.arange(1, steps))
    last = 2 * label_len.astype(jnp.int32)
    end = jnp.take_along_axis(alpha, last[:, None], 1)[:, 0]
    before = jnp.where(last > 0, jnp.take_along_axis(alpha, jnp.maximum(last - 1, 0)[:, None], 1)[:, 0], neg)
    loss = -jnp.logaddexp(end, before)
    # no path: TF's loss is inf and its gradient the softmax of each frame (no alignment to subtract)
    lse = jax.scipy.special.logsumexp(raw, axis=-1)                                 # [T, B]
    frames = (jnp.arange(steps)[:, None] < logit_len[None, :]).astype(lse.dtype)
    softmax_grad = jnp.sum(frames * (lse - jax.lax.stop_gradient(lse)), axis=0)
    loss = jnp.where(skipped, jnp.zeros_like(loss), jnp.where(no_path, jnp.inf + softmax_grad, loss))
    if a.get("padded_frames_grad"):
        # TF 2's dense CTC gradient is softmax - occupancy at every frame, the padded ones too: a zero of
        # this loss whose gradient is the softmax of each frame past logit_length
        lse = jax.scipy.special.logsumexp(logits, axis=-1)                        # [T, B]
        pad = (jnp.arange(steps)[:, None] >= logit_len[None, :]).astype(lse.dtype)
        loss = loss + jnp.sum(pad * (lse - jax.lax.stop_gradient(lse)), axis=0)
    return loss.astype(logits.dtype)


def _v1_labels(a, labels, length):
    """TF 1's CTCLoss labels: repeats collapsed (preprocess_collapse_repeated), the sequence ended at its
    first label >= the blank; (labels [B, L], lengths [B])."""
    pos = jnp.arange(labels.shape[1])
    if not a.get("v1") or not labels.shape[1]:
        return labels, length
    keep = pos < length[:, None]
    if a.get("collapse"):
        keep = keep & jnp.concatenate([jnp.ones_like(keep[:, :1]), labels[:, 1:] != labels[:, :-1]], 1)
    where = jnp.where(keep, jnp.cumsum(keep, 1) - 1, labels.shape[1])                # compacted positions
    out = jnp.zeros_like(labels).at[jnp.arange(labels.shape[0])[:, None], where].set(labels, mode="drop")
    n = jnp.sum(keep, 1)
    ended = (out >= a["blank"]) & (pos < n[:, None])
    return out, jnp.where(jnp.any(ended, 1), jnp.argmax(ended, 1), n).astype(jnp.int32)


def _v1_check(a, logits, labels, label_len, logit_len):
    """TF 1's CTCLoss refuses at run time: a sequence_length past the frames, an empty label sequence, a
    negative label, more labels than frames (unless ignore_longer_outputs_than_inputs)."""
    if not a.get("v1"):
        return (np.True_, jnp.zeros((), jnp.int32), jnp.zeros((), jnp.int32))
    frames = logits.shape[0]
    inside = jnp.arange(labels.shape[1]) < label_len[:, None]
    kinds = [logit_len > frames, label_len == 0, jnp.any(inside & (labels < 0), 1),
             (label_len > logit_len) & (not a["ignore_longer"])]
    bad = jnp.stack(kinds)                                                          # [4, B]
    first = jnp.argmax(bad.reshape(-1))
    return (~jnp.any(bad), (first // bad.shape[1]).astype(jnp.int32), (first % bad.shape[1]).astype(jnp.int32))


def _v1_message(op, kind, b):
    return ["sequence_length(%d) > max_time" % b, "Labels length is zero in batch %d" % b,
            "All labels must be nonnegative integers, batch: %d" % b,
            "Not enough time for target transition sequence in batch %d: set ignore_longer_outputs_than_inputs "
            "to skip it" % b][int(kind)]


register_op("CTCLossDense", shape=lambda s, a, v: [TensorShape([s[0][1].value if s[0].ndims == 3 else None])],
            dtype=lambda d, a: [d[0]], grad=vjp_grad, lower=_ctc_lower, check=_v1_check, check_message=_v1_message)


def _dense_labels(labels, batch):
    """(labels [B, L] int32, label_length [B]) from a SparseTensor of labels."""
    dense = scatter_nd(labels.indices, M.cast(labels.values, dt.int32), labels.dense_shape)
    length = unsorted_segment_sum(A.ones_like(labels.values, dt.int32), M.cast(labels.indices[:, 0], dt.int32),
                                  batch)
    return dense, length


def _loss(logits, labels, label_length, logit_length, blank, ignore_longer, name, padded_frames_grad=False, v1=None):
    logits = convert_to_tensor(logits, name="logits")
    return make_op("CTCLossDense", [logits, M.cast(labels, dt.int32), M.cast(label_length, dt.int32),
                                    M.cast(convert_to_tensor(logit_length, name="logit_length"), dt.int32)],
                   dict({"blank": int(blank), "ignore_longer": bool(ignore_longer),
                         "padded_frames_grad": padded_frames_grad}, **(v1 or {})), name=name)


def ctc_loss(labels, inputs=None, sequence_length=None, preprocess_collapse_repeated=False, ctc_merge_repeated=True,
             ignore_longer_outputs_than_inputs=False, time_major=True, logits=None):
    """TF 1's CTC loss [batch]: labels a SparseTensor of class ids, inputs the logits [max_time, batch,
    num_classes] (batch major if not time_major), the blank the last class. As TF's CTCLoss it collapses
    repeated labels first (preprocess_collapse_repeated), reads a repeat without a blank between as two
    labels when not ctc_merge_repeated, and raises at run time on an empty label sequence or one longer
    than its frames (a zero loss and gradient with ignore_longer_outputs_than_inputs)."""
    if not isinstance(labels, SparseTensor):
        raise TypeError("Expected labels (first argument) to be a SparseTensor")
    inputs = logits if inputs is None else inputs
    with get_default_graph().name_scope("CTCLoss"):
        x = convert_to_tensor(inputs, name="inputs")
        if not time_major:
            x = A.transpose(x, [1, 0, 2])
        classes = x.shape[-1].value
        if classes is None:
            raise ValueError("tinyflow's ctc_loss needs the number of classes (the last dimension) known")
        dense, length = _dense_labels(labels, A.shape(x)[1])
        return _loss(x, dense, length, sequence_length, classes - 1, ignore_longer_outputs_than_inputs, "CTCLoss",
                     v1={"v1": True, "collapse": bool(preprocess_collapse_repeated),
                         "merge_repeated": bool(ctc_merge_repeated)})


def ctc_loss_v2(labels, logits, label_length, logit_length, logits_time_major=True, unique=None, blank_index=None,
                name=None):
    """TF 2's CTC loss [batch]: dense labels [batch, max_label] with label_length (or a SparseTensor),
    logits [frames, batch, classes] (batch major if not logits_time_major), blank_index 0 by default."""
    with get_default_graph().name_scope(name or "ctc_loss_dense"):
        x = convert_to_tensor(logits, name="logits")
        if not logits_time_major:
            x = A.transpose(x, [1, 0, 2])
        sparse = isinstance(labels, SparseTensor)
        if sparse:
            labels, label_length = _dense_labels(labels, A.shape(x)[1])
            blank = x.shape[-1].value - 1 if blank_index is None else blank_index
            v1 = {"v1": True}
        else:
            v1 = None
            blank = 0 if blank_index is None else blank_index
        if blank < 0:
            blank += x.shape[-1].value
        return _loss(x, convert_to_tensor(labels, name="labels"), convert_to_tensor(label_length, name="label_length"),
                     logit_length, blank, False, "CTCLossDense", padded_frames_grad=not sparse, v1=v1)


def _greedy_lower(a, logits, seq_len):
    if not is_concrete(logits) or not is_concrete(seq_len):
        raise ValueError("ctc_greedy_decoder's output size depends on its inputs; inside tf.cond / tf.while_loop "
                         "bodies tinyflow needs them known at compile time")
    logits, seq_len = np.asarray(logits), np.asarray(seq_len)
    steps, batch, classes = logits.shape
    blank = classes - 1
    indices, values, log_prob, width = [], [], np.zeros((batch, 1), logits.dtype), 0
    for b in range(batch):
        prev, k = -1, 0
        for t in range(int(seq_len[b])):
            c = int(np.argmax(logits[t, b]))
            log_prob[b, 0] -= logits[t, b, c]
            if c != blank and not (a["merge_repeated"] and c == prev):
                indices.append([b, k])
                values.append(c)
                k += 1
            prev = c
        width = max(width, k)
    return (np.array(indices, np.int64).reshape(-1, 2), np.array(values, np.int64),
            np.array([batch, width], np.int64), log_prob)


register_op("CTCGreedyDecoder", shape=lambda s, a, v: [TensorShape([None, 2]), TensorShape([None]), TensorShape([2]),
                                                       TensorShape([s[0][1].value if s[0].ndims else None, 1])],
            dtype=lambda d, a: [dt.int64, dt.int64, dt.int64, d[0]], grad=None, lower=_greedy_lower,
            dynamic_shape=True)


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True):
    """([decoded SparseTensor], neg_sum_logits [batch, 1]): the most likely class at each step, repeats
    merged (merge_repeated) and blanks (the last class) removed."""
    x = convert_to_tensor(inputs, name="inputs")
    out = make_op("CTCGreedyDecoder", [x, M.cast(convert_to_tensor(sequence_length), dt.int32)],
                  {"merge_repeated": bool(merge_repeated)}, name="CTCGreedyDecoder")
    return [SparseTensor(out[0], out[1], out[2])], out[3]


class _Beam:
    """A labelling prefix of TF's beam search (ctc_beam_search.h's BeamEntry): log probabilities of the
    prefix ending in a blank, ending in its last label, and in all, at this step (new) and the last (old)."""

    def __init__(self, parent, label):
        self.parent, self.label, self.children = parent, label, {}
        self.new, self.old = [-np.inf] * 3, [-np.inf] * 3     # [blank, label, total]

    def active(self):
        return self.new[2] != -np.inf

    def child(self, label):
        if label not in self.children:
            self.children[label] = _Beam(self, label)
        return self.children[label]

    def labels(self, merge_repeated):
        out, prev, b = [], -1, self
        while b.parent is not None:
            if not merge_repeated or b.label != prev:
                out.append(b.label)
            prev, b = b.label, b.parent
        return out[::-1]


def _log_sum_exp(a, b):
    return b if a == -np.inf else a if b == -np.inf else max(a, b) + np.log1p(np.exp(-abs(a - b)))


def _beam_search(logits, beam_width):
    """TF's CTCBeamSearchDecoder::Step over one sequence's logits [time, classes] (blank: the last class;
    each step's logits normalized to log probabilities, as TF's kernel does): the final beams, best first."""
    blank = logits.shape[1] - 1
    root = _Beam(None, -1)
    root.new = [0.0, -np.inf, 0.0]
    leaves = [root]
    bottom = lambda: min(leaves, key=lambda b: b.new[2])  # noqa: E731
    for x in logits:
        x = x - (x.max() + np.log(np.exp(x - x.max()).sum()))
        branches = sorted(leaves, key=lambda b: -b.new[2])
        leaves = []
        for b in branches:
            b.old = list(b.new)
        for b in branches:
            if b.parent is not None:
                if b.parent.active():
                    previous = b.parent.old[0] if b.label == b.parent.label else b.parent.old[2]
                    b.new[1] = _log_sum_exp(b.new[1], previous)
                b.new[1] += x[b.label]
            b.new[0] = b.old[2] + x[blank]
            b.new[2] = _log_sum_exp(b.new[0], b.new[1])
            leaves.append(b)

        def candidate(p):
            return p[2] > -np.inf and (len(leaves) < beam_width or p[2] > bottom().new[2])
        for b in branches:
            if not candidate(b.old):
                continue
            for label in range(blank):
                c = b.child(label)
                if c.active():
                    continue
                c.new = [-np.inf, x[label] + (b.old[0] if label == b.label else b.old[2]), -np.inf]
                c.new[2] = c.new[1]
                if candidate(c.new):
                    if len(leaves) == beam_width:
                        worst = bottom()
                        leaves.remove(worst)
                        worst.new = [-np.inf] * 3
                    leaves.append(c)
                else:
                    c.old, c.new = [-np.inf] * 3, [-np.inf] * 3
    return sorted(leaves, key=lambda b: -b.new[2])


def _beam_lower(a, logits, seq_len):
    if not is_concrete(logits) or not is_concrete(seq_len):
        raise ValueError("ctc_beam_search_decoder's output size depends on its inputs; inside tf.cond / "
                         "tf.while_loop bodies tinyflow needs them known at compile time")
    logits, seq_len = np.asarray(logits), np.asarray(seq_len)
    top, batch = a["top_paths"], logits.shape[1]
    paths, log_prob = [[] for _ in range(top)], np.zeros((batch, top), logits.dtype)
    for b in range(batch):
        if not 0 <= seq_len[b] <= logits.shape[0]:
            raise errors.InvalidArgumentError(None, None, "sequence_length(%d) <= %d" % (b, logits.shape[0]))
        beams = _beam_search(logits[:int(seq_len[b]), b].astype(np.float64), a["beam_width"])
        if len(beams) < top:
            raise errors.InvalidArgumentError(None, None, "Less leaves in the beam search than requested.")
        for p in range(top):
            paths[p].append(beams[p].labels(a["merge_repeated"]))
            log_prob[b, p] = beams[p].new[2]
    indices, values, shapes = [], [], []
    for rows in paths:
        indices.append(np.array([[b, k] for b, r in enumerate(rows) for k in range(len(r))],
                                np.int64).reshape(-1, 2))
        values.append(np.array([v for r in rows for v in r], np.int64))
        shapes.append(np.array([batch, max(len(r) for r in rows)], np.int64))
    return tuple(indices + values + shapes + [log_prob])


def _beam_shape(shapes, attrs, values):
    top, batch = attrs["top_paths"], shapes[0][1].value if shapes[0].ndims == 3 else None
    return ([TensorShape([None, 2])] * top + [TensorShape([None])] * top + [TensorShape([2])] * top
            + [TensorShape([batch, top])])


register_op("CTCBeamSearchDecoder", shape=_beam_shape,
            dtype=lambda d, a: [dt.int64] * (3 * a["top_paths"]) + [d[0]], grad=None, lower=_beam_lower,
            dynamic_shape=True)


def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1, merge_repeated=True):
    """(decoded: top_paths SparseTensors [batch, length] of labels, log_probability [batch, top_paths]): TF's
    prefix beam search over logits [max_time, batch, classes] (blank: the last class); merge_repeated
    merges repeated labels of a path (TF 1.15's default; the _v2 decoder never does)."""
    if top_paths > beam_width:
        raise ValueError("top_paths (%d) must be <= beam_width (%d)" % (top_paths, beam_width))
    x = convert_to_tensor(inputs, name="inputs")
    out = make_op("CTCBeamSearchDecoder", [x, M.cast(convert_to_tensor(sequence_length), dt.int32)],
                  {"beam_width": int(beam_width), "top_paths": int(top_paths),
                   "merge_repeated": bool(merge_repeated)}, name="CTCBeamSearchDecoder")
    k = int(top_paths)
    return [SparseTensor(out[i], out[k + i], out[2 * k + i]) for i in range(k)], out[3 * k]


def ctc_beam_search_decoder_v2(inputs, sequence_length, beam_width=100, top_paths=1):
    """ctc_beam_search_decoder without merging repeated labels (TF 2's decoder)."""
    return ctc_beam_search_decoder(inputs, sequence_length, beam_width, top_paths, merge_repeated=False)


def ctc_unique_labels(labels, name=None):
    """(unique labels of each row, in order of first appearance, padded with 0 to the row's length (int64),
    each label's index among them (int32)) for dense labels [batch, max_label_length]."""
    from tinyflow.ops.core.sequence_ops import cumsum, range as seq_range
    with get_default_graph().name_scope(name or "ctc_unique_labels"):
        labels = convert_to_tensor(labels, name="labels")
        if labels.shape.ndims == 2 and labels.shape[1].value == 0:   # rows of no labels: nothing to find
            return M.cast(labels, dt.int64), M.cast(labels, dt.int32)
        n = A.shape(labels)[1]
        pos = seq_range(n)
        same = M.equal(A.expand_dims(labels, 2), A.expand_dims(labels, 1))         # [batch, i, j]
        first = M.cast(M.argmax(M.cast(same, dt.int32), axis=2), dt.int32)   # where labels[i] first is
        is_first = M.equal(first, pos)
        rank = M.subtract(cumsum(M.cast(is_first, dt.int32), axis=1), 1)            # index among the uniques
        upto = M.less_equal(A.reshape(pos, [1, 1, -1]), A.expand_dims(first, 2))
        idx = M.subtract(M.reduce_sum(M.cast(M.logical_and(upto, A.expand_dims(is_first, 1)), dt.int32), 2), 1)
        slot = M.logical_and(M.equal(A.expand_dims(rank, 1), A.reshape(pos, [1, -1, 1])), A.expand_dims(is_first, 1))
        unique = M.reduce_sum(M.multiply(M.cast(slot, dt.int64), M.cast(A.expand_dims(labels, 1), dt.int64)), 2)
        return unique, idx


def collapse_repeated(labels, seq_length, name=None):
    """(labels with consecutive repeats merged, left-aligned and padded, new lengths) for dense labels
    [batch, max_len] (tf.nn.collapse_repeated)."""
    from tinyflow.ops.core.indexing_ops import gather_nd, where
    from tinyflow.ops.core.sequence_ops import cumsum, sequence_mask
    with get_default_graph().name_scope(name or "collapse_repeated_labels"):
        labels = convert_to_tensor(labels, name="labels")
        seq_length = convert_to_tensor(seq_length, name="seq_length")
        first = M.subtract(labels[:, :1], M.scalar_like(1, labels))   # differs from labels[:, 0]
        prev = A.concat([first, labels[:, :-1]], 1)
        keep = M.logical_and(M.not_equal(labels, prev), sequence_mask(seq_length, A.shape(labels)[1]))
        new_len = M.reduce_sum(M.cast(keep, seq_length.dtype), axis=1)
        pos = where(keep)
        rows = pos[:, 0]
        cols = M.subtract(cumsum(M.cast(keep, dt.int64), axis=1), M.scalar_like(1, rows))
        target = A.stack([rows, gather_nd(cols, pos)], axis=1)
        width = M.reduce_max(new_len)
        shape = M.cast(A.stack([A.shape(labels)[0], M.cast(width, dt.int32)]), dt.int64)
        return scatter_nd(target, gather_nd(labels, pos), shape), new_len
