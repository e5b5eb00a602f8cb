"""batch_gather, histogram_fixed_width(_bins), bitcast, ensure_shape, guarantee_const, extract_image_patches,
serialize/parse_tensor, the partitioners, uniform_unit_scaling_initializer and py_function against TF 1.15's
recorded numbers (tests/fixtures/core_extra/make_core_extra.py) and finite differences."""
import os

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.graph.errors import InvalidArgumentError

F = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures", "core_extra", "core_extra.npz"))


def run(*fetches, feed=None):
    with tf.Session() as s:
        return s.run(list(fetches), feed)


def test_batch_gather_and_its_gradient():
    p = tf.constant(F["params"])
    bg = tf.batch_gather(p, F["idx"])
    got = run(bg, tf.batch_gather(F["params"][:, 0], F["idx"][:, 0]), tf.gradients(tf.reduce_sum(bg * bg), p)[0])
    for g, k in zip(got, ["bg", "bg2", "bg_grad"]):
        np.testing.assert_allclose(g, F[k], rtol=1e-12)
    assert bg.shape.as_list() == [2, 3, 6, 4]
    ph = tf.placeholder(tf.float64, [None, 3, 5, 4])   # batch size known only when it runs
    np.testing.assert_allclose(run(tf.batch_gather(ph, F["idx"]), feed={ph: F["params"]})[0], F["bg"])


def test_histogram_fixed_width_and_bins():
    v = F["vals"]
    got = run(tf.histogram_fixed_width(v, np.array([0.0, 5.0]), nbins=7),
              tf.histogram_fixed_width(v, np.array([0.0, 5.0]), nbins=3, dtype=tf.int64),
              tf.histogram_fixed_width_bins(v, np.array([0.0, 5.0]), nbins=7),
              tf.histogram_fixed_width(v.astype(np.float32), [0.0, 5.0], nbins=5))
    for g, k in zip(got, ["hist", "hist_i64", "hist_bins", "hist_f32"]):
        np.testing.assert_array_equal(g, F[k])
        assert g.dtype == F[k].dtype, k


def test_bitcast():
    f = np.array([1.5, -2.25, 1e-3], np.float32)
    got = run(tf.bitcast(f, tf.int32), tf.bitcast(f, tf.uint8),
              tf.bitcast(tf.constant(np.arange(8, dtype=np.uint8).reshape(2, 4)), tf.float32))
    for g, k in zip(got, ["bc_i32", "bc_u8", "bc_back"]):
        np.testing.assert_array_equal(g, F[k])
    with pytest.raises(ValueError, match="Cannot bitcast"):
        tf.bitcast(tf.zeros([3], tf.uint8), tf.float32)


def test_ensure_shape_and_guarantee_const():
    x = tf.placeholder(tf.float32, [None, None])
    y = tf.ensure_shape(x, [None, 3])
    assert y.shape.as_list() == [None, 3]
    z = tf.guarantee_const(y) * 2
    assert run(z, feed={x: np.ones((2, 3))})[0].tolist() == [[2, 2, 2]] * 2
    with pytest.raises(InvalidArgumentError, match=r"\[2,4\] is not compatible with expected shape \[\?,3\]"):
        run(y, feed={x: np.ones((2, 4))})
    with pytest.raises(ValueError):
        tf.ensure_shape(tf.zeros([2, 4]), [2, 3])
    g = tf.gradients(tf.reduce_sum(tf.ensure_shape(x, [2, 3]) * 3.0), x)[0]
    assert run(g, feed={x: np.ones((2, 3))})[0].tolist() == [[3, 3, 3]] * 2


@pytest.mark.slow
def test_extract_image_patches_and_gradient():
    x = tf.constant(F["img"])
    pv = tf.extract_image_patches(x, [1, 3, 2, 1], [1, 2, 3, 1], [1, 1, 1, 1], "VALID")
    ps = tf.image.extract_image_patches(x, [1, 3, 3, 1], [1, 2, 2, 1], [1, 2, 1, 1], "SAME")
    got = run(pv, ps, tf.gradients(tf.reduce_sum(ps * ps) + tf.reduce_sum(pv), x)[0])
    for g, k in zip(got, ["patch_valid", "patch_same", "patch_grad"]):
        np.testing.assert_allclose(g, F[k], rtol=1e-12, atol=1e-12)
    assert pv.shape.as_list() == list(F["patch_valid"].shape) and ps.shape.as_list() == list(F["patch_same"].shape)


def test_serialize_and_parse_tensor_are_tfs_bytes():
    got = run(tf.serialize_tensor(tf.constant([[1, 2], [3, 4]], tf.int32)),
              tf.io.serialize_tensor(tf.constant([1.5, 2.5], tf.float32)))
    assert got[0] == F["serialized"].tobytes() and got[1] == F["serialized_f"].tobytes()
    ser = run(tf.serialize_tensor(tf.constant(F["params"])))[0]
    np.testing.assert_array_equal(run(tf.parse_tensor(ser, tf.float64))[0], F["parsed"])
    with pytest.raises(InvalidArgumentError, match="Type mismatch"):
        run(tf.io.parse_tensor(ser, tf.float32))


def test_partitioners_answer_as_tf():
    f32 = tf.float32
    assert tf.fixed_size_partitioner(3)(shape=tf.TensorShape([10, 4]), dtype=f32) == list(F["fixed"])
    assert tf.fixed_size_partitioner(2, axis=1)(shape=tf.TensorShape([10, 4]), dtype=f32) == list(F["fixed_axis1"])
    assert tf.variable_axis_size_partitioner(100)(tf.TensorShape([60, 7]), f32) == list(F["axis_size"])
    assert tf.min_max_variable_partitioner(4, min_slice_size=256)(tf.TensorShape([300, 5]), f32) == list(F["min_max"])
    assert tf.min_max_variable_partitioner(4)(tf.TensorShape([300, 5]), f32) == list(F["min_max_small"])
    with tf.variable_scope("p", partitioner=tf.fixed_size_partitioner(2)):
        v = tf.get_variable("w", [4, 3])   # one unpartitioned variable in tinyflow
    assert v.shape.as_list() == [4, 3]


def test_uniform_unit_scaling_initializer():
    v = tf.get_variable("uus", [300, 200], initializer=tf.uniform_unit_scaling_initializer(factor=2.0, seed=1))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        w = s.run(v)
    m = 2.0 * np.sqrt(3 / 300.0)
    assert w.min() >= -m and w.max() < m and w.min() < -0.95 * m and w.max() > 0.95 * m
    np.testing.assert_allclose(w.std(), m / np.sqrt(3), rtol=0.02)   # uniform in [-m, m)


def test_py_function_passes_eager_tensors():
    def f(a, b):
        return a.numpy() * 2 + b.numpy(), np.int32(a.shape[0])
    x = tf.placeholder(tf.float32, [3])
    y, n = tf.py_function(f, [x, tf.constant(1.0)], [tf.float32, tf.int32])
    y.set_shape([3])   # (tinyflow's py_func needs its outputs' shapes to compile the call)
    n.set_shape([])
    got = run(y, n, feed={x: [1.0, 2.0, 3.0]})
    assert got[0].tolist() == [3.0, 5.0, 7.0] and got[1] == 3
    single = tf.py_function(lambda a: a.numpy() + 1, [x], tf.float32)
    single.set_shape([3])
    assert run(single, feed={x: [0.0, 1.0, 2.0]})[0].tolist() == [1.0, 2.0, 3.0]
