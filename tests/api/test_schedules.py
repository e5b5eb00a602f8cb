"""Learning-rate schedules against their formulas, and the clip ops against numpy."""
import math

import numpy as np
import pytest

import tinyflow as tf


def _values(make, steps):
    """The schedule's value at each global step in `steps`."""
    step = tf.placeholder(tf.int64, [])
    lr = make(step)
    with tf.Session() as sess:
        return lr, [sess.run(lr, {step: s}) for s in steps]


STEPS = [0, 1, 5, 10, 15, 25]


def test_exponential_decay():
    lr, got = _values(lambda s: tf.train.exponential_decay(0.1, s, 10, 0.5), STEPS)
    assert lr.dtype == tf.float32 and lr.op.name == "ExponentialDecay"
    np.testing.assert_allclose(got, [0.1 * 0.5 ** (s / 10) for s in STEPS], rtol=1e-6)
    _, got = _values(lambda s: tf.train.exponential_decay(0.1, s, 10, 0.5, staircase=True), STEPS)
    np.testing.assert_allclose(got, [0.1 * 0.5 ** (s // 10) for s in STEPS], rtol=1e-6)


def test_inverse_time_and_natural_exp_decay():
    _, got = _values(lambda s: tf.train.inverse_time_decay(0.1, s, 5, 0.5), STEPS)
    np.testing.assert_allclose(got, [0.1 / (1 + 0.5 * s / 5) for s in STEPS], rtol=1e-6)
    _, got = _values(lambda s: tf.train.natural_exp_decay(0.1, s, 5, 0.5, staircase=True), STEPS)
    np.testing.assert_allclose(got, [0.1 * math.exp(-0.5 * (s // 5)) for s in STEPS], rtol=1e-6)


def test_piecewise_constant():
    _, got = _values(lambda s: tf.train.piecewise_constant(s, [5, 10], [1.0, 0.5, 0.1]), STEPS)
    np.testing.assert_allclose(got, [1.0, 1.0, 1.0, 0.5, 0.1, 0.1], rtol=1e-6)
    with pytest.raises(ValueError, match="1 less than"):
        tf.train.piecewise_constant(tf.constant(1), [5, 10], [1.0, 0.5])


def test_polynomial_decay():
    _, got = _values(lambda s: tf.train.polynomial_decay(0.1, s, 10, 0.01, power=2.0), STEPS)
    np.testing.assert_allclose(got, [(0.1 - 0.01) * (1 - min(s, 10) / 10) ** 2 + 0.01 for s in STEPS], rtol=1e-5)
    _, got = _values(lambda s: tf.train.polynomial_decay(0.1, s, 10, 0.01, cycle=True), STEPS)
    want = []
    for s in STEPS:
        steps = 10 * (1 if s == 0 else math.ceil(s / 10))
        want.append((0.1 - 0.01) * (1 - s / steps) + 0.01)
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_cosine_decay():
    _, got = _values(lambda s: tf.train.cosine_decay(0.1, s, 10, alpha=0.1), STEPS)
    want = [0.1 * (0.9 * 0.5 * (1 + math.cos(math.pi * min(s, 10) / 10)) + 0.1) for s in STEPS]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


@pytest.mark.slow
def test_clip_by_norm_and_global_norm():
    r = np.random.RandomState(0)
    a, b = r.randn(3, 4).astype(np.float32), r.randn(5).astype(np.float32)
    ta, tb = tf.constant(a), tf.constant(b)
    norm = np.sqrt((a ** 2).sum() + (b ** 2).sum())
    clipped, gn = tf.clip_by_global_norm([ta, None, tb], 1.5)
    assert clipped[1] is None
    rows = tf.clip_by_norm(ta, 1.0, axes=[1])
    whole = tf.clip_by_norm(ta, 100.0)
    zero = tf.clip_by_norm(tf.zeros([3]), 1.0)
    inf_clip, _ = tf.clip_by_global_norm([tf.constant([np.inf, 1.0])], 1.0)
    with tf.Session() as sess:
        got = sess.run([clipped[0], clipped[2], gn, tf.global_norm([ta, tb]), rows, whole, zero, inf_clip[0]])
    np.testing.assert_allclose(got[0], a * 1.5 / norm, rtol=1e-5)
    np.testing.assert_allclose(got[1], b * 1.5 / norm, rtol=1e-5)
    np.testing.assert_allclose([got[2], got[3]], [norm, norm], rtol=1e-6)
    rn = np.sqrt((a ** 2).sum(1, keepdims=True))
    np.testing.assert_allclose(got[4], a / np.maximum(rn, 1.0), rtol=1e-5)
    np.testing.assert_allclose(got[5], a, rtol=1e-6)
    np.testing.assert_array_equal(got[6], [0, 0, 0])
    assert np.isnan(got[7]).all()
    with pytest.raises(TypeError, match="t_list should be a sequence"):
        tf.clip_by_global_norm(ta, 1.0)


def test_clip_by_norm_gradient_at_zero_is_finite():
    x = tf.placeholder(tf.float32, [3])
    g = tf.gradients(tf.reduce_sum(tf.clip_by_norm(x, 1.0)), x)[0]
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(g, {x: [0.0, 0.0, 0.0]}), [1.0, 1.0, 1.0])
        v = np.array([3.0, 4.0, 0.0], np.float32)
        # d/dx sum(x / |x|) = (1 - x * sum(x) / |x|^2) / |x|
        n = np.linalg.norm(v)
        np.testing.assert_allclose(sess.run(g, {x: v}), (1 - v * v.sum() / n ** 2) / n, rtol=1e-5)


def _sgdr(s, first=4, t_mul=2.0, m_mul=0.5, alpha=0.0):
    frac = s / first
    if t_mul == 1.0:
        i = math.floor(frac)
        frac -= i
    else:
        i = math.floor(math.log(1 - frac * (1 - t_mul)) / math.log(t_mul))
        frac = (frac - (1 - t_mul ** i) / (1 - t_mul)) / t_mul ** i
    return 0.1 * ((1 - alpha) * 0.5 * m_mul ** i * (1 + math.cos(math.pi * frac)) + alpha)


@pytest.mark.slow
def test_cosine_decay_restarts_and_linear_cosine():
    steps = [0, 1, 3, 4, 5, 11, 12, 13]
    _, got = _values(lambda s: tf.train.cosine_decay_restarts(0.1, s, 4, m_mul=0.5), steps)
    np.testing.assert_allclose(got, [_sgdr(s) for s in steps], rtol=1e-4, atol=1e-7)
    _, got = _values(lambda s: tf.train.cosine_decay_restarts(0.1, s, 4, t_mul=1.0, alpha=0.1), steps)
    np.testing.assert_allclose(got, [_sgdr(s, t_mul=1.0, m_mul=1.0, alpha=0.1) for s in steps], rtol=1e-4, atol=1e-7)
    _, got = _values(lambda s: tf.train.linear_cosine_decay(0.1, s, 10), STEPS)
    want = []
    for s in STEPS:
        s = min(s, 10)
        want.append(0.1 * (((10 - s) / 10) * 0.5 * (1 + math.cos(math.pi * 2 * 0.5 * s / 10)) + 0.001))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-8)


def test_clip_by_average_norm():
    a = np.array([[3.0, 4.0], [0.0, 0.0]], np.float32)  # norm 5, 4 elements: average norm 1.25
    with tf.Session() as sess:
        got = sess.run([tf.clip_by_average_norm(tf.constant(a), 0.5), tf.clip_by_average_norm(tf.constant(a), 2.0)])
    np.testing.assert_allclose(got[0], a * 0.5 / 1.25, rtol=1e-6)
    np.testing.assert_allclose(got[1], a, rtol=1e-6)


def test_noisy_linear_cosine_decay_matches_tf():
    """Without noise TF 1.15 gave these values; with noise the mean and spread of 2000 draws at step 20
    were 0.00951 and 0.00415 (TF's draw; tolerance for sampling error)."""
    with tf.Graph().as_default():
        g = tf.placeholder(tf.int64, [])
        a = tf.train.noisy_linear_cosine_decay(0.1, g, 100, initial_variance=0.0)
        b = tf.train.noisy_linear_cosine_decay(0.1, g, 100, initial_variance=1.0, variance_decay=0.55,
                                               num_periods=2.0, alpha=0.1, beta=0.01)
        assert a.op.name == "NoisyLinearCosineDecay"
        with tf.Session() as sess:
            got = [float(sess.run(a, {g: x})) for x in [0, 10, 50, 99, 150]]
            draws = np.array([sess.run(b, {g: 20}) for _ in range(2000)])
    np.testing.assert_allclose(got, [0.10010000318288803, 0.08789753913879395, 0.025099998340010643,
                                     0.0001002467397483997, 0.00010000000474974513], rtol=1e-5)
    assert abs(draws.mean() - 0.009511) < 0.0003 and abs(draws.std() - 0.004150) < 0.0003
