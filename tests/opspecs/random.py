"""Specs of the random ops (ops/random_ops.py): declared dtype and shape; values are checked for
their distribution in tests/ops/test_random.py."""
import numpy as np

from opspecs import OpSpec

X = np.arange(6, dtype=np.float32).reshape(3, 2)
LOGITS = np.log(np.array([[0.2, 0.8], [0.5, 0.5]], np.float32))

SPECS = [
    OpSpec("random_normal", lambda tf, x: x + tf.random_normal([3, 2], seed=1), [X]),
    OpSpec("truncated_normal", lambda tf, x: tf.truncated_normal([3, 2], dtype=tf.float64, seed=2), [X]),
    OpSpec("random_uniform", lambda tf, x: tf.random_uniform(tf.shape(x), 1.0, 2.0, seed=3), [X]),
    OpSpec("random_uniform_int", lambda tf, x: tf.random_uniform([4], 0, 3, dtype=tf.int64, seed=4), [X]),
    OpSpec("random_shuffle_sum", lambda tf, x: tf.reduce_sum(tf.random_shuffle(x, seed=5), 0), [X],
           lambda x: x.sum(0)),
    OpSpec("multinomial", lambda tf, x: tf.multinomial(x, 3, seed=6), [LOGITS]),
    # issue 37's: gamma (differentiable in alpha, checked by its moments in tests/api/test_core_random.py),
    # poisson and the stateless ops
    OpSpec("random_gamma", lambda tf, x: tf.random_gamma([2], x + 1.0, seed=7), [X]),
    OpSpec("random_gamma_grad", lambda tf, x: tf.gradients(tf.random_gamma([2], x + 1.0, seed=7), x)[0], [X]),
    OpSpec("random_poisson", lambda tf, x: tf.random_poisson(x, [2], seed=8), [X]),
    OpSpec("stateless", lambda tf, x: [tf.random.stateless_uniform([2, 3], [1, 2]),
                                       tf.random.stateless_uniform([2], [1, 2], 0, 5, dtype=tf.int64),
                                       tf.random.stateless_normal([3], [1, 2], dtype=tf.float64),
                                       tf.random.stateless_truncated_normal([3], [3, 4]),
                                       tf.random.stateless_categorical(x, 4, [5, 6])], [LOGITS]),
]

GRAD_EXEMPT = {"RandomGamma": "a random sample: finite differences do not apply; its gradient's mean is checked "
                              "in tests/api/test_core_random.py"}
