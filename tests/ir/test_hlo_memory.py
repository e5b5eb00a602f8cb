"""passes/hlo_memory.py (tinyflow's planner over XLA's optimized HLO) and the planner interface
(memory_pass.register_planner): hand-written HLO modules whose plans are worked out by hand, and XLA's own
executables, whose temp bytes the fused plan must reach."""
import importlib.util
import os
import sys

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.passes import hlo_memory
from tinyflow.passes import memory as memory_pass
from paths import ROOT  # the repository

# f32[256] is 1 KiB; the schedule is the text's order
CHAIN = """HloModule m, is_scheduled=true

%fused_add (p0: f32[256], p1: f32[256]) -> f32[256] {
  %p0 = f32[256]{0} parameter(0)
  %p1 = f32[256]{0} parameter(1)
  ROOT %add = f32[256]{0} add(%p0, %p1)
}

%fused_bcast (p0.1: f32[256]) -> f32[256] {
  %p0.1 = f32[256]{0} parameter(0)
  %r = f32[] constant(0)
  %b = f32[256]{0} broadcast(%r), dimensions={}
  ROOT %t = f32[256]{0} reverse(%p0.1), dimensions={0}
}

ENTRY %main (a: f32[256]) -> (f32[256], f32[]) {
  %a = f32[256]{0} parameter(0)
  %x = f32[256]{0} exponential(%a)
  %y = f32[256]{0} tanh(%x)
  %z = f32[256]{0} fusion(%y, %x), kind=kLoop, calls=%fused_add
  %w = f32[256]{0} fusion(%z), kind=kLoop, calls=%fused_bcast
  %s = f32[] reduce(%w, %w), dimensions={0}, to_apply=%fused_add
  %big = (f32[512]{0}, s8[64]{0}) custom-call(%w), custom_call_target="foo"
  %g = f32[512]{0} get-tuple-element(%big), index=0
  %v = f32[256]{0} bitcast(%g)
  %out = f32[256]{0} negate(%v)
  ROOT %r = (f32[256]{0}, f32[]) tuple(%out, %s)
}
"""


def test_parse_shapes_and_aliases():
    comps, entry = hlo_memory.parse_module(CHAIN)
    assert entry == "main" and set(comps) == {"fused_add", "fused_bcast", "main"}
    by = {i.name: i for i in comps["main"]}
    assert by["big"].shape == [512 * 4, 64] and by["s"].shape == 4 and by["z"].operands == ["y", "x"]
    assert by["r"].root and by["g"].opcode == "get-tuple-element"


def test_plan_of_a_hand_written_chain():
    plan = hlo_memory.plan_hlo(CHAIN)
    names = {b.values[0]: b for b in plan.buffers}
    # y = tanh(x) cannot take x's bytes (x is read again by z); z is elementwise on y and on x, both die
    # at z: z takes y's buffer; w reverses z (not elementwise on its parameter): a buffer of its own
    assert ("z", "y") in plan.inplace and "w" in names and "x" in names
    assert [str(v) for v in names["y"].values] == ["y", "z"]
    # the custom-call's tuple: an index table (2 pointers) and two buffers; the s8 scratch dies at once;
    # out is the output (not temp), s too
    assert sorted(b.size for b in plan.buffers if b.values[0] == "big") == [16, 64, 2048]
    assert "out" not in names and "s" not in names
    sizes = sorted(b.size for b in plan.buffers)
    assert sizes == [16, 64, 1024, 1024, 1024, 2048]
    assert plan.overlaps() == [] and plan.lower_bound_bytes <= plan.planned_bytes
    # at the custom-call's step: w (1 KiB), the table, f32[512] and the scratch are live
    assert plan.lower_bound_bytes == 1024 + 16 + 2048 + 64


DONATED = """HloModule d, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias) }

ENTRY %main (p: f32[1024], q: f32[256]) -> (f32[1024]) {
  %p = f32[1024]{0} parameter(0)
  %q = f32[256]{0} parameter(1)
  %c = f32[1024]{0} copy(%p)
  %t = f32[256]{0} exponential(%q)
  %u = f32[256]{0} log(%q)
  %v = f32[256]{0} add(%t, %u)
  %w = f32[1024]{0} tanh(%c)
  %new = f32[1024]{0} add(%c, %w)
  ROOT %r = (f32[1024]{0}) tuple(%new)
}
"""


def test_donated_parameter_holds_temporaries_between_its_reads():
    """XLA's reuse: after p's last read (the copy) and up to `new` (the output written into p's bytes),
    the donated buffer holds temporaries that fit, one at a time, larger first: w (4 KiB), which dies where
    `new` may overwrite it elementwise, then t (with v, written over t in place); c and u are the arena."""
    plan = hlo_memory.plan_hlo(DONATED)
    assert [n for n, _ in plan.in_arguments] == ["w", "t"]
    assert sorted(b.values[0] for b in plan.buffers) == ["c", "u"]
    assert plan.planned_bytes == 4096 + 1024


WHILE = """HloModule w, is_scheduled=true

%body (s: (s32[], f32[256])) -> (s32[], f32[256]) {
  %s = (s32[], f32[256]{0}) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %x = f32[256]{0} get-tuple-element(%s), index=1
  %e = f32[256]{0} exponential(%x)
  %f = f32[256]{0} sine(%x)
  %y = f32[256]{0} add(%e, %f)
  %one = s32[] constant(1)
  %j = s32[] add(%i, %one)
  ROOT %t = (s32[], f32[256]{0}) tuple(%j, %y)
}

%cond (s.1: (s32[], f32[256])) -> pred[] {
  %s.1 = (s32[], f32[256]{0}) parameter(0)
  %i.1 = s32[] get-tuple-element(%s.1), index=0
  %n = s32[] constant(10)
  ROOT %lt = pred[] compare(%i.1, %n), direction=LT
}

ENTRY %main (a: f32[256]) -> f32[256] {
  %a = f32[256]{0} parameter(0)
  %zero = s32[] constant(0)
  %b = f32[256]{0} copy(%a)
  %init = (s32[], f32[256]{0}) tuple(%zero, %b)
  %loop = (s32[], f32[256]{0}) while(%init), condition=%cond, body=%body
  %out = f32[256]{0} get-tuple-element(%loop), index=1
  ROOT %neg = f32[256]{0} negate(%out)
}
"""


def test_while_state_aliases_its_init_and_holds_the_body_arena():
    plan = hlo_memory.plan_hlo(WHILE)
    names = {b.values[0]: b for b in plan.buffers}
    # the loop state is b's buffer until the loop's result is read; the body's own arena at the loop: e and
    # f (2 KiB; y, j and the root's table are the loop state, its parameter the caller's)
    assert names["b"].end == plan.steps.index("neg")
    assert names["loop (called computations)"].size == 2 * 1024
    assert plan.planned_bytes == 1024 + 16 + 2 * 1024


def _train_graph(width=64, layers=3, batch=32):
    rng = np.random.RandomState(0)
    x = tf.placeholder(tf.float32, [batch, width])
    h = x
    for _ in range(layers):
        h = tf.nn.relu(tf.layers.dense(h, width))
    loss = tf.reduce_mean(tf.square(tf.layers.dense(h, 10)))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return loss, train, {x: rng.randn(batch, width).astype(np.float32)}


@pytest.mark.slow
def test_fused_plan_reaches_xlas_temp():
    """The Session's own executable: tinyflow's plan of its buffers within 5% of XLA's temp (XLA CPU: equal)."""
    with tf.Graph().as_default():
        loss, train, feeds = _train_graph()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            r = sess.memory_report([train, loss], feeds, verify=False)
    temp = r.xla["temp_size_in_bytes"]
    assert r.fused is not None and r.fused.overlaps() == []
    assert abs(r.fused.planned_bytes - temp) <= 0.05 * temp
    assert r.fused.lower_bound_bytes <= r.fused.planned_bytes
    assert "planned, fused HLO" in str(r)


def _first_fit(intervals):
    offsets, placed = [], []
    for start, end, size, _ in intervals:
        top = 0
        for o, s, a, b in sorted(placed):
            if a <= end and b >= start and top < o + s and o < top + size:
                top = o + s
        offsets.append(top)
        placed.append((top, size, start, end))
    return offsets


@pytest.mark.slow
def test_registered_planner_is_run_proved_and_printed(monkeypatch):
    monkeypatch.setattr(memory_pass, "PLANNERS", {})
    seen = []

    def recording(intervals):
        seen.append(intervals)
        return _first_fit(intervals)
    assert tf.memory.register_planner("first_fit_test", recording) is recording
    assert "first_fit_test" in memory_pass.PLANNERS
    with tf.Graph().as_default():
        loss, train, feeds = _train_graph()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            r = sess.memory_report([train, loss], feeds)
    assert all(isinstance(iv, tf.memory.Interval) and iv.start <= iv.end and iv.size > 0
               for ivs in seen for iv in ivs)
    assert len(seen) >= 2                       # TF-op granularity and the fused program
    (name, plan, verified, fused), = r.planners
    assert name == "first_fit_test" and verified is True and plan.overlaps() == [] and fused.overlaps() == []
    assert plan.planned_bytes >= r.lower_bound_bytes and plan.strategy == "first_fit_test"
    assert "first_fit_test" in str(r)


@pytest.mark.slow
def test_a_registered_planner_that_overlaps_is_not_verified(monkeypatch):
    monkeypatch.setattr(memory_pass, "PLANNERS", {})
    memory_pass.register_planner("all_at_zero", lambda intervals: [0] * len(intervals))
    with tf.Graph().as_default():
        loss, train, feeds = _train_graph()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            r = sess.memory_report([train, loss], feeds, xla=False)
    (_, plan, verified, fused), = r.planners
    assert plan.overlaps() and verified is False and fused is None
    assert r.verified is True                   # tinyflow's own plan still holds


def test_planner_interface_errors(monkeypatch):
    monkeypatch.setattr(memory_pass, "PLANNERS", {})
    with pytest.raises(TypeError, match="not callable"):
        memory_pass.register_planner("x", 3)
    with pytest.raises(ValueError, match="built-in"):
        memory_pass.register_planner("best_fit", _first_fit)
    with pytest.raises(ValueError, match="Unknown planner 'nope'"):
        hlo_memory.plan_hlo(CHAIN, "nope")
    with pytest.raises(ValueError, match="returned 1 offsets for 6 buffers"):
        hlo_memory.plan_hlo(CHAIN, lambda ivs: [0])
    with pytest.raises(ValueError, match="non-negative integer"):
        hlo_memory.plan_hlo(CHAIN, lambda ivs: [-1] * len(ivs))
    with pytest.raises(hlo_memory.HloReadError, match="no ENTRY"):
        hlo_memory.plan_hlo("HloModule empty")


@pytest.mark.slow
def test_example_best_fit_planner_beats_nothing_worse_than_naive():
    spec = importlib.util.spec_from_file_location("best_fit_planner",
                                                  os.path.join(ROOT, "examples", "passes", "best_fit_planner.py"))
    mod = importlib.util.module_from_spec(spec)
    saved = dict(memory_pass.PLANNERS)
    try:
        spec.loader.exec_module(mod)
        plan = hlo_memory.plan_hlo(CHAIN, "best_fit_by_size")
        assert plan.overlaps() == [] and plan.planned_bytes == plan.lower_bound_bytes
        with tf.Graph().as_default():
            r = mod.main()
        (name, mine, verified, fused), = [p for p in r.planners if p[0] == "best_fit_by_size"]
        assert verified is True and mine.planned_bytes <= mine.naive_bytes
    finally:
        memory_pass.PLANNERS.clear()
        memory_pass.PLANNERS.update(saved)


def test_python_m_tinyflow_memory_plot_and_planner(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(memory_pass, "PLANNERS", {})
    script = tmp_path / "script.py"
    script.write_text("import numpy as np\nimport tensorflow as tf\n"
                      "x = tf.placeholder(tf.float32, [4, 3])\nv = tf.Variable(np.ones((3, 3), np.float32))\n"
                      "y = tf.reduce_sum(tf.tanh(tf.matmul(x, v)))\n"
                      "with tf.Session() as s:\n    s.run(tf.global_variables_initializer())\n"
                      "    s.run(y, {x: np.ones((4, 3))})\n")
    planner = tmp_path / "planner.py"
    planner.write_text("import tinyflow\ntinyflow.memory.register_planner('side', lambda ivs: "
                       "[sum(i.size for i in ivs[:k]) for k in range(len(ivs))])\n")
    if importlib.util.find_spec("matplotlib") is None:
        monkeypatch.setitem(sys.modules, "matplotlib", None)
    from tinyflow.cli import memory as memory_cli
    assert memory_cli.main(["--plot", str(tmp_path / "plots"), "--planner", str(planner), str(script)]) == 0
    out = capsys.readouterr().out
    assert "side" in out and "planned, fused HLO" in out
    if importlib.util.find_spec("matplotlib") is None:
        assert "no plot: report.plot needs matplotlib" in out
    else:
        assert (tmp_path / "plots" / "fetch_set_2.png").exists()


def test_unreadable_hlo_is_a_clear_error():
    with pytest.raises(hlo_memory.HloReadError, match="x reads nowhere before it is defined"):
        hlo_memory.plan_hlo("HloModule m\n\nENTRY %main () -> f32[] {\n  ROOT %x = f32[] add(%nowhere, %y)\n}\n")


CALL = """HloModule c, is_scheduled=true

%inner (x: f32[256]) -> f32[256] {
  %x = f32[256]{0} parameter(0)
  %e = f32[256]{0} exponential(%x)
  %f = f32[256]{0} sine(%x)
  ROOT %g = f32[256]{0} multiply(%e, %f)
}

ENTRY %main (a: f32[256]) -> f32[] {
  %a = f32[256]{0} parameter(0)
  %b = f32[256]{0} negate(%a)
  %c = f32[256]{0} call(%b), to_apply=%inner
  %d = f32[256]{0} cosine(%c)
  ROOT %r = f32[] reduce(%d, %d), dimensions={0}, to_apply=%inner
}
"""


def test_a_call_runs_inline_among_the_callers_buffers():
    """(XLA GPU outlines runs of kernels into called computations, command buffers.) The callee's
    instructions take the call's place in the schedule; its parameter is the caller's operand, its root is
    the call's result."""
    plan = hlo_memory.plan_hlo(CALL)
    assert plan.steps == ["a", "b", "e", "f", "g", "d", "r"]
    names = {b.values[0]: [str(v) for v in b.values] for b in plan.buffers}
    # b dies at f (its last reader, inside the callee): f writes over it; g over e, d over g
    assert names == {"b": ["b", "f"], "e": ["e", "g", "d"]}
    assert plan.lower_bound_bytes == plan.planned_bytes == 2 * 1024
