"""A data-parallel training run for tests/runtime/test_data_parallel.py (run in its own process: the
device count must be set before JAX starts). Prints one JSON line of what it trained.

    python dp_worker.py DEVICES MODEL [PROCESS_ID NUM_PROCESSES PORT CKPT]
"""
import json
import os
import sys

os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=%s" % sys.argv[1]

import numpy as np  # noqa: E402

import tinyflow as tf  # noqa: E402


def mlp():
    x = tf.placeholder(tf.float32, [None, 6])
    y = tf.placeholder(tf.int64, [None])
    h = tf.layers.dense(x, 16, activation=tf.nn.relu, kernel_initializer=tf.constant_initializer(0.05))
    h = tf.nn.dropout(h, keep_prob=0.7, seed=3)
    logits = tf.layers.dense(h, 3, kernel_initializer=tf.constant_initializer(-0.02))
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    return x, y, logits, loss, tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)


def cnn():
    x = tf.placeholder(tf.float32, [None, 6])
    y = tf.placeholder(tf.int64, [None])
    img = tf.reshape(x, [-1, 2, 3, 1])
    # no conv bias before batch norm: its gradient is 0 up to rounding, which Adam would blow up
    h = tf.layers.conv2d(img, 4, 2, padding="same", use_bias=False, kernel_initializer=tf.constant_initializer(0.1))
    h = tf.layers.batch_normalization(h, training=True)
    logits = tf.layers.dense(tf.layers.flatten(tf.nn.relu(h)), 3, kernel_initializer=tf.constant_initializer(0.03))
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train = tf.train.AdamOptimizer(0.05).minimize(loss)
    return x, y, logits, loss, train


OPTIMIZERS = {
    "sgd": lambda: tf.train.GradientDescentOptimizer(0.1), "momentum": lambda: tf.train.MomentumOptimizer(0.1, 0.9),
    "nesterov": lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    "adam": lambda: tf.train.AdamOptimizer(0.05), "adagrad": lambda: tf.train.AdagradOptimizer(0.1),
    "rmsprop": lambda: tf.train.RMSPropOptimizer(0.05), "adadelta": lambda: tf.train.AdadeltaOptimizer(1.0),
}


def every_optimizer():
    """In one process of 4 devices: each optimizer, with tf.metrics and a summary, trained by a
    plain Session and by a data-parallel one, from the same start; prints their values."""
    rs = np.random.RandomState(1)
    xs, ys = rs.randn(8, 6).astype(np.float32), rs.randint(0, 3, 8)
    out = {}
    for name, make in OPTIMIZERS.items():
        for config in (None, tf.distribute.DataParallel()):
            tf.reset_default_graph()
            x = tf.placeholder(tf.float32, [None, 6])
            y = tf.placeholder(tf.int64, [None])
            logits = tf.layers.dense(x, 3, kernel_initializer=tf.constant_initializer(0.1))
            loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
            train = make().minimize(loss)
            acc, acc_up = tf.metrics.accuracy(y, tf.argmax(logits, 1))
            summary = tf.summary.scalar("loss", loss)
            sess = tf.Session(config=config)
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            for _ in range(3):
                sess.run([train, acc_up], {x: xs, y: ys})
            got = [np.asarray(v).tolist() for v in sess.run(tf.trainable_variables())]
            got.append(float(sess.run(acc)))
            got.append(sess.run(summary, {x: xs, y: ys}).hex())
            out.setdefault(name, []).append(got)
    print(json.dumps(out))


def sharded_variables():
    """Momentum on a layer with a 1 MiB kernel: one device, replicated over 4, and split over 4 (ZeRO-style
    shard_variables="auto"); prints the trained values and each data-parallel session's bytes per device."""
    rs = np.random.RandomState(2)
    xs, ys = rs.randn(8, 512).astype(np.float32), rs.randint(0, 3, 8)
    w0 = (rs.randn(512, 512) * 0.05).astype(np.float32)
    out = {}
    for name, config in (("one", None), ("replicated", tf.distribute.DataParallel()),
                         ("sharded", tf.distribute.DataParallel(shard_variables="auto"))):
        tf.reset_default_graph()
        tf.set_random_seed(3)
        x = tf.placeholder(tf.float32, [None, 512])
        y = tf.placeholder(tf.int64, [None])
        # a random start (the same in each session): Adam turns gradients that are 0 up to rounding
        # into full steps, so a symmetric start would compare rounding, not training
        h = tf.layers.dense(x, 512, tf.nn.tanh, kernel_initializer=tf.constant_initializer(w0))
        loss = tf.losses.sparse_softmax_cross_entropy(y, tf.layers.dense(h, 3))
        train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
        sess = tf.Session(config=config)
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(train, {x: xs, y: ys})
        values = [np.asarray(v).tolist() for v in sess.run(tf.trainable_variables())]
        per_device = None
        if config is not None:
            per_device = sess._placement.bytes_per_device(list(sess._values.values()))
        out[name] = {"values": values, "bytes_per_device": per_device}
    print(json.dumps(out))


def main():
    if sys.argv[2] == "every_optimizer":
        return every_optimizer()
    if sys.argv[2] == "sharded_variables":
        return sharded_variables()
    devices, model = int(sys.argv[1]), sys.argv[2]
    pid, nproc = (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else (0, 1)
    if nproc > 1:
        tf.distribute.initialize("127.0.0.1:" + sys.argv[5], nproc, pid)
    tf.set_random_seed(1)
    x, y, logits, loss, train = {"mlp": mlp, "cnn": cnn}[model]()
    rs = np.random.RandomState(0)
    xs, ys = rs.randn(8, 6).astype(np.float32), rs.randint(0, 3, 8)
    rows = slice(pid * 8 // nproc, (pid + 1) * 8 // nproc)   # this process's rows of the global batch
    config = tf.distribute.DataParallel() if devices * nproc > 1 else None
    sess = tf.Session(config=config)
    sess.run(tf.global_variables_initializer())
    losses, trajectory = [], []
    for _ in range(4):
        losses.append(float(sess.run([loss, train], {x: xs[rows], y: ys[rows]})[0]))
        trajectory.append([np.asarray(v).tolist() for v in sess.run(tf.trainable_variables())])
    out = {"losses": losses, "trajectory": trajectory, "logits_rows": int(sess.run(logits, {x: xs[rows]}).shape[0])}
    if devices * nproc > 1:
        out["all_reduce"] = "all-reduce" in sess.lowered([loss, train], {x: xs[rows], y: ys[rows]}).hlo
        try:
            sess.run(loss, {x: xs[:3], y: ys[:3]})
        except tf.errors.InvalidArgumentError as e:
            out["indivisible"] = str(e)
    if len(sys.argv) > 6:
        out["checkpoint"] = tf.train.Saver().save(sess, sys.argv[6])
    print(json.dumps(out), flush=True)   # the last line of stdout is what the test reads


if __name__ == "__main__":
    main()
