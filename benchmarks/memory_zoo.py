"""A zoo of training steps for memory planners: tinyflow's plans, the exact planner's, XLA's, per platform.

    python benchmarks/memory_zoo.py                     # the small zoo (minutes on 2 cores)
    python benchmarks/memory_zoo.py --real              # real sizes: BERT-base, GPT-2 small, ResNet-50, ...
    python benchmarks/memory_zoo.py --quick             # smaller models, no recomputation: < 2 minutes
    python benchmarks/memory_zoo.py --plot DIR          # also DIR/<model>.png (needs matplotlib)
    python benchmarks/memory_zoo.py --csv DIR           # every plan in MiniMalloc's CSV, DIR/<model>/
    python benchmarks/memory_zoo.py --planner examples/passes/best_fit_planner.py   # a researcher's planner
    JAX_PLATFORMS=cuda sh benchmarks/memory_zoo_gpu.sh  # the fused model against XLA's temp on the GPU
    python benchmarks/memory_zoo.py --quick --platforms cpu,cuda     # one table per platform

The small zoo (one plain SGD training step each, float32, small batches): MLP (784-512-512-10), CNN (two
3x3 convs, 28x28), ResNet-18-style (8 basic blocks with batch norm, 16-128 channels, 32x32), LSTM
(tf.nn.dynamic_rnn, LSTMCell 128, 16 steps), a Transformer encoder block (4 heads, d 128, ff 512,
32 tokens) and a BERT-tiny encoder (embeddings, 2 layers, hidden 128, 2 heads, ff 512, 32 tokens,
vocabulary 2000, a masked-LM head over every token). The real sizes (--real; the step is compiled and
planned, never run, nor replayed): see bert_base, gpt2_small, resnet50, inception3, seq2seq_attention.

Columns (MiB), at TF-op granularity and over XLA's fused program (passes/hlo_memory.py: XLA's buffers
after fusion, XLA's schedule): the lower bound (most bytes live at one step), tinyflow's plan, the exact
planner's (passes/minimalloc.py; "optimal" when proved, else the best plan found within --time-limit);
XLA's temp (memory_analysis of the Session's executable), tinyflow's fused plan / XLA temp, XLA temp /
the exact fused plan, verified (the TF-op plan replayed in one arena: every read bit for bit). Then
recomputation: plan_recompute under a budget of 50% of the step's planned gradient arena, tinyflow's
prediction, XLA's temp of the step with those checkpoints and its ratio to the step without.
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
from tinyflow.passes import minimalloc  # noqa: E402
from tinyflow.passes.recompute_plan import predict  # noqa: E402

MiB = 1024.0 * 1024.0


def _feeds(shapes, rng, classes=10):
    """Random feeds; a shape may come as (shape, classes) for an integer feed's range."""
    out = {}
    for p, s in shapes.items():
        s, top = s if isinstance(s, tuple) else (s, classes)
        out[p] = (rng.randint(0, top, s) if p.dtype.is_integer else rng.randn(*s)).astype(p.dtype.np)
    return out


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


def encoder_layer(x, t, d, heads, ff, activation=tf.nn.relu):
    """A post-norm Transformer encoder layer: multi-head self-attention, then a feed-forward block."""
    n = tf.shape(x)[0]

    def split(v):
        return tf.transpose(tf.reshape(v, [n, t, heads, d // heads]), [0, 2, 1, 3])
    q, k, v = (split(tf.layers.dense(x, d)) for _ in range(3))
    att = tf.nn.softmax(tf.matmul(q, k, transpose_b=True) / float(np.sqrt(d // heads)))
    o = tf.reshape(tf.transpose(tf.matmul(att, v), [0, 2, 1, 3]), [n, t, d])
    h = _layer_norm(x + tf.layers.dense(o, d))
    return _layer_norm(h + tf.layers.dense(activation(tf.layers.dense(h, ff)), d))


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


# ---- real sizes (--real): planned only, the step is compiled, never run -------------------------------
def _gelu(x):
    return 0.5 * x * (1.0 + tf.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))


def _embedding(name, rows, d):
    return tf.get_variable(name, [rows, d], initializer=tf.truncated_normal_initializer(stddev=0.02))


def bert_base(q):
    """BERT-base pre-training's encoder: 12 post-norm layers, hidden 768, 12 heads, ff 3072, 128 tokens,
    vocabulary 30522, the masked-LM head on 20 positions a sequence (tied output embedding)."""
    b, t, d, layers, vocab, masked = (2, 32, 256, 2, 4000, 5) if q else (8, 128, 768, 12, 30522, 20)
    ids, pos = tf.placeholder(tf.int32, [None, t]), tf.placeholder(tf.int32, [None, masked])
    y = tf.placeholder(tf.int32, [None])
    emb = _embedding("word_embeddings", vocab, d)
    h = _layer_norm(tf.nn.embedding_lookup(emb, ids) + _embedding("position_embeddings", t, d))
    for i in range(layers):
        with tf.variable_scope("layer_%d" % i):
            h = encoder_layer(h, t, d, d // 64, 4 * d, _gelu)
    rows = tf.reshape(pos + tf.expand_dims(tf.range(tf.shape(pos)[0]) * t, 1), [-1])
    picked = tf.gather(tf.reshape(h, [-1, d]), rows)
    logits = tf.matmul(_layer_norm(tf.layers.dense(picked, d, activation=_gelu)), emb, transpose_b=True)
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    return loss, {ids: [b, t], pos: ([b, masked], t), y: ([b * masked], vocab)}


def gpt2_small(q):
    """GPT-2 small: 12 pre-norm decoder layers (causal attention), hidden 768, 12 heads, ff 3072, GELU,
    vocabulary 50257, 1024 positions, 128 tokens, next-token loss over every token, tied embedding."""
    b, t, d, layers, vocab = (2, 32, 256, 2, 4000) if q else (4, 128, 768, 12, 50257)
    ids, y = tf.placeholder(tf.int32, [None, t]), tf.placeholder(tf.int32, [None, t])
    wte = _embedding("wte", vocab, d)
    h = tf.nn.embedding_lookup(wte, ids) + _embedding("wpe", 1024, d)[:t]
    heads = d // 64
    mask = tf.constant(np.triu(np.full((t, t), -1e9, np.float32), 1))
    n = tf.shape(ids)[0]

    def split(v):
        return tf.transpose(tf.reshape(v, [n, t, heads, 64]), [0, 2, 1, 3])
    for i in range(layers):
        with tf.variable_scope("h%d" % i):
            q_, k, v = tf.split(tf.layers.dense(_layer_norm(h), 3 * d), 3, axis=-1)
            att = tf.nn.softmax(tf.matmul(split(q_), split(k), transpose_b=True) / 8.0 + mask)
            o = tf.reshape(tf.transpose(tf.matmul(att, split(v)), [0, 2, 1, 3]), [n, t, d])
            h = h + tf.layers.dense(o, d)
            h = h + tf.layers.dense(tf.layers.dense(_layer_norm(h), 4 * d, activation=_gelu), d)
    logits = tf.matmul(tf.reshape(_layer_norm(h), [-1, d]), wte, transpose_b=True)
    loss = tf.losses.sparse_softmax_cross_entropy(tf.reshape(y, [-1]), logits)
    return loss, {ids: ([b, t], vocab), y: ([b, t], vocab)}


def _slim_net(arg_scope, net, size, batch, q):
    import tinyflow.api.slim as slim
    b, size = (2, 96 if size == 224 else 107) if q else (batch, size)
    x, y = tf.placeholder(tf.float32, [None, size, size, 3]), tf.placeholder(tf.int32, [None])
    with slim.arg_scope(arg_scope()):
        logits, _ = net(x, num_classes=1000, is_training=True)
    loss = tf.losses.sparse_softmax_cross_entropy(y, tf.reshape(logits, [-1, 1000]))
    return loss, {x: [b, size, size, 3], y: ([b], 1000)}


def resnet50(q):
    """slim's resnet_v1_50 (batch norm in training mode), 224x224, batch 8, 1000 classes."""
    from tinyflow.api.slim.nets import resnet_utils, resnet_v1
    return _slim_net(resnet_utils.resnet_arg_scope, resnet_v1.resnet_v1_50, 224, 8, q)


def inception3(q):
    """slim's inception_v3 (with its auxiliary logits' tower, batch norm in training mode), 299x299, batch 8."""
    from tinyflow.api.slim.nets import inception
    return _slim_net(inception.inception_v3_arg_scope, inception.inception_v3, 299, 8, q)


def seq2seq_attention(q):
    """An NMT model: embeddings 512, a 2-layer LSTM encoder (512) over 30 source tokens, an LSTM decoder
    (512) with Luong attention (AttentionWrapper, teacher forcing) over 30 target tokens, vocabularies
    16000, batch 32."""
    b, t, d, vocab = (4, 8, 64, 500) if q else (32, 30, 512, 16000)
    src, tgt_in, tgt_out = (tf.placeholder(tf.int32, [None, t]) for _ in range(3))
    with tf.variable_scope("encoder"):
        cells = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(d) for _ in range(2)])
        memory, _ = tf.nn.dynamic_rnn(cells, tf.nn.embedding_lookup(_embedding("src", vocab, d), src), dtype=tf.float32)
    with tf.variable_scope("decoder"):
        attention = tf.contrib.seq2seq.LuongAttention(d, memory)
        cell = tf.contrib.seq2seq.AttentionWrapper(tf.nn.rnn_cell.LSTMCell(d), attention, attention_layer_size=d)
        out, _ = tf.nn.dynamic_rnn(cell, tf.nn.embedding_lookup(_embedding("tgt", vocab, d), tgt_in), dtype=tf.float32)
    logits = tf.layers.dense(tf.reshape(out, [-1, d]), vocab)
    loss = tf.losses.sparse_softmax_cross_entropy(tf.reshape(tgt_out, [-1]), logits)
    return loss, {src: ([b, t], vocab), tgt_in: ([b, t], vocab), tgt_out: ([b, t], vocab)}


REAL = {"BERT-base (12 layers)": bert_base, "GPT-2 small": gpt2_small, "ResNet-50": resnet50,
        "Inception v3": inception3, "seq2seq + attention": seq2seq_attention}


def _step(loss, checkpoints=None):
    opt = tf.train.GradientDescentOptimizer(0.01)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        return opt.minimize(loss, checkpoints=checkpoints)


def measure(name, build, quick, recompute=True, plot_dir=None, real=False, csv_dir=None, exact=True):
    """One row: the step's MemoryReport (with the exact planner's plans when `exact`), and
    plan_recompute at 50% with XLA's figure. real: the step is planned only (no replay, nothing run)."""
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
            planners = memory_pass.default_planners() + (["minimalloc"] if exact else [])
            r = sess.memory_report([train, loss], feeds, verify=False if real else "auto", planners=planners)
            row["report_s"] = time.perf_counter() - t0
            row["report"] = r
            if plot_dir:
                _plot(r, plot_dir, name)
            if csv_dir:
                r.export_csv(os.path.join(csv_dir, _file_name(name)))
            if recompute:
                xs = [v._as_graph_element() for v in tf.trainable_variables()]
                plain, _ = predict(loss, xs, None, shapes)
                plan = tm.plan_recompute(loss, int(0.5 * plain), shapes)
                train2 = _step(loss, plan.checkpoints)
                sess.run(tf.global_variables_initializer())
                r2 = sess.memory_report([train2, loss], feeds, verify=False)
                row.update(budget=0.5 * plain, plan=plan, recompute=r2)
    return row


def _file_name(name):
    return "".join(c if c.isalnum() else "_" for c in name).strip("_")


def _plot(report, plot_dir, name):
    path = os.path.join(plot_dir, _file_name(name) + ".png")
    try:
        report.name = name
        report.plot(path)
        print("  plot: %s" % path, file=sys.stderr)
    except ImportError as e:
        print("  no plot: %s" % e, file=sys.stderr)


def _exact(report, granularity):
    """The exact planner's plan of a report at one granularity (1: TF ops, 3: fused HLO), or None."""
    return next((row[granularity] for row in report.planners if row[0] == "minimalloc"), None)


def table(rows, platform):
    mib = lambda v: "" if v is None else "%.3f" % (v / MiB)

    def exact(plan):
        if plan is None:
            return ""
        return "%s (%s)" % (mib(plan.planned_bytes), "optimal" if plan.optimal else "timed out, best found")
    print("\n### %s (%s, jax %s)\n" % (platform, jax.devices()[0].device_kind, jax.__version__))
    print("| model | TF ops | HLO instrs | TF ops: lower bound | tinyflow | exact | fused HLO: lower bound | tinyflow "
          "| exact | XLA temp | tinyflow fused / XLA temp | XLA / exact | verified |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        r = row["report"]
        temp = (r.xla or {}).get("temp_size_in_bytes")
        fused, best = r.fused, _exact(r, 3)
        cells = [row["model"], len(r.plan.steps), len(fused.steps) if fused is not None else "",
                 mib(r.lower_bound_bytes), mib(r.planned_bytes), exact(_exact(r, 1)),
                 mib(fused and fused.lower_bound_bytes), mib(fused and fused.planned_bytes), exact(best), mib(temp),
                 "%.3f" % (fused.planned_bytes / temp) if fused is not None and temp else "",
                 "%.3f" % (temp / best.planned_bytes) if best is not None and temp and best.planned_bytes else "",
                 "not run" if r.verified is None else r.verified]
        print("| " + " | ".join(str(c) for c in cells) + " |")
    if any("plan" in row for row in rows):
        print("\nRecomputation (plan_recompute under 50% of the step's planned gradient arena):\n")
        print("| model | budget | predicted | fits | XLA temp | temp vs none |")
        print("|---|---|---|---|---|---|")
        for row in rows:
            if "plan" in row:
                temp = (row["report"].xla or {}).get("temp_size_in_bytes")
                t2 = (row["recompute"].xla or {}).get("temp_size_in_bytes")
                print("| %s | %s | %s | %s | %s | %s |" % (row["model"], mib(row["budget"]),
                                                          mib(row["plan"].predicted_peak_bytes), row["plan"].fits,
                                                          mib(t2), "%.2fx" % (t2 / temp) if t2 and temp else ""))
    planners = [p for p in rows[0]["report"].planners if p[0] != "minimalloc"] if rows else []
    if planners:
        print("\nRegistered planners (fused HLO arena / XLA temp; TF-op arena verified by replay):\n")
        print("| model | " + " | ".join("%s: TF ops | verified | fused / XLA temp" % p[0] for p in planners) + " |")
        print("|---|" + "---|---|---|" * len(planners))
        for row in rows:
            r = row["report"]
            temp = (r.xla or {}).get("temp_size_in_bytes")
            cells = [row["model"]]
            for _, plan, ok, fused in (p for p in r.planners if p[0] != "minimalloc"):
                cells += [mib(plan.planned_bytes), ok, "%.3f" % (fused.planned_bytes / temp) if fused and temp else ""]
            print("| " + " | ".join(str(c) for c in cells) + " |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller models, no recomputation (< 2 minutes)")
    ap.add_argument("--real", action="store_true",
                    help="the real-size zoo (BERT-base, GPT-2 small, ResNet-50, Inception v3, seq2seq): planned only")
    ap.add_argument("--plot", metavar="DIR", help="a plot per model (live bytes over program order)")
    ap.add_argument("--csv", metavar="DIR", help="each model's buffers and plans in MiniMalloc's CSV (DIR/<model>/)")
    ap.add_argument("--planner", metavar="FILE", action="append", default=[],
                    help="a Python file that registers a planner (tinyflow.memory.register_planner)")
    ap.add_argument("--time-limit", type=float, default=10.0, metavar="S",
                    help="seconds the exact planner (minimalloc) searches each plan (default 10; 0: not run)")
    ap.add_argument("--no-recompute", action="store_true", help="no recomputation table")
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
    minimalloc.TIME_LIMIT_S = args.time_limit
    for d in (args.plot, args.csv):
        if d:
            os.makedirs(d, exist_ok=True)
    zoo = REAL if args.real else MODELS
    names = [n for n in zoo if not args.models or any(m.strip().lower() in n.lower() for m in args.models.split(","))]
    rows, t0 = [], time.perf_counter()
    for name in names:
        t1 = time.perf_counter()
        rows.append(measure(name, zoo[name], args.quick, not (args.quick or args.real or args.no_recompute),
                            args.plot, args.real, args.csv, args.time_limit > 0))
        print("  %s: %.1f s" % (name, time.perf_counter() - t1), file=sys.stderr)
    table(rows, jax.default_backend())
    print("\n(%d models in %.0f s; exact planner: %g s a plan; registered planners: %s)"
          % (len(rows), time.perf_counter() - t0, args.time_limit,
             ", ".join(memory_pass.default_planners()) or "none"))
    return rows


if __name__ == "__main__":
    main()
