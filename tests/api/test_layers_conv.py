"""tf.layers.conv2d_transpose, conv1d, max_pooling1d and average_pooling1d against numpy, with TF's
variable names and output sizes."""
import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.slow  # every test here takes over a second (the fast subset: -m "not slow")

RNG = np.random.RandomState(0)


def np_conv2d_transpose(x, k, stride, padding):
    """Scatter-add of each input pixel times the kernel ([kh, kw, out, in]), cropped as TF crops."""
    n, h, w, _ = x.shape
    kh, kw, f, _ = k.shape
    full = np.zeros((n, (h - 1) * stride + kh, (w - 1) * stride + kw, f))
    for i in range(h):
        for j in range(w):
            full[:, i * stride:i * stride + kh, j * stride:j * stride + kw] += np.einsum("nc,abfc->nabf", x[:, i, j], k)
    if padding == "valid":
        oh, ow = h * stride + max(kh - stride, 0), w * stride + max(kw - stride, 0)
    else:
        oh, ow = h * stride, w * stride
    top = max((h - 1) * stride + kh - oh, 0) // 2
    left = max((w - 1) * stride + kw - ow, 0) // 2
    out = np.zeros((n, oh, ow, f))
    crop = full[:, top:top + oh, left:left + ow]
    out[:, :crop.shape[1], :crop.shape[2]] = crop
    return out


@pytest.mark.parametrize("stride, padding", [(2, "same"), (2, "valid"), (1, "same"), (3, "valid")])
def test_conv2d_transpose_layer_matches_numpy(stride, padding):
    x = tf.placeholder(tf.float64, [None, 4, 5, 3])
    y = tf.layers.conv2d_transpose(x, 2, 3, strides=stride, padding=padding,
                                   bias_initializer=tf.constant_initializer(0.5))
    assert [v.name for v in tf.global_variables()] == ["conv2d_transpose/kernel:0", "conv2d_transpose/bias:0"]
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    xv = RNG.randn(2, 4, 5, 3)
    k = sess.run(tf.global_variables()[0])
    assert k.shape == (3, 3, 2, 3)
    want = np_conv2d_transpose(xv, k, stride, padding) + 0.5
    got = sess.run(y, {x: xv})
    assert y.shape.as_list() == [None] + list(want.shape[1:])
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_conv1d_and_1d_pooling_match_numpy():
    x = tf.placeholder(tf.float64, [None, 9, 2])
    c = tf.layers.conv1d(x, 4, 3, padding="same", activation=tf.nn.relu)
    mp = tf.layers.max_pooling1d(c, 2, 2)
    ap = tf.layers.average_pooling1d(c, 3, 3, padding="valid")
    assert [v.name for v in tf.global_variables()] == ["conv1d/kernel:0", "conv1d/bias:0"]
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    xv = RNG.randn(2, 9, 2)
    k, b = sess.run(tf.global_variables())
    padded = np.pad(xv, [[0, 0], [1, 1], [0, 0]])
    want = np.maximum(np.stack([np.einsum("nkc,kcf->nf", padded[:, t:t + 3], k) for t in range(9)], 1) + b, 0)
    got_c, got_mp, got_ap = sess.run([c, mp, ap], {x: xv})
    np.testing.assert_allclose(got_c, want, rtol=1e-10)
    np.testing.assert_allclose(got_mp, want[:, :8].reshape(2, 4, 2, 4).max(2), rtol=1e-12)
    np.testing.assert_allclose(got_ap, want.reshape(2, 3, 3, 4).mean(2), rtol=1e-12)
    assert mp.shape.as_list() == [None, 4, 4] and ap.shape.as_list() == [None, 3, 4]


def test_conv2d_transpose_trains_an_upsampler():
    """Gradients flow to the kernel: learn to upsample 2x by pixel repetition."""
    x = tf.placeholder(tf.float32, [None, 3, 3, 1])
    target = tf.placeholder(tf.float32, [None, 6, 6, 1])
    y = tf.layers.conv2d_transpose(x, 1, 2, strides=2, padding="same", use_bias=False)
    loss = tf.reduce_mean(tf.square(y - target))
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    xv = RNG.rand(8, 3, 3, 1).astype(np.float32)
    tv = xv.repeat(2, 1).repeat(2, 2)
    for _ in range(300):
        sess.run(train, {x: xv, target: tv})
    assert sess.run(loss, {x: xv, target: tv}) < 1e-4
    np.testing.assert_allclose(sess.run(tf.global_variables()[0]).reshape(-1), 1.0, atol=0.02)
