"""tf.random's gamma, poisson, stateless ops and Generator (issue 37): their distributions (moments of many
draws), TF's gradient of gamma samples in alpha, and the stateless contract: the same seed, the same values."""
import numpy as np
import pytest

import tinyflow as tf


@pytest.mark.slow   # ~4 s: nine random ops, a few thousand draws each
def test_gamma_poisson_moments_and_gamma_gradient():
    tf.reset_default_graph()
    alpha = tf.constant([0.5, 2.0, 7.0])
    g = tf.random.gamma([4000], alpha, beta=2.0, seed=1)
    p = tf.random_poisson([1.5, 30.0], [4000], dtype=tf.int32, seed=2)
    d_alpha = tf.gradients(tf.reduce_mean(g, 0), alpha)[0]   # E[x] = alpha / beta: d/d alpha = 1 / beta
    s = tf.random.stateless_normal([3, 1000], seed=[4, 5])
    u = tf.random.stateless_uniform([1000], seed=tf.constant([1, 2], tf.int64), minval=2.0, maxval=4.0)
    ui = tf.random.stateless_uniform([1000], seed=[1, 2], minval=-3, maxval=3, dtype=tf.int32)
    t = tf.random.stateless_truncated_normal([2000], seed=[7, 7], stddev=2.0)
    c = tf.random.stateless_categorical(tf.math.log([[0.2, 0.8], [0.9, 0.1]]), 2000, seed=[3, 3])
    gen = tf.random.experimental.Generator.from_seed(11)
    draw = gen.normal([4])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        gv, pv, da, sv, uv, uiv, tv, cv = sess.run([g, p, d_alpha, s, u, ui, t, c])
        assert gv.shape == (4000, 3) and gv.dtype == np.float32 and pv.shape == (4000, 2) and pv.dtype == np.int32
        np.testing.assert_allclose(gv.mean(0), [0.25, 1.0, 3.5], rtol=0.08)
        np.testing.assert_allclose(gv.var(0), [0.125, 0.5, 1.75], rtol=0.15)
        np.testing.assert_allclose(pv.mean(0), [1.5, 30.0], rtol=0.05)
        np.testing.assert_allclose(da, [0.5, 0.5, 0.5], rtol=0.1)
        np.testing.assert_allclose(sv.mean(), 0, atol=0.05) and np.testing.assert_allclose(sv.std(), 1, rtol=0.05)
        assert 2 <= uv.min() and uv.max() < 4 and abs(uv.mean() - 3) < 0.05
        assert uiv.dtype == np.int32 and set(np.unique(uiv)) == set(range(-3, 3))
        assert np.abs(tv).max() <= 4 and abs(tv.std() - 2 * 0.8796) < 0.1   # the std of N(0, 1) cut at 2
        np.testing.assert_allclose(cv.mean(1), [0.8, 0.1], atol=0.04)
        again = sess.run([s, u, c])   # stateless: the same values every run
        for a, b in zip(again, [sv, uv, cv]):
            np.testing.assert_array_equal(a, b)
        d1, d2 = sess.run(draw), sess.run(draw)
        assert not np.array_equal(d1, d2)   # a Generator advances its state each run
    with tf.Session() as sess:   # ... and its sequence depends only on its seed
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(draw), d1)
        np.testing.assert_array_equal(sess.run(s), sv)
