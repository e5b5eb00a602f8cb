"""The memory planner (passes/memory.py) on small hand-checkable graphs, and sess.memory_report."""
import importlib.util
import sys

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.passes import memory, prune

F32 = 2 * 4 * 4   # bytes of a float32 [2, 4]


def plan_of(fetches, feeds=(), **kw):
    sub = prune.prune(list(fetches), list(feeds))
    return memory.plan_memory(sub, memory.static_sizes(sub), **kw)


def test_chain_runs_in_one_buffer_in_place():
    x = tf.placeholder(tf.float32, [2, 4])
    a = tf.tanh(x)
    b = tf.sigmoid(a)
    c = tf.exp(b)
    p = plan_of([c], [x])
    assert [op.type for op in p.steps] == ["Tanh", "Sigmoid", "Exp"]
    assert p.live == {a: (0, 1), b: (1, 2), c: (2, 2)}
    assert p.naive_bytes == 3 * F32
    assert [(op.name, i.name, o.name) for op, i, o in p.inplace] == [("Sigmoid", a.name, b.name),
                                                                     ("Exp", b.name, c.name)]
    assert len(p.buffers) == 1 and p.planned_bytes == p.lower_bound_bytes == F32
    # without inplace two buffers alternate: a and c share storage, b has its own
    assert p.planned_bytes_no_inplace == p.lower_bound_bytes_no_inplace == 2 * F32
    q = plan_of([c], [x], inplace=False)
    assert q.inplace == [] and q.offset(a) == q.offset(c) != q.offset(b)
    assert p.argument_bytes == F32   # the feed, outside the arena
    assert p.timeline == [F32, F32, F32]


def test_fetched_value_is_not_overwritten():
    x = tf.placeholder(tf.float32, [2, 4])
    a = tf.tanh(x)
    b = tf.sigmoid(a)
    p = plan_of([a, b], [x])
    assert p.live[a] == (0, 1)        # fetched: live to the end
    assert p.inplace == []
    assert p.planned_bytes == 2 * F32


def test_only_the_last_reader_reuses_an_input():
    x = tf.placeholder(tf.float32, [2, 4])
    a = tf.tanh(x)
    b = tf.sigmoid(a)     # a is still needed by the Mul: no inplace here
    c = a * b             # last reader of a and b: takes a's buffer (pair (0, 0))
    p = plan_of([c], [x])
    assert [(op.type, i.name) for op, i, o in p.inplace] == [("Mul", a.name)]
    assert p.buffer_of(c) is p.buffer_of(a)
    assert p.planned_bytes == p.lower_bound_bytes == 2 * F32


def test_inplace_needs_equal_sizes():
    x = tf.placeholder(tf.float32, [2, 4])
    bias = tf.tanh(tf.placeholder(tf.float32, [4]))
    h = tf.tanh(x)
    y = tf.add(bias, h)   # input 0 is smaller than the output; input 1 (pair (1, 0)) fits
    p = plan_of([y], [x, bias.op.inputs[0]])
    assert [(op.type, i.name) for op, i, o in p.inplace] == [("Add", h.name)]


def test_no_inplace_without_a_declared_pair_or_with_another_dtype():
    x = tf.placeholder(tf.float32, [2, 4])
    a = tf.tanh(x)
    m = tf.matmul(a, tf.ones([4, 4]))     # MatMul declares no pair
    e = tf.equal(m, 0.0)                  # bool output
    p = plan_of([e], [x])
    assert p.inplace == []


def test_strategies_on_hand_made_buffers():
    # sizes 4, 2, 2, 4 live over steps 0-1, 1-2, 2-3, 3-4: at most 6 bytes live at once, and 6 is
    # possible (A@0, B@4, C@0, D@2), but both heuristics end at 8
    bufs = [memory.Buffer(i, s, a, b, []) for i, (s, a, b) in enumerate([(4, 0, 1), (2, 1, 2), (2, 2, 3), (4, 3, 4)])]
    assert max(memory.live_bytes(bufs, 5)) == 6
    # best fit, largest first: A@0, D@0 (A is dead by then), B above A, C above B and D
    assert memory.best_fit_decreasing(bufs) == [0, 4, 6, 0]
    # NNVM: A and B get blocks 0 and 1; C reuses A's block; D takes B's block, which grows to 4 bytes
    assert memory.nnvm_greedy(bufs) == [0, 4, 0, 4]


def test_best_fit_takes_the_smallest_gap():
    # (size, first step, last step); placed largest first (longer range first among equals)
    spec = [(6, 0, 1), (4, 0, 9), (3, 0, 1), (2, 0, 9), (2, 5, 5)]
    bufs = [memory.Buffer(i, s, a, b, []) for i, (s, a, b) in enumerate(spec)]
    off = memory.best_fit_decreasing(bufs)
    assert off[:4] == [0, 6, 10, 13]   # each on top of those live with it
    # at step 5 only [6, 10) and [13, 15) are taken: holes [0, 6) and [10, 13); the smaller one wins
    assert off[4] == 10


def test_custom_planner_and_overlap_check():
    x = tf.placeholder(tf.float32, [2, 4])
    c = tf.exp(tf.sigmoid(tf.tanh(x)))

    p = plan_of([c], [x], planner=memory.side_by_side, inplace=False)
    assert p.strategy == "side_by_side" and p.planned_bytes == p.naive_bytes == 3 * F32
    assert p.overlaps() == []
    bad = plan_of([c], [x], planner=lambda bufs: [0] * len(bufs), inplace=False)
    assert len(bad.overlaps()) == 2
    with pytest.raises(ValueError, match="returned 1 offsets"):
        plan_of([c], [x], planner=lambda bufs: [0], inplace=False)
    assert plan_of([c], [x], planner="nnvm", inplace=False).strategy == "nnvm"
    with pytest.raises(ValueError, match="Unknown planner 'xla'"):
        plan_of([c], [x], planner="xla")


def test_long_chain_plans_correctly():
    x = tf.placeholder(tf.float32, [2, 4])
    h = x
    for i in range(1000):
        h = tf.tanh(h) if i % 2 else tf.sigmoid(h)
    h = tf.reduce_sum(tf.square(h)) + tf.reduce_sum(h)
    sub = prune.prune([h], [x])
    p = memory.plan_memory(sub, memory.static_sizes(sub))
    assert len(p.steps) > 1000
    assert p.overlaps() == []
    assert p.planned_bytes == p.lower_bound_bytes
    assert p.planned_bytes_no_inplace == p.lower_bound_bytes_no_inplace


def _train_graph():
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.placeholder(tf.float32, [None, 2])
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2) * 0.1)
    b = tf.Variable(np.zeros(2, np.float32))
    logits = tf.nn.relu(tf.matmul(x, w) + b)
    loss = tf.reduce_mean(tf.square(logits - y))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    feeds = {x: np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3), y: np.ones((5, 2), np.float32)}
    return w, loss, train, feeds


@pytest.mark.slow
def test_memory_report_of_a_training_step():
    w, loss, train, feeds = _train_graph()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = sess.run(w)
        r = sess.memory_report([train, loss], feed_dict=feeds)
        np.testing.assert_array_equal(sess.run(w), before)   # nothing ran, nothing was donated away
        assert r.verified is True
        assert r.plan.overlaps() == []
        assert r.lower_bound_bytes <= r.planned_bytes <= r.planned_bytes_no_inplace <= r.naive_bytes
        assert r.planned_total_bytes == r.planned_bytes + r.argument_bytes
        # arguments: the two feeds (batch 5) and the two variables
        assert r.argument_bytes == (5 * 3 + 5 * 2 + 3 * 2 + 2) * 4
        assert set(r.xla) >= {"argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes",
                              "temp_size_in_bytes", "peak_memory_in_bytes"}
        assert r.xla["argument_size_in_bytes"] == r.argument_bytes
        text = str(r)
        assert "MiB" in text and "lower bound" in text and "temp" in text and "verified True" in text
        assert r.xla_allocations is None     # XLA's buffer assignment costs a compile: only on request
        r = sess.memory_report([train, loss], feed_dict=feeds, xla="buffers")
        assert sum(a["size"] for a in r.xla_allocations) > 0   # named by TF op where it can
        assert "XLA buffer assignment" in str(r)
        sess.run(train, feeds)   # the session still works after the report
        assert not np.array_equal(sess.run(w), before)


def test_memory_report_with_a_broken_planner_is_not_verified():
    w, loss, train, feeds = _train_graph()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        r = sess.memory_report([train, loss], feeds, planner=lambda bufs: [0] * len(bufs), xla=False)
        assert r.plan.overlaps() and r.verified is False and r.xla is None


def test_verification_is_automatic_for_small_fetch_sets_only(monkeypatch):
    from tinyflow.runtime import memory_report
    w, loss, train, feeds = _train_graph()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.memory_report(loss, feeds, xla=False).verified is True
        monkeypatch.setattr(memory_report, "VERIFY_MAX_OPS", 3)
        assert sess.memory_report(loss, feeds, xla=False).verified is None
        assert sess.memory_report(loss, feeds, xla=False, verify=True).verified is True


def test_plot_needs_matplotlib(monkeypatch, tmp_path):
    w, loss, train, feeds = _train_graph()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        r = sess.memory_report(loss, feeds, verify=False, xla=False)
    if importlib.util.find_spec("matplotlib") is not None:   # the plot extra
        assert r.plot(str(tmp_path / "m.png")) and (tmp_path / "m.png").exists()
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match="pip install matplotlib"):
        r.plot(str(tmp_path / "n.png"))


def test_python_m_tinyflow_memory(tmp_path, capsys):
    script = tmp_path / "script.py"
    script.write_text(
        "import numpy as np\nimport tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [2, 3])\nv = tf.Variable(np.ones((3, 3), np.float32))\n"
        "y = tf.reduce_sum(tf.tanh(tf.matmul(x, v)))\n"
        "with tf.Session() as s:\n    s.run(tf.global_variables_initializer())\n"
        "    for _ in range(3):\n        print('y', s.run(y, {x: np.ones((2, 3))}))\n")
    from tinyflow.cli import memory as memory_cli
    assert memory_cli.main([str(script)]) == 0
    out = capsys.readouterr().out
    assert out.count("y 5.97") == 3                   # the script ran unchanged
    assert out.count("memory report of") == 2         # two fetch sets: the initializer and y
    assert "Sum:0" in out and "verified True" in out
