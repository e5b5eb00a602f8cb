"""Four TF1 training/gradient steps written with tf.nn and tf.get_variable only, so that one file runs
unchanged under TF 1.15, under TF 2.x through `tf.compat.v1` (what a TF1 user runs instead today) and
under tinyflow (`python -m tinyflow`): issue 40's anchors.

    python anchor_workloads.py WORKLOAD [STEPS]     # one JSON line: {"version", "min", "median", "cpu"}

WORKLOAD: mlp (784-512-512-10, Adam, batch 128), cnn (conv32-pool-conv64-pool-fc256, Adam, batch 100,
28x28x1), lstm (2 layers of 256 unrolled by hand over 20 steps, batch 32, Adam), wideconv (the input
gradient of a conv whose 3x128 filter spans a 128-wide embedding, 100 filters, batch 64, 60 words).
"""
import json
import sys
import time

import numpy as np
import tensorflow.compat.v1 as tf

if hasattr(tf, "disable_v2_behavior"):
    tf.disable_v2_behavior()


def dense(x, n, name, act=None):
    w = tf.get_variable(name + "_w", [int(x.shape[-1]), n], initializer=tf.glorot_uniform_initializer(seed=1))
    b = tf.get_variable(name + "_b", [n], initializer=tf.zeros_initializer())
    y = tf.nn.bias_add(tf.matmul(x, w), b)
    return act(y) if act else y


def conv(x, k, n, name):
    w = tf.get_variable(name + "_w", [k, k, int(x.shape[-1]), n], initializer=tf.glorot_uniform_initializer(seed=2))
    b = tf.get_variable(name + "_b", [n], initializer=tf.zeros_initializer())
    return tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"), b))


def pool(x):
    return tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")


def build(name, rng):
    """(fetches, feed_dict) of one step of the workload."""
    if name == "mlp":
        x, y = tf.placeholder(tf.float32, [None, 784]), tf.placeholder(tf.int64, [None])
        h = dense(dense(x, 512, "h1", tf.nn.relu), 512, "h2", tf.nn.relu)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=dense(h, 10, "out")))
        feed = {x: rng.rand(128, 784).astype(np.float32), y: rng.randint(0, 10, 128)}
    elif name == "cnn":
        x, y = tf.placeholder(tf.float32, [None, 28, 28, 1]), tf.placeholder(tf.int64, [None])
        h = pool(conv(pool(conv(x, 5, 32, "c1")), 5, 64, "c2"))
        h = dense(tf.reshape(h, [-1, 7 * 7 * 64]), 256, "fc", tf.nn.relu)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=dense(h, 10, "out")))
        feed = {x: rng.rand(100, 28, 28, 1).astype(np.float32), y: rng.randint(0, 10, 100)}
    elif name == "lstm":
        x, y = tf.placeholder(tf.float32, [32, 20, 128]), tf.placeholder(tf.int64, [32])
        inp = tf.unstack(x, axis=1)
        for layer in range(2):
            w = tf.get_variable("lstm%d_w" % layer, [int(inp[0].shape[-1]) + 256, 1024],
                                initializer=tf.glorot_uniform_initializer(seed=3))
            b = tf.get_variable("lstm%d_b" % layer, [1024], initializer=tf.zeros_initializer())
            c = h = tf.zeros([32, 256])
            outs = []
            for xt in inp:
                i, j, f, o = tf.split(tf.matmul(tf.concat([xt, h], 1), w) + b, 4, axis=1)
                c = c * tf.sigmoid(f + 1.0) + tf.sigmoid(i) * tf.tanh(j)
                h = tf.tanh(c) * tf.sigmoid(o)
                outs.append(h)
            inp = outs
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=dense(h, 10, "out")))
        feed = {x: rng.rand(32, 20, 128).astype(np.float32), y: rng.randint(0, 10, 32)}
    elif name == "wideconv":
        x = tf.placeholder(tf.float32, [64, 60, 128, 1])
        w = tf.get_variable("f", [3, 128, 1, 100], initializer=tf.glorot_uniform_initializer(seed=4))
        out = tf.nn.relu(tf.nn.conv2d(x, w, [1, 1, 1, 1], "VALID"))
        grad, = tf.gradients(tf.reduce_sum(out * out), [x])
        return [grad], {x: rng.rand(64, 60, 128, 1).astype(np.float32)}
    else:
        raise SystemExit("unknown workload %r" % name)
    return [tf.train.AdamOptimizer(1e-3).minimize(loss), loss], feed


def main():
    name, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 50
    rng = np.random.RandomState(0)
    fetches, feed = build(name, rng)
    times, cpu = [], []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(n + 5):
            t0, c0 = time.perf_counter(), time.process_time()
            sess.run(fetches, feed)
            if i >= 5:
                times.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)   # all the process's threads: the work, steadier when loaded
    print(json.dumps({"version": tf.__version__, "min": min(times), "median": float(np.median(times)),
                      "cpu": float(np.median(cpu))}))


if __name__ == "__main__":
    main()
