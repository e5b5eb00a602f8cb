"""render (lower/render.py): a Program -> Python source, one line per op; the split form."""
import numpy as np

import tinyflow as tf
from tinyflow.lower import pipeline, program, render
from tinyflow.passes import prune, state


def _program(fetches, feeds=(), targets=()):
    sub = prune.prune(fetches, feeds, targets)
    return program.plan(sub, state.analyze(sub))


def test_one_function_one_line_per_op():
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.exp(x, name="Exp") * 2.0
    source, lines = render.render(_program([y], [x]))
    assert source == (
        "def fetch_set(rw, ro, feeds, key):\n"
        "    x, = feeds\n"
        "    Exp = op.Exp(x)  # f32[2]  Exp\n"
        "    Const = op.Const(value=np.array(2.0, 'float32'), dtype=tf.float32)  # f32[]  Const  static\n"
        "    mul = op.Mul(Exp, Const)  # f32[2]  mul\n"
        "    return (), (mul, )\n")
    assert {n: s.op.name for n, s in lines.items()} == {3: "Exp", 4: "Const", 5: "mul"}


def test_private_attrs_stay_out_of_the_source_and_reach_the_rule():
    w = tf.Variable(np.ones(3, np.float32), name="w")
    train = tf.train.GradientDescentOptimizer(0.5).minimize(tf.reduce_sum(w * w))
    prog = _program([], (), [train])
    update = next(s for s in prog.steps if s.op.type == "ApplyGradientDescent")
    assert update.op.attrs["_type"] == "ApplyGradientDescent"
    source, _ = render.render(prog)
    assert "_type" not in source and "op.ApplyGradientDescent(w, " in source
    assert "_type" not in render.attr_table(prog.steps) and not render.literal(object())
    with tf.Session() as sess:
        sess.run(w.initializer)
        sess.run(train)
        np.testing.assert_allclose(sess.run(w), np.zeros(3))   # w - 0.5 * 2w


def test_literals():
    assert render.literal(tf.float32) == "tf.float32" and render.literal((1,)) == "(1, )"
    assert render.literal(np.array([0.1, 2], np.float32)) == "np.array([0.1, 2.0], 'float32')"
    assert render.literal(float("nan")) is None and render.literal(np.zeros(17)) is None
    assert render.literal(tf.TensorShape([None, 2])) == "tf.TensorShape([None, 2])"


def test_a_long_program_is_split_into_parts_traced_into_one_function(monkeypatch):
    x = tf.placeholder(tf.float32, [3], name="x")
    y = x
    for _ in range(12):
        y = tf.sin(y) + 1.0
    whole = pipeline.compile_fetch_set([y], [x])
    monkeypatch.setattr(render, "MAX_LINES", 5)
    source, lines = render.render(whole.program)
    assert "def part_1(key, " in source and "segment" not in source
    assert sorted(s.op.name for s in lines.values()) == sorted(s.op.name for s in whole.program.steps)
    parts = pipeline.compile_fetch_set([y], [x])
    assert parts.source == source and not parts.segments and not parts.program.segmented
    xv = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(parts.call((), (), (xv,))[1][0], whole.call((), (), (xv,))[1][0])
    text = source.split("\n")
    for n, step in lines.items():   # every numbered line is its Step's
        assert text[n - 1].endswith("  " + step.op.name) or "  %s  static" % step.op.name in text[n - 1]
