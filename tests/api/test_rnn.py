"""tf.nn.rnn_cell, dynamic_rnn / static_rnn / bidirectional_dynamic_rnn and tf.contrib's pieces:
TF's variable names, values against numpy written from TF's cell equations, gradients against
finite differences, and sequence_length semantics."""
import os
from paths import TESTS as _TESTS  # the tests/ folder
import subprocess
import sys

import numpy as np
import pytest

import tinyflow as tf


B, T, D, H = 3, 4, 2, 5
X = np.random.RandomState(0).randn(B, T, D)


def _sig(z):
    return 1 / (1 + np.exp(-z))


def np_lstm(x, K, b, c, h, forget_bias=1.0):
    i, j, f, o = np.split(np.concatenate([x, h], 1) @ K + b, 4, 1)
    c = c * _sig(f + forget_bias) + _sig(i) * np.tanh(j)
    return np.tanh(c) * _sig(o), c


def np_gru(x, Kg, bg, Kc, bc, h):
    r, u = np.split(_sig(np.concatenate([x, h], 1) @ Kg + bg), 2, 1)
    cand = np.tanh(np.concatenate([x, r * h], 1) @ Kc + bc)
    return u * h + (1 - u) * cand


def _run(fetches, x, feed=X, dtype=tf.float64):
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    return sess, sess.run(fetches, {x: feed.astype(dtype.as_numpy_dtype)})


@pytest.mark.slow
def test_dynamic_rnn_lstm_matches_numpy_and_tf_names():
    x = tf.placeholder(tf.float64, [None, T, D])
    out, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(H), x, dtype=tf.float64)
    assert out.shape.as_list() == [None, T, H] and state.c.shape.as_list() == [None, H]
    assert [v.name for v in tf.global_variables()] == ["rnn/basic_lstm_cell/kernel:0", "rnn/basic_lstm_cell/bias:0"]
    sess, (o, c, h) = _run([out, state.c, state.h], x)
    K, b = sess.run(tf.trainable_variables())
    assert K.shape == (D + H, 4 * H)
    hh, cc = np.zeros((B, H)), np.zeros((B, H))
    for t in range(T):
        hh, cc = np_lstm(X[:, t], K, b, cc, hh)
        np.testing.assert_allclose(o[:, t], hh, rtol=1e-10)
    np.testing.assert_allclose(c, cc, rtol=1e-10)
    np.testing.assert_allclose(h, hh, rtol=1e-10)


@pytest.mark.slow
def test_gru_cell_matches_numpy_and_names():
    x = tf.placeholder(tf.float64, [B, T, D])
    out, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(H), x, dtype=tf.float64, time_major=False)
    assert [v.name for v in tf.global_variables()] == [
        "rnn/gru_cell/gates/kernel:0", "rnn/gru_cell/gates/bias:0",
        "rnn/gru_cell/candidate/kernel:0", "rnn/gru_cell/candidate/bias:0"]
    sess, (o, s) = _run([out, state], x)
    Kg, bg, Kc, bc = sess.run(tf.trainable_variables())
    np.testing.assert_array_equal(bg, np.ones(2 * H))  # TF starts the gate bias at 1
    hh = np.zeros((B, H))
    for t in range(T):
        hh = np_gru(X[:, t], Kg, bg, Kc, bc, hh)
        np.testing.assert_allclose(o[:, t], hh, rtol=1e-10)
    np.testing.assert_allclose(s, hh, rtol=1e-10)


@pytest.mark.slow
def test_static_rnn_shares_weights_with_dynamic_rnn():
    x = tf.placeholder(tf.float64, [B, T, D])
    cell = tf.nn.rnn_cell.BasicRNNCell(H)
    dyn, dyn_state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float64, scope="shared")
    # the cell is a layer: once built, every later call uses its variables
    stat, stat_state = tf.nn.static_rnn(cell, tf.unstack(x, T, 1), dtype=tf.float64, scope="shared")
    assert len(tf.global_variables()) == 2
    sess, (d, ds, s, ss) = _run([dyn, dyn_state, tf.stack(stat, 1), stat_state], x)
    np.testing.assert_allclose(d, s, rtol=1e-12)
    np.testing.assert_allclose(ds, ss, rtol=1e-12)


@pytest.mark.slow
def test_sequence_length_zeroes_outputs_and_keeps_the_last_state():
    lengths = np.array([4, 2, 1])
    x = tf.placeholder(tf.float64, [B, T, D])
    out, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(H), x, sequence_length=lengths, dtype=tf.float64)
    sess, (o, c, h) = _run([out, state.c, state.h], x)
    K, b = sess.run(tf.trainable_variables())
    for row, n in enumerate(lengths):
        hh, cc = np.zeros((1, H)), np.zeros((1, H))
        for t in range(n):
            hh, cc = np_lstm(X[row:row + 1, t], K, b, cc, hh)
            np.testing.assert_allclose(o[row, t], hh[0], rtol=1e-10)
        np.testing.assert_array_equal(o[row, n:], 0.0)
        np.testing.assert_allclose(h[row], hh[0], rtol=1e-10)
        np.testing.assert_allclose(c[row], cc[0], rtol=1e-10)


@pytest.mark.slow
def test_dynamic_rnn_gradient_matches_finite_differences():
    x = tf.placeholder(tf.float64, [2, 3, D])
    cell = tf.nn.rnn_cell.LSTMCell(3, use_peepholes=True, num_proj=2, cell_clip=5.0,
                                   initializer=tf.random_uniform_initializer(-0.5, 0.5, seed=1))
    out, state = tf.nn.dynamic_rnn(cell, x, sequence_length=[3, 2], dtype=tf.float64)
    w = tf.constant(np.random.RandomState(1).randn(2, 3, 2))
    loss = tf.reduce_sum(out * w) + tf.reduce_sum(state.c)
    variables = tf.trainable_variables()
    assert [v.name for v in variables] == ["rnn/lstm_cell/kernel:0", "rnn/lstm_cell/bias:0", "rnn/lstm_cell/w_f_diag:0",
                                           "rnn/lstm_cell/w_i_diag:0", "rnn/lstm_cell/w_o_diag:0",
                                           "rnn/lstm_cell/projection/kernel:0"]
    grads = tf.gradients(loss, variables + [x])
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    xv = X[:2, :3]
    got = sess.run(grads, {x: xv})
    eps = 1e-6
    for v, g in zip(variables, got):
        v0 = sess.run(v)
        num = np.zeros_like(v0)
        for i in np.ndindex(v0.shape):
            for sign in (1, -1):
                p = v0.copy()
                p[i] += sign * eps
                v.load(p, sess)
                num[i] += sign * sess.run(loss, {x: xv}) / (2 * eps)
            v.load(v0, sess)
        np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-7, err_msg=v.name)
    num_x = np.zeros_like(xv)
    for i in np.ndindex(xv.shape):
        for sign in (1, -1):
            p = xv.copy()
            p[i] += sign * eps
            num_x[i] += sign * sess.run(loss, {x: p}) / (2 * eps)
    np.testing.assert_allclose(got[-1], num_x, rtol=1e-5, atol=1e-7)


def test_multi_rnn_cell_names_and_state_structure():
    x = tf.placeholder(tf.float32, [None, T, D])
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(4), tf.nn.rnn_cell.GRUCell(3)])
    out, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    assert out.shape.as_list() == [None, T, 3]
    assert isinstance(state, tuple) and isinstance(state[0], tf.nn.rnn_cell.LSTMStateTuple)
    names = [v.name for v in tf.global_variables()]
    assert names[0] == "rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel:0"
    assert names[-1] == "rnn/multi_rnn_cell/cell_1/gru_cell/candidate/bias:0"
    batch = tf.placeholder(tf.int32, [])
    zero = cell.zero_state(batch, tf.float32)
    assert zero[0].c.shape.as_list() == [None, 4] and zero[1].shape.as_list() == [None, 3]


@pytest.mark.slow
def test_dropout_wrapper_scales_kept_outputs():
    x = tf.placeholder(tf.float32, [B, D])
    inner = tf.nn.rnn_cell.BasicRNNCell(50)
    plain_out, _ = inner(x, inner.zero_state(B, tf.float32))
    dropped, _ = tf.nn.rnn_cell.DropoutWrapper(inner, output_keep_prob=0.5, seed=3)(x, inner.zero_state(B, tf.float32))
    sess, (p, d) = _run([plain_out, dropped], x, X[:, 0], tf.float32)
    kept = d != 0
    assert 0.2 < kept.mean() < 0.8
    np.testing.assert_allclose(d[kept], 2 * p[kept], rtol=1e-6)


@pytest.mark.slow
def test_bidirectional_dynamic_rnn_backward_is_the_cell_on_reversed_sequences():
    lengths = np.array([4, 3, 2])
    x = tf.placeholder(tf.float64, [B, T, D])
    (fw, bw), (sfw, sbw) = tf.nn.bidirectional_dynamic_rnn(
        tf.nn.rnn_cell.BasicRNNCell(H), tf.nn.rnn_cell.BasicRNNCell(H), x, sequence_length=lengths,
        dtype=tf.float64)
    assert [v.name for v in tf.global_variables()][2:] == ["bidirectional_rnn/bw/basic_rnn_cell/kernel:0",
                                                          "bidirectional_rnn/bw/basic_rnn_cell/bias:0"]
    sess, (b_out, b_state) = _run([bw, sbw], x)
    K, b = sess.run(tf.trainable_variables()[2:])
    for row, n in enumerate(lengths):
        h = np.zeros(H)
        for t in reversed(range(n)):  # the backward cell reads the sequence from its end
            h = np.tanh(np.concatenate([X[row, t], h]) @ K + b)
            np.testing.assert_allclose(b_out[row, t], h, rtol=1e-10)
        np.testing.assert_array_equal(b_out[row, n:], 0.0)
        np.testing.assert_allclose(b_state[row], h, rtol=1e-10)


@pytest.mark.slow
def test_lstm_classifier_trains():
    """A sequence task an LSTM must remember across steps: is the first element positive?"""
    rng = np.random.RandomState(0)
    xs = rng.randn(256, 6, 1).astype(np.float32)
    ys = (xs[:, 0, 0] > 0).astype(np.int64)
    x = tf.placeholder(tf.float32, [None, 6, 1])
    y = tf.placeholder(tf.int64, [None])
    _, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(16), x, dtype=tf.float32)
    logits = tf.layers.dense(state.h, 2)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.AdamOptimizer(0.02).minimize(loss)
    acc = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    for _ in range(150):
        sess.run(train, {x: xs, y: ys})
    assert sess.run(acc, {x: xs, y: ys}) > 0.95


@pytest.mark.slow
def test_contrib_fully_connected_and_regularizers():
    x = tf.placeholder(tf.float32, [None, 3])
    out = tf.contrib.layers.fully_connected(x, 2, weights_regularizer=tf.contrib.layers.l2_regularizer(0.5))
    assert [v.name for v in tf.global_variables()] == ["fully_connected/weights:0", "fully_connected/biases:0"]
    reg, = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    w, b = sess.run(tf.global_variables())
    xv = np.random.RandomState(0).randn(4, 3).astype(np.float32)
    np.testing.assert_allclose(sess.run(out, {x: xv}), np.maximum(xv @ w + b, 0), rtol=1e-5)
    np.testing.assert_allclose(sess.run(reg), 0.5 * (w ** 2).sum() / 2, rtol=1e-5)


def test_partly_known_shape_arguments_give_partly_known_shapes():
    n = tf.placeholder(tf.int32, [])
    x = tf.placeholder(tf.float32, [None, 784])
    assert tf.zeros([n, 3]).shape.as_list() == [None, 3]
    assert tf.random_normal([n, 4]).shape.as_list() == [None, 4]
    assert tf.reshape(x, [tf.shape(x)[0], 28, 28, 1]).shape.as_list() == [None, 28, 28, 1]
    assert tf.fill(tf.shape(x), 1.0).shape.as_list() == [None, 784]


@pytest.mark.slow
def test_runner_resolves_tensorflow_contrib(tmp_path):
    script = tmp_path / "uses_contrib.py"
    script.write_text("import tensorflow as tf\nfrom tensorflow.contrib import rnn\n"
                      "import tensorflow.contrib.layers as layers\nfrom tensorflow.nn import rnn_cell\n"
                      "print(rnn.BasicLSTMCell is rnn_cell.BasicLSTMCell, layers.fully_connected is not None)\n")
    root = os.path.join(_TESTS, "..")
    done = subprocess.run([sys.executable, "-m", "tinyflow", str(script)], capture_output=True, text=True,
                          cwd=root, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True True"
