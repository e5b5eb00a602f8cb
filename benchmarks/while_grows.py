"""The cost of a tf.while_loop whose loop variables grow (docs/dynamic_shapes.md, "Loops that grow").

    python benchmarks/while_grows.py [--steps 32] [--dim 64] [--runs 5]

Autoregressive decoding with a key cache: each step appends the new query to the cache and attends
over all of it. Two ways in tinyflow:

  grows   the cache is a loop variable with shape_invariants [None, dim] (as TF1 code writes it):
          runs from the host, cond and body one jitted call per step, compiled once per cache length
  fixed   the cache preallocated [steps, dim] and written at row t, attention masked to rows <= t:
          one lax.while_loop inside one jit

Prints the first run (compiles) and the median later run, in ms.
"""
import argparse
import time

import numpy as np


def build(kind, steps, dim):
    import tinyflow as tf
    tf.reset_default_graph()
    w = tf.constant(np.random.RandomState(0).randn(dim, dim) / np.sqrt(dim), dtype=tf.float32)
    start = tf.placeholder(tf.float32, [1, dim])
    if kind == "grows":
        def body(t, cache, out):
            q = tf.tanh(tf.matmul(out, w))
            cache = tf.concat([cache, q], 0)
            att = tf.nn.softmax(tf.matmul(q, cache, transpose_b=True))
            return t + 1, cache, tf.matmul(att, cache)
        loop_vars = [tf.constant(0), tf.zeros([0, dim]), start]
        inv = [tf.TensorShape([]), tf.TensorShape([None, dim]), tf.TensorShape([1, dim])]
        _, _, out = tf.while_loop(lambda t, c, o: t < steps, body, loop_vars, shape_invariants=inv)
    else:
        def body(t, cache, out):
            q = tf.tanh(tf.matmul(out, w))
            rows = tf.expand_dims(tf.cast(tf.equal(tf.range(steps), t), tf.float32), 1)
            cache = cache * (1 - rows) + rows * q
            logits = tf.matmul(q, cache, transpose_b=True)
            logits += (1 - tf.cast(tf.range(steps) <= t, tf.float32)) * -1e9
            return t + 1, cache, tf.matmul(tf.nn.softmax(logits), cache)
        _, _, out = tf.while_loop(lambda t, c, o: t < steps, body, [tf.constant(0), tf.zeros([steps, dim]), start])
    sess = tf.Session()
    x = np.ones((1, dim), np.float32)
    return lambda: sess.run(out, {start: x})


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=32)
    p.add_argument("--dim", type=int, default=64)
    p.add_argument("--runs", type=int, default=5)
    a = p.parse_args()
    results = {}
    for kind in ("grows", "fixed"):
        run = build(kind, a.steps, a.dim)
        t0 = time.perf_counter()
        results[kind] = run()
        first = time.perf_counter() - t0
        times = []
        for _ in range(a.runs):
            t0 = time.perf_counter()
            run()
            times.append(time.perf_counter() - t0)
        print("%-6s steps=%d dim=%d  first run %8.1f ms   later runs %7.2f ms (median of %d)"
              % (kind, a.steps, a.dim, 1e3 * first, 1e3 * float(np.median(times)), a.runs))
    np.testing.assert_allclose(results["grows"], results["fixed"], rtol=1e-4, atol=1e-5)


if __name__ == "__main__":
    main()
