"""Memory for compute: gradient checkpointing's training steps, tinyflow's prediction beside XLA's figures.

    python benchmarks/recompute.py          # Markdown tables; exit status 1 if a target fails
    python benchmarks/recompute.py --quick  # the MLP only

Models (plain SGD training steps, float32): a 48-layer tanh MLP (width 256, batch 1024), a 22-layer
3x3 conv net (16 channels, 16x16 images, batch 32) and an LSTM classifier unrolled over 28 steps
(BasicLSTMCell, hidden 256, batch 256: examples/lstm.py's model with tf.nn.static_rnn). Each runs
with checkpoints None, "sqrt", "memory" and "speed", and (MLP) with plan_recompute's choice under a
budget. Columns: tinyflow's planned arena for the step, XLA's temp bytes, step time (fastest of
`REPS` runs, the rows taking turns), the estimated extra GFLOPs, the dots and convolutions in
XLA's optimized HLO, and the losses of 3 steps against the run without checkpoints.

Targets (MLP, "sqrt"): XLA temp <= 0.5x the step without checkpoints, step time <= 1.6x, the same
losses (rtol 1e-5), predicted arena within 25% of XLA temp; with a budget, XLA temp <= budget.
"""
import os
import re
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import tinyflow as tf  # noqa: E402
import tinyflow.cli.memory as tm  # noqa: E402

MiB = 1024.0 * 1024.0
REPS = 10
POLICIES = [None, "sqrt", "memory", "speed"]


def mlp(rng):
    x = tf.placeholder(tf.float32, [None, 256])
    h = x
    for _ in range(48):
        h = tf.tanh(tf.matmul(h, tf.Variable((rng.randn(256, 256) / 16.0).astype(np.float32))))
    loss = tf.reduce_mean(tf.square(h))
    return loss, {x: rng.randn(1024, 256).astype(np.float32)}, x


def cnn(rng):
    x = tf.placeholder(tf.float32, [None, 16, 16, 3])
    y = tf.placeholder(tf.float32, [None, 10])
    h, c_in = x, 3
    for _ in range(22):
        w = tf.Variable((rng.randn(3, 3, c_in, 16) * np.sqrt(2.0 / (9 * c_in))).astype(np.float32))
        h = tf.nn.relu(tf.nn.conv2d(h, w, [1, 1, 1, 1], "SAME"))
        c_in = 16
    w_out = tf.Variable((rng.randn(4096, 10) * 0.01).astype(np.float32))
    logits = tf.matmul(tf.reshape(h, [-1, 16 * 16 * 16]), w_out)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    feeds = {x: rng.randn(32, 16, 16, 3).astype(np.float32), y: np.eye(10, dtype=np.float32)[rng.randint(0, 10, 32)]}
    return loss, feeds, x


def lstm(rng):
    images = tf.placeholder(tf.float32, [None, 28, 28])
    labels = tf.placeholder(tf.int64, [None])
    cell = tf.nn.rnn_cell.BasicLSTMCell(256)
    _, state = tf.nn.static_rnn(cell, tf.unstack(images, axis=1), dtype=tf.float32)
    logits = tf.layers.dense(state.h, 10)
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    feeds = {images: rng.rand(256, 28, 28).astype(np.float32), labels: rng.randint(0, 10, 256)}
    return loss, feeds, images


def step(build, checkpoints, seed=0):
    """Builds the model and its SGD step; returns figures of the step."""
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(seed)
        loss, feeds, x = build(np.random.RandomState(seed))
        if isinstance(checkpoints, tuple):      # ("budget", bytes): plan_recompute's choice
            plan = tm.plan_recompute(loss, checkpoints[1], {x: feeds[x].shape})
            ck = plan.checkpoints
        else:
            plan, ck = None, checkpoints
        train = tf.train.GradientDescentOptimizer(0.05).minimize(loss, checkpoints=ck)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        report = sess.memory_report([loss, train], feeds, verify=False)
        bound = sess.lowered([loss, train], feeds)
        hlo = bound.function.lower(*bound.args).compile().as_text()
        losses = [sess.run([loss, train], feeds)[0] for _ in range(3)]

    def run():
        t = time.perf_counter()
        sess.run([loss, train], feeds)     # the fetched loss waits for the step
        return time.perf_counter() - t
    return {"planned": report.planned_bytes, "temp": report.xla["temp_size_in_bytes"], "run": run, "sess": sess,
            "flops": report.recompute_flops,
            "dots": len(re.findall(r" dot\(", hlo)) + len(re.findall(r" convolution\(", hlo)),
            "losses": losses, "plan": plan}


def table(name, build, rows):
    print("\n**%s**\n" % name)
    print("| checkpoints | tinyflow planned MiB | XLA temp MiB | planned / XLA | temp vs none | step ms | "
          "time vs none | extra GFLOPs | dots+convs in HLO | losses = none (rtol 1e-5) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    out = {label: step(build, ck) for label, ck in rows}
    for r in out.values():
        r["time"] = float("inf")
    for _ in range(REPS):    # the rows take turns, so a busy machine slows them alike
        for r in out.values():
            r["time"] = min(r["time"], r["run"]())
    for r in out.values():
        r["sess"].close()
    for label, r in out.items():
        base = out["none"]
        same = np.allclose(r["losses"], base["losses"], rtol=1e-5)
        print("| %s | %.2f | %.2f | %.2f | %.2fx | %.1f | %.2fx | %.3g | %d | %s |" % (
            label, r["planned"] / MiB, r["temp"] / MiB, r["planned"] / max(r["temp"], 1), r["temp"] / base["temp"],
            r["time"] * 1e3, r["time"] / base["time"], r["flops"] / 1e9, r["dots"], same))
        sys.stdout.flush()
    return out


def main(argv):
    rows = [("none" if p is None else p, p) for p in POLICIES]
    mlp_rows = rows + [("budget 18 MiB", ("budget", 18 << 20)), ("budget 24 MiB", ("budget", 24 << 20))]
    r = table("48-layer tanh MLP, width 256, batch 1024", mlp, mlp_rows)
    none, sq = r["none"], r["sqrt"]
    checks = [
        ("sqrt: XLA temp <= 0.5x none", sq["temp"] <= 0.5 * none["temp"], "%.2fx" % (sq["temp"] / none["temp"])),
        ("sqrt: step time <= 1.6x none", sq["time"] <= 1.6 * none["time"], "%.2fx" % (sq["time"] / none["time"])),
        ("sqrt: same losses (rtol 1e-5)", np.allclose(sq["losses"], none["losses"], rtol=1e-5), str(sq["losses"])),
        ("sqrt: planned within 25% of XLA temp", abs(sq["planned"] / sq["temp"] - 1) <= 0.25,
         "%.2f" % (sq["planned"] / sq["temp"])),
    ]
    for label, budget in (("budget 18 MiB", 18 << 20), ("budget 24 MiB", 24 << 20)):
        checks.append(("%s: XLA temp <= budget" % label, r[label]["temp"] <= budget,
                       "%.2f MiB (plan: %s)" % (r[label]["temp"] / MiB, r[label]["plan"])))
    if "--quick" not in argv:
        table("22-layer conv net, 16 channels, 16x16, batch 32", cnn, rows)
        table("LSTM (examples/lstm.py's model, static_rnn over 28 steps, hidden 256, batch 256)", lstm, rows)
    print("\n| target | holds | measured |\n|---|---|---|")
    for label, ok, what in checks:
        print("| %s | %s | %s |" % (label, ok, what))
    return 0 if all(ok for _, ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
