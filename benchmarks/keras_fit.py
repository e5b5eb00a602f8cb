"""tf.keras fit speed: one epoch of a Keras MLP (784-256-256-10, ReLU, softmax, Adam, batch 128,
4096 samples, metrics=['accuracy'], shuffled) against the same epoch hand-written in JAX + optax
(one jitted step with the parameters donated, the batches sliced from the shuffled numpy arrays,
the loss and accuracy brought to the host each step as fit does), and against TF 1.15's own
`model.fit` when the TF 1.x python is there, and TF 2.x's (through tf.compat.v1 with the legacy
tf_keras, what a TF1 user runs instead today) when the TF 2.x python is there. Epochs are timed one by
one, interleaved; the fastest and the median are shown. Target (issue 28): keras / jax <= 1.1x.

    python benchmarks/keras_fit.py [--epochs N]
"""
import argparse
import os
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
import optax

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tinyflow as tf  # noqa: E402
import _common  # noqa: E402

N, BATCH, SIZES = 4096, 128, [784, 256, 256, 10]


def data():
    rng = np.random.RandomState(0)
    x = rng.rand(N, SIZES[0]).astype("float32")
    return x, np.eye(10, dtype="float32")[rng.randint(0, 10, N)]


def keras_epoch(x, y):
    K = tf.keras
    model = K.Sequential([K.layers.Dense(SIZES[1], activation="relu", input_shape=(SIZES[0],)),
                          K.layers.Dense(SIZES[2], activation="relu"), K.layers.Dense(SIZES[3], activation="softmax")])
    model.compile("adam", "categorical_crossentropy", metrics=["accuracy"])
    return lambda: model.fit(x, y, batch_size=BATCH, epochs=1, verbose=0)


def jax_epoch(x, y):
    rng = np.random.RandomState(1)
    params = [(jnp.asarray(rng.uniform(-0.05, 0.05, (a, b)).astype("float32")), jnp.zeros(b, jnp.float32))
              for a, b in zip(SIZES[:-1], SIZES[1:])]
    opt = optax.adam(1e-3, eps=1e-7)
    state = [params, opt.init(params)]

    def loss_fn(params, xb, yb):
        h = xb
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i < len(params) - 1:
                h = jax.nn.relu(h)
        loss = jnp.mean(optax.softmax_cross_entropy(h, yb))
        return loss, jnp.mean(jnp.argmax(h, -1) == jnp.argmax(yb, -1)).astype(jnp.float32)

    @jax.jit
    def step(params, opt_state, xb, yb):
        (loss, acc), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, xb, yb)
        updates, opt_state = opt.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss, acc

    step = jax.jit(step.__wrapped__ if hasattr(step, "__wrapped__") else step, donate_argnums=(0, 1))

    def epoch():
        index = np.arange(N)
        np.random.shuffle(index)
        total = np.zeros(2)
        for i in range(0, N, BATCH):
            b = index[i:i + BATCH]
            state[0], state[1], loss, acc = step(state[0], state[1], x[b], y[b])
            total += np.array([float(loss), float(acc)]) * len(b)
        return total / N
    return epoch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=5)
    args = parser.parse_args()
    x, y = data()
    (kb, km), (jb, jm) = _common.step_times([keras_epoch(x, y), jax_epoch(x, y)], args.epochs, warmup=1)
    print("Keras MLP fit epoch (%d samples, batch %d, %d steps), CPU" % (N, BATCH, N // BATCH))
    print("  tinyflow tf.keras  %7.1f ms  (median %7.1f)" % (kb * 1e3, km * 1e3))
    print("  jax + optax        %7.1f ms  (median %7.1f)" % (jb * 1e3, jm * 1e3))
    print("  keras / jax        %7.2fx  (median %.2fx)" % (kb / jb, km / jm))
    for name, run in (("TF 1.15", _common.tf1_run), ("TF 2.x v1", _common.tf2_run)):
        t0 = time.time()
        res = run("keras_fit_tf1.py", args.epochs)
        if res is not None:
            print("  %-9s model.fit %7.1f ms  (median %7.1f)   tinyflow / it %.2fx  [%.0fs]"
                  % (name, res["best"] * 1e3, res["median"] * 1e3, kb / res["best"], time.time() - t0))


if __name__ == "__main__":
    main()
