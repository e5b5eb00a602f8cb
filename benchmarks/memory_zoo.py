"""A zoo of training steps for memory planners: tinyflow's plans beside XLA's, per platform.

    python benchmarks/memory_zoo.py                     # the CPU table (minutes on 2 cores)
    python benchmarks/memory_zoo.py --quick             # smaller models, no recomputation: < 2 minutes
    python benchmarks/memory_zoo.py --plot DIR          # also DIR/<model>.png (needs matplotlib)
    python benchmarks/memory_zoo.py --planner examples/passes/best_fit_planner.py   # a researcher's planner
    JAX_PLATFORMS=cuda python benchmarks/memory_zoo.py --quick       # the same table for the GPU
    python benchmarks/memory_zoo.py --quick --platforms cpu,cuda     # one table per platform

Models (one plain SGD training step each, float32, small batches): MLP (784-512-512-10), CNN (two 3x3
convs, 28x28), ResNet-18-style (8 basic blocks with batch norm, 16-128 channels, 32x32), LSTM
(tf.nn.dynamic_rnn, LSTMCell 128, 16 steps), a Transformer encoder block (4 heads, d 128, ff 512,
32 tokens) and a BERT-tiny encoder (embeddings, 2 layers, hidden 128, 2 heads, ff 512, 32 tokens,
vocabulary 2000, a masked-LM head over every token).

Columns (MiB): naive (every value its own bytes), lower bound (most bytes live at one step), tinyflow's
planned arena at TF-op granularity, tinyflow's plan of XLA's optimized HLO (passes/hlo_memory.py:
XLA's buffers after fusion, XLA's schedule), XLA's temp and peak (memory_analysis of the Session's
executable), fused / XLA temp, verified (the TF-op plan replayed in one arena: every read bit for
bit), then recomputation: plan_recompute under a budget of 50% of the step's planned gradient arena,
tinyflow's prediction, XLA's temp of the step with those checkpoints and its ratio to the step without.
"""
import argparse
import os
import runpy
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import jax  # noqa: E402

import tinyflow as tf  # noqa: E402
import tinyflow.cli.memory as tm  # noqa: E402
from tinyflow.passes import memory as memory_pass  # noqa: E402
from tinyflow.passes.recompute_plan import predict  # noqa: E402

MiB = 1024.0 * 1024.0


def _feeds(shapes, rng, classes=10):
    return {p: (rng.randint(0, classes, s) if p.dtype.is_integer else rng.randn(*s)).astype(p.dtype.np)
            for p, s in shapes.items()}


def mlp(q):
    b = 16 if q else 32
    x, y = tf.placeholder(tf.float32, [None, 784]), tf.placeholder(tf.int32, [None])
    h = x
    for width in (512, 512):
        h = tf.layers.dense(h, width, activation=tf.nn.relu)
    loss = tf.losses.sparse_softmax_cross_entropy(y, tf.layers.dense(h, 10))
    return loss, {x: [b, 784], y: [b]}


def cnn(q):
    b = 8 if q else 16
    x, y = tf.placeholder(tf.float32, [None, 28, 28, 1]), tf.placeholder(tf.int32, [None])
    h = tf.layers.conv2d(x, 16, 3, padding="same", activation=tf.nn.relu)
    h = tf.layers.conv2d(h, 32, 3, strides=2, padding="same", activation=tf.nn.relu)
    logits = tf.layers.dense(tf.reshape(h, [-1, 14 * 14 * 32]), 10)
    return tf.losses.sparse_softmax_cross_entropy(y, logits), {x: [b, 28, 28, 1], y: [b]}


def resnet18(q):
    b = 4 if q else 8
    x, y = tf.placeholder(tf.float32, [None, 32, 32, 3]), tf.placeholder(tf.int32, [None])

    def bn(h):
        return tf.layers.batch_normalization(h, training=True)

    def block(h, ch, stride):
        r = tf.nn.relu(bn(tf.layers.conv2d(h, ch, 3, strides=stride, padding="same", use_bias=False)))
        r = bn(tf.layers.conv2d(r, ch, 3, padding="same", use_bias=False))
        if stride != 1 or h.shape[-1] != ch:
            h = bn(tf.layers.conv2d(h, ch, 1, strides=stride, use_bias=False))
        return tf.nn.relu(h + r)
    h = tf.nn.relu(bn(tf.layers.conv2d(x, 16, 3, padding="same", use_bias=False)))
    for i, ch in enumerate((16, 32, 64, 128)):
        h = block(block(h, ch, 1 if i == 0 else 2), ch, 1)
    logits = tf.layers.dense(tf.reduce_mean(h, [1, 2]), 10)
    return tf.losses.sparse_softmax_cross_entropy(y, logits), {x: [b, 32, 32, 3], y: [b]}


def lstm(q):
    b, t = (8, 8) if q else (16, 16)
    x, y = tf.placeholder(tf.float32, [None, t, 32]), tf.placeholder(tf.int32, [None])
    out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.LSTMCell(128), x, dtype=tf.float32)
    logits = tf.layers.dense(out[:, -1], 10)
    return tf.losses.sparse_softmax_cross_entropy(y, logits), {x: [b, t, 32], y: [b]}


def _layer_norm(h):
    d = h.shape[-1]
    gamma = tf.Variable(np.ones(d, np.float32))
    beta = tf.Variable(np.zeros(d, np.float32))
    mean, var = tf.nn.moments(h, [-1], keep_dims=True)
    return (h - mean) * tf.rsqrt(var + 1e-6) * gamma + beta


def encoder_layer(x, t, d, heads, ff):
    """A post-norm Transformer encoder layer: multi-head self-attention, then a feed-forward block."""
    n = tf.shape(x)[0]

    def split(v):
        return tf.transpose(tf.reshape(v, [n, t, heads, d // heads]), [0, 2, 1, 3])
    q, k, v = (split(tf.layers.dense(x, d)) for _ in range(3))
    att = tf.nn.softmax(tf.matmul(q, k, transpose_b=True) / float(np.sqrt(d // heads)))
    o = tf.reshape(tf.transpose(tf.matmul(att, v), [0, 2, 1, 3]), [n, t, d])
    h = _layer_norm(x + tf.layers.dense(o, d))
    return _layer_norm(h + tf.layers.dense(tf.nn.relu(tf.layers.dense(h, ff)), d))


def transformer(q):
    b, t, d = (4, 16, 64) if q else (8, 32, 128)
    x, y = tf.placeholder(tf.float32, [None, t, d]), tf.placeholder(tf.int32, [None, t])
    logits = tf.layers.dense(encoder_layer(x, t, d, 4, 4 * d), 10)
    return tf.losses.sparse_softmax_cross_entropy(y, logits), {x: [b, t, d], y: [b, t]}


def bert_tiny(q):
    b, t, d, vocab = (4, 16, 64, 500) if q else (8, 32, 128, 2000)
    ids, y = tf.placeholder(tf.int32, [None, t]), tf.placeholder(tf.int32, [None, t])
    emb = tf.Variable((np.random.RandomState(1).randn(vocab, d) * 0.02).astype(np.float32))
    pos = tf.Variable((np.random.RandomState(2).randn(t, d) * 0.02).astype(np.float32))
    h = _layer_norm(tf.nn.embedding_lookup(emb, ids) + pos)
    for _ in range(2):
        h = encoder_layer(h, t, d, 2, 4 * d)
    logits = tf.matmul(tf.reshape(h, [-1, d]), emb, transpose_b=True)   # tied output embedding
    loss = tf.losses.sparse_softmax_cross_entropy(tf.reshape(y, [-1]), logits)
    return loss, {ids: [b, t], y: [b, t]}


MODELS = {"MLP": mlp, "CNN": cnn, "ResNet-18-style": resnet18, "LSTM (dynamic_rnn)": lstm,
          "Transformer block": transformer, "BERT-tiny (2 layers)": bert_tiny}


def _step(loss, checkpoints=None):
    opt = tf.train.GradientDescentOptimizer(0.01)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        return opt.minimize(loss, checkpoints=checkpoints)


def measure(name, build, quick, recompute=True, plot_dir=None):
    """One row: the step's MemoryReport, and plan_recompute at 50% with XLA's figure."""
    rng = np.random.RandomState(0)
    row = {"model": name}
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        loss, shapes = build(quick)
        train = _step(loss)
        feeds = _feeds(shapes, rng, 500 if "BERT" in name and quick else 2000 if "BERT" in name else 10)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            t0 = time.perf_counter()
            r = sess.memory_report([train, loss], feeds)
            row["report_s"] = time.perf_counter() - t0
            row["report"] = r
            if plot_dir:
                _plot(r, plot_dir, name)
            if recompute:
                xs = [v._as_graph_element() for v in tf.trainable_variables()]
                plain, _ = predict(loss, xs, None, shapes)
                plan = tm.plan_recompute(loss, int(0.5 * plain), shapes)
                train2 = _step(loss, plan.checkpoints)
                sess.run(tf.global_variables_initializer())
                r2 = sess.memory_report([train2, loss], feeds, verify=False)
                row.update(budget=0.5 * plain, plan=plan, recompute=r2)
    return row


def _plot(report, plot_dir, name):
    path = os.path.join(plot_dir, "".join(c if c.isalnum() else "_" for c in name).strip("_") + ".png")
    try:
        report.name = name
        report.plot(path)
        print("  plot: %s" % path, file=sys.stderr)
    except ImportError as e:
        print("  no plot: %s" % e, file=sys.stderr)


def table(rows, platform):
    mib = lambda v: "" if v is None else "%.3f" % (v / MiB)
    print("\n### %s (%s, jax %s)\n" % (platform, jax.devices()[0].device_kind, jax.__version__))
    print("| model | TF ops | HLO instrs | naive | lower bound | planned, TF ops | planned, fused HLO | XLA temp "
          "| fused / XLA temp | XLA peak | verified | recompute 50%: budget | predicted | fits | XLA temp "
          "| temp vs none |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        r = row["report"]
        x = r.xla or {}
        temp = x.get("temp_size_in_bytes")
        fused = r.fused.planned_bytes if r.fused is not None else None
        cells = [row["model"], len(r.plan.steps), len(r.fused.steps) if r.fused is not None else "",
                 mib(r.naive_bytes), mib(r.lower_bound_bytes), mib(r.planned_bytes), mib(fused), mib(temp),
                 "%.3f" % (fused / temp) if fused is not None and temp else "", mib(x.get("peak_memory_in_bytes")),
                 r.verified]
        if "plan" in row:
            t2 = (row["recompute"].xla or {}).get("temp_size_in_bytes")
            cells += [mib(row["budget"]), mib(row["plan"].predicted_peak_bytes), row["plan"].fits, mib(t2),
                      "%.2fx" % (t2 / temp) if t2 and temp else ""]
        else:
            cells += [""] * 5
        print("| " + " | ".join(str(c) for c in cells) + " |")
    planners = [p for p in rows[0]["report"].planners] if rows else []
    if planners:
        print("\nRegistered planners (fused HLO arena / XLA temp; TF-op arena verified by replay):\n")
        print("| model | " + " | ".join("%s: TF ops | verified | fused / XLA temp" % p[0] for p in planners) + " |")
        print("|---|" + "---|---|---|" * len(planners))
        for row in rows:
            r = row["report"]
            temp = (r.xla or {}).get("temp_size_in_bytes")
            cells = [row["model"]]
            for _, plan, ok, fused in r.planners:
                cells += [mib(plan.planned_bytes), ok, "%.3f" % (fused.planned_bytes / temp) if fused and temp else ""]
            print("| " + " | ".join(str(c) for c in cells) + " |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller models, no recomputation (< 2 minutes)")
    ap.add_argument("--plot", metavar="DIR", help="a plot per model (live bytes over program order)")
    ap.add_argument("--planner", metavar="FILE", action="append", default=[],
                    help="a Python file that registers a planner (tinyflow.memory.register_planner)")
    ap.add_argument("--models", help="comma-separated names (default: all)")
    ap.add_argument("--platforms", help="comma-separated JAX platforms (cpu,cuda): one run and one table each")
    args = ap.parse_args(argv)
    if args.platforms:    # each platform in a process of its own (JAX_PLATFORMS is read once, at start)
        rest = [a for a in (sys.argv[1:] if argv is None else argv) if not a.startswith("--platforms=")]
        if "--platforms" in rest:
            del rest[rest.index("--platforms"):rest.index("--platforms") + 2]
        for platform in args.platforms.split(","):
            env = dict(os.environ, JAX_PLATFORMS=platform.strip())
            code = subprocess.run([sys.executable, os.path.abspath(__file__)] + rest, env=env).returncode
            if code:
                print("\n### %s: the run failed (exit status %d)" % (platform, code))
        return None
    for path in args.planner:
        runpy.run_path(path)
    if args.plot:
        os.makedirs(args.plot, exist_ok=True)
    names = [n for n in MODELS if not args.models or any(m.strip().lower() in n.lower()
                                                         for m in args.models.split(","))]
    rows, t0 = [], time.perf_counter()
    for name in names:
        t1 = time.perf_counter()
        rows.append(measure(name, MODELS[name], args.quick, recompute=not args.quick, plot_dir=args.plot))
        print("  %s: %.1f s" % (name, time.perf_counter() - t1), file=sys.stderr)
    table(rows, jax.default_backend())
    print("\n(%d models in %.0f s; registered planners: %s)" % (len(rows), time.perf_counter() - t0,
                                                            ", ".join(memory_pass.PLANNERS) or "none"))
    return rows


if __name__ == "__main__":
    main()
