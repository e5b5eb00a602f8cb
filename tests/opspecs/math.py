"""Specs of the math ops (ops/math_ops.py)."""
import numpy as np

from opspecs import OpSpec

R = np.random.RandomState(42)
A = R.randn(3, 4).astype(np.float32)
B = R.randn(3, 4).astype(np.float32)
ROW = R.randn(4).astype(np.float32)
POS = (np.abs(A) + 0.5).astype(np.float32)

SPECS = [
    OpSpec("add_broadcast", lambda tf, x, y: x + y, [A, ROW], np.add, grad=True, second_order=True),
    OpSpec("mul", lambda tf, x, y: x * y, [A, B], np.multiply, grad=True, second_order=True),
    OpSpec("matmul", lambda tf, x, y: tf.matmul(x, y, transpose_b=True), [A, B], lambda x, y: x @ y.T, grad=True),
    OpSpec("reduce_mean_axis", lambda tf, x: tf.reduce_mean(x, axis=1), [A], lambda x: x.mean(1), grad=True),
    OpSpec("exp", lambda tf, x: tf.exp(x), [A], np.exp, grad=True, second_order=True),
    OpSpec("log", lambda tf, x: tf.log(x), [POS], np.log, grad=True, second_order=True),
]
