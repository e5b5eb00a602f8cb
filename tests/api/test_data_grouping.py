"""tf.data.experimental / tf.contrib.data group_by_window and bucket_by_sequence_length against the
elements TF 1.15 gives (tests/fixtures/tf115_data/o_bucket.py)."""
import pytest

import tinyflow as tf

LENS = [3, 1, 5, 2, 7, 4, 1, 6, 2, 3]


def _all(make):
    with tf.Graph().as_default():
        ds = make()
        nxt, out = ds.make_one_shot_iterator().get_next(), []
        with tf.Session() as sess:
            while True:
                try:
                    out.append(sess.run(nxt).tolist())
                except tf.errors.OutOfRangeError:
                    return ds, out


def _sequences():
    return tf.data.Dataset.from_generator(lambda: (list(range(1, n + 1)) for n in LENS), tf.int64, [None])


def test_group_by_window_fixed_and_per_key_windows():
    _, got = _all(lambda: tf.data.Dataset.range(10).apply(tf.contrib.data.group_by_window(
        lambda x: x % 3, lambda k, w: w.batch(2), window_size=2)))
    assert got == [[0, 3], [1, 4], [2, 5], [6, 9], [7], [8]]   # leftovers in ascending key order
    _, got = _all(lambda: tf.data.Dataset.range(10).apply(tf.data.experimental.group_by_window(
        lambda x: x % 2, lambda k, w: w.batch(5).map(lambda b: b * 0 + k), window_size_func=lambda k: k + 2)))
    assert got == [[0, 0], [1, 1, 1], [0, 0], [0], [1, 1]]
    with pytest.raises(ValueError, match="Must pass either window_size or window_size_func."):
        tf.data.experimental.group_by_window(lambda x: x, lambda k, w: w)


def test_bucket_by_sequence_length_is_tfs():
    ds, got = _all(lambda: _sequences().apply(tf.data.experimental.bucket_by_sequence_length(
        lambda x: tf.shape(x)[0], [3, 5], [2, 2, 3])))
    assert ds.output_shapes.as_list() == [None, None]
    assert got == [[[1, 0], [1, 2]], [[1, 2, 3, 0], [1, 2, 3, 4]],
                   [[1, 2, 3, 4, 5, 0, 0], [1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 6, 0]], [[1, 0], [1, 2]], [[1, 2, 3]]]
    _, got = _all(lambda: _sequences().apply(tf.contrib.data.bucket_by_sequence_length(
        lambda x: tf.shape(x)[0], [3, 5, 8], [2, 2, 3, 1], pad_to_bucket_boundary=True,
        padding_values=tf.constant(-1, tf.int64))))
    assert got == [[[1, -1], [1, 2]], [[1, 2, 3, -1], [1, 2, 3, 4]],
                   [[1, 2, 3, 4, 5, -1, -1], [1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 6, -1]], [[1, -1], [1, 2]],
                   [[1, 2, 3, -1]]]
    _, got = _all(lambda: _sequences().apply(tf.data.experimental.bucket_by_sequence_length(
        lambda x: tf.shape(x)[0], [4], [3, 2], drop_remainder=True)))
    assert got == [[[1, 2, 3], [1, 0, 0], [1, 2, 0]], [[1, 2, 3, 4, 5, 0, 0], [1, 2, 3, 4, 5, 6, 7]],
                   [[1, 2, 3, 4, 0, 0], [1, 2, 3, 4, 5, 6]], [[1, 0, 0], [1, 2, 0], [1, 2, 3]]]


def test_bucket_by_sequence_length_errors_are_tfs():
    with pytest.raises(tf.errors.InvalidArgumentError, match="When pad_to_bucket_boundary=True, elements must have "
                                                             "length < max"):
        _all(lambda: _sequences().apply(tf.data.experimental.bucket_by_sequence_length(
            lambda x: tf.shape(x)[0], [3, 5], [2, 2, 3], pad_to_bucket_boundary=True)))
    with pytest.raises(ValueError, match=r"len\(bucket_batch_sizes\) must equal len\(bucket_boundaries\) \+ 1"):
        tf.data.experimental.bucket_by_sequence_length(lambda x: tf.shape(x)[0], [3, 5], [2, 2])
