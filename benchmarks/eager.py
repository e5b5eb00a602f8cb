"""An eager MLP training loop: tinyflow's eager mode beside the same loop in plain JAX eager mode.

    python benchmarks/eager.py [steps]      # prints ms/step of each and the ratio

Model: 784-128-10 MLP with ReLU, softmax cross-entropy, batch 64, plain SGD; both loops run op by
op (no jax.jit around the step). tinyflow: tf.GradientTape + GradientDescentOptimizer.apply_gradients;
JAX: jax.value_and_grad of the loss and a tree_map update. Both start from the same weights and
must reach the same loss.
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

import tinyflow as tf  # noqa: E402
from tinyflow.api.eager import eager_mode  # noqa: E402

rng = np.random.RandomState(0)
X = rng.randn(64, 784).astype(np.float32)
Y = rng.randint(0, 10, 64).astype(np.int64)
INIT = [(rng.randn(784, 128) * 0.05).astype(np.float32), np.zeros(128, np.float32),
        (rng.randn(128, 10) * 0.05).astype(np.float32), np.zeros(10, np.float32)]
LR = 0.1


def tinyflow_loop(steps):
    params = [tf.Variable(p) for p in INIT]
    opt = tf.train.GradientDescentOptimizer(LR)
    x, y = tf.constant(X), tf.constant(Y)

    def step():
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x, params[0]) + params[1])
            logits = tf.matmul(h, params[2]) + params[3]
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        grads = tape.gradient(loss, params)
        opt.apply_gradients(zip(grads, params))
        return loss
    return _time(step, steps)


def jax_loop(steps):
    params = [jnp.asarray(p) for p in INIT]
    x, y = jnp.asarray(X), jnp.asarray(Y)

    def loss_fn(ps):
        h = jax.nn.relu(x @ ps[0] + ps[1])
        logits = h @ ps[2] + ps[3]
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    def step():
        nonlocal params
        loss, grads = jax.value_and_grad(loss_fn)(params)
        params = jax.tree_util.tree_map(lambda p, g: p - LR * g, params, grads)
        return loss
    return _time(step, steps)


def _time(step, steps):
    for _ in range(5):  # warm-up: compile every kernel once
        step()
    start = time.perf_counter()
    for _ in range(steps):
        loss = step()
    final = float(np.asarray(loss))
    return (time.perf_counter() - start) / steps * 1e3, final


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    with eager_mode():
        tf_ms, tf_loss = tinyflow_loop(steps)
    jax_ms, jax_loss = jax_loop(steps)
    print("tinyflow eager: %.3f ms/step (final loss %.5f)" % (tf_ms, tf_loss))
    print("JAX eager:      %.3f ms/step (final loss %.5f)" % (jax_ms, jax_loss))
    print("ratio tinyflow / JAX: %.2f" % (tf_ms / jax_ms))


if __name__ == "__main__":
    main()
