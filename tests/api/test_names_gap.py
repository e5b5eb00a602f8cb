"""TF 1.15 names added to reach issue 37's coverage: tf.compat's dimension helpers and forward-compatibility
horizon, tf.debugging.assert_shapes / assert_all_finite / log-device-placement switch, tf.graph_util's
placer rule and shape lookup, tf.ragged.range and the segment-id conversions, tf.lite.constants.FLOAT16.
Each expected value below is what TF 1.15.5 printed for the same call (run under the oracle)."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.graph import errors


def test_compat_dimensions_and_the_forward_compatibility_horizon():
    assert tf.compat.dimension_value(tf.Dimension(3)) == 3
    assert tf.compat.dimension_value(None) is None and tf.compat.dimension_value(4) == 4
    assert tf.compat.dimension_at_index(tf.TensorShape([2, None]), 1).value is None
    assert tf.compat.dimension_at_index(tf.TensorShape([2, 3]), 0).value == 2
    assert tf.compat.dimension_at_index(tf.TensorShape(None), 5).value is None
    # TF 1.15.5's horizon is 2019-08-21
    assert tf.compat.forward_compatible(2019, 1, 1) and not tf.compat.forward_compatible(2030, 1, 1)
    with tf.compat.forward_compatibility_horizon(2031, 1, 2):
        assert tf.compat.forward_compatible(2030, 1, 1)
    assert not tf.compat.forward_compatible(2030, 1, 1)


def test_graph_util_placer_rule_and_shape_lookup():
    g = tf.Graph()
    with g.as_default():
        c = tf.constant([1, 2], tf.int32, name="c")
        d = tf.constant(1.0, name="d")
        cs = tf.cast(c, tf.float32, name="cs")
    assert [tf.graph_util.must_run_on_cpu(t.op) for t in (c, d, cs)] == [True, False, True]   # TF's
    assert [tf.graph_util.must_run_on_cpu(n) for n in g.as_graph_def().node] == [True, False, True]
    assert tf.graph_util.tensor_shape_from_node_def_name(g, "c").as_list() == [2]
    assert tf.graph_util.tensor_shape_from_node_def_name(g, "cs:0").as_list() == [2]
    assert tf.graph_util.import_graph_def is tf.import_graph_def
    assert tf.lite.constants.FLOAT16 == tf.float16


def test_ragged_range_and_segment_ids():
    p, q = tf.placeholder(tf.int64, [None]), tf.placeholder(tf.int32, [None])
    r1, r2 = tf.ragged.range([1, 3], [4, 5]), tf.ragged.range([3, 0, 2])
    assert r1.row_splits.dtype == tf.int64 and r1.values.dtype == tf.int32
    with tf.Session() as sess:
        got = sess.run([tf.ragged.row_splits_to_segment_ids(tf.constant([0, 2, 2, 5], tf.int64)),
                        tf.ragged.segment_ids_to_row_splits(tf.constant([0, 0, 2, 2, 2]), num_segments=4),
                        tf.ragged.row_splits_to_segment_ids(p), tf.ragged.segment_ids_to_row_splits(q, num_segments=4),
                        r1.values, r1.row_splits, r2.values, r2.row_splits], {p: [0, 2, 2, 5], q: [0, 0, 2, 2, 2]})
    want = [[0, 0, 2, 2, 2], [0, 2, 2, 5, 5], [0, 0, 2, 2, 2], [0, 2, 2, 5, 5], [1, 2, 3, 3, 4], [0, 3, 5],
            [0, 1, 2, 0, 1], [0, 3, 3, 5]]   # TF 1.15's
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_debugging_assert_shapes_log_placement_and_all_finite():
    x, y, z = tf.zeros([2, 3]), tf.zeros([3]), tf.zeros([4])
    tf.debugging.assert_shapes([(x, ("N", "D")), (y, ("D",))])   # known and consistent: nothing to run
    with pytest.raises(ValueError):
        tf.debugging.assert_shapes([(x, ("N", "D")), (z, ("D",))])
    p, q = tf.placeholder(tf.float32, [None, 3]), tf.placeholder(tf.float32, [None])
    check = tf.debugging.assert_shapes([(p, ("N", 3)), (q, ("N",))])
    finite = tf.debugging.assert_all_finite(q, "q not finite")
    with tf.Session() as sess:
        sess.run(check, {p: [[1, 2, 3]], q: [1]})
        with pytest.raises(errors.InvalidArgumentError):
            sess.run(check, {p: [[1, 2, 3]], q: [1, 2]})
        with pytest.raises(errors.InvalidArgumentError):
            sess.run(finite, {q: [np.inf]})
    assert tf.debugging.get_log_device_placement() is False
    tf.debugging.set_log_device_placement(True)
    assert tf.debugging.get_log_device_placement() is True
    tf.debugging.set_log_device_placement(False)


def test_searchsorted_of_rows_whose_length_is_fed():
    x = tf.placeholder(tf.float32, [None, None])
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(tf.searchsorted(x, x * 0 + 1.5), {x: [[1, 2, 3], [0, 1, 2]]}),
                                      [[1, 1, 1], [2, 2, 2]])


def test_exponential_and_laplace_as_tf115():
    e = tf.distributions.Exponential(rate=[0.5, 2.])
    lp = tf.distributions.Laplace(loc=[0., 1.], scale=[1., 2.])
    x = tf.constant([0.3, 1.7])
    with tf.Session() as sess:
        got = sess.run([e.log_prob(x), e.cdf(x), e.entropy(), e.mean(), e.variance(), e.mode(),
                        lp.log_prob(x), lp.cdf(x), lp.entropy(), lp.mean(), lp.variance(), lp.stddev(),
                        e.sample(20000, seed=1), lp.sample(20000, seed=1)])
    want = [[-0.84314716, -2.706853], [0.139292, 0.96662676], [1.6931472, 0.30685282], [2., 0.5], [4., 0.25],
            [np.nan, np.nan], [-0.9931472, -1.7362944], [0.62959087, 0.64765596], [1.6931472, 2.3862944], [0., 1.],
            [1.9999999, 7.9999995], [1.4142135, 2.828427]]   # TF 1.15's
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)
    np.testing.assert_allclose(got[-2].mean(0), [2., 0.5], rtol=0.05)            # the distributions' means
    np.testing.assert_allclose(got[-1].mean(0), [0., 1.], atol=0.06)
    np.testing.assert_allclose(got[-1].var(0), [2., 8.], rtol=0.08)


def test_sequence_columns_tpu_core_python_state_and_dataset_spec():
    fc = tf.feature_column
    cols = [fc.sequence_numeric_column("a"), fc.sequence_categorical_column_with_identity("b", 10),
            fc.sequence_categorical_column_with_hash_bucket("c", 5),
            fc.sequence_categorical_column_with_vocabulary_list("d", ["x", "y"])]
    spec = fc.make_parse_example_spec(cols)
    # TF 1.15's (make_parse_example_spec_v2)
    assert sorted((k, type(v).__name__, v.dtype.name) for k, v in spec.items()) == [
        ("a", "VarLenFeature", "float32"), ("b", "VarLenFeature", "int64"), ("c", "VarLenFeature", "string"),
        ("d", "VarLenFeature", "string")]
    assert [c.name for c in cols] == ["a", "b", "c", "d"] and [c.num_buckets for c in cols[1:]] == [10, 5, 2]
    assert cols[0].shape == (1,) and cols[0].default_value == 0.
    assert tf.tpu.core(3) == "device:TPU_REPLICATED_CORE:3"
    with pytest.raises(errors.UnimplementedError, match="needs a TPU"):
        tf.tpu.replicate(lambda: 1)

    class Counter(tf.train.experimental.PythonState):
        def __init__(self):
            self.n = 0

        def serialize(self):
            return str(self.n)

        def deserialize(self, string_value):
            self.n = int(string_value)
    c = Counter()
    c.deserialize("7")
    assert c.serialize() == "7"
    ds = tf.data.Dataset.from_tensor_slices((np.zeros([4, 3], np.float32), np.arange(4)))
    ds_spec = tf.data.DatasetSpec.from_value(ds)
    assert [s.shape.as_list() for s in ds_spec.element_spec] == [[3], []]
    assert [s.dtype for s in ds_spec.element_spec] == [tf.float32, tf.int64]
    assert ds_spec == tf.data.DatasetSpec.from_value(ds)
