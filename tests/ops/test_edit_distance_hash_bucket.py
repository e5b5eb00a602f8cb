"""tf.edit_distance and tf.strings.to_hash_bucket_fast against TF 1.15's numbers
(tests/fixtures/contrib_learn/make_vocab_processor_tf115.py printed them)."""
import numpy as np
import pytest

import tinyflow as tf


def test_edit_distance_of_string_sequences_is_tfs():
    with tf.Graph().as_default(), tf.Session() as sess:
        h = tf.SparseTensor([[0, 0, 0], [1, 0, 0], [1, 0, 1]], ["a", "b", "c"], [2, 1, 2])
        t = tf.SparseTensor([[0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 0, 2]], ["a", "b", "d", "c"], [2, 2, 3])
        d = tf.edit_distance(h, t)
        assert d.dtype == tf.float32 and d.shape.as_list() == [2, 2]
        np.testing.assert_allclose(sess.run(d), [[np.inf, 1.0], [1 / 3, 0.0]])   # no truth: inf, as TF
        np.testing.assert_array_equal(sess.run(tf.edit_distance(h, t, normalize=False)), [[1.0, 1.0], [1.0, 0.0]])


def test_edit_distance_of_int_sequences_and_empty_truth_is_tfs():
    with tf.Graph().as_default(), tf.Session() as sess:
        hi = tf.SparseTensor([[0, 0], [0, 1], [0, 2], [1, 0]], tf.constant([1, 2, 3, 4], tf.int64), [2, 3])
        ti = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [1, 1]], tf.constant([1, 3, 5, 4], tf.int64), [2, 2])
        np.testing.assert_array_equal(sess.run(tf.edit_distance(hi, ti)), [0.5, 0.5])
        empty = tf.SparseTensor(np.zeros([0, 2], np.int64), tf.constant([], tf.int64), [2, 1])
        np.testing.assert_array_equal(sess.run(tf.edit_distance(hi, empty)), [np.inf, np.inf])
    with pytest.raises(TypeError, match="Hypothesis must be a SparseTensor"):
        tf.edit_distance(tf.constant([1]), tf.constant([1]))


def test_to_hash_bucket_fast_is_tfs_fingerprint64():
    pytest.importorskip("farmhash", reason="TF's Fingerprint64 comes from the optional pyfarmhash package")
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.constant([["hello", "world", ""], ["tensorflow", "a", "Hello"]])
        b = tf.strings.to_hash_bucket_fast(x, 10)
        assert b.dtype == tf.int64 and b.shape.as_list() == [2, 3]
        assert sess.run(b).tolist() == [[6, 8, 3], [6, 9, 1]]
        assert sess.run(tf.string_to_hash_bucket_fast(x, 1000003)).tolist() == [[497363, 364925, 377723],
                                                                                  [262764, 291400, 184354]]
