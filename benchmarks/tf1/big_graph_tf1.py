"""benchmarks/big_graph.py's chain in TensorFlow 1.x: prints {"build", "gradients", "first_run"} seconds."""
import json
import sys
import time

import numpy as np
import tensorflow as tf


def main():
    k, n = int(sys.argv[1]), int(sys.argv[2])
    t0 = time.perf_counter()
    x = tf.placeholder(tf.float32, [n])
    y = x
    for i in range(k):
        r = i % 4
        y = tf.sin(y) if r == 0 else y * 1.01 if r == 1 else y + 0.1 if r == 2 else tf.tanh(y)
    loss = tf.reduce_sum(y)
    t1 = time.perf_counter()
    gx, = tf.gradients(loss, x)
    t2 = time.perf_counter()
    with tf.Session() as sess:
        sess.run([loss, gx], {x: np.linspace(-1, 1, n).astype(np.float32)})
    t3 = time.perf_counter()
    print(json.dumps({"version": tf.__version__, "build": t1 - t0, "gradients": t2 - t1, "first_run": t3 - t2}))


if __name__ == "__main__":
    main()
