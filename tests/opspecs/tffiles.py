"""Specs of the ops that imported TF gradient graphs use (tinyflow/tf_files/tf_ops.py)."""
import numpy as np

from tinyflow.api.tf_files import tf_ops
from . import OpSpec

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7


def _bga(tf, x, y):
    r0, r1 = tf_ops.bga(tf.shape(x), tf.shape(y))
    return [r0, r1]


SPECS = [
    OpSpec("broadcast_gradient_args", _bga, [np.zeros([2, 1, 4], np.float32), np.zeros([3, 1], np.float32)],
           lambda x, y: [np.array([1], np.int32), np.array([0, 2], np.int32)]),
    OpSpec("dynamic_reduce_sum", lambda tf, x: tf_ops.dynamic_reduce(x, tf.shape(x)[1:2] - 2, "Sum", False),
           [X], lambda x: x.sum(axis=1), grad=True),
    OpSpec("dynamic_reduce_mean_keep", lambda tf, x: tf_ops.dynamic_reduce(x, tf.constant([0, 2]), "Mean", True),
           [X], lambda x: x.mean(axis=(0, 2), keepdims=True), grad=True),
    OpSpec("dynamic_reduce_max", lambda tf, x: tf_ops.dynamic_reduce(x, tf.constant(-1), "Max", False),
           [X], lambda x: x.max(axis=-1), grad=True),
    OpSpec("dynamic_reduce_prod", lambda tf, x: tf_ops.dynamic_reduce(x, tf.constant([1]), "Prod", True),
           [X[:, :, :2] + 0.5], lambda x: x.prod(axis=1, keepdims=True), grad=True),
    OpSpec("prevent_gradient", lambda tf, x: tf_ops.prevent_gradient(x, "no second derivative"), [X],
           lambda x: x),
]

# PreventGradient's gradient rule is TF's error (LookupError), tested in tests/api/test_tf_graphs_catalogue.py
GRAD_EXEMPT = {"PreventGradient": "its gradient raises LookupError, as TF's"}
