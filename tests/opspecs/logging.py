"""Specs of the ops that look at values while a graph runs (ops/logging_ops.py) and of tf.py_func
(ops/script_ops.py): passing checks and prints leave values alone, and gradients pass through them.
Failing checks and the printed text are tested in tests/ops/test_checks.py."""
import numpy as np

from opspecs import OpSpec

X = np.array([[0.5, -1.0, 2.0], [1.5, 3.0, -0.25]], np.float32)


def _after(tf, op, x):
    with tf.control_dependencies([op]):
        return tf.identity(x)


def _py_func(tf, x):
    y = tf.py_func(lambda a: np.sin(a), [x], tf.float32)
    y.set_shape(x.shape)
    return y


SPECS = [
    OpSpec("check_numerics", lambda tf, x: tf.check_numerics(x * x, "x squared"), [X], lambda x: x * x, grad=True),
    OpSpec("Print", lambda tf, x: tf.Print(x, [x], "x: ") * 2.0, [X], lambda x: x * 2, grad=True),
    OpSpec("Assert", lambda tf, x: _after(tf, tf.Assert(tf.reduce_all(x < 10.0), [x, "<- x"]), x), [X],
           lambda x: x),
    OpSpec("py_func", _py_func, [X], np.sin),
    OpSpec("print_v2", lambda tf, x: _after(tf, tf.print("x:", x), x + 1.0), [X], lambda x: x + 1),
]
