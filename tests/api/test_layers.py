"""tf.layers: TF's variable and op names, values against numpy, training flags, update ops."""
import numpy as np
import pytest

import tinyflow as tf

R = np.random.RandomState(0)


def _init_run(fetches, feed=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed)


def _names(vs):
    return [v.name for v in vs]


@pytest.mark.slow
def test_dense_names_values_and_uniquification():
    x = tf.placeholder(tf.float32, [None, 5])
    h = tf.layers.dense(x, 4, activation=tf.nn.relu)
    y = tf.layers.dense(h, 3, kernel_initializer=tf.ones_initializer(), bias_initializer=tf.constant_initializer(.5))
    assert _names(tf.trainable_variables()) == ["dense/kernel:0", "dense/bias:0", "dense_1/kernel:0",
                                                "dense_1/bias:0"]
    assert h.name == "dense/Relu:0" and y.name == "dense_1/BiasAdd:0" and y.shape.as_list() == [None, 3]
    xv = R.randn(2, 5).astype(np.float32)
    k, b, hv, yv = _init_run([tf.trainable_variables()[0], tf.trainable_variables()[1], h, y], {x: xv})
    np.testing.assert_allclose(hv, np.maximum(xv @ k + b, 0), rtol=1e-5)
    np.testing.assert_allclose(yv, hv.sum(1, keepdims=True) + 0.5 + np.zeros((2, 3)), rtol=1e-5)
    assert not b.any()  # bias defaults to zeros


def test_layer_object_reuses_its_variables():
    x = tf.placeholder(tf.float32, [None, 2])
    layer = tf.layers.Dense(3, use_bias=False)
    a, b = layer(x), layer(x)
    assert layer.name == "dense" and _names(layer.trainable_weights) == ["dense/kernel:0"]
    assert (a.name, b.name) == ("dense/MatMul:0", "dense/MatMul_1:0")
    assert len(tf.trainable_variables()) == 1 and layer.kernel is tf.trainable_variables()[0]


def test_function_api_name_and_reuse():
    x = tf.placeholder(tf.float32, [None, 2])
    tf.layers.dense(x, 3, name="fc")
    with pytest.raises(ValueError, match="Variable fc/kernel already exists, disallowed"):
        tf.layers.dense(x, 3, name="fc")
    shared = tf.layers.dense(x, 3, name="fc", reuse=True)
    assert len(tf.trainable_variables()) == 2 and shared.op.name.endswith("/BiasAdd")
    with tf.variable_scope("net"):
        tf.layers.dense(x, 1)
    with tf.variable_scope("net", reuse=True):
        tf.layers.dense(x, 1, name="dense")
    assert _names(tf.trainable_variables())[2:] == ["net/dense/kernel:0", "net/dense/bias:0"]


@pytest.mark.slow
def test_dense_rank3_and_regularizers():
    x = tf.placeholder(tf.float32, [None, 4, 3])
    y = tf.layers.dense(x, 2, kernel_regularizer=lambda w: tf.reduce_sum(tf.abs(w)),
                        activity_regularizer=lambda a: tf.reduce_sum(a * 0.0))
    assert y.shape.as_list() == [None, 4, 2]
    reg = tf.losses.get_regularization_losses()
    assert len(reg) == 2 and reg[0].name.startswith("dense/kernel/Regularizer/")
    xv = R.randn(2, 4, 3).astype(np.float32)
    k, yv, r = _init_run([tf.trainable_variables()[0], y, tf.losses.get_regularization_loss()], {x: xv})
    np.testing.assert_allclose(yv, xv @ k, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(r, np.abs(k).sum(), rtol=1e-5)


def _conv_ref(x, k, stride):
    kh, kw = k.shape[:2]
    n, h, w, _ = x.shape
    oh, ow = (h - kh) // stride + 1, (w - kw) // stride + 1
    out = np.zeros((n, oh, ow, k.shape[3]))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * stride:i * stride + kh, j * stride:j * stride + kw, :]
            out[:, i, j, :] = np.tensordot(patch, k, axes=([1, 2, 3], [0, 1, 2]))
    return out


@pytest.mark.slow
def test_conv_pool_flatten():
    x = tf.placeholder(tf.float32, [None, 6, 6, 2])
    c = tf.layers.conv2d(x, 3, 3, bias_initializer=tf.constant_initializer(0.1))
    p = tf.layers.max_pooling2d(c, 2, 2)
    a = tf.layers.average_pooling2d(c, 2, 2, padding="same")
    f = tf.layers.flatten(p)
    assert _names(tf.trainable_variables()) == ["conv2d/kernel:0", "conv2d/bias:0"]
    assert tf.trainable_variables()[0].shape.as_list() == [3, 3, 2, 3]
    assert (c.name, p.name, f.name) == ("conv2d/BiasAdd:0", "max_pooling2d/MaxPool:0", "flatten/Reshape:0")
    assert c.shape.as_list() == [None, 4, 4, 3] and f.shape.as_list() == [None, 12]
    xv = R.randn(2, 6, 6, 2).astype(np.float32)
    k, cv, pv, av, fv = _init_run([tf.trainable_variables()[0], c, p, a, f], {x: xv})
    ref = _conv_ref(xv, k, 1) + 0.1
    np.testing.assert_allclose(cv, ref, rtol=1e-4, atol=1e-5)
    pool = ref.reshape(2, 2, 2, 2, 2, 3)
    np.testing.assert_allclose(pv, pool.max(axis=(2, 4)), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(av, pool.mean(axis=(2, 4)), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(fv, pv.reshape(2, -1))
    with pytest.raises(ValueError, match="padding"):
        tf.layers.conv2d(x, 3, 3, padding="full")


@pytest.mark.slow
def test_conv_strides_and_same_padding():
    x = tf.placeholder(tf.float32, [1, 7, 7, 1])
    c = tf.layers.conv2d(x, 2, [3, 3], strides=2, padding="same", use_bias=False)
    assert c.shape.as_list() == [1, 4, 4, 2]
    xv = R.randn(1, 7, 7, 1).astype(np.float32)
    k, cv = _init_run([tf.trainable_variables()[0], c], {x: xv})
    padded = np.pad(xv, [(0, 0), (1, 1), (1, 1), (0, 0)])  # TF SAME: total pad 2, split 1/1
    np.testing.assert_allclose(cv, _conv_ref(padded, k, 2), rtol=1e-4, atol=1e-5)


@pytest.mark.slow
def test_dropout_training_flag():
    x = tf.ones([100, 100])
    assert tf.layers.dropout(x, 0.5).op.type == "Identity"  # training=False: identity
    training = tf.placeholder_with_default(False, [])
    d = tf.layers.dropout(x, 0.25, training=training)
    always = tf.layers.dropout(x, 0.25, training=True)
    with tf.Session() as sess:
        off, on, al = sess.run(d), sess.run(d, {training: True}), sess.run(always)
    np.testing.assert_array_equal(off, np.ones((100, 100)))
    for v in (on, al):
        kept = v != 0
        assert abs(kept.mean() - 0.75) < 0.03
        np.testing.assert_allclose(v[kept], 1 / 0.75, rtol=1e-6)


def _bn_ref(x, gamma, beta, mean, var, eps=1e-3):
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def test_batch_normalization_training_and_updates():
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.layers.batch_normalization(x, training=True, beta_initializer=tf.constant_initializer(0.5))
    assert _names(tf.global_variables()) == ["batch_normalization/gamma:0", "batch_normalization/beta:0",
                                             "batch_normalization/moving_mean:0",
                                             "batch_normalization/moving_variance:0"]
    assert _names(tf.trainable_variables()) == ["batch_normalization/gamma:0", "batch_normalization/beta:0"]
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert len(updates) == 2
    xv = (R.randn(8, 3) * 3 + 2).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        yv, _ = sess.run([y, updates], {x: xv})
        mm, mv = sess.run(tf.global_variables()[2:])
    np.testing.assert_allclose(yv, _bn_ref(xv, 1, 0.5, xv.mean(0), xv.var(0)), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(mm, 0.01 * xv.mean(0), rtol=1e-4)
    np.testing.assert_allclose(mv, 0.99 + 0.01 * xv.var(0), rtol=1e-4)  # 2-D: the biased variance


@pytest.mark.slow
def test_batch_normalization_inference_and_tensor_flag():
    x = tf.placeholder(tf.float32, [None, 2, 2, 3])
    training = tf.placeholder(tf.bool, [])
    y = tf.layers.batch_normalization(x, training=training, momentum=0.9)
    y_inf = tf.layers.batch_normalization(x, name="inf")  # training=False: moving stats, no updates
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert len(updates) == 2
    xv = (R.randn(4, 2, 2, 3) + 1).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        yi = sess.run(y_inf, {x: xv})
        y_eval, _ = sess.run([y, updates], {x: xv, training: False})
        mm, mv = sess.run(tf.global_variables()[2:4])
        np.testing.assert_array_equal(mm, np.zeros(3))  # not training: decay 0, no change
        y_train, _ = sess.run([y, updates], {x: xv, training: True})
        mm, mv = sess.run(tf.global_variables()[2:4])
    np.testing.assert_allclose(yi, xv / np.sqrt(1 + 1e-3), rtol=1e-5)
    np.testing.assert_allclose(y_eval, yi, rtol=1e-5)
    m, v = xv.mean((0, 1, 2)), xv.var((0, 1, 2))
    np.testing.assert_allclose(y_train, _bn_ref(xv, 1, 0, m, v), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(mm, 0.1 * m, rtol=1e-4)
    np.testing.assert_allclose(mv, 0.9 + 0.1 * v * 16 / 15, rtol=1e-4)  # 4-D (fused): unbiased


@pytest.mark.slow
def test_layers_train():
    """A small net of layers learns XOR-like data with the update ops as control dependencies."""
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.placeholder(tf.int32, [None])
    h = tf.layers.dense(x, 16, activation=tf.nn.relu)
    h = tf.layers.batch_normalization(h, training=True)
    logits = tf.layers.dense(h, 2)
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    xv = R.rand(64, 2).astype(np.float32)
    yv = ((xv[:, 0] > 0.5) ^ (xv[:, 1] > 0.5)).astype(np.int32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss, {x: xv, y: yv})
        for _ in range(200):
            sess.run(train, {x: xv, y: yv})
        assert sess.run(loss, {x: xv, y: yv}) < first * 0.5


@pytest.mark.slow
def test_channels_first():
    x = tf.placeholder(tf.float32, [2, 3, 6, 6])
    c = tf.layers.conv2d(x, 4, 3, data_format="channels_first", padding="same")
    p = tf.layers.max_pooling2d(c, 2, 2, data_format="channels_first")
    f = tf.layers.flatten(p, data_format="channels_first")  # flattened in channels_last order, as TF
    assert (c.shape.as_list(), p.shape.as_list(), f.shape.as_list()) == ([2, 4, 6, 6], [2, 4, 3, 3], [2, 36])
    xv = R.rand(2, 3, 6, 6).astype(np.float32)
    k, b, pv, fv = _init_run(tf.trainable_variables() + [p, f], {x: xv})
    ref = _conv_ref(np.pad(xv.transpose(0, 2, 3, 1), [(0, 0), (1, 1), (1, 1), (0, 0)]), k, 1) + b
    ref = ref.reshape(2, 3, 2, 3, 2, 4).max(axis=(2, 4))
    np.testing.assert_allclose(pv.transpose(0, 2, 3, 1), ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(fv, ref.reshape(2, -1), rtol=1e-4, atol=1e-5)
