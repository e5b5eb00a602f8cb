"""tf.summary.FileWriter(logdir, graph) writes the GraphDef, read back by TensorBoard's own event reader."""
import numpy as np
import pytest

import tinyflow as tf

pytest.importorskip("tensorboard")


def _graph_of(logdir):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    acc = EventAccumulator(logdir)
    acc.Reload()
    return acc.Graph(), acc


def test_file_writer_writes_the_graph_for_tensorboard(tmp_path):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(np.ones([3, 2], np.float32), name="w")
    y = tf.nn.softmax(tf.matmul(x, w), name="y")
    loss = tf.reduce_mean(y, name="loss")
    tf.summary.scalar("loss", loss)
    with tf.Session() as sess:
        writer = tf.summary.FileWriter(str(tmp_path), sess.graph)
        sess.run(tf.global_variables_initializer())
        writer.add_summary(sess.run(tf.summary.merge_all(), {x: np.ones([2, 3])}), 1)
        writer.close()
    gd, acc = _graph_of(str(tmp_path))
    names = {n.name: n.op for n in gd.node}
    assert names["x"] == "Placeholder" and names["w"] == "VariableV2" and names["y"] == "Softmax"
    assert acc.Tags()["graph"] is True


def test_add_graph_of_a_graph_def(tmp_path):
    tf.constant(1.0, name="one")
    writer = tf.summary.FileWriter(str(tmp_path))
    writer.add_graph(None, graph_def=tf.get_default_graph().as_graph_def())
    writer.close()
    gd, _ = _graph_of(str(tmp_path))
    assert [n.name for n in gd.node] == ["one"]
