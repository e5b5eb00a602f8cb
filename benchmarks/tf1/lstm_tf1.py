"""The LSTM step of benchmarks/lstm.py in real TensorFlow 1.x (run under a TF 1.x python; Python 3.7
is enough). Prints one JSON line: {"version", "min", "median"} seconds per step."""
import json
import sys
import time

import numpy as np
import tensorflow as tf

BATCH, STEPS, UNITS, VOCAB = 20, 35, 256, 1000


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    rng = np.random.RandomState(0)
    xb = rng.normal(size=(BATCH, STEPS, UNITS)).astype(np.float32)
    yb = rng.randint(0, VOCAB, (BATCH, STEPS)).astype(np.int64)
    x = tf.placeholder(tf.float32, [BATCH, STEPS, UNITS])
    y = tf.placeholder(tf.int64, [BATCH, STEPS])
    cell = tf.nn.rnn_cell.BasicLSTMCell(UNITS)
    outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    w = tf.Variable(rng.uniform(-0.05, 0.05, (UNITS, VOCAB)).astype(np.float32))
    b = tf.Variable(np.zeros(VOCAB, np.float32))
    logits = tf.matmul(tf.reshape(outputs, [-1, UNITS]), w) + b
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.reshape(y, [-1]), logits=logits))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    times = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(n + 3):
            t0 = time.perf_counter()
            sess.run([train, loss], {x: xb, y: yb})
            if i >= 3:
                times.append(time.perf_counter() - t0)
    print(json.dumps({"version": tf.__version__, "min": min(times), "median": float(np.median(times))}))


if __name__ == "__main__":
    main()
