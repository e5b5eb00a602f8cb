"""print_graph, to_dot and sess.lowered: what a student sees of a fetch set."""
import io

import numpy as np

import tinyflow as tf


def _model():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(np.ones((3, 2), np.float32), name="w")
    y = tf.nn.relu(tf.matmul(x, w, name="mm"), name="act")
    return x, w, tf.reduce_sum(y, name="total")


def test_print_graph_shapes_and_plan():
    x, w, loss = _model()
    out = io.StringIO()
    text = tf.print_graph(loss, feed_dict={x: [4, 3]}, file=out)
    assert out.getvalue().strip() == text
    line = [l for l in text.splitlines() if l.startswith("mm = MatMul(")][0]
    assert "x:0, w:0" in line and "[4,2] float32" in line
    planned = tf.print_graph(loss, feed_dict={x: [4, 3]}, plan=True, file=io.StringIO())
    assert "@" in planned and "# arena" in planned
    assert "inplace 0->0" in [l for l in planned.splitlines() if l.startswith("act = Relu")][0]


def test_to_dot():
    x, w, loss = _model()
    with tf.control_dependencies([w.op]):
        z = tf.identity(loss, name="z")
    dot = tf.to_dot(z, feed_dict={x: [4, 3]})
    assert dot.startswith("digraph tinyflow {") and dot.rstrip().endswith("}")
    assert '"x" -> "mm" [label="[4,3] float32"]' in dot
    assert '"w" -> "z" [style=dashed]' in dot


def test_sess_lowered_source_jaxpr_hlo():
    x, w, loss = _model()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    low = sess.lowered(loss, {x: np.ones((4, 3), np.float32)})
    assert "def fetch_set(" in low.source
    assert "mm = op.MatMul(x, w, transpose_a=False, transpose_b=False)  # f32[?,2]  mm" in low.source
    assert "dot_general" in str(low.jaxpr)
    assert "HloModule" in low.hlo
