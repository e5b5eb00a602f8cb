"""Huge graphs: a chain of K elementwise ops and its gradient, the time of the FIRST Session.run
(prune/infer passes + lowering + JAX tracing + XLA compiling) against the same chain hand-written
in JAX (the first call of jax.jit(jax.value_and_grad(f))), in one process, persistent compilation
cache off. Graph building and tf.gradients are timed apart. A TF 1.15 column (its first run of the
same graph) comes from benchmarks/tf1/big_graph_tf1.py under a TF 1.x python when one exists, and a TF 2.x
column from the same file through tf.compat.v1 (benchmarks/_common.tf2_run).

Targets (issue 17, item 3): K=5k first run <= 1.3x hand JAX; K=20k <= 5x K=5k (linear). Over
$TINYFLOW_SPLIT_STEPS steps (K=20k) tinyflow compiles jitted segments (lower/pipeline.py): the
step-time columns show what that costs once compiled.

    python benchmarks/big_graph.py [--k 1000,5000,20000] [--quick] [--no-tf1]
"""
import argparse
import os
import sys
import time

os.environ["TINYFLOW_COMPILATION_CACHE"] = "0"  # first runs must compile

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tinyflow as tf  # noqa: E402
from _common import tf1_run, tf2_run  # noqa: E402

N = 64  # elements of the vector the chain works on


def chain(k, sin, tanh, x):
    """K ops cycling through sin, *1.01, +0.1, tanh (module-agnostic: tf or jnp functions)."""
    y = x
    for i in range(k):
        r = i % 4
        y = sin(y) if r == 0 else y * 1.01 if r == 1 else y + 0.1 if r == 2 else tanh(y)
    return y


def tinyflow_first_run(k, xv):
    g = tf.Graph()
    t0 = time.perf_counter()
    with g.as_default():
        x = tf.placeholder(tf.float32, [N])
        loss = tf.reduce_sum(chain(k, tf.sin, tf.tanh, x))
        t1 = time.perf_counter()
        gx, = tf.gradients(loss, x)
        t2 = time.perf_counter()
        with tf.Session(graph=g) as sess:
            lv, gv = sess.run([loss, gx], {x: xv})
            t3 = time.perf_counter()
            step = _fastest(lambda: sess.run([loss, gx], {x: xv}))
    return {"build": t1 - t0, "gradients": t2 - t1, "first_run": t3 - t2, "loss": float(lv), "g0": float(gv[0]),
            "step": step}


def _fastest(call, n=5):
    """Seconds of the fastest of n calls (the steady state after the first run)."""
    best = float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - t0)
    return best


def jax_first_run(k, xv):
    t0 = time.perf_counter()
    f = jax.jit(jax.value_and_grad(lambda x: jnp.sum(chain(k, jnp.sin, jnp.tanh, x))))
    lv, gv = f(xv)
    lv, gv = float(lv), np.asarray(gv)
    first = time.perf_counter() - t0
    step = _fastest(lambda: np.asarray(f(xv)[1]))
    return {"first_run": first, "loss": lv, "g0": float(gv[0]), "step": step}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--k", default="1000,5000,20000", help="comma-separated chain lengths")
    p.add_argument("--quick", action="store_true", help="K=1000 only")
    p.add_argument("--no-tf1", action="store_true", help="leave out the TF 1.15 and TF 2.x columns")
    args = p.parse_args()
    ks = [1000] if args.quick else [int(k) for k in args.k.split(",")]
    xv = np.linspace(-1, 1, N).astype(np.float32)
    print("device: %s; chain of K elementwise ops on a [%d] vector + its gradient; first Session.run "
          "(tinyflow) vs first jit call (jax), seconds" % (jax.devices()[0].device_kind, N))
    print("%7s %9s %9s %11s %11s %8s %11s %11s %12s %12s" % ("K", "build", "grads", "tf 1st run", "jax 1st", "ratio",
                                                          "TF 1.15", "TF 2.x v1", "tf step ms", "jax step ms"))
    prev = None
    for k in ks:
        a = tinyflow_first_run(k, xv)
        b = jax_first_run(k, xv)
        assert np.isclose(a["loss"], b["loss"], rtol=1e-4) and np.isclose(a["g0"], b["g0"], rtol=1e-3, atol=1e-6)
        r1, r2 = (None, None) if args.no_tf1 else (tf1_run("big_graph_tf1.py", k, N), tf2_run("big_graph_tf1.py", k, N))
        print("%7d %9.2f %9.2f %11.2f %11.2f %7.2fx %11s %11s %12.2f %12.2f" % (
            k, a["build"], a["gradients"], a["first_run"], b["first_run"], a["first_run"] / b["first_run"],
            "%.2f" % r1["first_run"] if r1 else "-", "%.2f" % r2["first_run"] if r2 else "-",
            a["step"] * 1e3, b["step"] * 1e3), flush=True)
        if prev:
            print("        tinyflow first run K=%d / K=%d: %.2fx (linear: %.2fx)" % (
                k, prev[0], a["first_run"] / prev[1], k / prev[0]))
        prev = (k, a["first_run"])


if __name__ == "__main__":
    main()
