"""Tiered compilation (runtime/executables.py) in the steady state: the CIFAR-style CNN of
benchmarks/scripts/cnn.py trained by two Sessions in one process, one with tiers ($TINYFLOW_TIERED, read
when a fetch set compiles) and one without, their steps interleaved. Prints the step at which the
tiered Session's optimized program came in, and the median step CPU (process time: all threads) of
each Session before and after that point; after the swap the two must be the same program and time.

    python benchmarks/tiers.py [--steps 120]
"""
import argparse
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, "scripts"))
os.environ["TINYFLOW_COMPILATION_CACHE"] = "0"   # compile, not cache loads
import numpy as np  # noqa: E402

import tinyflow as tf  # noqa: E402
from tinyflow.cli.runner import alias_tensorflow  # noqa: E402

alias_tensorflow()
import cnn  # noqa: E402  (benchmarks/scripts/cnn.py: its layers)


def model():
    x = tf.placeholder(tf.float32, [cnn.BATCH, 24, 24, 3])
    y = tf.placeholder(tf.int64, [cnn.BATCH])
    h = tf.nn.max_pool(cnn.conv(x, [5, 5, 3, 64], "conv1"), [1, 3, 3, 1], [1, 2, 2, 1], padding="SAME")
    h = tf.nn.max_pool(cnn.conv(h, [5, 5, 64, 64], "conv2"), [1, 3, 3, 1], [1, 2, 2, 1], padding="SAME")
    h = cnn.dense(cnn.dense(tf.reshape(h, [cnn.BATCH, -1]), 384, "local3"), 192, "local4")
    logits = cnn.dense(h, 10, "softmax_linear", relu=False)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    rng = np.random.RandomState(0)
    feed = {x: rng.rand(cnn.BATCH, 24, 24, 3).astype(np.float32), y: rng.randint(0, 10, cnn.BATCH)}
    return feed, loss, tf.train.GradientDescentOptimizer(0.1).minimize(loss)


def session(tiered, init, fetches, feed):
    os.environ["TINYFLOW_TIERED"] = tiered
    sess = tf.Session()
    sess.run(init)
    t = time.process_time()
    sess.run(fetches, feed)
    return sess, time.process_time() - t


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=120)
    args = p.parse_args()
    feed, loss, train = model()
    init = tf.global_variables_initializer()
    fetches = [train, loss]
    tiered, first_tiered = session("3", init, fetches, feed)
    plain, first_plain = session("0", init, fetches, feed)
    low = [v for v in tiered._compiled.values() if v.rw_vars][0]
    entry, = low.executables.entries.values()
    print("first run (compile + step), CPU s: tiered %.2f, without tiers %.2f" % (first_tiered, first_plain))
    times, swapped = {"tiered": [], "plain": []}, None
    for i in range(args.steps):
        for name, sess in (("tiered", tiered), ("plain", plain)) if i % 2 else (("plain", plain), ("tiered", tiered)):
            t = time.process_time()
            sess.run(fetches, feed)
            times[name].append(time.process_time() - t)
        if swapped is None and entry.call != entry.tier.call:
            swapped = i + 1
    if swapped is None:
        print("no swap in %d steps: run more (--steps)" % args.steps)
        return
    print("optimized program in after step %d (compiled in the background)" % swapped)
    for name in ("tiered", "plain"):
        before, after = times[name][:swapped], times[name][swapped + 2:]
        print("%-7s median step CPU ms: before the swap %.1f, after %.1f" % (
            name, 1e3 * np.median(before), 1e3 * np.median(after)))
    other, = [v for v in plain._compiled.values() if v.rw_vars][0].executables.entries.values()
    print("after the swap, the same optimized HLO as without tiers: %s" % (hlo(entry) == hlo(other)))


def hlo(entry):
    """The program's optimized HLO without its tables of source files and lines (the Sessions' generated
    sources have names of their own)."""
    return [ln for ln in entry.compiled.as_text().splitlines() if not re.match(r"[0-9]+ ", ln)]


if __name__ == "__main__":
    main()
