"""tf.feature_column against TF 1.15 (feature_columns.json, written by make_feature_columns.py from
the cases in fc_cases.py), and the parts TF cannot match (hash buckets, crosses, host strings)."""
import json
import os
from paths import TESTS as _TESTS  # the tests/ folder
import sys

import numpy as np
import pytest

import tinyflow as tf

HERE = os.path.join(_TESTS, "fixtures", "estimator")
sys.path.insert(0, HERE)
import fc_cases  # noqa: E402


with open(os.path.join(HERE, "feature_columns.json")) as f:
    EXPECTED = json.load(f)

fc = tf.feature_column


def _run(tensor):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        if isinstance(tensor, tuple):  # (ops to run first, output)
            sess.run(tensor[0])
            tensor = tensor[1]
        return sess.run(tensor)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(fc_cases.CASES))
def test_same_as_tf(name):
    with tf.Graph().as_default():
        features = {k: tf.constant(v) for k, v in fc_cases.FEATURES.items()}
        got = _run(fc_cases.CASES[name](tf, features))
    np.testing.assert_allclose(got, np.asarray(EXPECTED[name]), rtol=1e-6, atol=1e-6)


@pytest.mark.slow
def test_variable_names_and_column_order():
    with tf.Graph().as_default():
        features = {"b": tf.constant([[1.0]]), "a": tf.constant([2])}
        emb = fc.embedding_column(fc.categorical_column_with_identity("a", 3), 2)
        out = fc.input_layer(features, [fc.numeric_column("b"), emb])
        assert out.shape.as_list() == [1, 3]
        assert [v.op.name for v in tf.global_variables()] == ["input_layer/a_embedding/embedding_weights"]
        value = _run(out)
        assert value[0, 2] == 1.0  # columns sorted by name: a_embedding (2 values), then b


@pytest.mark.slow
def test_crossed_and_hash_buckets_are_in_range_and_deterministic():
    with tf.Graph().as_default():
        features = {"x": tf.constant([[3], [3], [8]]), "y": tf.constant([1, 1, 2])}
        cross = fc.crossed_column(["x", fc.categorical_column_with_identity("y", 3)], 5)
        hashed = fc.categorical_column_with_hash_bucket("x", 4, dtype=tf.int64)
        out = _run(fc.input_layer(features, [fc.indicator_column(cross), fc.indicator_column(hashed)]))
    cross_part, hash_part = out[:, :5], out[:, 5:]
    assert cross_part.sum(1).tolist() == [1, 1, 1] and hash_part.sum(1).tolist() == [1, 1, 1]
    np.testing.assert_array_equal(cross_part[0], cross_part[1])  # the same pair lands in the same bucket
    from tinyflow.api.farmhash import _hash64   # ints hash as TF's: Fingerprint64(decimal string) mod size
    want = [_hash64(str(v).encode()) % 4 for v in (3, 3, 8)]
    np.testing.assert_array_equal(hash_part.argmax(1), want)


def test_string_columns_are_encoded_on_the_host():
    city = fc.categorical_column_with_vocabulary_list("city", ["ny", "sf"], num_oov_buckets=0)
    hashed = fc.categorical_column_with_hash_bucket("word", 10)
    encoded = fc.encode_strings({"city": np.array(["sf", "ny", "la"]), "word": np.array([b"a", b"a", b"b"]),
                                 "n": np.array([1.0, 2.0, 3.0])}, [city, hashed])
    np.testing.assert_array_equal(encoded["city"], [1, 0, -1])
    assert encoded["word"][0] == encoded["word"][1] and 0 <= encoded["word"].min() and encoded["word"].max() < 10
    with tf.Graph().as_default():
        out = _run(fc.input_layer({"city": tf.constant(encoded["city"])}, [fc.indicator_column(city)]))
    np.testing.assert_array_equal(out, [[0, 1], [1, 0], [0, 0]])
    with pytest.raises(ValueError, match="no string categorical column reads it"):
        fc.encode_strings({"other": np.array(["x"])}, [city])


def test_errors():
    with pytest.raises(ValueError, match="boundaries must be a sorted list"):
        fc.bucketized_column(fc.numeric_column("x"), [2.0, 1.0])
    with pytest.raises(ValueError, match="source_column must be a column generated with numeric_column"):
        fc.bucketized_column(fc.categorical_column_with_identity("x", 3), [1.0])
    with pytest.raises(ValueError, match="num_buckets 0 < 1"):
        fc.categorical_column_with_identity("x", 0)
    with pytest.raises(ValueError, match="Duplicate keys in vocabulary_list"):
        fc.categorical_column_with_vocabulary_list("x", [1, 1])
    with pytest.raises(ValueError, match="Invalid dimension"):
        fc.embedding_column(fc.categorical_column_with_identity("x", 3), 0)
    with pytest.raises(ValueError, match="keys must be a list with length > 1"):
        fc.crossed_column(["x"], 10)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Items of feature_columns must be a _DenseColumn"):
            fc.input_layer({"x": tf.constant([1])}, [fc.categorical_column_with_identity("x", 3)])
        with pytest.raises(ValueError, match="not a valid feature key: y"):
            fc.input_layer({"x": tf.constant([1.0])}, [fc.numeric_column("y")])
        with pytest.raises(ValueError, match="Duplicate feature column name"):
            fc.input_layer({"x": tf.constant([1.0])}, [fc.numeric_column("x"), fc.numeric_column("x")])
        with pytest.raises(ValueError, match="tinyflow has no string tensors"):
            fc.input_layer({"x": tf.placeholder(tf.string, [None])},
                           [fc.indicator_column(fc.categorical_column_with_vocabulary_list("x", ["a"]))])
