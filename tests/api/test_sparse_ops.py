"""The sparse ops against TF 1.15's recorded results (tests/fixtures/sparse/make_sparse.py): indices,
values and dense shapes in TF's order; dense results and gradients."""
import os

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
