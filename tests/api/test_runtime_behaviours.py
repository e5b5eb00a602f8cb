"""Issue 27 item 7: what real TF1 code does at run time. Expected values are TF 1.15's (the script
that printed them: tests/fixtures/seq2seq/make_runtime_behaviours.py)."""
import numpy as np
import pytest

import tinyflow as tf


def test_expand_dims_takes_a_one_element_list():
    x = tf.placeholder(tf.float32, [2, 3])
    assert tf.expand_dims(x, axis=[-1]).shape.as_list() == [2, 3, 1]
    assert tf.expand_dims(x, [0]).shape.as_list() == [1, 2, 3]
    with pytest.raises(ValueError, match="must be a tensor with a single value"):
        tf.expand_dims(x, axis=[0, 1])


def test_feed_dict_key_that_is_a_nested_structure():
    c, h = tf.placeholder(tf.float32, [1, 2]), tf.placeholder(tf.float32, [1, 2])
    state = tf.nn.rnn_cell.LSTMStateTuple(c, h)
    y = state.c * 3 + state.h
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {state: (np.ones((1, 2)), 2 * np.ones((1, 2)))}), [[5., 5.]])
        prev = tf.nn.rnn_cell.LSTMStateTuple(np.ones((1, 2)), 2 * np.ones((1, 2)))
        np.testing.assert_array_equal(sess.run(y, {state: prev}), [[5., 5.]])
        with pytest.raises(ValueError, match="Key had 2 elements, but value had 1 elements"):
            sess.run(y, {state: (np.ones((1, 2)),)})


def test_feed_the_previous_steps_lstm_state():
    """The char-RNN sampling loop: fetch the final state, feed it back as the next initial state."""
    cell = tf.nn.rnn_cell.BasicLSTMCell(3)
    x = tf.placeholder(tf.float32, [1, 1, 2])
    init = cell.zero_state(1, tf.float32)
    out, final = tf.nn.dynamic_rnn(cell, x, initial_state=init)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        xs = np.random.RandomState(0).randn(4, 1, 1, 2).astype(np.float32)
        state = sess.run(init)
        step_outs = []
        for t in range(4):
            o, state = sess.run([out, final], {x: xs[t], init: state})
            step_outs.append(o[0, 0])
        whole = tf.nn.dynamic_rnn(cell, tf.constant(xs.reshape(1, 4, 2)), dtype=tf.float32)[0]
        np.testing.assert_allclose(sess.run(whole)[0], np.array(step_outs), rtol=1e-5, atol=1e-6)


def test_session_list_devices():
    with tf.Session() as sess:
        devices = sess.list_devices()
    assert devices[0].name == "/job:localhost/replica:0/task:0/device:CPU:0"
    assert devices[0].device_type == "CPU" and devices[0].memory_limit_bytes > 0
    assert isinstance(devices[0].incarnation, int)


def test_exponential_moving_average_of_tensors():
    x = tf.placeholder(tf.float32, [2, 3])
    ema = tf.train.ExponentialMovingAverage(0.9)
    t = tf.reduce_sum(x)
    update = ema.apply([t])
    assert ema.average(t).name == "Sum/ExponentialMovingAverage:0"
    assert ema.average_name(t) == "Sum/ExponentialMovingAverage"
    assert tf.moving_average_variables() == []
    ema2 = tf.train.ExponentialMovingAverage(0.9, zero_debias=True)
    m = tf.reduce_mean(x, name="m")
    update2 = ema2.apply([m])
    assert [v.name for v in tf.global_variables()] == [
        "Sum/ExponentialMovingAverage:0", "m/ExponentialMovingAverage:0", "m/ExponentialMovingAverage/biased:0",
        "m/ExponentialMovingAverage/local_step:0"]
    got, got2 = [], []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(3):
            sess.run([update, update2], {x: np.full((2, 3), i + 1.0)})
            got.append(sess.run(ema.average(t)))
            got2.append(sess.run(ema2.average(m)))
    np.testing.assert_allclose(got, [0.60000014, 1.7400004, 3.3660007], rtol=1e-6)       # TF 1.15
    np.testing.assert_allclose(got2, [1.0, 1.5263158, 2.0701103], rtol=1e-6)             # TF 1.15, debiased


def test_contrib_eager_list_devices():
    names = tf.contrib.eager.list_devices()
    assert names[0] == "/job:localhost/replica:0/task:0/device:CPU:0"   # TF 1.15's first entry
    assert all(n.startswith("/job:localhost/replica:0/task:0/device:") for n in names)
