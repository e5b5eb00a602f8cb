"""tf.contrib.summary in graph mode: a default writer, recording contexts, values read back from the
event file with tf.train.summary_iterator."""
import glob

import numpy as np

import tinyflow as tf


def _events(logdir):
    out = []
    for path in glob.glob(str(logdir) + "/events.out.tfevents.*"):
        for event in tf.train.summary_iterator(path):
            for v in event.summary.value:
                out.append((event.step, v))
    return out


def test_scalars_and_histograms_written_every_n_steps(tmp_path):
    g = tf.Graph()
    with g.as_default():
        step = tf.train.get_or_create_global_step()
        x = tf.placeholder(tf.float32, [])
        writer = tf.contrib.summary.create_file_writer(str(tmp_path), flush_millis=10)
        with writer.as_default(), tf.contrib.summary.record_summaries_every_n_global_steps(2):
            s1 = tf.contrib.summary.scalar("loss", x * 2)
            s2 = tf.contrib.summary.histogram("w", tf.stack([x, x + 1.0]))
        with writer.as_default(), tf.contrib.summary.always_record_summaries():
            s3 = tf.contrib.summary.scalar("always", x, family="fam")
        with writer.as_default(), tf.contrib.summary.never_record_summaries():
            s4 = tf.contrib.summary.scalar("never", x)
        assert len(tf.contrib.summary.all_summary_ops()) == 3
        incr = tf.assign_add(step, 1)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.contrib.summary.initialize(session=sess)
            for i in range(4):
                sess.run([tf.contrib.summary.all_summary_ops(), s4], {x: float(i)})
                sess.run(incr)
            sess.run(tf.contrib.summary.flush(writer))
    ev = _events(tmp_path)
    loss = [(s, v.simple_value) for s, v in ev if v.tag == "loss"]
    assert loss == [(0, 0.0), (2, 4.0)]
    assert [(s, v.simple_value) for s, v in ev if v.tag == "fam/always"] == [(0, 0.0), (1, 1.0), (2, 2.0), (3, 3.0)]
    hist = [v.histo for s, v in ev if v.tag == "w"]
    assert len(hist) == 2 and hist[1].num == 2 and hist[1].min == 2.0 and hist[1].max == 3.0
    assert not [v for s, v in ev if v.tag == "never"]
    assert s1 is not None and s2 is not None and s3 is not None


def test_without_writer_the_ops_do_nothing():
    g = tf.Graph()
    with g.as_default():
        tf.train.get_or_create_global_step()
        op = tf.contrib.summary.scalar("loss", 1.0)
        with tf.Session() as sess:
            assert sess.run(op) is np.False_ or sess.run(op) == False  # noqa: E712
