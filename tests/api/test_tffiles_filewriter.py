"""tf.summary.FileWriter(logdir, graph) writes the GraphDef (TensorBoard's graph tab): read back with
tf.train.summary_iterator, and by TensorBoard's own event reader when the tensorboard extra is installed."""
import os

import numpy as np
import pytest

import tinyflow as tf


def _graph_events(logdir):
    (name,) = [f for f in os.listdir(logdir) if f.startswith("events.out.tfevents.")]
    return [tf.GraphDef.FromString(e.graph_def) for e in tf.train.summary_iterator(os.path.join(logdir, name))
            if e.WhichOneof("what") == "graph_def"]


def _train_graph():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(np.ones([3, 2], np.float32), name="w")
    y = tf.nn.softmax(tf.matmul(x, w), name="y")
    loss = tf.reduce_mean(y, name="loss")
    tf.summary.scalar("loss", loss)
    return x


def test_file_writer_writes_the_graph(tmp_path):
    x = _train_graph()
    with tf.Session() as sess:
        writer = tf.summary.FileWriter(str(tmp_path), sess.graph)
        sess.run(tf.global_variables_initializer())
        writer.add_summary(sess.run(tf.summary.merge_all(), {x: np.ones([2, 3])}), 1)
        writer.close()
    (gd,) = _graph_events(str(tmp_path))
    names = {n.name: n.op for n in gd.node}
    assert names["x"] == "Placeholder" and names["w"] == "VariableV2" and names["y"] == "Softmax"
    # TF writes the shapes for the graph tab (as_graph_def(add_shapes=True))
    assert [d.size for d in gd.node[[n.name for n in gd.node].index("y")].attr["_output_shapes"].list.shape[0].dim] \
        == [-1, 2]


def test_tensorboard_reads_the_graph(tmp_path):
    EventAccumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator",
                                           reason="TensorBoard's own reader: the tensorboard extra").EventAccumulator
    _train_graph()
    with tf.Session() as sess:
        tf.summary.FileWriter(str(tmp_path), sess.graph).close()
    acc = EventAccumulator(str(tmp_path))
    acc.Reload()
    assert acc.Tags()["graph"] is True
    assert {n.name: n.op for n in acc.Graph().node}["y"] == "Softmax"


def test_add_graph_of_a_graph_def(tmp_path):
    tf.constant(1.0, name="one")
    writer = tf.summary.FileWriter(str(tmp_path))
    writer.add_graph(None, graph_def=tf.get_default_graph().as_graph_def())
    writer.close()
    (gd,) = _graph_events(str(tmp_path))
    assert [n.name for n in gd.node] == ["one"]
