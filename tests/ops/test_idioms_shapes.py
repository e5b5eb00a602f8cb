"""Static shapes through a bool-placeholder dropout (TF's smart_cond keeps them) and the shape rules
of select/where/cond on branch shapes."""
import numpy as np
import pytest

import tinyflow as tf


@pytest.mark.slow
def test_dropout_with_bool_placeholder_keeps_shape_into_conv2d():
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 8, 8, 1])
    training = tf.placeholder(tf.bool)
    h = tf.layers.dropout(x, rate=0.5, training=training)
    assert h.shape.as_list() == [None, 8, 8, 1]
    y = tf.layers.conv2d(h, 2, 3, padding="same")
    assert y.shape.as_list() == [None, 8, 8, 2]
    y = tf.layers.dropout(tf.layers.flatten(y), rate=0.5, training=training)
    assert y.shape.as_list() == [None, 128]
    xs = np.random.RandomState(0).uniform(1, 2, (3, 8, 8, 1)).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(y, {x: xs, training: False}).shape == (3, 128)
        off, on = sess.run(h, {x: xs, training: False}), sess.run(h, {x: xs, training: True})
    np.testing.assert_array_equal(off, xs)
    kept = on != 0
    np.testing.assert_allclose(on[kept], 2 * xs[kept], rtol=1e-6)  # kept units scaled by 1 / (1 - rate)
    assert 0.2 < kept.mean() < 0.8


def test_where_merges_branch_shapes_like_tf():
    tf.reset_default_graph()
    p = tf.placeholder(tf.bool)
    a = tf.placeholder(tf.float32, [None, 3])
    b = tf.placeholder(tf.float32, [2, 3])
    assert tf.where(p, a, b).shape.as_list() == [2, 3]
    assert tf.where(p, b, tf.placeholder(tf.float32)).shape.as_list() == [2, 3]
    assert tf.where_v2(p, a, b).shape.ndims is None  # SelectV2 broadcasts: unknown with a shapeless predicate
    with pytest.raises(ValueError):
        tf.where(p, b, tf.placeholder(tf.float32, [4, 3]))


def test_cond_output_shape_from_both_branches():
    tf.reset_default_graph()
    p = tf.placeholder(tf.bool)
    a = tf.placeholder(tf.float32, [None, 3])
    out = tf.cond(p, lambda: a * 2, lambda: tf.zeros([2, 3]))
    # TF 1.15: what both branches agree on. Not the merged [2, 3]: a branch valid only when taken (squeezing
    # an axis of length 1) gives zeros of the other's shape when it cannot be traced, so [?, 1] merged with
    # [?, ?] would claim a length 1 where the run has 3 (contrib.crf's crf_decode)
    assert out.shape.as_list() == [None, 3]


@pytest.mark.slow
def test_nn_dropout_and_batch_normalization_keep_shape_with_placeholders():
    tf.reset_default_graph()
    x = tf.placeholder("float", [None, 4, 4, 1])
    keep_prob, training = tf.placeholder(tf.float32), tf.placeholder(tf.bool)
    d = tf.nn.dropout(x, keep_prob)
    assert d.shape.as_list() == [None, 4, 4, 1]
    b = tf.layers.batch_normalization(x, training=training)
    assert b.shape.as_list() == [None, 4, 4, 1]
    assert tf.layers.conv2d(b, 2, 3).shape.as_list() == [None, 2, 2, 2]
    xs = np.random.RandomState(0).normal(size=(2, 4, 4, 1)).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(d, {x: xs, keep_prob: 1.0}), xs)
        out = sess.run(b, {x: xs, training: True})
    np.testing.assert_allclose(out, (xs - xs.mean()) / np.sqrt(xs.var() + 1e-3), rtol=1e-4, atol=1e-5)
