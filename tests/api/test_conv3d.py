"""tf.nn.conv3d / conv3d_transpose (values, gradients) and tf.layers' 3-D convolution and pooling layers
against TF 1.15's recorded numbers (tests/fixtures/conv3d/make_conv3d.py)."""
import os

import numpy as np
import pytest

import tinyflow as tf

F = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures", "conv3d", "conv3d.npz"))


def test_conv3d_and_transpose_with_gradients():
    X, Wv, Wt = tf.constant(F["x"]), tf.constant(F["w"]), tf.constant(F["wt"])
    same = tf.nn.conv3d(X, Wv, [1, 2, 1, 2, 1], "SAME")
    valid = tf.nn.conv3d(X, Wv, [1, 1, 2, 1, 1], "VALID")
    tr = tf.nn.conv3d_transpose(X, Wt, [2, 10, 12, 14, 4], [1, 2, 2, 2, 1], "SAME")
    loss = tf.reduce_sum(same * same) + tf.reduce_sum(tf.sin(valid)) + tf.reduce_sum(tr * tr)
    with tf.Session() as s:
        got = s.run([same, valid, tr] + tf.gradients(loss, [X, Wv, Wt]))
    for g, k in zip(got, ["same", "valid", "tr", "gx", "gw", "gwt"]):
        np.testing.assert_allclose(g, F[k], rtol=1e-10, atol=1e-10, err_msg=k)
    assert same.shape.as_list() == list(F["same"].shape) and valid.shape.as_list() == list(F["valid"].shape)
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        tf.nn.conv3d(X, tf.zeros([1, 1, 1, 2, 4], tf.float64), [1] * 5, "SAME")


def test_conv3d_gradient_matches_finite_differences():
    rng = np.random.RandomState(2)
    x0, w0 = rng.randn(1, 3, 4, 3, 2), rng.randn(2, 2, 2, 2, 3)
    x = tf.placeholder(tf.float64, x0.shape)
    w = tf.constant(w0)
    f = tf.reduce_sum(tf.sin(tf.nn.conv3d(x, w, [1, 1, 2, 1, 1], "SAME", dilations=[1, 2, 1, 1, 1])))
    g = tf.gradients(f, x)[0]
    with tf.Session() as s:
        grad = s.run(g, {x: x0})
        for idx in [(0, 0, 0, 0, 0), (0, 2, 3, 1, 1), (0, 1, 2, 2, 0)]:
            d = np.zeros_like(x0)
            d[idx] = 1e-6
            num = (s.run(f, {x: x0 + d}) - s.run(f, {x: x0 - d})) / 2e-6
            np.testing.assert_allclose(grad[idx], num, rtol=1e-5, atol=1e-8)


def test_layers_conv3d_transpose_and_pooling():
    xf = tf.constant(F["x"].astype(np.float32))
    c = tf.layers.conv3d(xf, 5, 2, strides=(1, 2, 1), padding="same", activation=tf.nn.relu,
                         kernel_initializer=tf.constant_initializer(F["k_layer"]),
                         bias_initializer=tf.constant_initializer(0.1))
    t = tf.layers.conv3d_transpose(xf, 2, 3, strides=2, padding="valid",
                                   kernel_initializer=tf.constant_initializer(F["k_tlayer"]))
    mp = tf.layers.max_pooling3d(xf, 2, 2)
    ap = tf.layers.AveragePooling3D([2, 3, 2], 1, padding="same").apply(xf)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got = s.run([c, t, mp, ap])
    for g, k in zip(got, ["layer", "tlayer", "mp", "ap"]):
        np.testing.assert_allclose(g, F[k], rtol=1e-4, atol=1e-4, err_msg=k)
    assert sorted(v.name for v in tf.global_variables()) == list(F["names"])
