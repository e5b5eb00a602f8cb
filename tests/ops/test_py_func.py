"""tf.py_func / tf.numpy_function: Python on numpy inside the jitted step."""
import numpy as np
import pytest

import tinyflow as tf


def test_py_func_runs_python_on_each_run_with_known_shapes():
    calls = []

    def double(a):
        calls.append(a.shape)
        return (a * 2).astype(np.float32)

    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.py_func(double, [x], tf.float32)
    y.set_shape([None, 3])
    total = tf.reduce_sum(y) + 1.0
    sums, count = tf.numpy_function(lambda a: (a.sum(1), np.int64(len(a))), [x], [tf.float32, tf.int64])
    sums.set_shape([None])
    count.set_shape([])
    sess = tf.Session()
    got = sess.run([total, sums, count], {x: np.ones((4, 3))})
    assert got[0] == 25.0 and got[1].tolist() == [3.0] * 4 and got[2] == 4
    sess.run(total, {x: np.ones((2, 3))})
    assert calls == [(4, 3), (2, 3)]
    assert tf.gradients(total, x) == [None]


def test_py_func_with_an_unknown_output_shape_says_what_to_do():
    x = tf.placeholder(tf.float32, [2, 3])
    y = tf.py_func(lambda a: a.reshape(-1), [x], tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="set_shape"):
        tf.Session().run(y, {x: np.ones((2, 3))})


def test_a_stateful_py_func_runs_as_a_target_and_a_stateless_one_when_read():
    """TF runs a stateful op that a run needs, whether or not its output is fetched (tf.group of it as the
    train op); XLA would drop a pure callback whose result nobody reads."""
    calls = []

    def record(x):
        calls.append(float(x))
        return np.float32(x * 2)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [])
        y = tf.py_func(record, [x], tf.float32)
        y.set_shape([])
        step = tf.group(y)
        z = tf.py_func(record, [x], tf.float32, stateful=False)
        z.set_shape([])
        with tf.Session() as sess:
            sess.run(step, {x: 3.0})
            sess.run(step, {x: 4.0})
            assert calls == [3.0, 4.0]
            assert sess.run(z, {x: 1.0}) == 2.0 and calls == [3.0, 4.0, 1.0]
