"""Graph.to_json / Graph.from_json: a complete round trip; tf.train.write_graph."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf


def _same_text(g):
    text = g.to_json()
    g2 = tf.Graph.from_json(text)
    assert g2.to_json() == text
    return g2


def _twin(g2, t):
    return g2.as_graph_element(t.name)


def test_math_graph_same_results():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    c = tf.constant(np.arange(3, dtype=np.float64))
    y = tf.reduce_sum(tf.cast(x, tf.float64) * c, axis=1) + tf.reduce_max(tf.sqrt(tf.abs(c)))
    z = tf.argmax(tf.concat([x, -x], 1), 1)
    g2 = _same_text(tf.get_default_graph())
    xv = np.random.RandomState(0).randn(4, 3).astype(np.float32)
    want = tf.Session().run([y, z], {x: xv})
    got = tf.Session(graph=g2).run([_twin(g2, y), _twin(g2, z)], {_twin(g2, x): xv})
    for a, b in zip(want, got):
        np.testing.assert_array_equal(a, b)
    assert _twin(g2, z).dtype == tf.int64 and _twin(g2, x).shape.as_list() == [None, 3]


def test_attrs_control_deps_collections_and_name_counters():
    a = tf.constant(np.array([[1, 2]], np.int64), name="a")
    tf.constant(np.array([b"ab", b"c"], dtype=object), name="s")
    h = tf.constant(np.array([1.5], np.float16), name="h")
    with tf.control_dependencies([a.op]):
        b = tf.identity(h, name="b")
    tf.add(a, a)
    tf.add_to_collection("mine", b)
    tf.add_to_collection("mine", a.op)
    tf.add_to_collection("mine", "text")
    g2 = _same_text(tf.get_default_graph())
    assert g2.get_operation_by_name("b").control_inputs == (g2.get_operation_by_name("a"),)
    v = g2.get_operation_by_name("s").attrs["value"]
    assert v.dtype == object and list(v) == [b"ab", b"c"]
    assert g2.get_operation_by_name("h").attrs["value"].dtype == np.float16
    assert g2.get_operation_by_name("a").attrs["dtype"] == tf.int64
    assert g2.get_collection("mine") == [g2.get_tensor_by_name("b:0"), g2.get_operation_by_name("a"), "text"]
    with g2.as_default():
        assert tf.add(1, 2).op.name == tf.get_default_graph().get_operations()[-1].name == "Add_1"


def test_training_step_round_trip():
    rng = np.random.RandomState(0)
    xv, yv = rng.randn(8, 3).astype(np.float32), rng.randn(8, 1).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    w = tf.Variable(np.full((3, 1), 0.1, np.float32), name="w")
    b = tf.Variable(tf.zeros([1]), name="b")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    init = tf.global_variables_initializer()
    g2 = _same_text(tf.get_default_graph())
    results = []
    for g, (lo, st, it, xx, yy) in [(tf.get_default_graph(), (loss, step, init, x, y)),
                                    (g2, [_twin(g2, t) for t in (loss, step, init, x, y)])]:
        with g.as_default():
            names = [v.name for v in tf.global_variables()]
            assert names == ["w:0", "b:0"] and len(tf.trainable_variables()) == 2
            sess = tf.Session(graph=g)
            sess.run(it)
            for _ in range(3):
                sess.run(st, {xx: xv, yy: yv})
            results.append(sess.run([lo, tf.global_variables()[0]], {xx: xv, yy: yv}))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])


@pytest.mark.slow
def test_control_flow_round_trip():
    x = tf.placeholder(tf.float32, [], name="x")
    y = tf.cond(x > 0, lambda: x * 2.0, lambda: x - 1.0)
    w = tf.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + x), [tf.constant(0), tf.constant(0.0)])
    g = tf.gradients(y + w[1], x)[0]
    g2 = _same_text(tf.get_default_graph())
    want = tf.Session().run([y, w[1], g], {x: 3.0})
    got = tf.Session(graph=g2).run([_twin(g2, t) for t in (y, w[1], g)], {_twin(g2, x): 3.0})
    assert want == got


def test_write_graph(tmp_path):
    tf.constant(1.0, name="one")
    path = tf.train.write_graph(tf.get_default_graph(), str(tmp_path), "g.json")
    assert os.path.exists(path) and path == os.path.join(str(tmp_path), "g.json")
    with open(path) as f:
        g2 = tf.Graph.from_json(f.read())
    assert json.loads(g2.to_json())["graphs"][0]["ops"][0]["name"] == "one"


CONFORMANCE = "/work/shared/conformance/scripts"


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir(CONFORMANCE), reason="shared conformance scripts not available")
@pytest.mark.parametrize("script", ["p02_variables", "p04_softmax_regression", "p05_mlp_adam", "p06_cnn",
                                    "p07_errors"])
def test_conformance_graphs_round_trip(script, monkeypatch, capsys):
    """Every graph a shared conformance script builds survives to_json -> from_json -> to_json."""
    import runpy
    import sys
    import warnings
    from tinyflow.graph import core
    graphs, init = [], core.Graph.__init__

    def record(self, *a, **k):
        init(self, *a, **k)
        graphs.append(self)
    monkeypatch.setattr(core.Graph, "__init__", record)
    monkeypatch.setitem(sys.modules, "tensorflow", tf)
    monkeypatch.setattr(sys, "argv", [script])
    tf.reset_default_graph()
    runpy.run_path(os.path.join(CONFORMANCE, script + ".py"), run_name="__main__")
    checked = 0
    for g in list(graphs):
        if getattr(g, "outer_graph", None) is not None or not g.get_operations():
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            _same_text(g)
        checked += 1
    assert checked >= 1
