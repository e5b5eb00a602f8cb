"""tf.contrib.seq2seq.sequence_loss against numpy, and tf.contrib.layers.batch_norm against real TF 1.15
(tests/fixtures/idioms/batch_norm.json, written by make_batch_norm.py)."""
import json
import os
from paths import TESTS as _TESTS  # the tests/ folder
import sys

import numpy as np
import pytest

import tinyflow as tf

sys.path.insert(0, os.path.join(_TESTS, "fixtures", "idioms"))
import make_batch_norm  # noqa: E402

pytestmark = pytest.mark.slow  # every test here takes over a second (the fast subset: -m "not slow")


_BN = json.load(open(os.path.join(_TESTS, "fixtures", "idioms", "batch_norm.json")))


def _np_sequence_loss(logits, targets, weights, avg_t, avg_b, sum_t, sum_b):
    logp = logits - logits.max(-1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(-1, keepdims=True))
    ce = -np.take_along_axis(logp, targets[..., None], -1)[..., 0] * weights
    if avg_t and avg_b:
        return ce.sum() / weights.sum()
    if sum_t and sum_b:
        return ce.sum() / np.count_nonzero(weights)
    if avg_t or avg_b:
        axis = 0 if avg_b else 1
        return ce.sum(axis) / weights.sum(axis)
    if sum_t or sum_b:
        axis = 0 if sum_b else 1
        return ce.sum(axis) / np.count_nonzero(weights, axis)
    return ce


@pytest.mark.parametrize("flags", [(True, True, False, False), (False, False, True, True), (True, False, False, True),
                                   (False, True, True, False), (False, False, False, False),
                                   (False, False, True, False), (True, False, False, False)])
def test_sequence_loss_matches_numpy(flags):
    tf.reset_default_graph()
    rng = np.random.RandomState(0)
    logits = rng.normal(size=(3, 4, 5)).astype(np.float32)
    targets = rng.randint(0, 5, size=(3, 4)).astype(np.int32)
    weights = np.array([[1, 1, 1, 0], [1, 1, 0, 0], [0.5, 1, 1, 1]], np.float32)
    lg = tf.placeholder(tf.float32, [None, None, 5])
    loss = tf.contrib.seq2seq.sequence_loss(lg, targets, weights, average_across_timesteps=flags[0],
                                            average_across_batch=flags[1], sum_over_timesteps=flags[2],
                                            sum_over_batch=flags[3])
    with tf.Session() as sess:
        got = sess.run(loss, {lg: logits})
    np.testing.assert_allclose(got, _np_sequence_loss(logits, targets, weights, *flags), rtol=1e-5)


def test_sequence_loss_custom_softmax_loss_function_and_errors():
    tf.reset_default_graph()
    logits = tf.constant(np.zeros((2, 3, 4), np.float32))
    targets = tf.constant(np.zeros((2, 3), np.int32))
    weights = tf.ones([2, 3])
    calls = []

    def loss_fn(labels, logits):
        calls.append(logits.shape.as_list())
        return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits) * 2.0
    loss = tf.contrib.seq2seq.sequence_loss(logits, targets, weights, softmax_loss_function=loss_fn)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(loss), 2 * np.log(4), rtol=1e-6)
    assert calls and calls[0][-1] == 4
    with pytest.raises(ValueError, match="Logits must be a"):
        tf.contrib.seq2seq.sequence_loss(tf.zeros([2, 4]), targets, weights)
    with pytest.raises(ValueError, match="cannot be set to True at same time"):
        tf.contrib.seq2seq.sequence_loss(logits, targets, weights, sum_over_timesteps=True)


@pytest.mark.parametrize("case", _BN, ids=[c["name"] for c in _BN])
def test_batch_norm_matches_tf115(case):
    name, shape, kwargs = [c for c in make_batch_norm.CASES if c[0] == case["name"]][0]
    got = make_batch_norm.run(tf, name, shape, kwargs)
    for key in ("shape", "n_updates", "variables", "trainable"):
        assert got[key] == case[key], key
    np.testing.assert_allclose(got["y"], case["y"], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got["moving"], case["moving"], rtol=1e-5, atol=1e-6)


def test_contrib_layers_conv2d_pool_dropout_one_hot():
    """Names and shapes as TF 1.15 gives them (Conv/weights, Conv_1/...); values against numpy."""
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 4, 4, 2])
    training = tf.placeholder(tf.bool)
    a = tf.contrib.layers.conv2d(x, 3, 3)
    b = tf.contrib.layers.conv2d(a, 2, [3, 3], stride=2, padding="VALID", activation_fn=None)
    p = tf.contrib.layers.max_pool2d(a, 2)
    q = tf.contrib.layers.avg_pool2d(a, [2, 2], stride=1, padding="SAME")
    d = tf.contrib.layers.dropout(a, 0.5, is_training=training)
    o = tf.contrib.layers.one_hot_encoding(tf.constant([1, 2]), 4)
    assert [t.shape.as_list() for t in (a, b, p, q, d)] == [[None, 4, 4, 3], [None, 1, 1, 2], [None, 2, 2, 3],
                                                            [None, 4, 4, 3], [None, 4, 4, 3]]
    assert (a.name, b.name) == ("Conv/Relu:0", "Conv_1/BiasAdd:0")
    names = ["Conv/weights:0", "Conv/biases:0", "Conv_1/weights:0", "Conv_1/biases:0"]
    assert [v.name for v in tf.global_variables()] == names
    assert [v.name for v in tf.get_collection(tf.GraphKeys.MODEL_VARIABLES)] == names
    xs = np.random.RandomState(0).normal(size=(2, 4, 4, 2)).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        w = sess.run(tf.global_variables()[0])
        va, vp, vq, vd_off, vd_on, vo = sess.run([a, p, q, d, d, o], {x: xs, training: False})[:6]
        vd_on = sess.run(d, {x: xs, training: True})
    padded = np.pad(xs, [(0, 0), (1, 1), (1, 1), (0, 0)])
    conv = np.zeros((2, 4, 4, 3), np.float32)
    for i in range(4):
        for j in range(4):
            conv[:, i, j] = np.einsum("nhwc,hwco->no", padded[:, i:i + 3, j:j + 3], w)
    np.testing.assert_allclose(va, np.maximum(conv, 0), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(vp, va.reshape(2, 2, 2, 2, 2, 3).max(axis=(2, 4)), rtol=1e-6)
    np.testing.assert_allclose(vq[:, :3, :3], (va[:, :3, :3] + va[:, 1:, :3] + va[:, :3, 1:] + va[:, 1:, 1:]) / 4,
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(vd_off, va)
    kept = vd_on != 0
    np.testing.assert_allclose(vd_on[kept], 2 * va[kept], rtol=1e-6)
    np.testing.assert_array_equal(vo, np.eye(4, dtype=np.float32)[[1, 2]])
