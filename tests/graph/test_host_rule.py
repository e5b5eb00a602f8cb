"""OpDef.host, the one host protocol: a HostRule whose class says when the Session calls
`rule(session, op, inputs) -> [value per output]` (graph/registry.py). An op registered with each
kind runs as its kind says; the keywords before HostRule are rejected with a TypeError that names
the new form."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.graph import dtypes as dt
from tinyflow.graph import registry
from tinyflow.graph.registry import Fed, FromFetched, SessionValue, Staged, register_op
from tinyflow.graph.shapes import TensorShape

_SCALAR = lambda s, a, v: [TensorShape([])]  # noqa: E731


@pytest.fixture
def ops():
    """Registers one op type of each kind, for this test only (the registry is global)."""
    calls = {"fed": 0, "fetched": [], "staged": []}

    def fed(session, op, inputs):
        calls["fed"] += 1
        return [np.float32(calls["fed"])]

    def fetched(session, op, inputs):
        calls["fetched"].append(inputs)
        return [np.float32(inputs[0] * 10)]

    def staged(session, op, inputs):
        calls["staged"].append(inputs[0][()])   # a 0-d object array of bytes
        return [np.int32(len(inputs[0][()]))]

    names = {"session": "G1TestSessionValue", "fetched": "G1TestFromFetched", "fed": "G1TestFed",
             "staged": "G1TestStaged"}
    register_op(names["session"], shape=_SCALAR, dtype=lambda d, a: [dt.int32], grad=None,
                host=SessionValue(lambda session, op, inputs: [np.int32(41 + len(inputs))]))
    register_op(names["fetched"], shape=_SCALAR, dtype=lambda d, a: [dt.float32], grad=None,
                host=FromFetched(fetched))
    register_op(names["fed"], shape=_SCALAR, dtype=lambda d, a: [dt.float32], grad=None, stateful=True,
                host=Fed(fed))
    register_op(names["staged"], shape=_SCALAR, dtype=lambda d, a: [dt.int32], grad=None, host=Staged(staged))
    try:
        yield names, calls
    finally:
        for name in names.values():
            registry._REGISTRY.pop(name, None)


def test_each_kind_runs_when_its_class_says(ops):
    names, calls = ops
    g = tf.Graph()
    with g.as_default():
        value = g.create_op(names["session"], []).outputs[0]
        x = tf.placeholder(tf.float32, [])
        from_fetched = g.create_op(names["fetched"], [x * 2.0]).outputs[0]
        fed = g.create_op(names["fed"], []).outputs[0]
        doubled = fed * 2.0
        assert not g._host_stage   # no string, no Staged op yet
    with tf.Session(graph=g) as sess:
        assert sess.run(value) == 41                    # SessionValue: from the Session, inputs []
        with pytest.raises(TypeError, match="has no value to run"):
            sess.run(value.op)
        assert sess.run(from_fetched, {x: 1.5}) == 30.0   # FromFetched: on the step's fetched x * 2
        assert [float(v) for v in calls["fetched"][0]] == [3.0]
        assert sess.run(doubled) == 2.0                  # Fed: made before each run, fed to the step
        assert sess.run(doubled) == 4.0
        assert calls["fed"] == 2
    with g.as_default():
        s = tf.placeholder(tf.string, [])
        n = g.create_op(names["staged"], [s]).outputs[0]
        m = n + 1
    assert g._host_stage                                 # Staged: the graph marks itself for the host stage
    with tf.Session(graph=g) as sess:
        assert sess.run(m, {s: "abcd"}) == 5             # the host stage, then the device step
        assert calls["staged"] == [b"abcd"]            # strings reach the rule as bytes


def test_a_rule_object_says_its_kind():
    import tinyflow.api.data.iterator_ops  # noqa: F401  (op families register on import)
    import tinyflow.ops.string_ops  # noqa: F401
    rule = Staged(len)
    assert isinstance(rule, registry.HostRule) and repr(rule) == "Staged(len)"
    assert isinstance(registry.get_op_def("IsVariableInitialized").host, SessionValue)
    assert isinstance(registry.get_op_def("MakeIterator").host, FromFetched)
    assert isinstance(registry.get_op_def("IteratorGetNext").host, Fed)
    assert isinstance(registry.get_op_def("StringJoin").host, Staged)
    assert registry.get_op_def("MatMul").host is None


@pytest.mark.parametrize("old, new", [("host_compute", "FromFetched"), ("host_feed", "Fed"),
                                      ("host_stage", "Staged")])
def test_the_old_keywords_are_rejected(old, new):
    with pytest.raises(TypeError, match=r"%s= is gone; say host=%s\(rule\)" % (old, new)):
        register_op("G1TestOld", shape=_SCALAR, dtype=lambda d, a: [dt.int32], grad=None, **{old: len})
    assert "G1TestOld" not in registry.registered_ops()


def test_host_takes_a_rule_object():
    with pytest.raises(TypeError, match=r"host= takes a HostRule \(SessionValue, FromFetched, Fed or Staged\)"):
        register_op("G1TestPlain", shape=_SCALAR, dtype=lambda d, a: [dt.int32], grad=None,
                    host=lambda session, op: 1)
    assert "G1TestPlain" not in registry.registered_ops()
