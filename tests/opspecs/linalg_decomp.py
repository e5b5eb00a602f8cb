"""Specs of the decompositions and solvers (ops/linalg_decomp.py), checked through sign-free values
(eigenvalues, singular values, squared or absolute vectors) against numpy; their gradients (the
shared VjpGrad op) against finite differences. TF 1.15's numbers: tests/ops/test_linalg_decomp.py."""
import numpy as np

from opspecs import OpSpec

R = np.random.RandomState(3)
A = R.randn(2, 3, 3).astype(np.float32)
RECT = R.randn(4, 3).astype(np.float32)
B = R.randn(2, 3, 2).astype(np.float32)
W = R.randn(4, 3).astype(np.float32)
EYE = 3 * np.eye(3, dtype=np.float32)


def _spd(tf, x):
    return tf.matmul(x, x, transpose_b=True) + EYE


def _np_spd(x):
    return np.matmul(x, np.swapaxes(x, -1, -2)) + EYE


def _eig(tf, x):
    e, v = tf.self_adjoint_eig(x + tf.matrix_transpose(x))
    return [e + tf.reduce_sum(tf.square(v) * W[:3], axis=-2), tf.self_adjoint_eigvals(x + tf.matrix_transpose(x))]


def _np_eig(x):
    e, v = np.linalg.eigh(x + np.swapaxes(x, -1, -2))
    return [e + np.sum(np.square(v) * W[:3], axis=-2), e]


def _svd(tf, x):
    s, u, v = tf.svd(x)
    return tf.reduce_sum(s) + tf.reduce_sum(tf.square(u) * W) + tf.reduce_sum(tf.square(v) * W[:3])


def _np_svd(x):
    u, s, vh = np.linalg.svd(x, full_matrices=False)
    return np.sum(s) + np.sum(np.square(u) * W) + np.sum(np.square(vh.T) * W[:3])


def _qr(tf, x):
    q, r = tf.qr(x)
    return tf.reduce_sum(tf.square(q) * W) + tf.reduce_sum(tf.abs(r) * W[:3])


def _np_qr(x):
    q, r = np.linalg.qr(x)
    return np.sum(np.square(q) * W) + np.sum(np.abs(r) * W[:3])


def _slogdet(tf, x):
    sign, lad = tf.linalg.slogdet(x)
    return [lad, sign]


SPECS = [
    OpSpec("self_adjoint_eig", _eig, [A], _np_eig, grad=True, rtol=1e-4, atol=1e-5),
    OpSpec("cholesky", lambda tf, x: tf.cholesky(_spd(tf, x)), [A], lambda x: np.linalg.cholesky(_np_spd(x)),
           grad=True, rtol=1e-4, atol=1e-5),
    OpSpec("svd", _svd, [RECT], _np_svd, grad=True, rtol=1e-4, atol=1e-5),
    OpSpec("qr", _qr, [RECT], _np_qr, grad=True, rtol=1e-4, atol=1e-5),
    OpSpec("slogdet", _slogdet, [A], lambda x: list(np.linalg.slogdet(x))[::-1], grad=True, rtol=1e-4, atol=1e-5),
    OpSpec("matrix_solve", lambda tf, a, b: tf.matrix_solve(a + EYE, b), [A, B],
           lambda a, b: np.linalg.solve(a + EYE, b), grad=True, rtol=1e-4, atol=1e-5),
    OpSpec("matrix_solve_adjoint", lambda tf, a, b: tf.matrix_solve(a + EYE, b, adjoint=True), [A, B],
           lambda a, b: np.linalg.solve(np.swapaxes(a + EYE, -1, -2), b), rtol=1e-4, atol=1e-5),
    OpSpec("matrix_triangular_solve", lambda tf, a, b: tf.matrix_triangular_solve(a + EYE, b), [A, B],
           lambda a, b: np.linalg.solve(np.tril(a + EYE), b), grad=True, rtol=1e-4, atol=1e-5),
    OpSpec("matrix_triangular_solve_upper_adjoint",
           lambda tf, a, b: tf.matrix_triangular_solve(a + EYE, b, lower=False, adjoint=True), [A, B],
           lambda a, b: np.linalg.solve(np.swapaxes(np.triu(a + EYE), -1, -2), b), grad=True, rtol=1e-4, atol=1e-5),
]
