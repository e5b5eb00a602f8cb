"""TinyFlow's tf.pad(x, dim=, pad=) on a placeholder of unknown rank: builds, resolves when lowering."""
import numpy as np
import pytest

import tinyflow as tf


def test_pad_on_unknown_rank_placeholder_resolves_at_run():
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32)
    grown, front = tf.pad(x, dim=1, pad=3), tf.pad(x, dim=1, pad=-3)
    assert grown.shape.ndims is None
    both = tf.pad(front, dim=1, pad=3)
    xs = np.arange(20, dtype=np.float32).reshape(4, 5)
    with tf.Session() as sess:
        g, f, b = sess.run([grown, front, both], {x: xs})
        g3 = sess.run(grown, {x: np.ones((2, 2, 2), np.float32)})
        with pytest.raises(tf.errors.InvalidArgumentError, match="x has rank 1"):
            sess.run(grown, {x: np.ones((2,), np.float32)})
    np.testing.assert_array_equal(g, np.pad(xs, [(0, 0), (0, 3)]))
    np.testing.assert_array_equal(f, np.pad(xs, [(0, 0), (3, 0)]))   # a negative pad adds zeros at the start
    np.testing.assert_array_equal(b, np.pad(xs, [(0, 0), (3, 3)]))
    assert g3.shape == (2, 5, 2)


def test_pad_on_unknown_rank_gradient():
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32)
    w = tf.constant(np.arange(8, dtype=np.float32).reshape(2, 4))
    loss = tf.reduce_sum(tf.pad(x, dim=1, pad=1) * w)
    front = tf.reduce_sum(tf.pad(x, dim=1, pad=-1) * w)
    grad, grad_front = tf.gradients(loss, x)[0], tf.gradients(front, x)[0]
    with tf.Session() as sess:
        got, got_front = sess.run([grad, grad_front], {x: np.ones((2, 3), np.float32)})
    np.testing.assert_array_equal(got, np.arange(8).reshape(2, 4)[:, :3])
    np.testing.assert_array_equal(got_front, np.arange(8).reshape(2, 4)[:, 1:])
