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


def test_a_sum_of_matmuls_runs_as_one_matmul_of_the_concatenated_operands():
    """fuse_matmul_sums: an AddN of MatMuls that nothing else reads (an unrolled RNN's weight gradient) is one
    MatMul of the concatenations; mixed transposes, a product read elsewhere, or operands bigger than the
    products keep the graph's ops. Values: numpy's sums."""
    rng = np.random.RandomState(0)
    vals = {}

    def ph(name, shape):
        vals[name] = rng.randn(*shape).astype(np.float32)
        return tf.placeholder(tf.float32, shape, name=name)
    a = [ph("a%d" % t, [8, 2 + t]) for t in range(3)]            # contractions of different lengths
    b = [ph("b%d" % t, [2 + t, 8]) for t in range(3)]
    at = [ph("at%d" % t, [2, 4]) for t in range(3)]
    g = [ph("g%d" % t, [2, 6]) for t in range(3)]
    plain = tf.add_n([tf.matmul(x, y) for x, y in zip(a, b)], name="plain")
    grad = tf.add_n([tf.matmul(x, y, transpose_a=True) for x, y in zip(at, g)], name="grad")      # x^T g: [4, 6]
    ht = [ph("ht%d" % t, [4, 2]) for t in range(3)]
    both = tf.add_n([tf.matmul(y, x, transpose_a=True, transpose_b=True) for x, y in zip(ht, g)], name="both")
    mixed = tf.add_n([tf.matmul(at[0], g[0], transpose_a=True),
                      tf.matmul(at[1], ph("m", [6, 2]), transpose_a=True, transpose_b=True)], name="mixed")
    shared = tf.matmul(at[1], g[1], transpose_a=True, name="shared")
    read = tf.add_n([shared, tf.matmul(at[2], g[2], transpose_a=True)], name="read")
    big = tf.add_n([tf.matmul(ph("r%d" % t, [1, 50]), ph("c%d" % t, [50, 1])) for t in range(2)], name="big")
    fetches = [plain, grad, both, mixed, read, shared, big]
    feeds = [t for t in tf.get_default_graph().get_operations() if t.type == "Placeholder"]
    prog = program.fuse_matmul_sums(_plan(fetches, [op.outputs[0] for op in feeds]))
    rules = {s.op.name: s.rule for s in prog.steps}
    assert [rules[n] for n in ("plain", "grad", "both", "mixed", "read", "big")] == ["MatMulSum"] * 3 + [""] * 3
    assert _step(prog, "grad").args == ("at0", "at1", "at2", "g0", "g1", "g2")
    assert sum(s.op.type == "MatMul" for s in prog.steps) == 2 + 2 + 2     # mixed's, read's, big's
    with tf.Session() as sess:
        got = sess.run(fetches, {op.outputs[0]: vals[op.name] for op in feeds})
    v = vals
    want = [sum(v["a%d" % t] @ v["b%d" % t] for t in range(3)), sum(v["at%d" % t].T @ v["g%d" % t] for t in range(3)),
            sum(v["g%d" % t].T @ v["ht%d" % t].T for t in range(3)), v["at0"].T @ v["g0"] + v["at1"].T @ v["m"].T,
            v["at1"].T @ v["g1"] + v["at2"].T @ v["g2"], v["at1"].T @ v["g1"],
            sum(v["r%d" % t] @ v["c%d" % t] for t in range(2))]
    for x, y in zip(got, want):
        np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-5)
