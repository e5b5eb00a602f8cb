"""The cases of benchmarks/pooling.py in real TensorFlow 1.x (run under a TF 1.x python). argv: the
number of timed calls, the cases as a Python literal, 1 to time CPU seconds instead of wall seconds.
Prints one JSON line: {"version", "times": {case name: fastest seconds}}."""
import ast
import json
import sys
import time

import numpy as np
import tensorflow as tf


def _full(v):
    return [1] + list(v) + [1]


def main():
    n, cases = int(sys.argv[1]), ast.literal_eval(sys.argv[2])
    clock = time.process_time if len(sys.argv) > 3 and sys.argv[3] == "1" else time.perf_counter
    rng = np.random.RandomState(0)
    times = {}
    for name, kind, xs, k, s, pad in cases:
        tf.reset_default_graph()
        x = tf.Variable(rng.randint(0, 5, size=xs).astype(np.float32))
        if kind.startswith("conv"):
            w = tf.Variable(rng.randn(*k).astype(np.float32))
            y = tf.nn.conv2d(x, w, _full(s), pad)
            wrt = w if kind == "conv_dw" else x
        else:
            pool = {"max": tf.nn.max_pool, "avg": tf.nn.avg_pool, "max3d": tf.nn.max_pool3d,
                    "avg3d": tf.nn.avg_pool3d}[kind]
            y, wrt = pool(x, _full(k), _full(s), pad), x
        g = tf.constant(rng.randn(*y.shape.as_list()).astype(np.float32))
        out = y if kind == "conv" else tf.gradients(y, wrt, grad_ys=g)[0]
        total = tf.reduce_sum(out * tf.Variable(rng.randn(*out.shape.as_list()).astype(np.float32)))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(total)
            ts = []
            for _ in range(n):
                t0 = clock()
                sess.run(total)
                ts.append(clock() - t0)
        times[name] = min(ts)
    print(json.dumps({"version": tf.__version__, "times": times}))


if __name__ == "__main__":
    main()
