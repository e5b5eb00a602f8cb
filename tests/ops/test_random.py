"""Random ops: shapes, dtypes, rough moments and TF1's seeding semantics."""
import numpy as np
import pytest

import tinyflow as tf


def _run(t, sess=None):
    with tf.Session() as s:
        return s.run(t)


@pytest.mark.slow
def test_shapes_dtypes_and_names():
    a = tf.random_normal([2, 3])
    b = tf.random_uniform(tf.constant([4]), dtype=tf.float64)
    c = tf.random_uniform([5], minval=-3, maxval=3, dtype=tf.int32)
    assert a.shape.as_list() == [2, 3] and a.dtype == tf.float32 and a.name == "random_normal:0"
    assert b.shape.as_list() == [4] and b.dtype == tf.float64
    assert c.dtype == tf.int32 and c.op.type == "RandomUniformInt"
    va, vb, vc = _run([a, b, c])
    assert va.dtype == np.float32 and va.shape == (2, 3)
    assert vb.dtype == np.float64 and ((0 <= vb) & (vb < 1)).all()
    assert vc.dtype == np.int32 and ((-3 <= vc) & (vc < 3)).all()


@pytest.mark.slow
def test_moments():
    n = tf.random_normal([20000], mean=2.0, stddev=3.0, seed=1)
    u = tf.random_uniform([20000], minval=-1.0, maxval=3.0, seed=2)
    t = tf.truncated_normal([20000], mean=1.0, stddev=0.5, seed=3)
    vn, vu, vt = _run([n, u, t])
    assert abs(vn.mean() - 2.0) < 0.1 and abs(vn.std() - 3.0) < 0.1
    assert abs(vu.mean() - 1.0) < 0.05 and vu.min() >= -1.0 and vu.max() < 3.0
    assert abs(vu.std() - 4 / np.sqrt(12)) < 0.05
    assert vt.min() >= 0.0 and vt.max() <= 2.0  # within 2 stddev of the mean
    assert abs(vt.mean() - 1.0) < 0.02 and abs(vt.std() - 0.5 * 0.8796) < 0.02


def test_integer_uniform_needs_maxval_and_bad_dtype():
    with pytest.raises(ValueError, match="Must specify maxval"):
        tf.random_uniform([2], dtype=tf.int32)
    with pytest.raises(ValueError, match="Invalid dtype"):
        tf.random_uniform([2], dtype=tf.bool)


@pytest.mark.slow
def test_each_run_draws_new_numbers_and_ops_differ():
    tf.set_random_seed(7)
    a = tf.random_normal([4])
    b = tf.random_normal([4])
    with tf.Session() as s:
        a1, b1 = s.run([a, b])
        a2 = s.run(a)
    assert not np.allclose(a1, b1)
    assert not np.allclose(a1, a2)


def test_graph_seed_repeats_in_new_session_and_new_graph():
    def draws():
        g = tf.Graph()
        with g.as_default():
            tf.set_random_seed(3)
            x = tf.random_uniform([3])
            with tf.Session() as s:
                return s.run(x), s.run(x)
    first, second = draws(), draws()
    np.testing.assert_array_equal(first[0], second[0])
    np.testing.assert_array_equal(first[1], second[1])
    assert not np.allclose(first[0], first[1])


def test_op_seed_alone_repeats_and_seed_changes_values():
    a = tf.random_normal([3], seed=5)
    b = tf.random_normal([3], seed=5)
    c = tf.random_normal([3], seed=6)
    va, vb, vc = _run([a, b, c])
    np.testing.assert_array_equal(va, vb)
    assert not np.allclose(va, vc)


def test_unseeded_ops_differ():
    va, vb = _run([tf.random_normal([3]), tf.random_normal([3])])
    assert not np.allclose(va, vb)


def test_random_is_not_shared_by_cse():
    tf.random_normal([3], seed=1)
    op = tf.get_default_graph().get_operation_by_name("random_normal/RandomStandardNormal")
    assert op.op_def.stateful and op.op_def.needs_key


@pytest.mark.slow
def test_shuffle_and_multinomial():
    x = tf.constant(np.arange(10))
    s = tf.random_shuffle(x, seed=1)
    m = tf.multinomial(tf.log([[0.0, 1.0], [1.0, 0.0]]), 4, seed=2)
    assert m.shape.as_list() == [2, 4] and m.dtype == tf.int64
    vs, vm = _run([s, m])
    assert sorted(vs) == list(range(10))
    np.testing.assert_array_equal(vm, [[1] * 4, [0] * 4])


def test_tf_random_aliases():
    tf.random.set_random_seed(1)
    assert tf.get_default_graph().seed == 1
    assert tf.random.normal([2]).shape.as_list() == [2]
    assert tf.random.uniform([2, 2]).shape.as_list() == [2, 2]
