"""tf.bitwise against TF 1.15's values (recorded from the oracle: the literals below)."""
import numpy as np
import pytest

import tinyflow as tf

A = np.array([5, -3, 12, 0, 127], np.int32)
B = np.array([3, 1, 2, 7, 4], np.int32)
U = np.array([5, 250, 12, 0, 127], np.uint8)
TF = {"a": [1, 1, 0, 0, 4], "o": [7, -3, 14, 7, 127], "x": [6, -4, 14, 7, 123], "i": [-6, 2, -13, -1, -128],
      "iu": [250, 5, 243, 255, 128], "l": [40, -6, 48, 0, 2032], "r": [0, -2, 3, 0, 7], "ru": [1, 62, 3, 0, 31]}


def test_bitwise_matches_tf():
    ops = dict(a=tf.bitwise.bitwise_and(A, B), o=tf.bitwise.bitwise_or(A, B), x=tf.bitwise.bitwise_xor(A, B),
               i=tf.bitwise.invert(A), iu=tf.bitwise.invert(U), l=tf.bitwise.left_shift(A, B),
               r=tf.bitwise.right_shift(A, B), ru=tf.bitwise.right_shift(U, np.uint8(2)))
    with tf.Session() as sess:
        got = sess.run(ops)
    for k, v in TF.items():
        assert got[k].tolist() == v, k
    assert got["iu"].dtype == np.uint8 and got["a"].dtype == np.int32


def test_bitwise_refuses_floats_as_tf():
    with pytest.raises(TypeError, match="Value passed to parameter 'x' has DataType float32 not in list"):
        tf.bitwise.bitwise_and(np.float32(1), np.float32(2))
