"""TinyFlow's API: automatic variable shapes, its layers beside TF's, tf.normal, tf.pad(dim=, pad=)."""
from paths import TESTS as _TESTS  # the tests/ folder
import numpy as np
import pytest

import tinyflow as tf



def _digits(n=300, image=False):
    d = pytest.importorskip("sklearn.datasets").load_digits()   # the examples extra
    x = (d.data[:n] / 16.0).astype(np.float32)
    return (x.reshape(-1, 1, 8, 8) if image else x), d.target[:n].astype(np.float32)


def _init(loss, feeds, stdev=0.1):
    tf.set_random_seed(0)
    found = list(tf.infer_variable_shapes(loss, feed_dict=feeds))
    return found, [tf.assign(v, tf.normal(shape, stdev)) for v, _, shape in found]


def _train(sess, loss, step, x, label, X, Y, steps, batch=100):
    losses = []
    for i in range(steps):
        j = (i * batch) % (len(X) - batch + 1)
        losses.append(sess.run([loss, step], {x: X[j:j + batch], label: Y[j:j + batch]})[0])
    return losses


@pytest.mark.slow
def test_mlp_with_automatic_shapes_trains():
    X, Y = _digits()
    x, label = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    fc1 = tf.nn.linear(x, num_hidden=32, name="fc1", no_bias=False)
    fc2 = tf.nn.linear(tf.nn.relu(fc1), num_hidden=10, name="fc2")
    loss = tf.nn.mean_sparse_softmax_cross_entropy_with_logits(fc2, label)
    step = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    found, init = _init(loss, {x: [100, 64], label: [100]})
    assert [(n, s) for _, n, s in found] == [("fc1_weight", [32, 64]), ("fc1_bias", [32]), ("fc2_weight", [10, 32])]
    assert found[0][0].shape.as_list() == [32, 64]
    sess = tf.Session(config="gpu fusion")
    sess.run(init)
    losses = _train(sess, loss, step, x, label, X, Y, 30)
    assert np.mean(losses[-5:]) < 0.6 * losses[0]


@pytest.mark.slow
def test_lenet_nchw_with_automatic_shapes_trains():
    X, Y = _digits(image=True)
    x, label = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    h = tf.tanh(tf.nn.conv2d(x, num_filter=8, ksize=[1, 3, 3, 1], name="conv1", no_bias=False))
    h = tf.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1])
    h = tf.tanh(tf.nn.conv2d(h, num_filter=16, ksize=[1, 3, 3, 1], name="conv2"))
    h = tf.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1])
    fc = tf.nn.linear(tf.tanh(tf.nn.linear(tf.nn.flatten_layer(h), num_hidden=32, name="fc1")), num_hidden=10,
                      name="fc2")
    loss = tf.nn.mean_sparse_softmax_cross_entropy_with_logits(fc, label)
    step = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    found, init = _init(loss, {x: [100, 1, 8, 8], label: [100]}, 0.3)
    assert dict((n, s) for _, n, s in found) == {"conv1_weight": [8, 1, 3, 3], "conv1_bias": [8],
                                                 "conv2_weight": [16, 8, 3, 3], "fc1_weight": [32, 64],
                                                 "fc2_weight": [10, 32]}
    sess = tf.Session()
    sess.run(init)
    losses = _train(sess, loss, step, x, label, X, Y, 30)
    assert np.mean(losses[-5:]) < 0.85 * losses[0]


def _np_conv_nchw(x, w, pad, stride):
    x = np.pad(x, [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    n, c, h, wd = x.shape
    f, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, f, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, :, i, j] = np.einsum("nchw,fchw->nf", patch, w)
    return out


@pytest.mark.parametrize("k,stride,padding", [(3, 1, "SAME"), (3, 2, "SAME"), (2, 1, "VALID")])
def test_conv2d_weight_layout_and_padding(k, stride, padding):
    rng = np.random.RandomState(0)
    xv = rng.randn(2, 3, 7, 7).astype(np.float32)
    x = tf.placeholder(tf.float32)
    y = tf.nn.conv2d(x, num_filter=4, ksize=[1, k, k, 1], strides=[1, stride, stride, 1], padding=padding,
                     name="c", no_bias=False)
    (w, wn, ws), (b, bn, bs) = list(tf.infer_variable_shapes(y, {x: xv.shape}))
    assert (wn, ws, bn, bs) == ("c_weight", [4, 3, k, k], "c_bias", [4])
    wv, bv = rng.randn(*ws).astype(np.float32), rng.randn(4).astype(np.float32)
    sess = tf.Session()
    sess.run([tf.assign(w, wv), tf.assign(b, bv)])
    pad = (k - 1) // 2 if padding == "SAME" else 0
    want = _np_conv_nchw(xv, wv, pad, stride) + bv[None, :, None, None]
    np.testing.assert_allclose(sess.run(y, {x: xv}), want, rtol=1e-4, atol=1e-4)


def test_pools_tinyflow_and_tf_meaning():
    xv = np.arange(2 * 2 * 5 * 5, dtype=np.float32).reshape(2, 2, 5, 5) - 20
    x = tf.placeholder(tf.float32)
    mp = tf.nn.max_pool(x, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1])        # TinyFlow: NCHW, pad 1
    ap = tf.nn.avg_pool(x, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1])
    xp = np.pad(xv, [(0, 0), (0, 0), (1, 1), (1, 1)], constant_values=-np.inf)
    xz = np.pad(xv, [(0, 0), (0, 0), (1, 1), (1, 1)])
    want_m = np.array([[xp[:, :, i:i + 3, j:j + 3].max((2, 3)) for j in range(0, 5, 2)] for i in range(0, 5, 2)])
    want_a = np.array([[xz[:, :, i:i + 3, j:j + 3].mean((2, 3)) for j in range(0, 5, 2)] for i in range(0, 5, 2)])
    sess = tf.Session()
    got_m, got_a = sess.run([mp, ap], {x: xv})
    np.testing.assert_allclose(got_m, want_m.transpose(2, 3, 0, 1))
    np.testing.assert_allclose(got_a, want_a.transpose(2, 3, 0, 1), rtol=1e-6)
    # TF's full call keeps TF's meaning (NHWC)
    t = tf.nn.max_pool(tf.constant(xv.transpose(0, 2, 3, 1)), [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    assert t.shape.as_list() == [2, 2, 2, 2]


def test_tf_conv2d_call_keeps_tf_meaning():
    x = tf.zeros([1, 5, 5, 3])
    y = tf.nn.conv2d(x, tf.zeros([3, 3, 3, 4]), strides=[1, 1, 1, 1], padding="SAME")
    assert y.op.type == "Conv2D" and y.shape.as_list() == [1, 5, 5, 4]
    assert tf.trainable_variables() == []


@pytest.mark.slow
def test_batch_normalization_auto_gamma_beta():
    rng = np.random.RandomState(1)
    xv = rng.randn(4, 3, 2, 2).astype(np.float32)
    x = tf.placeholder(tf.float32)
    y = tf.nn.batch_normalization(x, name="bn")
    found = list(tf.infer_variable_shapes(y, {x: xv.shape}))
    assert [(n, s) for _, n, s in found] == [("bn_gamma", [3]), ("bn_beta", [3])]
    g, b = np.array([1., 2., 3.], np.float32), np.array([0., -1., 1.], np.float32)
    sess = tf.Session()
    sess.run([tf.assign(found[0][0], g), tf.assign(found[1][0], b)])
    m, v = xv.mean((0, 2, 3), keepdims=True), xv.var((0, 2, 3), keepdims=True)
    want = (xv - m) / np.sqrt(v + 1e-5) * g[None, :, None, None] + b[None, :, None, None]
    np.testing.assert_allclose(sess.run(y, {x: xv}), want, rtol=1e-4, atol=1e-4)
    # TF's signature: TF's meaning
    z = tf.nn.batch_normalization(tf.constant(xv), 0.0, 1.0, None, None, 0.0)
    np.testing.assert_allclose(sess.run(z), xv, rtol=1e-6)


@pytest.mark.slow
def test_mean_sparse_xent_flatten_and_normal():
    rng = np.random.RandomState(2)
    lv, yv = rng.randn(5, 4), np.array([0, 3, 1, 2, 3], np.float32)
    loss = tf.nn.mean_sparse_softmax_cross_entropy_with_logits(tf.constant(lv), tf.constant(yv))
    p = np.exp(lv) / np.exp(lv).sum(1, keepdims=True)
    want = -np.log(p[np.arange(5), yv.astype(int)]).mean()
    sess = tf.Session()
    np.testing.assert_allclose(sess.run(loss), want, rtol=1e-10)
    f = tf.nn.flatten_layer(tf.placeholder(tf.float32, name="img"))
    out = sess.run(f, {"img:0": np.ones((2, 3, 4, 5))})
    assert out.shape == (2, 60)
    n = sess.run(tf.normal([20000], 0.5))
    assert n.shape == (20000,) and abs(n.std() - 0.5) < 0.02 and abs(n.mean()) < 0.02


@pytest.mark.slow
def test_tinyflow_pad_and_tf_pad():
    x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    xs = np.arange(6.).reshape(2, 3)
    sess = tf.Session()
    right = sess.run(tf.pad(x, dim=1, pad=2))
    left = sess.run(tf.pad(x, dim=1, pad=-1))
    np.testing.assert_array_equal(right, np.pad(xs, [(0, 0), (0, 2)]))
    np.testing.assert_array_equal(left, np.pad(xs, [(0, 0), (1, 0)]))  # a negative pad adds zeros at the start
    # TinyFlow's test_pad: a negative then a positive pad puts zeros on both sides
    both_sides = sess.run(tf.pad(tf.pad(x, dim=1, pad=-3), dim=1, pad=3))
    np.testing.assert_array_equal(both_sides, np.pad(xs, [(0, 0), (3, 3)]))
    p = tf.placeholder(tf.float32, [None, 3])
    both = tf.pad(tf.pad(p, dim=0, pad=-2), dim=0, pad=2)
    assert both.shape.as_list() == [None, 3]
    np.testing.assert_array_equal(sess.run(both, {p: np.ones((4, 3))}), np.pad(np.ones((4, 3)), [(2, 2), (0, 0)]))
    assert tf.pad(x, dim=0, pad=-3).shape.as_list() == [5, 3]
    with pytest.raises(ValueError, match="rank 2"):
        tf.pad(x, dim=2, pad=1)
    np.testing.assert_array_equal(sess.run(tf.pad(x, [[1, 1], [0, 0]])), np.pad(np.arange(6.).reshape(2, 3),
                                                                                 [(1, 1), (0, 0)]))


def test_shapeless_variable_and_errors():
    v = tf.Variable(name="w")                      # TF rejects this call: TinyFlow's shapeless variable
    assert v.shape.ndims is None and v in tf.global_variables() and v in tf.trainable_variables()
    x = tf.placeholder(tf.float32)
    y = tf.nn.linear(x, num_hidden=3, name="fc")
    with pytest.raises(ValueError, match="fc_weight"):
        list(tf.infer_variable_shapes(y, feed_dict={}))
    sess = tf.Session()
    sess.run(tf.initialize_all_variables())        # leaves shapeless variables to the script
    with pytest.raises(tf.errors.FailedPreconditionError):
        sess.run(y, {x: np.ones((2, 4))})


@pytest.mark.slow
def test_mlp_example_script_runs(capsys):
    import importlib.util
    import os
    import sys
    here = os.path.join(_TESTS, "..", "examples", "tinyflow_api")
    sys.path.insert(0, here)
    try:
        spec = importlib.util.spec_from_file_location("mlp_auto_shape", os.path.join(here, "mlp_auto_shape.py"))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        acc = mod.main(["--epochs", "2"])
    finally:
        sys.path.remove(here)
    assert acc > 0.8
    assert "shape[fc1_weight]=[100, 64]" in capsys.readouterr().out


def test_tinyflow_comparison_and_bool_reductions():
    """TinyFlow's scripts compare an int64 argmax with float labels and average the bool result."""
    logits = tf.placeholder(tf.float32, [None, 3])
    label = tf.placeholder(tf.float32, [None])
    correct = tf.equal(tf.argmax(logits, 1), label)
    acc = tf.reduce_mean(correct)
    wrong = tf.reduce_sum(tf.not_equal(tf.argmax(logits, 1), label))
    lv = np.array([[0, 1, 0], [2, 0, 0], [0, 0, 3], [1, 0, 0]], np.float32)
    yv = np.array([1, 0, 1, 1], np.float32)
    sess = tf.Session()
    c, a, w = sess.run([correct, acc, wrong], {logits: lv, label: yv})
    np.testing.assert_array_equal(c, lv.argmax(1) == yv)
    assert a.dtype == np.float32 and a == 0.5 and w == 2.0
    with pytest.raises(TypeError):  # what TF accepts keeps TF's meaning: int32 + float32 still fails
        tf.constant(1) + tf.constant(1.0)


@pytest.mark.slow
def test_adam_on_shapeless_weights():
    """Slots of a weight whose shape is known only after inference take the weight's run-time shape."""
    x = tf.placeholder(tf.float32)
    y = tf.placeholder(tf.float32)
    loss = tf.reduce_mean(tf.square(tf.nn.linear(x, num_hidden=3, name="fc") - y))
    train = tf.train.AdamOptimizer(0.01).minimize(loss)
    sess = tf.Session()
    for v, name, shape in tf.infer_variable_shapes(loss, feed_dict={x: [8, 4], y: [8, 3]}):
        sess.run(tf.assign(v, tf.normal(shape, 0.1)))
    sess.run(tf.initialize_all_variables())
    rng = np.random.RandomState(0)
    feed = {x: rng.rand(8, 4).astype(np.float32), y: rng.rand(8, 3).astype(np.float32)}
    before = sess.run(loss, feed)
    for _ in range(30):
        sess.run(train, feed)
    assert sess.run(loss, feed) < 0.5 * before
