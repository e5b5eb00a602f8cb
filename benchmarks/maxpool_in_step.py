"""Re-checks ops/pooling_ops._materialized: the anchor CNN's training step (benchmarks/tf1/anchor_workloads.py)
with its tiling MaxPools as XLA's reduce-window (the rule) and as strided views (without it), two Sessions
in one process, their steps in alternating rounds; CPU ms per step (all threads) and whether it still helps.

    python benchmarks/maxpool_in_step.py [--rounds 7] [--steps 15]       (taskset -c 0 for one core)
"""
import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, "tf1"))
os.environ["TINYFLOW_TIERED"] = "0"   # the optimized program from the first step
from tinyflow.cli.runner import alias_tensorflow  # noqa: E402

alias_tensorflow()
import anchor_workloads  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

from tinyflow.ops import pooling_ops  # noqa: E402


def session(rule):
    """(run one step, the Session) of a new graph whose step was compiled with the rule on or off."""
    g = tf.Graph()
    with g.as_default():
        fetches, feed = anchor_workloads.build("cnn", np.random.RandomState(0))
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=g)
    kept = pooling_ops._materialized
    if not rule:
        pooling_ops._materialized = lambda geo: False
    try:
        sess.run(init)
        sess.run(fetches, feed)   # traced and compiled here
    finally:
        pooling_ops._materialized = kept
    return (lambda: sess.run(fetches, feed)), sess


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--steps", type=int, default=15)
    args = p.parse_args()
    runs = {"reduce-window": session(True), "views": session(False)}
    ms = {k: [] for k in runs}
    for r in range(args.rounds):
        for k in (list(runs) if r % 2 == 0 else list(runs)[::-1]):
            step, times = runs[k][0], []
            for _ in range(args.steps):
                c0 = time.process_time()
                step()
                times.append(time.process_time() - c0)
            ms[k].append(np.median(times) * 1e3)
    for k, v in ms.items():
        print("CNN step, tiling MaxPools as %-13s CPU %.1f ms per step (median of %d rounds; rounds %s)"
              % (k + ":", np.median(v), len(v), " ".join("%.0f" % x for x in v)))
    ok = np.median(ms["reduce-window"]) < np.median(ms["views"])
    print("the rule helps: %s" % ("yes, keep it" if ok else "NO: re-measure, the decision may no longer hold"))
    for _, sess in runs.values():
        sess.close()


if __name__ == "__main__":
    main()
