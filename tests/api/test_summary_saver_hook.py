"""tf.train.SummarySaverHook with TF 1.15's signature: every save_steps runs (TF 1.15 wrote steps 1, 3, 5 for
this loop), save_secs, a summary_writer or a scaffold, and TF's argument errors."""
import glob

import pytest

import tinyflow as tf


def _steps(logdir):
    return sorted(e.step for f in glob.glob(str(logdir) + "/events.*") for e in tf.train.summary_iterator(f)
                  if e.HasField("summary"))


def test_save_steps_and_errors(tmp_path):
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        x = tf.Variable(1.0)
        train = tf.group(tf.assign_add(x, 1.5), tf.assign_add(step, 1))
        s = tf.summary.scalar("x", x)
        with pytest.raises(ValueError, match="Exactly one of save_steps or save_secs should be set."):
            tf.train.SummarySaverHook(output_dir=str(tmp_path), summary_op=s)
        hook = tf.train.SummarySaverHook(save_steps=2, output_dir=str(tmp_path), summary_op=s)
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            for _ in range(5):
                sess.run(train)
    assert _steps(tmp_path) == [1, 3, 5]


def test_save_secs_writer_and_scaffold(tmp_path):
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        train = tf.assign_add(step, 1)
        tf.summary.scalar("s", tf.cast(step, tf.float32))
        writer = tf.summary.FileWriter(str(tmp_path / "w"))
        scaffold = tf.train.Scaffold(summary_op=tf.summary.merge_all())
        hook = tf.train.SummarySaverHook(save_secs=3600, summary_writer=writer, scaffold=scaffold)
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            for _ in range(4):
                sess.run(train)
        writer.close()
    assert _steps(tmp_path / "w") == [1]   # the first run only: an hour has not passed since
