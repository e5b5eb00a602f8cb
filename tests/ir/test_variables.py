"""tf.Variable, assignments, initializers, collections and the host ops that ask the session."""
import numpy as np
import pytest

import tinyflow as tf


def test_variable_from_python_numpy_and_tensor():
    a = tf.Variable(1.5, name="a")
    b = tf.Variable(np.arange(6, dtype=np.int64).reshape(2, 3), name="b")
    c = tf.Variable(tf.ones([2]) * 3.0, name="c")
    d = tf.Variable([1, 2], dtype=tf.float64, name="d")
    assert (a.dtype, b.dtype, c.dtype, d.dtype) == (tf.float32, tf.int64, tf.float32, tf.float64)
    assert b.shape.as_list() == [2, 3] and b.get_shape().as_list() == [2, 3]
    assert a.name == "a:0" and a.op.name == "a" and a.op.type == "VariableV2"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(a) == 1.5
        np.testing.assert_array_equal(sess.run(b), np.arange(6).reshape(2, 3))
        np.testing.assert_array_equal(sess.run(c), [3.0, 3.0])
        assert sess.run(d).dtype == np.float64


def test_assign_family_and_read_value():
    v = tf.Variable([1.0, 2.0], name="v")
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_allclose(sess.run(v.assign([5.0, 6.0])), [5, 6])
        np.testing.assert_allclose(sess.run(v.assign_add([1.0, 1.0])), [6, 7])
        np.testing.assert_allclose(sess.run(v.assign_sub([2.0, 2.0])), [4, 5])
        np.testing.assert_allclose(sess.run(tf.assign(v, [0.0, 0.0])), [0, 0])
        np.testing.assert_allclose(sess.run(v.read_value()), [0, 0])
        v.load([9.0, 8.0], sess)
        np.testing.assert_allclose(v.eval(sess), [9, 8])


def test_assign_shape_error_at_build_time():
    v = tf.Variable([1.0, 2.0], name="v")
    with pytest.raises(ValueError):
        tf.assign(v, [1.0, 2.0, 3.0])


def test_read_after_assign_under_control_dependency():
    v = tf.Variable(1.0)
    with tf.control_dependencies([tf.assign(v, 10.0)]):
        r = v.read_value() + 0.0
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(r) == 10.0
        assert sess.run(v) == 10.0


def test_initialized_value_chains_initializers():
    a = tf.Variable(2.0, name="a")
    b = tf.Variable(a.initialized_value() * 3.0, name="b")
    with tf.Session() as sess:
        sess.run(b.initializer)  # runs a's initial value too, without needing a initialized
        assert sess.run(b) == 6.0


def test_initializer_variants_and_report_uninitialized():
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b", trainable=False)
    assert a in tf.trainable_variables() and b not in tf.trainable_variables()
    assert [v.op.name for v in tf.global_variables()] == ["a", "b"]
    with tf.Session() as sess:
        names = sess.run(tf.report_uninitialized_variables())
        assert [n.decode() if isinstance(n, bytes) else n for n in names] == ["a", "b"]
        assert not sess.run(tf.is_variable_initialized(a))
        sess.run(tf.variables_initializer([a]))
        assert sess.run(tf.is_variable_initialized(a))
        names = sess.run(tf.report_uninitialized_variables())
        assert [n.decode() if isinstance(n, bytes) else n for n in names] == ["b"]
        sess.run(tf.initialize_all_variables())
        assert len(sess.run(tf.report_uninitialized_variables())) == 0


def test_group_and_tuple():
    v = tf.Variable(0.0)
    w = tf.Variable(0.0)
    g = tf.group(tf.assign_add(v, 1.0), [tf.assign_add(w, 2.0)])
    assert g.type == "NoOp"
    x = tf.constant(1.0)
    t1, t2 = tf.tuple([x + 1.0, x * 5.0])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(g) is None
        assert sess.run([v, w]) == [1.0, 2.0]
        assert sess.run([t1, t2]) == [2.0, 5.0]


def test_variable_operators_and_identity():
    v = tf.Variable([1.0, -2.0])
    y = tf.stop_gradient(tf.identity(v * 2.0 - 1.0))
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_allclose(sess.run(y), [1.0, -5.0])
        np.testing.assert_allclose(sess.run(-v), [-1.0, 2.0])


def test_placeholder_with_default():
    p = tf.placeholder_with_default(tf.constant([1.0, 2.0]), [None])
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(p * 2.0), [2.0, 4.0])
        np.testing.assert_allclose(sess.run(p * 2.0, {p: [3.0]}), [6.0])


def test_zeros_ones_fill_like():
    x = tf.placeholder(tf.int32, [2, 3])
    with tf.Session() as sess:
        xs = np.ones((2, 3), np.int32)
        assert sess.run(tf.zeros([2, 3])).dtype == np.float32
        np.testing.assert_array_equal(sess.run(tf.fill([2], 7)), [7, 7])
        z = sess.run(tf.zeros_like(x), {x: xs})
        o = sess.run(tf.ones_like(x, dtype=tf.float64), {x: xs})
        assert z.dtype == np.int32 and z.sum() == 0 and o.dtype == np.float64 and o.sum() == 6
