"""Huge fetch sets (over pipeline.SPLIT_STEPS steps) run as jitted segments of equal size."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.graph import errors
from tinyflow.lower import pipeline


def _train(seed=0):
    rng = np.random.RandomState(seed)
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    h = x
    for i in range(4):
        h = tf.tanh(tf.matmul(h, tf.Variable(rng.randn(3, 3).astype(np.float32) * 0.5, name="w%d" % i)))
    loss = tf.reduce_mean(tf.square(h - 1.0))
    train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    return x, loss, train


def _losses(split, monkeypatch):
    monkeypatch.setattr(pipeline, "SPLIT_STEPS", split)
    with tf.Graph().as_default():
        x, loss, train = _train()
        xv = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = [sess.run([train, loss], {x: xv})[1] for _ in range(5)]
            low = sess.lowered([train, loss], {x: xv}).function
            weights = sess.run(tf.trainable_variables())
    return out, weights, low


@pytest.mark.slow
def test_a_split_training_step_gives_the_same_losses_and_variables(monkeypatch):
    whole, w_whole, low_whole = _losses(0, monkeypatch)
    parts, w_parts, low = _losses(10, monkeypatch)
    assert not low_whole.segments and not low_whole.program.segmented
    steps = len(low.program.steps)
    assert low.program.segmented and low.program.split <= 10 // 5
    assert len(low.segments) >= -(-steps // 2) // 2 and "segment_2(" in low.source
    assert not low.donate                         # a later segment could fail after an earlier one ran
    np.testing.assert_allclose(parts, whole, rtol=1e-6)
    for a, b in zip(w_parts, w_whole):
        np.testing.assert_allclose(a, b, rtol=1e-6)


@pytest.mark.slow
def test_equal_parts_and_what_a_split_fetch_set_cannot_give(monkeypatch):
    monkeypatch.setattr(pipeline, "SPLIT_STEPS", 35)
    x = tf.placeholder(tf.float32, [2], name="x")
    y = x
    for _ in range(20):
        y = tf.sin(y) * 1.5
    low = pipeline.compile_fetch_set([y], [x])
    n = len(low.program.steps)
    assert n > 35 and low.program.split == -(-n // -(-n // 7))    # equal parts of at most 35 // 5
    with tf.Session() as sess:
        want = np.array([0.3, -0.2], np.float32)
        for _ in range(20):
            want = np.sin(want) * np.float32(1.5)
        np.testing.assert_allclose(sess.run(y, {x: [0.3, -0.2]}), want, rtol=1e-5)
        bound = sess.lowered(y, {x: [0.3, -0.2]})
        with pytest.raises(errors.UnimplementedError, match="over \\$TINYFLOW_SPLIT_STEPS: it runs as"):
            bound.function.jaxpr(*bound.args)
        report = sess.memory_report(y, {x: [0.3, -0.2]}, verify=True)
        assert report.xla is None and report.verified is True   # no one XLA program; the plan still proved


def test_a_bad_setting_is_named(monkeypatch):
    monkeypatch.setenv("TINYFLOW_SPLIT_STEPS", "lots")
    with pytest.raises(ValueError, match=r"\$TINYFLOW_SPLIT_STEPS must be an integer, got 'lots'"):
        pipeline.env_int("TINYFLOW_SPLIT_STEPS", 20000)
    monkeypatch.setenv("TINYFLOW_CACHE_SIZE", "2x")
    with pytest.raises(ValueError, match="TINYFLOW_CACHE_SIZE"):
        tf.Session()
    monkeypatch.setenv("TINYFLOW_CACHE_SIZE", " 7 ")
    assert tf.Session().executable_cache_size == 7
