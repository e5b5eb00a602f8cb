"""Spec of the Recompute op (ops/recompute_ops.py): a checkpointed gradient, its value against the
analytic derivative and its own gradient (second order, through Recompute's rule) against finite
differences."""
import numpy as np

from opspecs import OpSpec

X = np.linspace(-1.0, 1.2, 6).reshape(2, 3).astype(np.float32)


def _chain(tf, x):
    a = tf.sin(x)
    b = tf.sin(a)
    c = tf.sin(b)
    return tf.gradients(tf.reduce_sum(c * c), x, checkpoints="sqrt")[0]


def _chain_np(x):
    a = np.sin(x)
    b = np.sin(a)
    c = np.sin(b)
    return 2 * c * np.cos(b) * np.cos(a) * np.cos(x)


SPECS = [OpSpec("recompute_sqrt_chain", _chain, [X], _chain_np, grad=True, rtol=1e-4)]
