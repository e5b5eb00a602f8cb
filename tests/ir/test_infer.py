"""passes/infer.py: whole-graph shape inference, forward and backward, against the shapes a run gives."""
from paths import TESTS as _TESTS  # the tests/ folder
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.graph.shapes import TensorShape
from tinyflow.passes.infer import infer



def test_feed_shapes_complete_static_shapes_and_match_a_run():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(np.ones((3, 4), np.float32))
    h = tf.nn.relu(tf.matmul(x, w)) + 1.0
    r = tf.reshape(h, tf.stack([tf.shape(h)[1], -1]))
    s = tf.reduce_sum(r, axis=1)
    shapes = infer([r, s], feed_shapes={x: [5, 3]})
    assert shapes[h][0].as_list() == [5, 4] and shapes[r][0].as_list() == [4, 5]
    assert h.shape.as_list() == [None, 4]                      # the graph itself is not changed
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    tensors = [t for t in shapes if t.op.type not in ("Placeholder", "VariableV2")]
    values = sess.run(tensors, {x: np.ones((5, 3))})
    for t, v in zip(tensors, values):
        shape, dtype = shapes[t]
        assert shape.as_tuple() == np.shape(v), t.name
        assert dtype == t.dtype


def test_backward_fills_unknown_input_shapes():
    from tinyflow.api import tinyflow_api  # noqa: F401 (attaches the backward rules)
    x = tf.placeholder(tf.float32, [None, None])
    w = tf.Variable(shape=TensorShape([7, None]), name="w")
    y = tf.nn.bias_add(tf.matmul(x, w, transpose_b=True), tf.zeros([7]))
    z = tf.nn.relu(y)
    shapes = infer(z, feed_shapes={x: [2, 5]})
    assert shapes[w._variable][0].as_list() == [7, 5]
    assert shapes[z][0].as_list() == [2, 7]


def test_needs_several_sweeps():
    from tinyflow.api import tinyflow_api  # noqa: F401
    x = tf.placeholder(tf.float32, [None, None])
    a = tf.Variable(shape=TensorShape([None, None]), name="a")
    b = tf.Variable(shape=TensorShape([None, 3]), name="b")
    y = tf.matmul(tf.matmul(x, a), b)                          # a's columns come from b's rows
    shapes = infer(y, feed_shapes={x: [2, 4]}, var_shapes={b: [6, 3]})
    assert shapes[a._variable][0].as_list() == [4, 6]


def test_errors_name_the_op_and_shapes():
    x = tf.placeholder(tf.float32, name="x")
    w = tf.constant(np.ones((3, 4), np.float32))
    y = tf.matmul(x, w, name="mm")
    with pytest.raises(ValueError, match=r"'mm'.*\[2,5\].*\[3,4\]"):
        infer(y, feed_shapes={x: [2, 5]})
    p = tf.placeholder(tf.float32, [None, 3], name="p")
    with pytest.raises(ValueError, match="p:0"):
        infer(p * 2.0, feed_shapes={p: [2, 4]})


def test_no_feeds_gives_static_shapes():
    a = tf.constant(np.zeros((2, 3), np.int64))
    b = tf.cast(a, tf.float32) * 2.0
    shapes = infer(b)
    assert shapes[b] == (TensorShape([2, 3]), tf.float32)


def _example(name):
    import importlib.util
    import os
    path = os.path.join(_TESTS, "..", "examples", "passes", name + ".py")
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_pass_examples_run(capsys):
    sub = _example("prune_example").main()
    assert [op.name for op in sub.ops] == ["w", "y"]
    tf.reset_default_graph()
    shapes = _example("infer_example").main()
    assert any(s.as_list() == [64, 10] for s, _ in shapes.values())
    tf.reset_default_graph()
    got, want = _example("gradients_example").main()
    np.testing.assert_allclose(got, want)
    tf.reset_default_graph()
    plan = _example("memory_example").main()
    assert plan.overlaps() == [] and plan.planned_bytes >= plan.lower_bound_bytes
    # lowering_example: tests/lower/test_pipeline.py
