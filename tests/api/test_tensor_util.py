"""tf.make_tensor_proto / tf.make_ndarray / tf.contrib.util and tf.IndexedSlices as TF 1.15 has them (the
expected protos and errors were printed by TF 1.15 for the same calls)."""
import numpy as np
import pytest

import tinyflow as tf

# (kwargs, TF's dtype enum, dims, numpy value, bytes of tensor_content, float_val, int_val)
CASES = [
    (dict(values=1.5), 1, [], 1.5, 0, [1.5], []),
    (dict(values=[1, 2, 3]), 3, [3], [1, 2, 3], 12, [], []),
    (dict(values=np.arange(4.0)), 2, [4], [0.0, 1.0, 2.0, 3.0], 32, [], []),
    (dict(values=7, shape=[2, 2]), 3, [2, 2], [[7, 7], [7, 7]], 0, [], [7]),
    (dict(values=[1, 2, 3, 4], shape=[2, 2]), 3, [2, 2], [[1, 2], [3, 4]], 16, [], []),
    (dict(values=[1., 2.], dtype=tf.float64), 2, [2], [1.0, 2.0], 16, [], []),
    (dict(values=[b"a", "bc"]), 7, [2], [b"a", b"bc"], 0, [], []),
    (dict(values=True), 10, [], True, 0, [], []),
    (dict(values=[[1, 2], [3, 4]], dtype=tf.int64), 9, [2, 2], [[1, 2], [3, 4]], 32, [], []),
]


@pytest.mark.parametrize("kwargs,dtype,dims,value,content,float_val,int_val", CASES)
def test_make_tensor_proto_fills_the_fields_tf_fills(kwargs, dtype, dims, value, content, float_val, int_val):
    p = tf.make_tensor_proto(**kwargs)
    assert (p.dtype, [d.size for d in p.tensor_shape.dim]) == (dtype, dims)
    assert (len(p.tensor_content), list(p.float_val), list(p.int_val)) == (content, float_val, int_val)
    assert tf.make_ndarray(p).tolist() == value
    assert tf.contrib.util.make_ndarray(tf.contrib.util.make_tensor_proto(**kwargs)).tolist() == value


def test_make_tensor_proto_errors_as_tf():
    with pytest.raises(ValueError, match="Too many elements provided. Needed at most 2, but received 3"):
        tf.make_tensor_proto([1, 2, 3], shape=[2])
    with pytest.raises(TypeError, match="Expected int32, got 1.5 of type 'float' instead."):
        tf.make_tensor_proto(1.5, dtype=tf.int32)
    with pytest.raises(TypeError, match=r"Expected Tensor's shape: \(3,\), got \(2,\)."):
        tf.make_tensor_proto([1, 2], shape=[3], verify_shape=True)
    with pytest.raises(ValueError, match="Argument must be a dense tensor"):
        tf.make_tensor_proto([[1, 2], [3]])


def test_indexed_slices_convert_and_fetch_as_tf():
    with tf.Graph().as_default():
        s = tf.IndexedSlices(tf.constant([[1., 2.], [3., 4.]]), tf.constant([0, 2]), tf.constant([3, 2]))
        assert s.dtype == tf.float32 and s.name == s.values.name
        dense = tf.convert_to_tensor(s) * 2.0
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(dense), [[2., 4.], [0., 0.], [6., 8.]])
            got = sess.run(s)
        assert type(got).__name__ == "IndexedSlicesValue"
        np.testing.assert_array_equal(got.indices, [0, 2])
        np.testing.assert_array_equal(got.dense_shape, [3, 2])
        assert tf.contrib.util.constant_value(tf.constant([5, 6])).tolist() == [5, 6]
        with pytest.raises(ValueError, match="without dense_shape"):
            tf.convert_to_tensor(tf.IndexedSlices(tf.constant([1.]), tf.constant([0])))


def test_version_graph_keys_enums_and_tensor_spec():
    assert tf.version.VERSION == tf.VERSION == "1.15.5" and tf.version.GRAPH_DEF_VERSION == 134
    assert tf.__git_version__ == tf.GIT_VERSION == tf.version.GIT_VERSION
    assert (tf.GraphKeys.ASSET_FILEPATHS, tf.GraphKeys.TABLE_INITIALIZERS, tf.GraphKeys.READY_OP) == (
        "asset_filepaths", "table_initializer", "ready_op")   # TF 1.15's collection names
    assert [e.value for e in tf.VariableAggregation] == [0, 1, 2, 3]
    assert tf.VariableSynchronization.ON_READ.value == 3
    with tf.Graph().as_default():
        spec = tf.TensorSpec([None, 3], tf.int32, "x")
        assert repr(spec) == "TensorSpec(shape=(?, 3), dtype=tf.int32, name='x')"
        assert spec.is_compatible_with(tf.zeros([2, 3], tf.int32))
        assert not spec.is_compatible_with(tf.zeros([2, 4], tf.int32))
        assert spec == tf.TensorSpec([None, 3], tf.int32, "x") != tf.TensorSpec([None, 3], tf.int64, "x")
        v = tf.get_variable("v", [2], aggregation=tf.VariableAggregation.MEAN,
                            synchronization=tf.VariableSynchronization.ON_READ)
        assert v.shape.as_list() == [2]
