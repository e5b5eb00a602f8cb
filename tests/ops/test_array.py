"""Array ops: static shapes at graph-building time, TF's errors and names, and indexing against numpy."""
import numpy as np
import pytest

import tinyflow as tf

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def _run(fetches, feed=None):
    with tf.Session() as s:
        return s.run(fetches, feed)


@pytest.mark.slow
def test_getitem_matches_numpy():
    x = tf.constant(X)
    i = tf.placeholder(tf.int32, [])
    keys = [1, -1, (slice(None), 1), (Ellipsis, 2), (None, 1), (slice(None, None, -1),), (slice(3, 0, -2), ),
            (0, slice(None, None, -1), slice(1, None, 2)), (Ellipsis, None, slice(None, 2)), (1, Ellipsis, 3),
            (slice(-2, None), None, -1), (slice(None), slice(5, 1, -1)), (slice(10, None),), ()]
    ts = [x[k] for k in keys]
    for k, t in zip(keys, ts):
        assert t.shape.as_list() == list(X[k].shape), k
    dyn = [x[i], x[1, i], x[i, 1:], x[:1, i, ::-2], x[i, ..., None, :2], x[-1, None, i, 1:3]]
    got = _run(ts + dyn, {i: 1})
    for k, v in zip(keys, got):
        np.testing.assert_array_equal(v, X[k])
    for t, v, w in zip(dyn, got[len(ts):], [X[1], X[1, 1], X[1, 1:], X[:1, 1, ::-2], X[1, ..., None, :2],
                                           X[-1, None, 1, 1:3]]):
        assert t.shape.as_list() == list(w.shape)
        np.testing.assert_array_equal(v, w)
    assert x[i].shape.as_list() == [3, 4]
    assert x[:x.shape[1] - 1, x.shape[0]].shape.as_list() == [2, 4]
    assert x[tf.newaxis].shape.as_list() == [1, 2, 3, 4]


def test_getitem_names_and_errors():
    x = tf.constant(X)
    t = x[0, 1:]
    assert t.op.type == "StridedSlice" and t.op.name == "strided_slice"
    assert [i.op.name for i in t.op.inputs[1:]] == ["strided_slice/stack", "strided_slice/stack_1",
                                                    "strided_slice/stack_2"]
    with pytest.raises(TypeError, match="Only integers, slices"):
        x[1.5]
    with pytest.raises(TypeError, match="Only integers, slices"):
        x[tf.constant([1, 2])]
    with pytest.raises(ValueError, match="out of bounds"):
        x[5]
    with pytest.raises(ValueError, match="Index out of range"):
        x[0, 0, 0, 0]


def test_getitem_with_unknown_dims_and_iteration():
    p = tf.placeholder(tf.float32, [None, 3])
    assert p[1:].shape.as_list() == [None, 3]
    assert p[:, 0].shape.as_list() == [None]
    a, b = tf.constant([[1, 2], [3, 4]])
    np.testing.assert_array_equal(_run(b), [3, 4])


def test_transpose_shapes_and_names():
    x = tf.placeholder(tf.float32, [None, 3, 4])
    assert tf.transpose(x).shape.as_list() == [4, 3, None]
    t = tf.transpose(x, [1, 0, 2])
    assert t.shape.as_list() == [3, None, 4] and t.op.name == "transpose_1" and t.op.type == "Transpose"
    with pytest.raises(ValueError, match="Dimension must be 3 but is 2 for 'transpose_2' \\(op: 'Transpose'\\)"):
        tf.transpose(x, [1, 0])
    u = tf.placeholder(tf.float32)
    np.testing.assert_array_equal(_run(tf.transpose(u), {u: X}), X.T)


def test_concat_shapes_and_errors():
    a = tf.placeholder(tf.float32, [None, 3])
    b = tf.placeholder(tf.float32, [2, None])
    c = tf.concat([a, b], 0)
    assert c.shape.as_list() == [None, 3] and c.op.type == "ConcatV2" and c.op.name == "concat"
    assert tf.concat([tf.ones([2, 3]), tf.ones([2, 4])], -1).shape.as_list() == [2, 7]
    with pytest.raises(ValueError, match="Dimension 1 in both shapes must be equal, but are 3 and 4.* for "
                                         "'concat_2' \\(op: 'ConcatV2'\\) with input shapes: \\[2,3\\], \\[2,4\\], \\[\\]"):  # noqa: E501
        tf.concat([tf.ones([2, 3]), tf.ones([2, 4])], axis=0)
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 3"):
        tf.concat([tf.ones([2, 3]), tf.ones([2, 3, 1])], axis=0)
    with pytest.raises(TypeError, match="don't all match"):
        tf.concat([tf.ones([2]), tf.ones([2], tf.int32)], 0)
    assert tf.concat([a], 1) .op.type == "Identity"


def test_split_and_slice():
    x = tf.placeholder(tf.float32, [6, None])
    parts = tf.split(x, 3)
    assert [p.shape.as_list() for p in parts] == [[2, None]] * 3
    sizes = tf.split(x, [1, -1, 2])
    assert [p.shape.as_list() for p in sizes] == [[1, None], [3, None], [2, None]]
    with pytest.raises(ValueError, match="evenly divisible by 4 but is 6"):
        tf.split(x, 4)
    with pytest.raises(ValueError, match="Determined shape must either match"):
        tf.split(x, [2, 5])
    assert tf.slice(x, [1, 0], [-1, 2]).shape.as_list() == [5, 2]
    with pytest.raises(ValueError, match="Expected size\\[0\\] in \\[0, 5\\], but got 6"):
        tf.slice(x, [1, 0], [6, 2])
    v = np.arange(12, dtype=np.float32).reshape(6, 2)
    got = _run(tf.split(x, [1, -1, 2]) + [tf.slice(x, [2, 1], [3, -1])], {x: v})
    np.testing.assert_array_equal(got[1], v[1:4])
    np.testing.assert_array_equal(got[3], v[2:5, 1:])


def test_gather_tile_pad_shapes():
    p = tf.placeholder(tf.float32, [5, None, 2])
    assert tf.gather(p, [[0, 1]], axis=1).shape.as_list() == [5, 1, 2, 2]
    assert tf.gather_nd(p, [[0, 1], [1, 0]]).shape.as_list() == [2, 2]
    assert tf.tile(p, [2, 3, 1]).shape.as_list() == [10, None, 2]
    assert tf.pad(p, [[1, 1], [0, 2], [3, 0]]).shape.as_list() == [7, None, 5]
    with pytest.raises(ValueError, match="Shape must be at least rank 4 but is rank 3"):
        tf.gather(p, [0], axis=3)
    with pytest.raises(ValueError, match="Unknown padding mode"):
        tf.pad(p, [[0, 0]] * 3, mode="WRAP")
    with pytest.raises(ValueError, match="paddings must be less than"):
        tf.pad(tf.ones([2, 2]), [[2, 0], [0, 0]], "REFLECT")
    assert tf.pad(p, [[0, 0]] * 3, constant_values=1.0).op.type == "PadV2"


def test_range_dtypes_and_one_hot():
    assert tf.range(5).dtype == tf.int32
    assert tf.range(0, 5, 0.5).dtype == tf.float32
    assert tf.range(tf.constant(3, tf.int64)).dtype == tf.int64
    assert tf.range(1.0, 2.0, 0.25, dtype=tf.float64).shape.as_list() == [4]
    assert tf.range(5).op.name == "range_4"
    v = _run(tf.range(tf.constant(2, tf.int64), 9, 3))
    assert v.dtype == np.int64 and v.tolist() == [2, 5, 8]
    with pytest.raises(ValueError, match="Requires delta != 0"):
        tf.range(0, 5, 0)
    h = tf.one_hot([0, 2], 3, on_value=2.0, off_value=0.5)
    assert h.dtype == tf.float32 and h.shape.as_list() == [2, 3]
    np.testing.assert_array_equal(_run(h), [[2, .5, .5], [.5, .5, 2]])
    assert tf.one_hot([1], 4, dtype=tf.int64).dtype == tf.int64
    assert tf.one_hot([[1, 2]], 4, axis=1).shape.as_list() == [1, 4, 2]


def test_where_forms():
    c = tf.constant([[True, False], [False, True]])
    w = tf.where(c)
    assert w.dtype == tf.int64 and w.shape.as_list() == [None, 2]
    np.testing.assert_array_equal(_run(w), [[0, 0], [1, 1]])
    with pytest.raises(ValueError, match="x and y must both be non-None"):
        tf.where(c, x=tf.ones([2, 2]))
    with pytest.raises(ValueError):
        tf.where(c, tf.ones([2, 3]), tf.ones([2, 3]))
    p = tf.placeholder(tf.bool, [2])
    np.testing.assert_array_equal(_run(tf.where(p), {p: [True, False]}), [[0]])  # runs between segments
    rows = tf.where(tf.constant([True, False]), tf.ones([2, 3]), tf.zeros([2, 3]))
    np.testing.assert_array_equal(_run(rows), [[1] * 3, [0] * 3])


@pytest.mark.slow
def test_cumsum_reverse_linspace_eye():
    x = tf.constant([1.0, 2.0, 3.0])
    got = _run([tf.cumsum(x, exclusive=True), tf.cumsum(x, reverse=True), tf.reverse_v2(x, [0]),
                tf.linspace(0.0, 1.0, 5), tf.eye(2, 3), tf.diag_part(tf.diag(x))])
    np.testing.assert_array_equal(got[0], [0, 1, 3])
    np.testing.assert_array_equal(got[1], [6, 5, 3])
    np.testing.assert_array_equal(got[2], [3, 2, 1])
    np.testing.assert_allclose(got[3], np.linspace(0, 1, 5))
    np.testing.assert_array_equal(got[4], np.eye(2, 3))
    np.testing.assert_array_equal(got[5], [1, 2, 3])
    assert got[3].dtype == np.float32 and got[4].dtype == np.float32


def test_tensordot_einsum_shapes():
    a = tf.placeholder(tf.float32, [2, 3, 4])
    b = tf.placeholder(tf.float32, [4, 3, 5])
    assert tf.tensordot(a, b, [[1, 2], [1, 0]]).shape.as_list() == [2, 5]
    assert tf.tensordot(a, b, 0).shape.as_list() == [2, 3, 4, 4, 3, 5]
    assert tf.einsum("ijk,kjl->il", a, b).shape.as_list() == [2, 5]
    assert tf.einsum("ijk->kj", a).shape.as_list() == [4, 3]
    with pytest.raises(ValueError):
        tf.einsum("ij,jk->ik", a, b)
    with pytest.raises(ValueError, match="Different number of contraction axes"):
        tf.tensordot(a, b, [[1], [0, 1]])


@pytest.mark.slow
def test_boolean_mask_and_broadcast_to():
    x = tf.constant(X)
    m = tf.boolean_mask(x, [[True, False, True], [False, False, True]])
    np.testing.assert_array_equal(_run(m), X[np.array([[True, False, True], [False, False, True]])])
    with pytest.raises(ValueError, match="incompatible"):
        tf.boolean_mask(x, [True, False, True])
    with pytest.raises(ValueError, match="Incompatible shapes"):
        tf.broadcast_to(tf.ones([3]), [2, 4])
    assert tf.broadcast_to(tf.ones([3]), [2, 3]).shape.as_list() == [2, 3]


def test_shape_folding_gives_static_shapes():
    x = tf.placeholder(tf.float32, [4, 6])
    y = tf.reshape(x, tf.concat([tf.shape(x)[:1], [2, 3]], 0))
    assert y.shape.as_list() == [4, 2, 3]
    z = tf.zeros(tf.shape(x)[::-1])
    assert z.shape.as_list() == [6, 4]


def test_variable_getitem_and_gradient_through_index():
    v = tf.Variable(X)
    i = tf.placeholder(tf.int32, [])
    y = tf.reduce_sum(tf.square(v[i, 1:]))
    g = tf.gradients(y, v)[0]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        gv = s.run(g, {i: 1})
    want = np.zeros_like(X)
    want[1, 1:] = 2 * X[1, 1:]
    np.testing.assert_array_equal(gv, want)
