"""Initializers: values or distributions (mean, std, bounds), fans, argument errors, aliases."""
import math

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.ops.init_ops import _compute_fans


def _value(init, shape, dtype=tf.float32):
    with tf.Session() as sess:
        return sess.run(init(shape, dtype=dtype))


def test_constant_zeros_ones_identity():
    np.testing.assert_array_equal(_value(tf.zeros_initializer(), [2, 3]), np.zeros((2, 3)))
    ones = _value(tf.ones_initializer(), [4], tf.int32)
    assert ones.dtype == np.int32 and ones.tolist() == [1, 1, 1, 1]
    np.testing.assert_array_equal(_value(tf.constant_initializer(3.5), [2, 2]), np.full((2, 2), 3.5))
    np.testing.assert_array_equal(_value(tf.constant_initializer([1, 2, 3, 4]), [2, 2]), [[1, 2], [3, 4]])
    np.testing.assert_array_equal(_value(tf.initializers.identity(gain=2.0), [2, 3]), 2 * np.eye(2, 3))
    with pytest.raises(ValueError, match="Identity matrix initializer can only be used for 2D matrices."):
        tf.initializers.identity()([2, 2, 2])
    with pytest.raises(TypeError, match="Invalid type for initial value"):
        tf.constant_initializer({"a": 1})


@pytest.mark.slow
@pytest.mark.parametrize("init,mean,std,lo,hi", [
    (tf.random_normal_initializer(1.0, 2.0, seed=1), 1.0, 2.0, None, None),
    (tf.truncated_normal_initializer(0.0, 1.0, seed=2), 0.0, 0.8796, -2.0, 2.0),
    (tf.random_uniform_initializer(-1.0, 3.0, seed=3), 1.0, 4 / math.sqrt(12), -1.0, 3.0),
])
def test_random_initializers(init, mean, std, lo, hi):
    v = _value(init, [100, 100])
    assert v.dtype == np.float32 and v.shape == (100, 100)
    assert abs(v.mean() - mean) < 0.05 * max(std, 1) and abs(v.std() - std) < 0.03 * std
    if lo is not None:
        assert v.min() >= lo and v.max() <= hi


def test_compute_fans():
    assert _compute_fans([]) == (1, 1)
    assert _compute_fans([5]) == (5, 5)
    assert _compute_fans([3, 7]) == (3, 7)
    assert _compute_fans([3, 3, 4, 8]) == (36, 72)


@pytest.mark.slow
@pytest.mark.parametrize("mode,distribution", [("fan_in", "truncated_normal"), ("fan_out", "untruncated_normal"),
                                               ("fan_avg", "uniform"), ("fan_in", "normal")])
def test_variance_scaling(mode, distribution):
    shape = [3, 3, 16, 32]
    fan_in, fan_out = 144, 288
    n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[mode]
    v = _value(tf.variance_scaling_initializer(2.0, mode, distribution, seed=4), shape, tf.float64)
    assert v.dtype == np.float64
    assert abs(v.std() - math.sqrt(2.0 / n)) < 0.05 * math.sqrt(2.0 / n)
    if distribution == "uniform":
        assert np.abs(v).max() <= math.sqrt(3 * 2.0 / n)
    if distribution in ("truncated_normal", "normal"):
        assert np.abs(v).max() <= 2 * math.sqrt(2.0 / n) / 0.87962566103423978


@pytest.mark.slow
def test_glorot():
    v = _value(tf.glorot_uniform_initializer(seed=5), [200, 300])
    limit = math.sqrt(6 / 500)
    assert np.abs(v).max() <= limit and abs(v.std() - limit / math.sqrt(3)) < 0.02 * limit
    v = _value(tf.glorot_normal_initializer(seed=6), [200, 300])
    assert abs(v.std() - math.sqrt(2 / 500)) < 0.03 * math.sqrt(2 / 500)


def test_variance_scaling_errors():
    with pytest.raises(ValueError, match="`scale` must be positive float."):
        tf.variance_scaling_initializer(scale=0.0)
    with pytest.raises(ValueError, match="Invalid `mode` argument"):
        tf.variance_scaling_initializer(mode="fan")
    with pytest.raises(ValueError, match="Invalid `distribution` argument"):
        tf.variance_scaling_initializer(distribution="cauchy")
    with pytest.raises(ValueError, match="Expected floating point type, got"):
        tf.random_normal_initializer(dtype=tf.int32)


@pytest.mark.slow
@pytest.mark.parametrize("shape", [[6, 4], [4, 6], [2, 3, 4]])
def test_orthogonal(shape):
    v = _value(tf.orthogonal_initializer(gain=1.5, seed=7), shape, tf.float64).reshape(-1, shape[-1])
    if v.shape[0] >= v.shape[1]:
        np.testing.assert_allclose(v.T @ v, 2.25 * np.eye(v.shape[1]), atol=1e-10)
    else:
        np.testing.assert_allclose(v @ v.T, 2.25 * np.eye(v.shape[0]), atol=1e-10)
    with pytest.raises(ValueError, match="at least two-dimensional"):
        tf.orthogonal_initializer()([3])


@pytest.mark.slow
def test_config_and_get_variable_use():
    init = tf.random_uniform_initializer(-2, 2, seed=9)
    assert init.get_config() == {"minval": -2, "maxval": 2, "seed": 9, "dtype": "float32"}
    again = tf.random_uniform_initializer.from_config(init.get_config())
    assert (again.minval, again.maxval, again.seed) == (-2, 2, 9)
    v = tf.get_variable("v", [50, 50], initializer=tf.initializers.he_normal(seed=1))
    w = tf.get_variable("w", [3], initializer=tf.zeros_initializer)  # a class is instantiated
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        vv, wv = sess.run([v, w])
    assert abs(vv.std() - math.sqrt(2 / 50)) < 0.1 * math.sqrt(2 / 50)
    assert wv.tolist() == [0, 0, 0]


@pytest.mark.slow
def test_seeded_initializer_repeats_in_rebuilt_graph():
    vals = []
    for _ in range(2):
        with tf.Graph().as_default():
            tf.set_random_seed(11)
            v = tf.get_variable("v", [4])
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                vals.append(sess.run(v))
    np.testing.assert_array_equal(vals[0], vals[1])
