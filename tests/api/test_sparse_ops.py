"""The sparse ops against TF 1.15's recorded results (tests/fixtures/sparse/make_sparse.py): indices,
values and dense shapes in TF's order; dense results and gradients."""
import os
import re

import numpy as np
import pytest

import tinyflow as tf

F = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures", "sparse", "sparse.npz"))


def run(*fetches, feed=None):
    with tf.Session() as s:
        return s.run(list(fetches), feed)


def sp2():
    vals = tf.constant(F["val"])
    return tf.SparseTensor(F["ind"], vals, F["shape"]), vals


def sp3():
    return tf.SparseTensor(F["ind3"], tf.constant(F["val3"]), F["shape3"])


def same_sparse(got, prefix):
    np.testing.assert_array_equal(got.indices, F[prefix + "_i"])
    np.testing.assert_allclose(got.values, F[prefix + "_v"], rtol=1e-12)
    np.testing.assert_array_equal(got.dense_shape, F[prefix + "_s"])


@pytest.mark.slow
def test_sparse_reduce_sum_and_sparse_result():
    sp, _ = sp2()
    got = run(tf.sparse_reduce_sum(sp), tf.sparse_reduce_sum(sp, axis=1), tf.sparse.reduce_sum(sp, 0, keepdims=True),
              tf.sparse_reduce_sum(sp3(), axis=[0, 2]), tf.sparse_reduce_sum_sparse(sp3(), axis=1))
    for g, k in zip(got, ["rsum_all", "rsum_1", "rsum_0k", "rsum3_02"]):
        np.testing.assert_allclose(g, F[k], rtol=1e-12)
    same_sparse(got[4], "rss")


def test_reshape_transpose_concat():
    sp, _ = sp2()
    sp_b = tf.SparseTensor([[0, 0], [1, 2]], tf.constant([5.0, 6.0], tf.float64), [3, 3])
    got = run(tf.sparse_reshape(sp, [2, -1, 2]), tf.sparse_transpose(sp), tf.sparse.transpose(sp3(), [2, 0, 1]),
              tf.sparse_concat(1, [sp, sp_b]), tf.sparse.concat(0, [sp, sp_b], expand_nonconcat_dim=True))
    for g, k in zip(got, ["reshape", "transpose", "transpose3", "concat1", "concat0"]):
        same_sparse(g, k)


def test_sparse_tensor_dense_matmul_and_gradients():
    sp, vals = sp2()
    bb = tf.constant(F["b"])
    mm = tf.sparse_tensor_dense_matmul(sp, bb)
    mma = tf.sparse_tensor_dense_matmul(sp, tf.constant(F["b_t"]), adjoint_a=True)
    mmb = tf.sparse.sparse_dense_matmul(sp, tf.constant(F["b"].T), adjoint_b=True)
    loss = tf.reduce_sum(mm * mm) + tf.reduce_sum(mma) + tf.reduce_sum(tf.sin(mmb))
    got = run(mm, mma, mmb, *[tf.convert_to_tensor(g) for g in tf.gradients(loss, [vals, bb])])
    for g, k in zip(got, ["mm", "mma", "mmb", "mm_gv", "mm_gb"]):
        np.testing.assert_allclose(g, F[k], rtol=1e-10, err_msg=k)
    assert mm.shape.as_list() == [3, 2]


def test_sparse_to_indicator():
    sp = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], tf.constant([3, 1, 4], tf.int64), [3, 2])
    got = run(tf.sparse_to_indicator(sp, 6))[0]
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(got, F["indicator"])


def test_embedding_lookup_sparse_combiners_and_gradient():
    p = tf.constant(F["params"])
    ids = tf.SparseTensor([[0, 0], [0, 1], [2, 0], [2, 1], [2, 2]], tf.constant([1, 4, 0, 4, 5], tf.int64), [3, 3])
    w = tf.SparseTensor(ids.indices, tf.constant(F["wts"]), ids.dense_shape)
    e_mean = tf.nn.embedding_lookup_sparse(p, ids, None, combiner="mean")
    e_sum = tf.nn.embedding_lookup_sparse(p, ids, w, combiner="sum")
    e_sqrtn = tf.nn.embedding_lookup_sparse(p, ids, w, combiner="sqrtn")
    g = tf.gradients(tf.reduce_sum(tf.square(e_sqrtn)) + tf.reduce_sum(e_mean), p)[0]
    assert isinstance(g, tf.IndexedSlices)   # as TF's: the gradient of gathered params
    g = tf.convert_to_tensor(g)
    for got, k in zip(run(e_mean, e_sum, e_sqrtn, g), ["emb_mean", "emb_sum", "emb_sqrtn", "emb_grad"]):
        np.testing.assert_allclose(got, F[k], rtol=1e-10, err_msg=k)


def test_sparse_placeholder_fed_by_parts():
    ph = tf.sparse_placeholder(tf.float64)
    feed = {ph.indices: F["ind"], ph.values: F["val"], ph.dense_shape: F["shape"]}
    np.testing.assert_allclose(run(tf.sparse_reduce_sum(ph, axis=0), feed=feed)[0], F["placeholder_sum"])
    value = tf.SparseTensorValue(F["ind"], F["val"], F["shape"])   # one key for the three, as TF feeds it
    np.testing.assert_allclose(run(tf.sparse_reduce_sum(ph, axis=0), feed={ph: value})[0], F["placeholder_sum"])
    ph2 = tf.sparse_placeholder(tf.float32, shape=[3, 4], name="sp")
    assert ph2.get_shape().as_list() == list(F["ph2_shape"]) and ph2.values.name == "sp/values:0"
    with pytest.raises(TypeError, match="SparseTensor"):
        tf.sparse_reduce_sum(tf.zeros([2, 2]))


# ---- found by the differential corpus (tests/fixtures/diffcorpus/spec_sparse.py); TF 1.15's values --------
NAN = float("nan")


def _st(indices, values, shape, dtype=np.float32):
    return tf.SparseTensor(np.array(indices, np.int64).reshape(len(indices), -1), np.array(values, dtype),
                           np.array(shape, np.int64))


@pytest.mark.parametrize("build, message", [
    (lambda: tf.sparse.to_dense(_st([[0, 1], [0, 0]], [1, 2], [2, 2])),
     "indices[1] = [0,0] is out of order. Many sparse ops require sorted indices."),
    (lambda: tf.sparse.to_dense(_st([[1, 0], [1, 0]], [1, 2], [2, 2])), "indices[1] = [1,0] is repeated"),
    (lambda: tf.sparse.to_dense(_st([[0, 0], [2, 0]], [1, 2], [2, 2])),
     "indices[1] = [2,0] is out of bounds: need 0 <= index < [2,2]"),
    (lambda: tf.sparse_to_dense([[0], [3]], [2], [1.0, 2.0], validate_indices=False),
     "Indices are not valid (out of bounds).  Shape: [2]"),
    (lambda: tf.sparse.to_dense(tf.SparseTensor([[0], [3]], [b"a", b"b"], [3])),
     "indices[1] = [3] is out of bounds: need 0 <= index < [3]"),
])
def test_sparse_to_dense_raises_where_tf_does_and_changes_no_variable(build, message):
    """SparseToDense checks its indices as TF's kernel does (in bounds; with validate_indices, in
    row-major order and not repeated): an error, never a silently dropped or doubled entry."""
    v = tf.Variable(1.0)
    out = build()
    with tf.Session() as s:
        s.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(message)):
            s.run([out, v.assign_add(1.0)] if out.dtype != tf.string else out)
        assert s.run(v) == 1.0


def test_sparse_ops_edges_as_tf():
    """sparse_to_dense without validation keeps a repeated index's last value (the default's gradient is
    TF's: the sum of the gradient less the values'); sparse.add's threshold drops only sums; reduce_max
    takes each entry (a repeated index too) and skips NaN; reduce_sum_sparse to a scalar; a reshape to a
    shape fed at run time."""
    vals, dv = tf.constant([1.0, 2.0, 3.0]), tf.constant(5.0)
    d = tf.sparse_to_dense([[0], [0], [2]], [4], vals, dv, validate_indices=False)
    out = run(d, tf.gradients(d, [vals, dv], grad_ys=tf.constant([1.0, 2.0, 3.0, 4.0])),
              tf.sparse.add(_st([[0], [1]], [0.1, 1.0], [3]), _st([[1], [2]], [-0.5, 0.2], [3]), threshold=0.6),
              tf.sparse.reduce_max(_st([[0, 0], [0, 0], [1, 1], [1, 2]], [1.0, 3.0, NAN, 2.0], [2, 3]), 1),
              tf.sparse.reduce_max(_st([[0, 0], [1, 1]], [NAN, 2.0], [3, 3]), 1),
              tf.sparse.reduce_sum_sparse(_st([[0, 0], [1, 2]], [1.0, 2.0], [2, 3])),
              tf.reshape(tf.range(6), tf.placeholder_with_default(np.array([2, 3], np.int64), [2])))
    dense, (g_vals, g_default), added, rmax, rmax_nan, rss, reshaped = out
    np.testing.assert_array_equal(dense, [2.0, 5.0, 3.0, 5.0])
    np.testing.assert_array_equal(g_vals, [1.0, 1.0, 3.0])
    assert g_default == 5.0
    np.testing.assert_array_equal(added.indices, [[0], [2]])
    np.testing.assert_allclose(added.values, [0.1, 0.2])
    np.testing.assert_array_equal(rmax, [3.0, 2.0])
    np.testing.assert_array_equal(rmax_nan, [-np.inf, 2.0, 0.0])
    assert rss.indices.shape == (1, 0) and list(rss.values) == [3.0] and rss.dense_shape.shape == (0,)
    np.testing.assert_array_equal(reshaped, [[0, 1, 2], [3, 4, 5]])


@pytest.mark.slow
def test_split_and_safe_embedding_lookup_with_a_fed_dense_shape():
    shape = tf.placeholder_with_default(np.array([5, 2], np.int64), [2])
    sp = tf.SparseTensor(tf.constant([[0, 1], [2, 0], [4, 1]], tf.int64), tf.constant([1.0, 2.0, 3.0]), shape)
    ids = tf.SparseTensor(tf.constant([[0, 0], [2, 0], [2, 1]], tf.int64), tf.constant([1, -1, 0], tf.int64), shape)
    split, safe = run([list(x) for x in tf.sparse.split(sp_input=sp, num_split=2, axis=0)],
                      tf.nn.safe_embedding_lookup_sparse(tf.constant([[1.0, 2.0], [3.0, 4.0]]), ids, None,
                                                         combiner="sum"))
    (i0, v0, s0), (i1, v1, s1) = split
    np.testing.assert_array_equal(i0, [[0, 1], [2, 0]])
    np.testing.assert_array_equal(s0, [3, 2])
    np.testing.assert_array_equal(i1, [[1, 1]])
    np.testing.assert_array_equal(v1, [3.0])
    np.testing.assert_array_equal(s1, [2, 2])
    np.testing.assert_array_equal(safe, [[3.0, 4.0], [0.0, 0.0], [1.0, 2.0], [0.0, 0.0], [0.0, 0.0]])
