"""tf.bitwise against numpy's bitwise functions."""
import numpy as np

from opspecs import OpSpec

A = np.array([5, -3, 12, 0, 127], np.int32)
B = np.array([3, 1, 2, 7, 4], np.int32)
U = np.array([5, 250, 12, 0, 127], np.uint8)

SPECS = [
    OpSpec("bitwise_and", lambda tf, x, y: tf.bitwise.bitwise_and(x, y), [A, B], np.bitwise_and),
    OpSpec("bitwise_or", lambda tf, x, y: tf.bitwise.bitwise_or(x, y), [A, B], np.bitwise_or),
    OpSpec("bitwise_xor", lambda tf, x, y: tf.bitwise.bitwise_xor(x, y), [A, B], np.bitwise_xor),
    OpSpec("invert_u8", lambda tf, x: tf.bitwise.invert(x), [U], np.invert),
    OpSpec("left_shift", lambda tf, x, y: tf.bitwise.left_shift(x, y), [A, B], np.left_shift),
    OpSpec("right_shift", lambda tf, x, y: tf.bitwise.right_shift(x, y), [A, B], np.right_shift),
]
