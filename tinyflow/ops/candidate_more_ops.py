"""More candidate samplers of tf.nn / tf.random: fixed_unigram (a given distribution, distorted),
all_candidate_sampler (every class), and compute_accidental_hits (where a sampled candidate is a true class,
to be masked out of sampled logits), and learned_unigram_candidate_sampler, which learns its distribution from
the true classes it has seen across runs: TF keeps the counts in the op's kernel, tinyflow in the Session (a
host op over a per-session state, as queues keep theirs)."""
import threading
import jax
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import get_default_graph
from tinyflow.graph.registry import register_op
from tinyflow.graph.serialize import register_serializable

from tinyflow.ops import random_ops
from tinyflow.ops.candidate_sampling_ops import _sample_unique, _sampler_shape
from tinyflow.ops.core import array_ops as A
from tinyflow.ops.core import math_ops as M
from tinyflow.ops.core.base import constant, convert_to_tensor, make_op
from tinyflow.ops.core.indexing_ops import where
from tinyflow.ops.host_ops import make_host_op, register_host_op
from tinyflow.ops.queue_ops import queue_state

__all__ = ["all_candidate_sampler", "compute_accidental_hits", "fixed_unigram_candidate_sampler",
           "learned_unigram_candidate_sampler"]


def _fixed_lower(a, key, true_classes):
    probs = np.asarray(a["probs"], np.float64)
    logp = jnp.log(jnp.asarray(probs))
    k = random_ops._key(a, key)
    n = a["num_sampled"]

    def draw(sub, m):
        return jax.random.categorical(sub, logp, shape=(m,)).astype(jnp.int64)
    if a["unique"]:
        ids, tries = _sample_unique(k, draw, n, len(probs))
    else:
        ids, tries = draw(k, n), jnp.int64(n)
    p = jnp.asarray(probs)

    def expected(q):
        return jnp.where(tries == n, q * n, -jnp.expm1(tries * jnp.log1p(-q))).astype(jnp.float32)
    return ids, expected(p[true_classes]), expected(p[ids])


register_op("FixedUnigramCandidateSampler", shape=_sampler_shape, dtype=lambda d, a: [dt.int64, dt.float32, dt.float32],
            grad=None, needs_key=True, lower=_fixed_lower)


def _unigrams(vocab_file, unigrams, range_max, num_reserved_ids):
    if vocab_file:
        with open(vocab_file) as f:
            counts = [float(line.rstrip("\n").split(",")[-1]) for line in f if line.strip()]
    else:
        counts = [float(u) for u in unigrams]
    counts = [0.0] * num_reserved_ids + counts
    if len(counts) != range_max:
        raise ValueError("range_max (%d) must equal the number of unigrams plus num_reserved_ids (%d)"
                         % (range_max, len(counts)))
    return np.asarray(counts, np.float64)


def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, vocab_file="",
                                    distortion=1.0, num_reserved_ids=0, num_shards=1, shard=0, unigrams=(),
                                    seed=None, name=None):
    """Samples ids with P(k) proportional to unigrams[k] ** distortion (from `unigrams` or a CSV
    vocab_file whose last column is the count): (sampled, true_expected_count, sampled_expected_count)."""
    if num_shards != 1:
        raise NotImplementedError("tinyflow's fixed_unigram_candidate_sampler keeps one shard (num_shards=1)")
    weights = _unigrams(vocab_file, unigrams, int(range_max), int(num_reserved_ids)) ** float(distortion)
    weights[:int(num_reserved_ids)] = 0.0
    t = convert_to_tensor(true_classes, dtype=dt.int64, name="true_classes")
    attrs = dict(random_ops._seed_attrs(seed), num_true=int(num_true), num_sampled=int(num_sampled),
                 unique=bool(unique), range_max=int(range_max), probs=tuple((weights / weights.sum()).tolist()))
    return tuple(make_op("FixedUnigramCandidateSampler", [t], attrs, name=name or "FixedUnigramCandidateSampler"))


def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """Every class 0..num_sampled-1 as the candidates, each expected once (TF's AllCandidateSampler)."""
    t = convert_to_tensor(true_classes, dtype=dt.int64, name="true_classes")
    sampled = constant(np.arange(int(num_sampled), dtype=np.int64), name=name or "AllCandidateSampler")
    true_expected = M.cast(A.ones_like(t), dt.float32)
    return sampled, true_expected, constant(np.ones(int(num_sampled), np.float32))


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """(indices, ids, weights): for each row i and position j where sampled_candidates[j] is one of row i's
    true classes, the row, the position and -FLOAT_MAX (added to that sampled logit, it removes it)."""
    t = convert_to_tensor(true_classes, dtype=dt.int64, name="true_classes")
    s = convert_to_tensor(sampled_candidates, dtype=dt.int64, name="sampled_candidates")
    n_s = s.shape[0].value
    if n_s is None:
        raise ValueError("tinyflow's compute_accidental_hits needs the number of sampled candidates known")
    # TF maps each sampled value to its LAST position: an earlier duplicate is no hit
    later = np.triu(np.ones((n_s, n_s), bool), 1)
    dup = M.reduce_any(M.logical_and(M.equal(A.expand_dims(s, 1), A.expand_dims(s, 0)), constant(later)), axis=1)
    hit = M.reduce_any(M.equal(A.expand_dims(t, 2), A.expand_dims(A.expand_dims(s, 0), 0)), axis=1)
    hit = M.logical_and(hit, M.logical_not(A.expand_dims(dup, 0)))
    pos = where(hit)
    n = A.shape(pos)[:1]
    return (M.cast(pos[:, 0], dt.int32), pos[:, 1],
            A.fill(n, constant(np.float32(-np.finfo(np.float32).max))))




class _LearnedUnigram:
    """The op's sampler: its per-session state (counts) is found by `_resource`, as a queue's is."""

    def __init__(self, range_max, seed, resource):
        self._range_max, self._seed, self._resource = range_max, seed, resource


register_serializable(_LearnedUnigram)


class _Counts:
    """One session's counts of one learned sampler: every class starts at 1 (TF's WeightedPicker)."""

    def __init__(self, sampler):
        self.weights = np.ones(sampler._range_max, np.int64)
        seed = sampler._seed
        self.rng = np.random.RandomState(None if seed[0] is None else (seed[0] * 7919 + seed[1]) % 2 ** 32)
        self.lock = threading.Lock()


def _learned(session, op, inputs):
    a = op.attrs
    st = queue_state(session, a["sampler"], _Counts)
    true = np.asarray(inputs[0], np.int64)
    n = a["num_sampled"]
    with st.lock:
        p = st.weights / st.weights.sum()
        if a["unique"]:
            ids, tries = [], 0
            while len(ids) < n:
                c = st.rng.choice(len(p), p=p)
                tries += 1
                if c not in ids:
                    ids.append(c)
        else:
            ids, tries = st.rng.choice(len(p), n, p=p), n

        def expected(q):    # TF's ExpectedCountHelper
            return (q * n if tries == n else -np.expm1(tries * np.log1p(-q))).astype(np.float32)
        out = [np.asarray(ids, np.int64), expected(p[true]), expected(p[np.asarray(ids, np.int64)])]
        np.add.at(st.weights, true.reshape(-1), 1)      # after sampling: this batch's classes count next time
    return out


register_host_op("LearnedUnigramCandidateSampler", _sampler_shape, lambda d, a: [dt.int64, dt.float32, dt.float32],
                 _learned, stateful=True)


def learned_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """Samples ids with P(k) proportional to 1 + the number of times k was a true class in the earlier runs
    of this op in this Session: (sampled_candidates, true_expected_count, sampled_expected_count), the counts
    from the distribution before this run's true classes are added."""
    g = get_default_graph()
    t = convert_to_tensor(true_classes, dtype=dt.int64, name="true_classes")
    count = getattr(g, "_queue_count", 0)        # the queues' count: their resource names never meet
    g._queue_count = count + 1
    sampler = _LearnedUnigram(int(range_max), random_ops.get_seed(seed), "_%d_learned_unigram" % count)
    attrs = dict(sampler=sampler, num_true=int(num_true), num_sampled=int(num_sampled), unique=bool(unique),
                 range_max=int(range_max))
    return tuple(make_host_op("LearnedUnigramCandidateSampler", [t], attrs,
                              name=name or "LearnedUnigramCandidateSampler").outputs)
