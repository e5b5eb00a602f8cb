"""GPT-2-style sampling, tinyflow beside TF 1.15: a tf.while_loop whose `past` (the key/value cache)
and output grow by one token per iteration (shape_invariants with None), as openai/gpt-2's
sample.py writes it: embedding, 2 transformer layers, attention over the past concatenated on the
time axis, greedy tokens (argmax, so both frameworks give the same tokens).

    python benchmarks/gpt2_sampling.py [--tokens 40 100 200]
    TF1_PYTHON=/root/.tf1-oracle/bin/python python benchmarks/gpt2_sampling.py   # adds TF 1.15's column

Prints, per token count, the first run (compiles included) and a second run in seconds, and
whether the tokens equal TF's.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

VOCAB, EMBD, HEADS, LAYERS, CTX = 64, 32, 4, 2, 256


def weights():
    r = np.random.RandomState(0)
    w = {"wte": r.randn(VOCAB, EMBD), "wpe": r.randn(CTX + 4, EMBD) * 0.1}
    for i in range(LAYERS):
        w["attn%d" % i] = r.randn(EMBD, 3 * EMBD) / np.sqrt(EMBD)
        w["proj%d" % i] = r.randn(EMBD, EMBD) / np.sqrt(EMBD)
        w["fc%d" % i] = r.randn(EMBD, 4 * EMBD) / np.sqrt(EMBD)
        w["out%d" % i] = r.randn(4 * EMBD, EMBD) / np.sqrt(4 * EMBD)
    return {k: v.astype(np.float32) for k, v in w.items()}


def build(tf, length):
    """The sampling graph: returns (context placeholder, tokens tensor)."""
    w = {k: tf.constant(v) for k, v in weights().items()}

    def shape_list(x):
        static, dynamic = x.shape.as_list(), tf.shape(x)
        return [dynamic[i] if s is None else s for i, s in enumerate(static)]

    def norm(x):
        u = tf.reduce_mean(x, axis=-1, keepdims=True)
        s = tf.reduce_mean(tf.square(x - u), axis=-1, keepdims=True)
        return (x - u) * tf.rsqrt(s + 1e-5)

    def split_heads(x):
        b, t, _ = shape_list(x)
        return tf.transpose(tf.reshape(x, [b, t, HEADS, EMBD // HEADS]), [0, 2, 1, 3])

    def attention_mask(nd, ns, dtype):
        i = tf.range(nd)[:, None]
        j = tf.range(ns)
        return tf.cast(i >= j - ns + nd, dtype)

    def attn(x, layer, past):
        b, t, _ = shape_list(x)
        c = tf.reshape(tf.matmul(tf.reshape(x, [-1, EMBD]), w["attn%d" % layer]), [b, t, 3 * EMBD])
        q, k, v = map(split_heads, tf.split(c, 3, axis=2))
        present = tf.stack([k, v], axis=1)
        if past is not None:
            pk, pv = tf.unstack(past, axis=1)
            k = tf.concat([pk, k], axis=-2)
            v = tf.concat([pv, v], axis=-2)
        wt = tf.matmul(q, k, transpose_b=True) * tf.rsqrt(float(EMBD // HEADS))
        _, _, nd, ns = shape_list(wt)
        mask = tf.reshape(attention_mask(nd, ns, wt.dtype), [1, 1, nd, ns])
        wt = tf.nn.softmax(wt * mask - 1e10 * (1 - mask))
        a = tf.transpose(tf.matmul(wt, v), [0, 2, 1, 3])
        a = tf.reshape(a, [b, t, EMBD])
        return tf.reshape(tf.matmul(tf.reshape(a, [-1, EMBD]), w["proj%d" % layer]), [b, t, EMBD]), present

    def model(tokens, past):
        b, t = shape_list(tokens)
        past_length = 0 if past is None else tf.shape(past)[-2]
        h = tf.gather(w["wte"], tokens) + tf.gather(w["wpe"], past_length + tf.range(t))[None]
        pasts = tf.unstack(past, axis=1) if past is not None else [None] * LAYERS
        presents = []
        for layer, p in enumerate(pasts):
            a, present = attn(norm(h), layer, p)
            h = h + a
            m = tf.nn.relu(tf.matmul(tf.reshape(norm(h), [-1, EMBD]), w["fc%d" % layer]))
            h = h + tf.reshape(tf.matmul(m, w["out%d" % layer]), [b, t, EMBD])
            presents.append(present)
        logits = tf.reshape(tf.matmul(tf.reshape(norm(h), [-1, EMBD]), w["wte"], transpose_b=True), [b, t, VOCAB])
        return logits, tf.stack(presents, axis=1)

    uniform = np.random.RandomState(1).uniform(1e-6, 1, (CTX + 4, VOCAB))
    gumbel = tf.constant(-np.log(-np.log(uniform)).astype(np.float32))
    context = tf.placeholder(tf.int32, [1, 3])   # a static start, as generate_unconditional_samples.py
    _, presents = model(context, None)

    def body(past, prev, output):
        logits, new = model(prev[:, None], past)
        # sampling with fixed Gumbel noise per position (the Gumbel-max trick): tokens that vary, the same in
        # both frameworks (tf.multinomial's own random stream would differ)
        noise = tf.gather(gumbel, tf.shape(output)[1])
        token = tf.argmax(logits[:, -1, :] * 0.2 + noise, axis=-1, output_type=tf.int32)   # temperature 5
        return [tf.concat([past, new], axis=-2), token, tf.concat([output, token[:, None]], axis=1)]

    past_shape = [1, LAYERS, 2, HEADS, None, EMBD // HEADS]
    _, _, tokens = tf.while_loop(lambda *a: True, body, [presents, context[:, -1], context],
                                 shape_invariants=[tf.TensorShape(past_shape), tf.TensorShape([1]),
                                                   tf.TensorShape([1, None])],
                                 maximum_iterations=length, back_prop=False)
    return context, tokens


def measure(tf, counts):
    """{count: (first run s, second run s, tokens)}, each count its own graph and session."""
    out = {}
    for n in counts:
        with tf.Graph().as_default():
            context, tokens = build(tf, n)
            with tf.Session() as sess:
                feed = {context: [[1, 2, 3]]}
                t = time.perf_counter()
                sess.run(tokens, feed)
                first = time.perf_counter() - t
                t = time.perf_counter()
                got = sess.run(tokens, feed)
                out[n] = (first, time.perf_counter() - t, got.tolist())
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tokens", type=int, nargs="+", default=[40, 100, 200])
    p.add_argument("--tf1", action="store_true", help=argparse.SUPPRESS)   # the oracle's side: JSON out
    args = p.parse_args()
    if args.tf1:
        import tensorflow as tf
        print(json.dumps({str(k): v for k, v in measure(tf, args.tokens).items()}))
        return
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import tinyflow as tf
    ours = measure(tf, args.tokens)
    theirs = {}
    if os.environ.get("TF1_PYTHON"):
        res = subprocess.run([os.environ["TF1_PYTHON"], os.path.abspath(__file__), "--tf1", "--tokens"]
                             + [str(n) for n in args.tokens], capture_output=True, text=True, check=True)
        theirs = {int(k): v for k, v in json.loads(res.stdout.strip().splitlines()[-1]).items()}
    print("| tokens | tinyflow first run | tinyflow next run | TF 1.15 first run | TF 1.15 next run | ratio (first) "
          "| same tokens |")
    print("|---:|---:|---:|---:|---:|---:|---|")
    for n, (first, nxt, tokens) in ours.items():
        tf1 = theirs.get(n)
        cols = ["%.2f s" % tf1[0], "%.2f s" % tf1[1], "%.1fx" % (first / tf1[0]), str(tokens == tf1[2])] if tf1 \
            else ["-", "-", "-", "-"]
        print("| %d | %.2f s | %.2f s | %s |" % (n, first, nxt, " | ".join(cols)))


if __name__ == "__main__":
    main()
