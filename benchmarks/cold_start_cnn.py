"""The script benchmarks/cold_start.py starts again and again: the "Deep MNIST" CNN (28x28 inputs,
conv 5x5x32, pool, conv 5x5x64, pool, dense 1024, dropout, 10 logits, Adam, batch 50) built,
initialized and trained for 2 steps, then an evaluation of the loss. Runs on tinyflow, or on
TensorFlow 1.x with --tf1 (Python 3.7 syntax: the TF 1.15 venv runs it too).
Prints one JSON line: seconds for import, build, first step (init + train), the rest."""
import json
import sys
import time

T0 = time.perf_counter()
if "--tf1" in sys.argv:
    import tensorflow as tf
else:
    import tinyflow as tf
import numpy as np  # noqa: E402

T_IMPORT = time.perf_counter()


def weight(shape):
    return tf.Variable(tf.truncated_normal(shape, stddev=0.1))


def bias(shape):
    return tf.Variable(tf.constant(0.1, shape=shape))


def conv_pool(x, w, b):
    h = tf.nn.relu(tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME") + b)
    return tf.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")


def main():
    if "--unseeded" not in sys.argv:   # unseeded: as most tutorials, fresh numbers in every process
        tf.set_random_seed(0)
    x = tf.placeholder(tf.float32, [None, 784])
    y = tf.placeholder(tf.int64, [None])
    keep = tf.placeholder(tf.float32, [])
    h = conv_pool(tf.reshape(x, [-1, 28, 28, 1]), weight([5, 5, 1, 32]), bias([32]))
    h = conv_pool(h, weight([5, 5, 32, 64]), bias([64]))
    h = tf.nn.relu(tf.matmul(tf.reshape(h, [-1, 7 * 7 * 64]), weight([7 * 7 * 64, 1024])) + bias([1024]))
    logits = tf.matmul(tf.nn.dropout(h, keep), weight([1024, 10])) + bias([10])
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.AdamOptimizer(1e-4).minimize(loss)
    t_build = time.perf_counter()
    rng = np.random.RandomState(0)
    xb = rng.uniform(0, 1, (50, 784)).astype(np.float32)
    yb = rng.randint(0, 10, 50).astype(np.int64)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run([train, loss], {x: xb, y: yb, keep: 0.5})
        t_first = time.perf_counter()
        sess.run([train, loss], {x: xb, y: yb, keep: 0.5})
        final = float(sess.run(loss, {x: xb, y: yb, keep: 1.0}))
    t_end = time.perf_counter()
    print(json.dumps({"import": T_IMPORT - T0, "build": t_build - T_IMPORT, "first_step": t_first - t_build,
                      "rest": t_end - t_first, "loss": final}))


if __name__ == "__main__":
    main()
