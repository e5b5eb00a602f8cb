"""An Estimator training step against the same step in a hand-written Session loop, in one process.

The model is an MLP (64-256-256-10, ReLU, softmax cross entropy, Adagrad, batch 64) over the same
tf.data pipeline in both: `Dataset.from_tensor_slices(...).repeat().batch(64)` read through a one-shot
iterator. The hand-written loop runs `sess.run([train_op, loss])`; the Estimator runs its
MonitoredTrainingSession with its default hooks (StopAtStep, NanTensor, LoggingTensor, StepCounter,
SummarySaver, CheckpointSaver every 600 s). Each step's time is the gap between consecutive steps
(a hook's after_run for the Estimator); the loops alternate in rounds so a noisy neighbour hits both.
steps/s comes from the fastest step, the median beside it. Target: Estimator / Session <= 1.10x.

    python benchmarks/estimator.py [--steps N] [--rounds R]
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tinyflow as tf  # noqa: E402

SIZES, BATCH = [64, 256, 256, 10], 64
_rng = np.random.RandomState(0)
X = _rng.randn(4096, SIZES[0]).astype(np.float32)
Y = _rng.randint(0, SIZES[-1], 4096).astype(np.int64)


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat().batch(BATCH)


def model(features, labels):
    net = features["x"]
    for i, n in enumerate(SIZES[1:-1]):
        net = tf.layers.dense(net, n, tf.nn.relu, name="hidden%d" % i)
    logits = tf.layers.dense(net, SIZES[-1], name="logits")
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.train.AdagradOptimizer(0.05).minimize(loss, global_step=tf.train.get_or_create_global_step())
    return loss, train_op


def model_fn(features, labels, mode):
    loss, train_op = model(features, labels)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


class StepTimes(tf.train.SessionRunHook):
    def __init__(self):
        self.times, self._last = [], None

    def after_run(self, run_context, run_values):
        now = time.perf_counter()
        if self._last is not None:
            self.times.append(now - self._last)
        self._last = now


def estimator_steps(est, n):
    hook = StepTimes()
    est.train(input_fn, hooks=[hook], steps=n)
    return hook.times[5:]  # the first steps compile


def session_steps(sess, fetches, n):
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        sess.run(fetches)
        times.append(time.perf_counter() - t0)
    return times


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    tf.logging.set_verbosity(tf.logging.WARN)
    est = tf.estimator.Estimator(model_fn, model_dir=tempfile.mkdtemp())
    graph = tf.Graph()
    with graph.as_default():
        features, labels = input_fn().make_one_shot_iterator().get_next()
        loss, train_op = model(features, labels)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        session_steps(sess, [train_op, loss], 10)  # compile
        est_times, sess_times = [], []
        for _ in range(args.rounds):
            est_times += estimator_steps(est, args.steps)
            sess_times += session_steps(sess, [train_op, loss], args.steps)
    e_min, s_min = min(est_times), min(sess_times)
    e_med, s_med = float(np.median(est_times)), float(np.median(sess_times))
    print("| loop | steps/s (fastest step) | median step | ratio to Session (fastest / median) |")
    print("|---|---|---|---|")
    print("| hand-written Session loop | %.0f | %.0f µs | 1.00× |" % (1 / s_min, s_med * 1e6))
    print("| Estimator.train | %.0f | %.0f µs | %.2f× / %.2f× |" % (1 / e_min, e_med * 1e6, e_min / s_min,
                                                                     e_med / s_med))


if __name__ == "__main__":
    main()
