"""What stopped public TF1 programs (issue 38), each as TF 1.15 behaves: Estimator(params=HParams),
Dataset.from_generator's arguments and padded_batch of strings, a Supervisor whose summary op reads
the input queue, and a process that exits with its FileWriter open and queue runners running."""
import glob
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import tinyflow as tf


@pytest.mark.slow
def test_estimator_keeps_params_as_given(tmp_path):
    """TF keeps `params` as given (here an HParams, not a dict) and hands model_fn a copy of it."""
    hp = tf.contrib.training.HParams(units=3, lr=0.1)
    seen = []

    def model_fn(features, labels, mode, params):
        seen.append(params)
        out = tf.layers.dense(features["x"], params.units)
        loss = tf.reduce_mean(tf.square(out - labels))
        train = tf.train.GradientDescentOptimizer(params.lr).minimize(loss, tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train)
    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path), params=hp)
    assert type(est.params).__name__ == "HParams" and est.params.units == 3 and est.params is not hp
    est.train(tf.estimator.inputs.numpy_input_fn({"x": np.ones((4, 2), np.float32)}, np.zeros((4, 3), np.float32),
                                                 batch_size=2, shuffle=False, num_epochs=1))
    assert [type(p).__name__ for p in seen] == ["HParams"] and seen[0].lr == 0.1


def test_from_generator_args_are_numpy_values_and_padded_batch_of_strings():
    """TF 1.15 hands the generator b'file' (bytes) and np.int32(3); padded_batch pads strings with b''."""
    got = []

    def gen(path, n):
        got.append((path, n))
        for i in range(n):
            yield path + b"_%d" % i
    ds = tf.data.Dataset.from_generator(gen, tf.string, tf.TensorShape([]), args=("file", 3))
    it = ds.padded_batch(2, padded_shapes=tf.TensorShape([])).make_one_shot_iterator().get_next()
    it2 = tf.data.Dataset.from_tensor_slices((["a", "bb", "c"], [[1], [2], [3]])).padded_batch(
        2, ([], [None])).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        assert list(sess.run(it)) == [b"file_0", b"file_1"] and list(sess.run(it)) == [b"file_2"]
        words, ids = sess.run(it2)
    assert type(got[0][0]) is bytes and type(got[0][1]) is np.int32
    assert [type(w) for w in words] == [bytes, bytes] and list(words) == [b"a", b"bb"]
    np.testing.assert_array_equal(ids, [[1], [2]])


def test_supervisor_summary_reading_the_input_queue_does_not_deadlock(tmp_path):
    """The summary service runs in its own thread, as TF's: the first summary waits for the queue
    runners that start after it (PTB's Supervisor variant hung here)."""
    q = tf.FIFOQueue(4, [tf.float32], shapes=[[]])
    tf.train.add_queue_runner(tf.train.QueueRunner(q, [q.enqueue([tf.random_uniform([])])]))
    x = q.dequeue()
    tf.summary.scalar("x", x)
    step = tf.train.get_or_create_global_step()
    train = tf.assign_add(step, 1)
    sv = tf.train.Supervisor(logdir=str(tmp_path), save_model_secs=0)
    done = []

    def run():
        with sv.managed_session() as sess:
            for _ in range(3):
                sess.run([train, x])
            done.append(True)
    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(60)
    assert done, "the Supervisor deadlocked"
    events = glob.glob(os.path.join(str(tmp_path), "events.out.tfevents.*"))
    tags = {v.tag for e in tf.train.summary_iterator(events[0]) for v in e.summary.value}
    assert "x" in tags


SCRIPT = r"""
import sys
import tinyflow as tf
w = tf.summary.FileWriter(sys.argv[1])   # never closed
p = tf.placeholder(tf.float32, [])
s = tf.summary.scalar("p", p)
q = tf.FIFOQueue(4, [tf.float32], shapes=[[8, 8]])
tf.train.add_queue_runner(tf.train.QueueRunner(q, [q.enqueue([tf.random_normal([8, 8])])] * 2))
v = tf.Variable(tf.zeros([8, 8]))
step = tf.assign_add(v, tf.matmul(q.dequeue(), tf.ones([8, 8])))
sess = tf.Session()
sess.run(v.initializer)
tf.train.start_queue_runners(sess, tf.train.Coordinator())   # never stopped
for i in range(8):
    sess.run(step)
    w.add_summary(sess.run(s, {p: i}), i)
print("done")
"""


def test_exit_with_open_writer_and_running_queue_runners_is_clean(tmp_path):
    """TF 1.15 exits 0 and its writer flushes what it queued: all 8 steps reach the event file, and no
    SIGABRT from queue-runner threads left inside JAX at interpreter shutdown."""
    root = os.path.dirname(os.path.dirname(tf.__file__))
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, PYTHONPATH=root, JAX_PLATFORMS="cpu"))
    assert out.returncode == 0 and out.stdout.strip() == "done", (out.returncode, out.stderr[-2000:])
    assert "FATAL" not in out.stderr
    events = glob.glob(os.path.join(str(tmp_path), "events.out.tfevents.*"))
    assert [e.step for e in tf.train.summary_iterator(events[0]) if e.summary.value] == list(range(8))
