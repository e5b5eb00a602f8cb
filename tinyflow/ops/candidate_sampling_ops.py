"""Candidate samplers and the sampled losses built on them (tf.nn.nce_loss, tf.nn.sampled_softmax_loss).

A sampler draws `num_sampled` class ids from a fixed distribution over [0, range_max) and reports,
for the true classes and for each sample, the expected number of times it would be drawn. With
unique=True it draws until it has num_sampled distinct ids, as TF does, and the expected count of a
class of probability p after `tries` draws is 1 - (1 - p) ** tries (p * num_sampled if no draw was
a duplicate).
"""
import jax
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import ShapeError, get_default_graph
from tinyflow.graph.shapes import TensorShape
from tinyflow.graph.registry import register_op
from tinyflow.ops.core import math_ops as M
from tinyflow.ops import random_ops
from tinyflow.ops.core.array_ops import concat, expand_dims, ones_like, reshape, stop_gradient
from tinyflow.ops.nn_ops import (embedding_lookup, sigmoid_cross_entropy_with_logits,
                                 softmax_cross_entropy_with_logits_v2)
from tinyflow.ops.core.base import convert_to_tensor, make_op

__all__ = ["log_uniform_candidate_sampler", "uniform_candidate_sampler", "nce_loss", "sampled_softmax_loss"]


def _log_uniform(range_max):
    """(draw(key, n) -> ids, prob(ids)) of P(k) = log((k + 2) / (k + 1)) / log(range_max + 1)."""
    log_range = np.log(range_max + 1.0)

    def draw(key, n):
        u = jax.random.uniform(key, (n,), jnp.float64)
        return (jnp.floor(jnp.exp(u * log_range)).astype(jnp.int64) - 1) % range_max

    def prob(ids):
        ids = ids.astype(jnp.float64)
        return jnp.log((ids + 2.0) / (ids + 1.0)) / log_range
    return draw, prob


def _uniform(range_max):
    def draw(key, n):
        return jax.random.randint(key, (n,), 0, range_max, dtype=jnp.int64)

    def prob(ids):
        return jnp.full(ids.shape, 1.0 / range_max, jnp.float64)
    return draw, prob


def _sample_unique(key, draw, num_sampled, range_max):
    """Draws one id at a time until num_sampled are distinct: (ids, number of draws)."""
    def cond(state):
        return state[1] < num_sampled

    def body(state):
        key, count, tries, ids, seen = state
        key, sub = jax.random.split(key)
        c = draw(sub, 1)[0]
        new = ~seen[c]
        ids = ids.at[count].set(jnp.where(new, c, ids[count]))
        return key, count + new.astype(jnp.int32), tries + 1, ids, seen.at[c].set(True)
    state = (key, jnp.int32(0), jnp.int64(0), jnp.zeros(num_sampled, jnp.int64), jnp.zeros(range_max, bool))
    _, _, tries, ids, _ = jax.lax.while_loop(cond, body, state)
    return ids, tries


def _sampler_lower(dist):
    def lower(a, key, true_classes):
        draw, prob = dist(a["range_max"])
        k = random_ops._key(a, key)
        n = a["num_sampled"]
        if a["unique"]:
            ids, tries = _sample_unique(k, draw, n, a["range_max"])
        else:
            ids, tries = draw(k, n), jnp.int64(n)

        def expected(p):
            return jnp.where(tries == n, p * n, -jnp.expm1(tries * jnp.log1p(-p))).astype(jnp.float32)
        return ids, expected(prob(true_classes)), expected(prob(ids))
    return lower


def _sampler_shape(shapes, attrs, values):
    t = shapes[0]
    if t.ndims is not None and t.ndims != 2:
        raise ShapeError("Shape must be rank 2 but is rank %d" % t.ndims)
    if attrs["unique"] and attrs["num_sampled"] > attrs["range_max"]:
        raise ShapeError("Sampler's range is too small: num_sampled %d > range_max %d"
                         % (attrs["num_sampled"], attrs["range_max"]))
    n = TensorShape([attrs["num_sampled"]])
    return [n, TensorShape([t[0] if t.ndims else None, attrs["num_true"]]), n]


for _name, _dist in (("LogUniformCandidateSampler", _log_uniform), ("UniformCandidateSampler", _uniform)):
    register_op(_name, shape=_sampler_shape, dtype=lambda d, a: [dt.int64, dt.float32, dt.float32], grad=None,
                needs_key=True, lower=_sampler_lower(_dist))


def _sampler(op_type, true_classes, num_true, num_sampled, unique, range_max, seed, name):
    t = convert_to_tensor(true_classes, dtype=dt.int64, name="true_classes")
    attrs = dict(random_ops._seed_attrs(seed), num_true=int(num_true), num_sampled=int(num_sampled),
                 unique=bool(unique), range_max=int(range_max))
    return tuple(make_op(op_type, [t], attrs, name=name or op_type))


def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """Samples ids from the Zipfian P(k) = log((k + 2) / (k + 1)) / log(range_max + 1): (sampled_candidates,
    true_expected_count, sampled_expected_count)."""
    return _sampler("LogUniformCandidateSampler", true_classes, num_true, num_sampled, unique, range_max, seed, name)


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """Samples ids uniformly from [0, range_max): (sampled_candidates, true_expected_count,
    sampled_expected_count)."""
    return _sampler("UniformCandidateSampler", true_classes, num_true, num_sampled, unique, range_max, seed, name)


def _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values,
                    subtract_log_q, remove_accidental_hits, partition_strategy, seed=None):
    """TF's _compute_sampled_logits: logits of the true classes then of the sampled ones, and their labels."""
    labels = M.cast(convert_to_tensor(labels, name="labels"), dt.int64)
    inputs = convert_to_tensor(inputs, name="inputs")
    labels_flat = reshape(labels, [-1])
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(labels, num_true, num_sampled, True, num_classes, seed=seed)
    sampled, true_expected, sampled_expected = (stop_gradient(s) for s in sampled_values)
    sampled = M.cast(sampled, dt.int64)
    true_w = embedding_lookup(weights, labels_flat, partition_strategy=partition_strategy)
    sampled_w = embedding_lookup(weights, sampled, partition_strategy=partition_strategy)
    true_b = embedding_lookup(biases, labels_flat, partition_strategy=partition_strategy)
    sampled_b = embedding_lookup(biases, sampled, partition_strategy=partition_strategy)
    dim = inputs.shape[-1].value if inputs.shape.ndims else None
    true_w = reshape(true_w, [-1, num_true, dim if dim is not None else -1])
    true_logits = M.add(M.reduce_sum(M.multiply(expand_dims(inputs, 1), true_w), -1),
                        reshape(true_b, [-1, num_true]))
    sampled_logits = M.add(M.matmul(inputs, sampled_w, transpose_b=True), sampled_b)
    if remove_accidental_hits:
        hit = M.reduce_any(M.equal(expand_dims(labels, -1), reshape(sampled, [1, 1, -1])), axis=1)
        lowest = M.scalar_like(-np.finfo(np.float32).max, sampled_logits)
        sampled_logits = M.add(sampled_logits, M.where_v2(hit, lowest, M.zeros_like_scalar(sampled_logits)))
    if subtract_log_q:
        true_logits = M.subtract(true_logits, M.log(M.cast(true_expected, true_logits.dtype)))
        sampled_logits = M.subtract(sampled_logits, M.log(M.cast(sampled_expected, sampled_logits.dtype)))
    out_logits = concat([true_logits, sampled_logits], 1)
    out_labels = concat([M.realdiv(ones_like(true_logits), M.scalar_like(num_true, true_logits)),
                         M.zeros_like(sampled_logits)], 1)
    return out_logits, out_labels


def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
             remove_accidental_hits=False, partition_strategy="mod", name="nce_loss"):
    """Noise-contrastive estimation loss per example: logistic regression of the true classes against
    `num_sampled` classes drawn from the log-uniform sampler (unless `sampled_values` are given)."""
    with get_default_graph().name_scope(name or "nce_loss") as scope:
        logits, labels = _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                         sampled_values, True, remove_accidental_hits, partition_strategy)
        losses = sigmoid_cross_entropy_with_logits(labels=labels, logits=logits, name="sampled_losses")
        return M.reduce_sum(losses, 1, name=scope)


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
                         remove_accidental_hits=True, partition_strategy="mod", name="sampled_softmax_loss",
                         seed=None):
    """Softmax cross entropy over the true class and `num_sampled` sampled classes (an estimate of the
    full softmax loss for large vocabularies)."""
    with get_default_graph().name_scope(name or "sampled_softmax_loss") as scope:
        logits, labels = _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                         sampled_values, True, remove_accidental_hits, partition_strategy, seed)
        return softmax_cross_entropy_with_logits_v2(labels=stop_gradient(labels), logits=logits, name=scope)
