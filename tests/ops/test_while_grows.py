"""A tf.while_loop whose loop variables grow (shape_invariants with unknown dimensions): it runs
from the host, cond and body jitted per shape (docs/dynamic_shapes.md). Expected values: TF 1.15
(tests/fixtures/seq2seq/make_while_grows.py printed them)."""
import numpy as np
import pytest

import tinyflow as tf


def _appending_loop():
    n = tf.placeholder(tf.int32, [])
    x = tf.placeholder(tf.float32, [2, 1])

    def body(i, seq):
        nxt = tf.reduce_mean(seq, axis=1, keepdims=True) * 0.5 + tf.cast(i, tf.float32)
        return i + 1, tf.concat([seq, nxt], 1)
    _, seq = tf.while_loop(lambda i, s: i < n, body, [tf.constant(0), x],
                           shape_invariants=[tf.TensorShape([]), tf.TensorShape([2, None])])
    return n, x, seq


def test_a_sequence_appended_to_each_step():
    n, x, seq = _appending_loop()
    assert seq.shape.as_list() == [2, None]
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(seq, {n: 3, x: [[1.], [2.]]}),
                                   [[1., 0.5, 1.375, 2.4791667], [2., 1., 1.75, 2.7916667]], rtol=1e-6)
        np.testing.assert_allclose(sess.run(seq, {n: 0, x: [[1.], [2.]]}), [[1.], [2.]])
        # a later op reads the grown value: it runs in the jitted segment after the loop
        np.testing.assert_allclose(sess.run(tf.reduce_sum(seq) * 2, {n: 2, x: [[1.], [2.]]}),
                                   2 * (1 + .5 + 1.375 + 2 + 1 + 1.75), rtol=1e-6)


def test_a_key_cache_that_grows_with_maximum_iterations():
    w = tf.constant(np.arange(9, dtype=np.float32).reshape(3, 3) / 10)

    def body(t, cache, out):
        q = tf.tanh(tf.matmul(out, w))
        cache = tf.concat([cache, q], 0)
        att = tf.nn.softmax(tf.matmul(q, cache, transpose_b=True))
        return t + 1, cache, tf.matmul(att, cache) + 0.1
    _, cache, out = tf.while_loop(lambda t, c, o: t < 100, body,
                                  [tf.constant(0), tf.zeros([0, 3]), tf.constant([[1., 2., 3.]])],
                                  shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, 3]),
                                                    tf.TensorShape([1, 3])], maximum_iterations=5)
    from tinyflow.ops import padded_loop
    with tf.Session() as sess:
        before = padded_loop.TRACES[0]
        c, o = sess.run([cache, out])
        assert padded_loop.TRACES[0] - before == 1   # padded to fit maximum_iterations at once
    np.testing.assert_allclose(c, [[0.98367494, 0.9950547, 0.99850786], [0.75634617, 0.86562157, 0.9279004],
                                   [0.7416097, 0.8521902, 0.9176834], [0.7340252, 0.8452049, 0.91226196],
                                   [0.72924405, 0.8407817, 0.90879506]], rtol=1e-5)
    np.testing.assert_allclose(o, [[0.9052796, 0.98947585, 1.0385724]], rtol=1e-5)


def test_invariants_less_specific_but_shapes_kept_still_differentiate():
    y = tf.placeholder(tf.float32, [3])
    out = tf.while_loop(lambda v: tf.reduce_sum(v) < 50, lambda v: v * 2.0, [y],
                        shape_invariants=[tf.TensorShape([None])])
    g = tf.gradients(tf.reduce_sum(out), y)[0]
    with tf.Session() as sess:
        o, gv = sess.run([out, g], {y: [1., 2., 3.]})
    np.testing.assert_allclose(o, [16., 32., 48.])   # sum 48 < 50 doubles once more
    np.testing.assert_allclose(gv, [16., 16., 16.])


def test_gradient_through_a_growing_loop_is_refused_clearly():
    n, x, seq = _appending_loop()
    g = tf.gradients(tf.reduce_sum(seq), x)[0]
    with tf.Session() as sess, pytest.raises(Exception, match="change shape"):
        sess.run(g, {n: 2, x: [[1.], [2.]]})


def test_a_growing_loop_runs_padded_in_log_n_compiles_with_the_unrolled_values():
    """A key cache that grows per step (concat on the time axis, attention over it, softmax over
    the valid rows) runs inside XLA at capacities 16, 32: 2 phases compiled for 20 steps, not 20
    bodies, with the values of the same steps unrolled in numpy."""
    from tinyflow.ops import padded_loop
    wv = np.random.RandomState(0).randn(4, 4).astype(np.float32) / 2
    w = tf.constant(wv)
    n = tf.placeholder(tf.int32, [])

    def body(t, cache, out):
        q = tf.tanh(tf.matmul(out, w))
        cache = tf.concat([cache, q], 0)
        att = tf.nn.softmax(tf.matmul(q, cache, transpose_b=True) / 2.0)
        return t + 1, cache, tf.matmul(att, cache) + 0.1
    start = [tf.constant(0), tf.zeros([0, 4]), tf.constant([[1., 2., 3., 4.]])]
    shapes = [tf.TensorShape([]), tf.TensorShape([None, 4]), tf.TensorShape([1, 4])]
    _, cache, out = tf.while_loop(lambda t, c, o: t < n, body, start, shape_invariants=shapes)
    c0, o0 = np.zeros((0, 4), np.float32), np.array([[1., 2., 3., 4.]], np.float32)
    for _ in range(20):
        q = np.tanh(o0 @ wv)
        c0 = np.concatenate([c0, q])
        logits = q @ c0.T / 2
        att = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
        o0 = att @ c0 + 0.1
    with tf.Session() as sess:
        before = padded_loop.TRACES[0]
        c, o = sess.run([cache, out], {n: 20})
        assert padded_loop.TRACES[0] - before == 2   # capacities 16, 32
        assert sess.run(cache, {n: 3}).shape == (3, 4)
    assert c.shape == (20, 4)
    np.testing.assert_allclose(c, c0, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(o, o0, rtol=1e-5, atol=1e-6)
