"""Specs of the control-flow ops (ops/control_flow_ops.py, ops/functional_ops.py): If/Case/While,
their stateful (random-body) variants, the while gradient and the list item ops of map_fn/scan."""
import numpy as np

from opspecs import OpSpec
from tinyflow.ops.functional_ops import get_item, set_item, take_item

R = np.random.RandomState(7)
A = (np.abs(R.randn(2, 3)) + 0.5).astype(np.float32)   # positive sum: the true branch
B = R.randn(2, 3).astype(np.float32)
NEG = -A
K1 = np.int32(1)


def _cond(tf, x, y):
    return tf.cond(tf.reduce_sum(x) > 0, lambda: x * y, lambda: tf.exp(x) + y)


def _case(tf, x, y):
    s = tf.reduce_sum(x)
    return tf.case([(s > 100.0, lambda: x * 2.0), (s > -100.0, lambda: tf.sin(x) * y)], default=lambda: x)


def _switch(tf, x, y, k):
    return tf.switch_case(k, [lambda: x + y, lambda: x * y * x], default=lambda: -x)


def _power_loop(tf, x, y, **kw):
    # a = a * x + y, three times
    return tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x + y), [0, y], **kw)[1]


def _power_np(x, y):
    a = y
    for _ in range(3):
        a = a * x + y
    return a


def _random_loop(tf, x):
    out = tf.while_loop(lambda i, a: i < 2, lambda i, a: (i + 1, a * x + tf.random_uniform([2, 3], seed=1)),
                        [0, x])[1]
    return [out, tf.gradients(tf.reduce_sum(out), x)[0]]


SPECS = [
    OpSpec("cond_true", _cond, [A, B], lambda x, y: x * y, grad=True, second_order=True),
    OpSpec("cond_false", _cond, [NEG, B], lambda x, y: np.exp(x) + y, grad=True),
    OpSpec("case", _case, [A, B], lambda x, y: np.sin(x) * y, grad=True),
    OpSpec("switch_case", _switch, [A, B, K1], lambda x, y, k: x * y * x, grad=True),
    OpSpec("while_unbounded", _power_loop, [A, B], _power_np, grad=True),
    OpSpec("while_bounded", lambda tf, x, y: _power_loop(tf, x, y, maximum_iterations=5), [A, B], _power_np,
           grad=True),
    OpSpec("map_fn", lambda tf, x: tf.map_fn(lambda r: tf.reduce_sum(r * r), x), [A], lambda x: (x * x).sum(1),
           grad=True),
    OpSpec("scan", lambda tf, x: tf.scan(lambda a, r: a * r, x), [A], lambda x: np.cumprod(x, 0), grad=True),
    OpSpec("foldl", lambda tf, x, y: tf.foldl(lambda a, r: a * 0.5 + r, x, initializer=y), [A, B[0]],
           lambda x, y: (y * 0.5 + x[0]) * 0.5 + x[1], grad=True),
    OpSpec("get_item", lambda tf, x: get_item(x, 1), [A], lambda x: x[1], grad=True),
    OpSpec("set_item", lambda tf, x, y: set_item(x, 0, y), [A, B[0]], lambda x, y: np.stack([y, x[1]]),
           grad=True),
    OpSpec("take_item", lambda tf, x: [o * o for o in take_item(x, 1)], [A], lambda x: [np.stack([x[0], 0 * x[1]]) ** 2,
           x[1] ** 2], grad=True, second_order=True),
    # random ops in a body: the stateful variants (values vary by run: dtype and shape only)
    OpSpec("cond_random", lambda tf, x: tf.cond(tf.reduce_sum(x) > 0,
                                                lambda: x + tf.random_normal([2, 3], seed=2), lambda: x), [A]),
    OpSpec("case_random", lambda tf, x: tf.case([(tf.reduce_sum(x) > 0, lambda: x * tf.random_uniform([2, 3]))],
                                                default=lambda: x), [A]),
    OpSpec("while_random", _random_loop, [A]),
]

# Differentiable types whose gradient no finite-difference spec can check, with the reason.
GRAD_EXEMPT = {
    "If": "same gradient rule as StatelessIf (checked by cond_*); only used with random branches",
    "Case": "same gradient rule as StatelessCase (checked by case, switch_case); only used with random branches",
    "While": "same gradient rule as StatelessWhile (checked by while_*); only used with random bodies",
    "StatelessWhileGrad": "second order through while_loop raises NotImplementedError",
    "WhileGrad": "second order through while_loop raises NotImplementedError",
}
