"""A memory planner written against tinyflow's planner interface: best fit by size.

The interface (docs/memory.md): a function from intervals to offsets.

    planner(intervals: list of Interval(start, end, size, name)) -> list of int byte offsets, one per interval

An interval is live from step `start` to step `end`, both included; two intervals whose steps meet
must not share bytes. Register it, and every memory report runs it beside tinyflow's own planner and
XLA's figures, at TF-op granularity (proved by replaying the fetch set in its arena) and over XLA's
fused program:

    python examples/passes/best_fit_planner.py                      # a report of a small training step
    python benchmarks/memory_zoo.py --planner examples/passes/best_fit_planner.py
    python -m tinyflow.memory --planner examples/passes/best_fit_planner.py script.py
"""
import numpy as np

import tinyflow


def best_fit_by_size(intervals):
    """Largest first; each interval takes the smallest free gap that holds it among the intervals already
    placed that are live at the same time as it (else it goes on top of them)."""
    offsets = [0] * len(intervals)
    placed = []                                   # (offset, size, start, end)
    for i in sorted(range(len(intervals)), key=lambda i: (-intervals[i].size, intervals[i].start)):
        start, end, size, _ = intervals[i]
        busy = sorted((o, o + s) for o, s, a, b in placed if a <= end and b >= start)
        best, top = None, 0
        for lo, hi in busy:                       # the gaps between the busy byte ranges
            if lo - top >= size and (best is None or lo - top < best[1]):
                best = (top, lo - top)
            top = max(top, hi)
        offsets[i] = best[0] if best is not None else top
        placed.append((offsets[i], size, start, end))
    return offsets


tinyflow.memory.register_planner("best_fit_by_size", best_fit_by_size)


def main():
    tf = tinyflow
    x = tf.placeholder(tf.float32, [64, 128])
    h = x
    for _ in range(4):
        h = tf.layers.dense(h, 128, activation=tf.nn.relu)
    loss = tf.reduce_mean(tf.square(h))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        report = sess.memory_report([train, loss], {x: np.ones((64, 128), np.float32)})
    print(report)
    return report


if __name__ == "__main__":
    main()
