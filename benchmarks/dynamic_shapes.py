"""The cost of value-dependent shapes (docs/dynamic_shapes.md): a masked-loss Adam training step.

    python benchmarks/dynamic_shapes.py [--steps 50] [--batch 32] [--time 20] [--hidden 128]

A sequence model's per-step loss over the valid steps only, three ways:

  segments   tinyflow: tf.boolean_mask(loss, tf.sequence_mask(lengths, T)), run as two jitted
             segments around the Where (the number of valid entries decides the shape)
  fixed      tinyflow: the fixed-size mask trick in the graph (sum(loss * mask) / sum(mask)): one jit
  jax        hand-written jax.numpy with the same fixed-size mask, Adam by optax, one jax.jit

Two regimes: `same` feeds the same lengths every step (steady state: every segment compiled once),
`varying` draws new lengths each step (each new count of valid entries compiles the second segment
once more; a batch of B sequences of length T has at most B*T+1 counts). Prints ms per step and the
first-step (compile) times.
"""
import argparse
import time

import numpy as np


def _data(rng, batch, t, features, vary):
    xs = rng.randn(batch, t, features).astype(np.float32)
    ys = rng.randn(batch, t).astype(np.float32)
    lengths = rng.randint(1, t + 1, batch).astype(np.int32) if vary else np.full(batch, t // 2 + 1, np.int32)
    return xs, ys, lengths


def tinyflow_step(kind, batch, t, features, hidden):
    import tinyflow as tf
    tf.reset_default_graph()
    xs = tf.placeholder(tf.float32, [None, t, features])
    ys = tf.placeholder(tf.float32, [None, t])
    lengths = tf.placeholder(tf.int32, [None])
    w1 = tf.Variable(tf.random_normal([features, hidden], stddev=0.1))
    w2 = tf.Variable(tf.random_normal([hidden, 1], stddev=0.1))
    h = tf.tanh(tf.tensordot(xs, w1, axes=1))
    err = tf.square(tf.squeeze(tf.tensordot(h, w2, axes=1), -1) - ys)
    mask = tf.sequence_mask(lengths, t)
    if kind == "segments":
        loss = tf.reduce_mean(tf.boolean_mask(err, mask))
    else:
        m = tf.cast(mask, tf.float32)
        loss = tf.reduce_sum(err * m) / tf.reduce_sum(m)
    train = tf.train.AdamOptimizer(1e-3).minimize(loss)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    return lambda x, y, n: sess.run([loss, train], {xs: x, ys: y, lengths: n})[0]


def jax_step(batch, t, features, hidden):
    import jax
    import jax.numpy as jnp
    import optax
    key1, key2 = jax.random.split(jax.random.PRNGKey(0))
    params = {"w1": 0.1 * jax.random.normal(key1, (features, hidden)), "w2": 0.1 * jax.random.normal(key2, (hidden, 1))}
    opt = optax.adam(1e-3)
    state = [params, opt.init(params)]

    def loss_fn(p, xs, ys, lengths):
        err = (jnp.tanh(xs @ p["w1"]) @ p["w2"])[..., 0] - ys
        m = (jnp.arange(t)[None, :] < lengths[:, None]).astype(jnp.float32)
        return jnp.sum(err ** 2 * m) / jnp.sum(m)

    @jax.jit
    def step(p, s, xs, ys, lengths):
        loss, g = jax.value_and_grad(loss_fn)(p, xs, ys, lengths)
        u, s = opt.update(g, s, p)
        return optax.apply_updates(p, u), s, loss

    def run(xs, ys, lengths):
        state[0], state[1], loss = step(state[0], state[1], xs, ys, lengths)
        return float(loss)
    return run


def measure(step, batches, budget):
    t0 = time.perf_counter()
    step(*batches[0])
    first = time.perf_counter() - t0
    t0, n = time.perf_counter(), 0
    for b in batches[1:]:
        step(*b)
        n += 1
        if time.perf_counter() - t0 > budget:
            break
    return first, (time.perf_counter() - t0) / max(n, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seq", type=int, default=20)
    ap.add_argument("--features", type=int, default=16)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--time", type=float, default=20.0, help="seconds at most per measurement")
    a = ap.parse_args()
    print("%-9s %-8s %12s %12s" % ("regime", "way", "first ms", "ms/step"))
    for regime in ("same", "varying"):
        rng = np.random.RandomState(0)
        batches = [_data(rng, a.batch, a.seq, a.features, regime == "varying") for _ in range(a.steps + 1)]
        for way in ("segments", "fixed", "jax"):
            step = (jax_step(a.batch, a.seq, a.features, a.hidden) if way == "jax"
                    else tinyflow_step(way, a.batch, a.seq, a.features, a.hidden))
            first, per = measure(step, batches, a.time)
            print("%-9s %-8s %12.1f %12.2f" % (regime, way, first * 1e3, per * 1e3), flush=True)


if __name__ == "__main__":
    main()
