"""TensorBoard's own reader (the tensorboard package's EventAccumulator) reads tinyflow's event files:
scalars, histograms and the graph."""
import numpy as np
import pytest

import tinyflow as tf


def test_tensorboard_reads_tinyflow_event_files(tmp_path):
    accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator",
                                      reason="the tensorboard package (pip install tensorboard) reads event files")
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [4])
        tf.summary.scalar("loss", tf.reduce_mean(x))
        tf.summary.histogram("w", x)
        merged = tf.summary.merge_all()
        with tf.Session() as sess, tf.summary.FileWriter(str(tmp_path), sess.graph) as writer:
            for i in range(3):
                writer.add_summary(sess.run(merged, {x: np.arange(4.0) + i}), i)
    ea = accumulator.EventAccumulator(str(tmp_path), size_guidance={"histograms": 0})   # keep every one
    ea.Reload()
    tags = ea.Tags()
    assert tags["scalars"] == ["loss"] and tags["histograms"] == ["w"] and tags["graph"]
    assert [(e.step, e.value) for e in ea.Scalars("loss")] == [(0, 1.5), (1, 2.5), (2, 3.5)]
    assert [h.histogram_value.max for h in ea.Histograms("w")] == [3.0, 4.0, 5.0]
