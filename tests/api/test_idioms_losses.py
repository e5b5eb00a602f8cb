"""Every loss on unusual but legal (or illegal) shapes gives TF 1.15's value, static shape or error
class: tests/fixtures/idioms/losses.json, written by make_losses.py with real TF."""
import json
import os
from paths import TESTS as _TESTS  # the tests/ folder

import numpy as np
import pytest

import tinyflow as tf


_CASES = json.load(open(os.path.join(_TESTS, "fixtures", "idioms", "losses.json")))


@pytest.mark.slow
@pytest.mark.parametrize("case", _CASES, ids=[c["name"] for c in _CASES])
def test_loss_matches_tf115(case):
    tf.reset_default_graph()
    env = {"tf": tf}
    env.update({k: tf.constant(np.asarray(v, dtype=d)) for k, (v, d) in case["inputs"].items()})
    if "error" in case:
        with pytest.raises(getattr(tf.errors, case["error"], None) or __builtins__[case["error"]]):
            eval(case["expr"], env)
        return
    result = eval(case["expr"], env)
    assert result.shape.as_list() == case["shape"]
    with tf.Session() as sess:
        value = sess.run(result)
    np.testing.assert_allclose(value, np.asarray(case["value"], np.float32), rtol=2e-5, atol=2e-6)


def test_xent_labels_wrapped_in_a_list_trains_like_tf():
    """The issue's script: one-hot labels fed as [1, N, C]; the loss must be per example."""
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.placeholder(tf.float32, [None, 2])
    w = tf.Variable(tf.zeros([3, 2]))
    logits = tf.matmul(x, w)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=[y], logits=logits))
    assert loss.shape.as_list() == []
    xs = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0]], np.float32)
    ys = np.eye(2, dtype=np.float32)[[0, 1, 0, 1]]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert abs(sess.run(loss, {x: xs, y: ys}) - np.log(2)) < 1e-6


def test_xent_labels_wrapped_in_a_list_has_the_plain_gradient():
    tf.reset_default_graph()
    rng = np.random.RandomState(1)
    x = tf.constant(rng.normal(size=(5, 3)).astype(np.float32))
    y = tf.placeholder(tf.float32, [None, 4])
    w = tf.Variable(rng.normal(size=(3, 4)).astype(np.float32))
    logits = tf.matmul(x, w)
    wrapped = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=[y], logits=logits))
    plain = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    grads = tf.gradients([wrapped], [w])[0], tf.gradients([plain], [w])[0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        g1, g2 = sess.run(grads, {y: np.eye(4, dtype=np.float32)[[0, 1, 2, 3, 0]]})
    np.testing.assert_allclose(g1, g2, rtol=1e-6)
    assert np.abs(g1).max() > 1e-3
