"""The optimizers' sparse updates on a large embedding table: an IndexedSlices gradient applied to the
indexed rows (TF 1.15's SparseApply* semantics, tinyflow's default) against the same gradient made dense
first and applied to every row (what tinyflow did before, and what a dense update costs).

A 100,000 x 64 float32 table, a batch of 256 ids (repeats drawn from a Zipf law), loss =
sum(embedding_lookup(table, ids) * c); one step = the gradient and the update, the loss fetched.
Each optimizer's two variants are timed interleaved, one call at a time: the fastest call (median in
brackets), in ms.

    python benchmarks/sparse_updates.py [--rows 100000] [--dim 64] [--batch 256] [--calls 30]
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tinyflow as tf  # noqa: E402
from _common import step_times  # noqa: E402

OPTIMIZERS = {
    "GradientDescent": lambda: tf.train.GradientDescentOptimizer(0.1),
    "Momentum": lambda: tf.train.MomentumOptimizer(0.1, 0.9),
    "RMSProp": lambda: tf.train.RMSPropOptimizer(0.01, momentum=0.9),
    "Adagrad": lambda: tf.train.AdagradOptimizer(0.1),
    "Ftrl": lambda: tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01),
    "Adam": lambda: tf.train.AdamOptimizer(0.001),
}


def step(make_opt, rows, dim, batch, dense):
    """A Session and its step function: the loss fetched, the table updated."""
    g = tf.Graph()
    with g.as_default():
        table = tf.Variable(np.random.RandomState(0).randn(rows, dim).astype(np.float32) * 0.01)
        ids = tf.placeholder(tf.int32, [batch])
        loss = tf.reduce_sum(tf.nn.embedding_lookup(table, ids) * np.linspace(-1, 1, dim).astype(np.float32))
        opt = make_opt()
        grads = opt.compute_gradients(loss, [table])
        if dense:   # the rows summed into a dense gradient: every row updated
            grads = [(tf.convert_to_tensor(gr), v) for gr, v in grads]
        train = opt.apply_gradients(grads)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
    feeds = [{ids: np.minimum(np.random.RandomState(k).zipf(1.3, batch), rows) - 1} for k in range(8)]
    calls = [0]

    def run():
        calls[0] += 1
        return sess.run([loss, train], feeds[calls[0] % len(feeds)])[0]
    return run


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100000)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--calls", type=int, default=30)
    args = ap.parse_args()
    print("table %d x %d, batch %d ids: ms per step, fastest (median)" % (args.rows, args.dim, args.batch))
    print("| optimizer | row updates (TF's sparse) | dense gradient, every row | speed-up |")
    print("|---|---|---|---|")
    for name, make_opt in OPTIMIZERS.items():
        fns = [step(make_opt, args.rows, args.dim, args.batch, dense) for dense in (False, True)]
        (s_min, s_med), (d_min, d_med) = step_times(fns, args.calls)
        print("| %s | %.2f (%.2f) | %.2f (%.2f) | %.1fx |" % (name, 1e3 * s_min, 1e3 * s_med, 1e3 * d_min,
                                                            1e3 * d_med, d_min / s_min), flush=True)


if __name__ == "__main__":
    main()
