"""Specs of the ops registered by ops/init_ops.py: Qr (used by the orthogonal initializer).
Q and R are checked through sign-free identities: Q R = X and Q^T Q = I."""
import numpy as np

from opspecs import OpSpec
from tinyflow.ops.core.base import make_op

X = np.random.RandomState(0).randn(5, 3).astype(np.float32)


def _qr(tf, x):
    q, r = make_op("Qr", [x], {"full_matrices": False})
    return [tf.matmul(q, r), tf.matmul(q, q, transpose_a=True)]


SPECS = [
    OpSpec("qr_reconstruct", _qr, [X], lambda x: [x, np.eye(3, dtype=np.float32)], rtol=1e-4, atol=1e-5),
]
