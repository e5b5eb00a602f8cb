"""A training step that writes 6 histogram summaries and a scalar every step (issue 30, item 5), against
the same step without summaries: what the summaries cost. Run it with another tinyflow on PYTHONPATH
for a before/after (the histograms were bucketed on the host before: float64 copies of every
tensor, np.searchsorted and a Python loop per histogram per step).

    python benchmarks/summaries.py [--steps 30] [--tf1] [--images]

--images adds an image summary (3 of the batch's 28x28 inputs, PNG-encoded) to every step.
"""
import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
if "tinyflow" not in os.environ.get("PYTHONPATH", ""):
    sys.path.insert(0, os.path.dirname(HERE))
import numpy as np  # noqa: E402

if "--tf1" in sys.argv:   # the same script under TF 1.15 (~/.tf1-oracle/bin/python benchmarks/summaries.py --tf1)
    import tensorflow as tf  # noqa: E402
else:
    import tinyflow as tf  # noqa: E402
from _common import step_times  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--tf1", action="store_true")
    p.add_argument("--images", action="store_true", help="also an image summary of 3 inputs every step")
    args = p.parse_args()
    tf.set_random_seed(0)
    x = tf.placeholder(tf.float32, [None, 784])
    y = tf.placeholder(tf.int64, [None])
    h = x
    for i, units in enumerate((512, 256, 10)):   # 3 layers: 6 histograms (weights, biases)
        w = tf.Variable(tf.truncated_normal([int(h.shape[1]), units], stddev=0.05), name="w%d" % i)
        b = tf.Variable(tf.zeros([units]), name="b%d" % i)
        tf.summary.histogram("w%d" % i, w)
        tf.summary.histogram("b%d" % i, b)
        h = tf.matmul(h, w) + b
        if units != 10:
            h = tf.nn.relu(h)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
    tf.summary.scalar("loss", loss)
    if args.images:
        tf.summary.image("inputs", tf.reshape(x, [-1, 28, 28, 1]), max_outputs=3)
    train = tf.train.AdamOptimizer(1e-3).minimize(loss)
    merged = tf.summary.merge_all()
    rng = np.random.RandomState(0)
    feed = {x: rng.rand(64, 784).astype(np.float32), y: rng.randint(0, 10, 64)}
    with tf.Session() as sess, tempfile.TemporaryDirectory() as logdir:
        sess.run(tf.global_variables_initializer())
        writer = tf.summary.FileWriter(logdir)
        step = [0]

        def with_summaries():
            s, _ = sess.run([merged, train], feed)
            writer.add_summary(s, step[0])
            step[0] += 1

        (t_sum, m_sum), (t_plain, m_plain) = step_times([with_summaries, lambda: sess.run(train, feed)], args.steps)
        writer.close()
    where = os.path.dirname(os.path.dirname(tf.__file__))
    print("%s from %s" % ("TF " + tf.__version__ if args.tf1 else "tinyflow", where))
    what = "step + 6 histograms + scalar" + (" + image" if args.images else "")
    print("%s, written: fastest %.2f ms, median %.2f ms" % (what, t_sum * 1e3, m_sum * 1e3))
    print("step alone:                            fastest %.2f ms, median %.2f ms" % (t_plain * 1e3, m_plain * 1e3))
    print("summaries cost: %.2fx the step (median)" % (m_sum / m_plain))


if __name__ == "__main__":
    main()
