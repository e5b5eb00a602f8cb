"""issue 37's tf.linalg ops against scipy/numpy (values against TF 1.15: tests/api/test_core_names.py)."""
import numpy as np
import scipy.linalg as sl

from opspecs import OpSpec

R = np.random.RandomState(8)
M = R.randn(3, 3) * 0.5
D = R.randn(3, 4) + np.array([[0], [4], [0]])
B = R.randn(4, 2)


def _tri_dense(d):
    return np.diag(d[1]) + np.diag(d[0][:-1], 1) + np.diag(d[2][1:], -1)


def _np_lu(m):
    p, low, up = sl.lu(m)
    return [np.tril(low, -1) + up, np.argmax(p, axis=0).astype(np.int32)]


SPECS = [
    OpSpec("expm", lambda tf, m: tf.linalg.expm(m), [M], sl.expm, grad=True),
    OpSpec("lu", lambda tf, m: list(tf.linalg.lu(m)), [M + 2 * np.eye(3)], _np_lu),
    OpSpec("tridiagonal_matmul", lambda tf, d, b: tf.linalg.tridiagonal_matmul(d, b), [D, B],
           lambda d, b: _tri_dense(d) @ b, grad=True),
    OpSpec("tridiagonal_solve", lambda tf, d, b: tf.linalg.tridiagonal_solve(d, b), [D, B],
           lambda d, b: np.linalg.solve(_tri_dense(d), b), grad=True),
]
