"""tf.FixedLenSequenceFeature in parse_example / parse_single_example against TF 1.15
(tests/fixtures/strings/tf115_fixed_len_sequence_feature.py printed these values)."""
import pytest

import tinyflow as tf


def _example(**kw):
    f = {}
    for k, v in kw.items():
        if isinstance(v[0], float):
            f[k] = tf.train.Feature(float_list=tf.train.FloatList(value=v))
        elif isinstance(v[0], int):
            f[k] = tf.train.Feature(int64_list=tf.train.Int64List(value=v))
        else:
            f[k] = tf.train.Feature(bytes_list=tf.train.BytesList(value=[x.encode() for x in v]))
    return tf.train.Example(features=tf.train.Features(feature=f)).SerializeToString()


RECORDS = [_example(a=[1, 2, 3, 4], s=["x"], f=[1.0, 2.0]), _example(a=[5, 6], f=[3.0, 4.0, 5.0, 6.0]),
           _example(s=["y", "z"], f=[7.0, 8.0])]


def _plain(v):
    return v.tolist() if v.dtype != object else [[x.decode() for x in row] for row in v]


def test_parse_example_pads_each_sequence_to_the_longest():
    features = {"a": tf.FixedLenSequenceFeature([2], tf.int64, allow_missing=True),
                "s": tf.FixedLenSequenceFeature([], tf.string, allow_missing=True, default_value="PAD"),
                "f": tf.io.FixedLenSequenceFeature([], tf.float32, allow_missing=True, default_value=-1.0)}
    with tf.Graph().as_default(), tf.Session() as sess:
        parsed = tf.parse_example(RECORDS, features)
        assert {k: v.shape.as_list() for k, v in parsed.items()} == {"a": [3, None, 2], "f": [3, None],
                                                                     "s": [3, None]}
        got = {k: _plain(v) for k, v in sess.run(parsed).items()}
    assert got == {"a": [[[1, 2], [3, 4]], [[5, 6], [0, 0]], [[0, 0], [0, 0]]],
                   "f": [[1.0, 2.0, -1.0, -1.0], [3.0, 4.0, 5.0, 6.0], [7.0, 8.0, -1.0, -1.0]],
                   "s": [["x", "PAD"], ["PAD", "PAD"], ["y", "z"]]}


def test_parse_single_example_and_a_missing_feature():
    with tf.Graph().as_default(), tf.Session() as sess:
        q = tf.parse_single_example(RECORDS[0], {"a": tf.FixedLenSequenceFeature([2], tf.int64, allow_missing=True),
                                                 "f": tf.FixedLenSequenceFeature([], tf.float32, allow_missing=True)})
        assert {k: v.shape.as_list() for k, v in q.items()} == {"a": [None, 2], "f": [None]}
        assert {k: v.tolist() for k, v in sess.run(q).items()} == {"a": [[1, 2], [3, 4]], "f": [1.0, 2.0]}
        q2 = tf.parse_single_example(RECORDS[1], {"s": tf.FixedLenSequenceFeature([], tf.string, allow_missing=True)})
        assert sess.run(q2)["s"].tolist() == []


def test_tfs_errors():
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Name: <unknown>, Key: a, Index: 0.  Number of int64 values is not a multiple of "
                                 r"stride length. Saw 4 values but output shape is: \[\?,3\]"):
            sess.run(tf.parse_example(RECORDS, {"a": tf.FixedLenSequenceFeature([3], tf.int64, allow_missing=True)}))
        for parse in (tf.parse_example, tf.parse_single_example):
            with pytest.raises(ValueError, match="Unsupported: FixedLenSequenceFeature requires allow_missing to be "
                                                 "True."):
                parse(RECORDS if parse is tf.parse_example else RECORDS[2],
                      {"a": tf.FixedLenSequenceFeature([2], tf.int64)})
        with pytest.raises(ValueError, match=r"dense_shapes\[0\] has unknown rank or unknown inner dimensions"):
            tf.parse_example(RECORDS, {"a": tf.FixedLenSequenceFeature([None], tf.int64, allow_missing=True)})
