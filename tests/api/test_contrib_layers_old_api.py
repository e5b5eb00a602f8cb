"""tf.contrib.layers' old feature-column API and summaries, against TF 1.15's recorded numbers and names
(tests/fixtures/contrib_feature_columns/make_fixture.py)."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "contrib_feature_columns", "old_columns.json")
with open(FIXTURE) as f:
    TF = json.load(f)
L = tf.contrib.layers
AGE = np.array([[23.0], [61.0], [35.0], [47.0]], np.float32)
XY = np.array([[0.5, -1.0], [2.0, 0.0], [1.5, 1.0], [-0.5, 3.0]], np.float32)
CITY = np.array([[3, -1], [7, 1], [0, 0], [12, -1]], np.int64)
CITY_W = np.array([[2.0, 0.0], [1.0, 0.5], [1.0, 1.0], [3.0, 0.0]], np.float32)
EMB = np.arange(5 * 3, dtype=np.float32).reshape(5, 3) / 10.0


def _columns():
    age = L.real_valued_column("age")
    xy = L.real_valued_column("xy", dimension=2)
    city = L.sparse_column_with_integerized_feature("city", bucket_size=5)
    buckets = L.bucketized_column(age, boundaries=[30.0, 50.0])
    emb = L.embedding_column(city, dimension=3, initializer=tf.constant_initializer(EMB))
    emb_sum = L.embedding_column(L.weighted_sparse_column(city, "city_w"), dimension=3, combiner="sum",
                                 initializer=tf.constant_initializer(EMB))
    return age, xy, city, buckets, emb, emb_sum


def test_old_feature_columns_match_tf():
    with tf.Graph().as_default():
        age, xy, city, buckets, emb, emb_sum = _columns()
        feats = {"age": tf.constant(AGE), "xy": tf.constant(XY), "city": tf.constant(CITY),
                 "city_w": tf.constant(CITY_W)}
        dense = L.input_from_feature_columns(feats, [age, xy, buckets, emb])
        dense_w = L.input_from_feature_columns(dict(feats), [emb_sum], scope="weighted")
        logits, cols_to_vars, bias = L.weighted_sum_from_feature_columns(
            dict(feats), [age, city, buckets, L.weighted_sparse_column(city, "city_w")], num_outputs=2)
        assert sorted(v.op.name for v in tf.global_variables()) == TF["variables"]
        assert sorted(c.name for c in cols_to_vars) == TF["linear_columns"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for col, variables in cols_to_vars.items():
                for v in variables:
                    shape = v.shape.as_list()
                    sess.run(v.assign(np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 7.0))
            sess.run(bias.assign([0.25, -0.5]))
            got = sess.run([dense, dense_w, logits])
        spec = L.create_feature_spec_for_parsing([age, xy, city, buckets, emb])
    for g, key in zip(got, ("input_from_feature_columns", "weighted_embedding_sum",
                            "weighted_sum_from_feature_columns")):
        np.testing.assert_allclose(g, TF[key], rtol=1e-6, err_msg=key)
    assert {k: type(v).__name__ for k, v in spec.items()} == TF["spec"]
    assert [c.name for c in (age, xy, city, buckets, emb, emb_sum)] == TF["names"]
    assert L.crossed_column([city, buckets], hash_bucket_size=10).name == TF["crossed_name"]
    assert L.SPARSE_FEATURE_CROSS_DEFAULT_HASH_KEY == TF["SPARSE_FEATURE_CROSS_DEFAULT_HASH_KEY"]


def test_one_hot_keys_and_errors():
    with tf.Graph().as_default():
        color = L.sparse_column_with_keys("color", keys=[10, 20, 30])
        hot = L.one_hot_column(color)
        out = L.input_from_feature_columns({"color": tf.constant([[20, 30], [10, -1], [40, -1]], tf.int64)}, [hot])
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(out), [[0, 1, 1], [1, 0, 0], [0, 0, 0]])
        assert hot.name == "color_one_hot"
        with pytest.raises(ValueError, match="embedding_column or one_hot_column"):
            L.input_from_feature_columns({"color": tf.constant([[1]], tf.int64)}, [color])
        with pytest.raises(ValueError, match="bucket_size"):
            L.sparse_column_with_integerized_feature("x", 0)


def test_summarize_activation_and_collection():
    """TF 1.15 gives act/zeros 0.5, act/sixes 0.25, act/activation (a histogram), m_summary 1.25."""
    with tf.Graph().as_default():
        x = tf.constant([[-1.0, 2.0, 7.0, -3.0]])
        r6 = tf.nn.relu6(x, name="act")
        tf.add_to_collection(tf.GraphKeys.ACTIVATIONS, r6)
        ops = L.summarize_activations()
        scalars = L.summaries.summarize_tensors([tf.reduce_mean(x, name="m")])
        with tf.Session() as sess:
            summary = tf.Summary()
            summary.ParseFromString(sess.run(tf.summary.merge_all()))
        values = {v.tag: v for v in summary.value}
        assert len(ops) == 1 and len(scalars) == 1
        assert sorted(values) == ["act/activation", "act/sixes", "act/zeros", "m_summary"]
        assert values["act/zeros"].simple_value == 0.5 and values["act/sixes"].simple_value == 0.25
        assert values["act/activation"].histo.num == 4 and values["m_summary"].simple_value == 1.25


def test_stack_repeat_softmax_are_slims():
    with tf.Graph().as_default():
        x = tf.ones([2, 3])
        y = L.stack(x, L.fully_connected, [4, 5], scope="fc")
        z = L.repeat(y, 2, L.fully_connected, 5, scope="rep")
        names = sorted(v.op.name for v in tf.global_variables())
        assert names[:2] == ["fc/fc_1/biases", "fc/fc_1/weights"] and "rep/rep_2/weights" in names
        assert z.shape.as_list() == [2, 5]
        p = L.softmax(tf.constant([[1.0, 2.0, 3.0]]))
        with tf.Session() as sess:
            e = np.exp([1.0, 2.0, 3.0])
            np.testing.assert_allclose(sess.run(p), [e / e.sum()], rtol=1e-6)
    assert L.convolution2d is L.conv2d and L.apply_regularization is tf.contrib.slim.apply_regularization
