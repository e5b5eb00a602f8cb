"""Session.run overhead against the same computation hand-written with jax.jit, in one process.

(a) a tiny graph, y = x * 2 + 1 on a [4] float32 vector, fed from numpy and fetched to numpy;
(b) an MLP training step (784-256-256-10, batch 64, ReLU, softmax cross entropy, SGD 0.1), the
    graph and the hand-written step of benchmarks/train_step.py.
Calls are timed one by one, the two implementations interleaved; the fastest call is the estimate
of the unloaded cost (median in brackets). Targets (issue 17): (a) <= 1.3x the raw jitted call,
(b) <= 1.15x.

    python benchmarks/session_overhead.py [--calls N]
"""
import argparse
import os
import sys

import jax
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_step import OPTIMIZERS, data, graph_step, jax_step, step_times, tf  # noqa: E402


def tiny():
    """(tinyflow call, jax call) computing x * 2 + 1 from numpy to numpy."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [4])
        y = x * 2.0 + 1.0
        sess = tf.Session()
    xv = np.arange(4, dtype=np.float32)
    f = jax.jit(lambda a: a * 2.0 + 1.0)
    assert np.allclose(sess.run(y, {x: xv}), np.asarray(f(xv)))
    return (lambda: sess.run(y, {x: xv})), (lambda: np.asarray(f(xv)))


def mlp():
    """(tinyflow call, jax call) of one SGD training step fetching the loss."""
    params, xb, yb = data()
    make_opt, make_tx = OPTIMIZERS["sgd"]
    sess, train, loss, x, y = graph_step(tf, make_opt, params)
    step, state = jax_step(make_tx, params)

    def jax_call():
        state["ps"], state["st"], l = step(state["ps"], state["st"], xb, yb)
        return float(l)
    feed = {x: xb, y: yb}
    return (lambda: sess.run([train, loss], feed)), jax_call


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--calls", type=int, default=2000, help="timed calls of the tiny graph (the MLP gets 1/10)")
    args = p.parse_args()
    print("device: %s" % jax.devices()[0].device_kind)
    print("%-18s %20s %20s %8s %8s %8s" % ("case", "tinyflow us", "jax.jit us", "ratio", "(median)", "target"))
    for name, make, n, target in (("tiny graph (a)", tiny, args.calls, 1.3),
                                  ("MLP SGD step (b)", mlp, args.calls // 10, 1.15)):
        (t_min, t_med), (j_min, j_med) = step_times(make(), n)
        print("%-18s %9.1f (%8.1f) %9.1f (%8.1f) %7.2fx %7.2fx %7.2fx" % (
            name, t_min * 1e6, t_med * 1e6, j_min * 1e6, j_med * 1e6, t_min / j_min, t_med / j_med, target))


if __name__ == "__main__":
    main()
