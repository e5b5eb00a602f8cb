"""Memory plans of three training steps, tinyflow's planner beside XLA's buffer assignment.

    python benchmarks/memory.py            # prints a Markdown table (MiB) and the planning time

Models: an MLP step (784-512-512-10, batch 256), a small CNN step (two 3x3 conv layers, needs
tf.nn.conv2d), a 16-step unrolled RNN step (tanh cell, hidden 256, batch 64); all with plain SGD.
Then the time to plan a 10,000-op graph (a 1,250-layer tanh network and its gradients), and what
`sess.memory_report` of the CNN step costs against that step's first run (one compile), measured in
a fresh process without the persistent compilation cache (target, issue 17: <= 1.5x).
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import tinyflow as tf  # noqa: E402
from tinyflow.runtime.memory_report import build_report  # noqa: E402
from tinyflow.passes import memory as memory_pass  # noqa: E402
from tinyflow.passes import prune  # noqa: E402

MiB = 1024.0 * 1024.0
rng = np.random.RandomState(0)


def _var(*shape):
    return tf.Variable((rng.randn(*shape) * 0.05).astype(np.float32))


def mlp():
    x = tf.placeholder(tf.float32, [256, 784])
    y = tf.placeholder(tf.float32, [256, 10])
    h = x
    for n_in, n_out in [(784, 512), (512, 512)]:
        h = tf.nn.relu(tf.matmul(h, _var(n_in, n_out)) + _var(n_out))
    logits = tf.matmul(h, _var(512, 10)) + _var(10)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    feeds = {x: rng.randn(256, 784).astype(np.float32), y: np.eye(10, dtype=np.float32)[rng.randint(0, 10, 256)]}
    return loss, feeds


def cnn():
    if not hasattr(tf.nn, "conv2d"):
        return None
    x = tf.placeholder(tf.float32, [32, 28, 28, 1])
    y = tf.placeholder(tf.float32, [32, 10])
    h = tf.nn.relu(tf.nn.conv2d(x, _var(3, 3, 1, 16), strides=[1, 1, 1, 1], padding="SAME"))
    h = tf.nn.relu(tf.nn.conv2d(h, _var(3, 3, 16, 32), strides=[1, 2, 2, 1], padding="SAME"))
    logits = tf.matmul(tf.reshape(h, [32, 14 * 14 * 32]), _var(14 * 14 * 32, 10))
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    feeds = {x: rng.randn(32, 28, 28, 1).astype(np.float32), y: np.eye(10, dtype=np.float32)[rng.randint(0, 10, 32)]}
    return loss, feeds


def rnn(steps=16, batch=64, n_in=128, hidden=256):
    xs = [tf.placeholder(tf.float32, [batch, n_in]) for _ in range(steps)]
    y = tf.placeholder(tf.float32, [batch, hidden])
    W, U, b = _var(n_in, hidden), _var(hidden, hidden), _var(hidden)
    h = tf.zeros([batch, hidden])
    for x in xs:
        h = tf.tanh(tf.matmul(x, W) + tf.matmul(h, U) + b)
    loss = tf.reduce_mean(tf.square(h - y))
    feeds = {x: rng.randn(batch, n_in).astype(np.float32) for x in xs}
    feeds[y] = rng.randn(batch, hidden).astype(np.float32)
    return loss, feeds


def report(model):
    """(report, planning seconds) of one SGD step of `model` in a fresh graph."""
    with tf.Graph().as_default():
        built = model()
        if built is None:
            return None
        loss, feeds = built
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            bound = sess.lowered([train, loss], feeds)
            r = build_report(bound.function, bound.args, name=model.__name__)
            t0 = time.perf_counter()
            sub = bound.function.sub
            memory_pass.plan_memory(sub, r.plan.sizes())
            return r, time.perf_counter() - t0


def big_graph(layers=1250):
    """Plans a ~10,000-op graph (a deep tanh network and its gradients); returns (ops, (wall s, CPU s), plan)."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [32, 64])
        h, ws = x, []
        for _ in range(layers):
            ws.append(tf.Variable(np.zeros((64, 64), np.float32)))
            h = tf.tanh(tf.matmul(h, ws[-1]))
        loss = tf.reduce_sum(h)
        sub = prune.prune(tf.gradients(loss, ws) + [loss], [x])
        sizes = memory_pass.static_sizes(sub)
        t0, c0 = time.perf_counter(), time.process_time()
        plan = memory_pass.plan_memory(sub, sizes)
        return len(plan.steps), (time.perf_counter() - t0, time.process_time() - c0), plan


def report_cost():
    """{first step s, memory_report s} of the CNN step in this (fresh) process."""
    with tf.Graph().as_default():
        loss, feeds = cnn()
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            t0 = time.perf_counter()
            sess.run([train, loss], feeds)
            t1 = time.perf_counter()
            r = sess.memory_report([train, loss], feeds)
            t2 = time.perf_counter()
    return {"first_step": t1 - t0, "memory_report": t2 - t1, "verified": r.verified}


def report_cost_fresh():
    env = dict(os.environ, TINYFLOW_COMPILATION_CACHE="0")
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--report-cost"], env=env,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    if "--report-cost" in sys.argv:
        print(json.dumps(report_cost()))
        return
    mib = lambda v: "%.3f" % (v / MiB)
    print("| model | ops | naive | lower bound | planned | planned, no inplace | planned / bound | XLA temp "
          "| planned + args | XLA args+temp+out-alias | XLA peak | verified | plan time |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for model in (mlp, cnn, rnn):
        got = report(model)
        if got is None:
            print("| %s | skipped: tf.nn.conv2d is not there yet |||||||||||| " % model.__name__)
            continue
        r, secs = got
        x = r.xla or {}
        print("| %s | %d | %s | %s | %s | %s | %.3f | %s | %s | %s | %s | %s | %.1f ms |" % (
            model.__name__, len(r.plan.steps), mib(r.naive_bytes), mib(r.lower_bound_bytes), mib(r.planned_bytes),
            mib(r.planned_bytes_no_inplace), r.planned_bytes / max(r.lower_bound_bytes, 1),
            mib(x.get("temp_size_in_bytes", 0)), mib(r.planned_total_bytes), mib(r.xla_total_bytes or 0),
            mib(x.get("peak_memory_in_bytes", 0)), r.verified, secs * 1e3))
    n, secs, plan = big_graph()
    print("\nPlanning a %d-op graph: %.3f s wall, %.3f s CPU (planned / lower bound %.4f, strategy %s)"
          % (n, secs[0], secs[1], plan.planned_bytes / plan.lower_bound_bytes, plan.strategy))
    c = report_cost_fresh()
    print("sess.memory_report of the CNN step: %.2f s (verified %s); its first step: %.2f s; ratio %.2fx "
          "(target <= 1.5x)" % (c["memory_report"], c["verified"], c["first_step"],
                                c["memory_report"] / c["first_step"]))


if __name__ == "__main__":
    main()
