"""plan (lower/program.py): a Subgraph and its state analysis -> one record per op, with the facts
the earlier stages handed on (which ops run a rule or a check, which variables are fetched)."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.lower import program
from tinyflow.passes import prune, state


def _plan(fetches, feeds=(), targets=(), **kw):
    sub = prune.prune(fetches, feeds, targets)
    return program.plan(sub, state.analyze(sub), **kw)


def _step(prog, name):
    return next(s for s in prog.steps if s.op.name == name)


def test_values_are_named_after_their_tf_names():
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    w = tf.constant(np.ones((3, 3), np.float32), name="w")
    m = tf.matmul(x, w)                                    # the op is called MatMul, like its type
    a = tf.identity(m, name="a/b")
    b = tf.identity(m, name="a_b")                         # the same identifier: made unique
    c = tf.identity(b, name="op")                          # the name of the rules' namespace: avoided
    d = tf.identity(c, name="2x")                          # not an identifier
    prog = _plan([a, b, c, d], [x])
    assert _step(prog, "MatMul").outs == ("MatMul",) and _step(prog, "MatMul").args == ("x", "w")
    assert [_step(prog, n).outs[0] for n in ("a/b", "a_b", "op", "2x")] == ["a_b", "a_b_1", "op_", "_2x"]
    assert prog.fetch_names == ["a_b", "a_b_1", "op_", "_2x"]


def test_plan_takes_rules_and_checks_from_the_subgraph():
    table = tf.Variable(np.ones((4, 3), np.float32), name="table")
    ids = tf.placeholder(tf.int32, [None], name="ids")
    g = tf.gather(table, ids, name="g")
    h = tf.gather(table, tf.constant([1]), name="h")
    y = tf.reduce_sum(g) + tf.reduce_sum(h)
    sub = prune.prune([y], [ids, h])                       # h is fed: neither its rule nor its check runs
    assert [op.name for op in sub.checked] == ["g"]
    assert sub.rule_ops == {op for op in sub.ops if op.type not in ("VariableV2", "Placeholder")} - {h.op}
    prog = program.plan(sub, state.analyze(sub))
    assert [(s.op.name, s.check) for s in prog.steps if s.op.name in ("g", "h")] == [("g", True), ("g", False)]
    assert prog.checks == [g.op] and _step(prog, "g").outs == ("g_check",)   # the check line comes first
    assert not any(s.check for s in program.plan(sub, state.analyze(sub), checks=False).steps)


def test_variables_read_after_an_update_see_it_and_a_fetched_variable_is_an_argument():
    v = tf.Variable(1.0, name="v")
    u = tf.Variable(2.0, name="u")
    up = tf.assign_add(v, 1.0, name="up")
    with tf.control_dependencies([up]):
        after = tf.identity(v.read_value(), name="after")
    before = tf.identity(v, name="before")
    sub = prune.prune([before, after, u], (), [up.op])
    analysis = state.analyze(sub)
    assert analysis.fetched == [u.op] and analysis.updated == [v.op]
    assert analysis.variable_of(u) is u.op and analysis.variable_of(before) is None
    prog = program.plan(sub, analysis)
    assert prog.rw_vars == [v.op] and prog.ro_vars == [u.op]
    assert _step(prog, "before").args == ("v",) and _step(prog, "read").args == ("up",)
    assert prog.final_names == ["up"] and prog.fetch_names[-1] == "u"


def test_plan_decides_the_split_of_a_huge_program():
    x = tf.placeholder(tf.float32, [3], name="x")
    y = x
    for _ in range(30):
        y = tf.sin(y)
    assert _plan([y], [x]).split == 0
    prog = _plan([y], [x], split_steps=10)                 # 30 steps over 10: equal parts of at most 10 // 5
    assert len(prog.steps) == 30 and prog.split == 2 and prog.segmented
    assert _plan([y], [x], split_steps=40).split == 0
    assert _plan([y], [x], split_steps=10, segments=False).split == 0   # a body traced by lax: never split


@pytest.mark.usefixtures("production_compile")   # compared bit for bit: at XLA's defaults
def test_random_ops_of_static_shape_draw_together_the_same_values():
    """Random ops of static shape in one function draw from `rand`, one block (one threefry kernel
    for all), and get exactly the values each op draws alone (the reference executor's rule)."""
    from tinyflow.lower import pipeline, reference
    from tinyflow.ops.random_ops import run_key
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        drawn = [tf.random_uniform([300, 4]), tf.truncated_normal([5, 6], stddev=0.5), tf.random_normal([7]),
                 tf.random_uniform([2, 2], seed=3), tf.random_uniform([3], maxval=9, dtype=tf.int32),
                 tf.random_uniform(tf.shape(x)), tf.random_normal([4], dtype=tf.float64)]
        low = pipeline.compile_fetch_set(drawn, [x])
        prog = low.program
        firsts = [s.args[0] for s in prog.steps if s.args[:1] in (("key",), ("rand",))]
        assert firsts == ["rand"] * 4 + ["key"] * 3 and len(prog.random_block) == 3   # the seeded one: Philox
        assert [op.name for op in prog.philox_ops] == ["random_uniform_1/RandomUniform"]
        assert "rand = random_block(key)" in low.source
        args = ((), (), (np.ones((2, 3), np.float32),), run_key(7))
        _, got = low.call(*args)
        _, want = reference.interpret(prog, args)
        for a, b in zip(got, want):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_an_initializer_of_unseeded_random_ops_compiles_without_an_xla_log_line(capfd):
    """The random block of a run-once fetch set compiles without XLA's simplifier logging to stderr:
    it looped ("stuck in a circular simplification loop") when every op's graph number was folded
    into a vector key as a constant vector of equal elements; `python -m tinyflow` prints nothing extra."""
    g = tf.Graph()
    with g.as_default():
        a = tf.Variable(tf.random_uniform([50, 12], -1.0, 1.0))
        b = tf.Variable(tf.truncated_normal([3, 12]))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            va, vb = sess.run([a, b])
    assert np.abs(va).max() <= 1.0 and np.abs(vb).max() <= 2.0 and va.std() > 0.1
    assert "simplification" not in capfd.readouterr().err
