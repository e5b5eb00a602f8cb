"""passes/minimalloc.py (the exact planner) against a brute force on small random instances, and
MiniMalloc's CSV both ways: a report's plans exported, solutions read back as plans (replayed at TF-op
granularity, checked for overlaps over XLA's fused buffers), wrong files named clearly."""
import itertools
import os
import random

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.passes import memory as memory_pass
from tinyflow.passes import minimalloc
from tinyflow.passes.memory import Interval


def brute_force(ivs):
    """The smallest arena over every order of placing the intervals, each on top of the ones placed
    before it that are live with it (every gravity-settled plan is one of these)."""
    best = None
    for order in itertools.permutations(range(len(ivs))):
        offsets, top = {}, 0
        for i in order:
            a = ivs[i]
            offsets[i] = max([offsets[j] + ivs[j].size for j in offsets
                              if ivs[j].start <= a.end and ivs[j].end >= a.start], default=0)
            top = max(top, offsets[i] + a.size)
            if best is not None and top >= best:
                break
        else:
            best = top
    return best


def overlapping(ivs, offsets):
    return [(i, j) for i, j in itertools.combinations(range(len(ivs)), 2)
            if ivs[i].start <= ivs[j].end and ivs[j].start <= ivs[i].end and ivs[i].size and ivs[j].size
            and offsets[i] < offsets[j] + ivs[j].size and offsets[j] < offsets[i] + ivs[i].size]


def random_instance(rng, n):
    out = []
    for k in range(n):
        start = rng.randint(0, 5)
        out.append(Interval(start, min(5, start + rng.randint(0, 3)), rng.choice([0, 1, 2, 3, 5, 8, 9]), "b%d" % k))
    return out


def test_exact_planner_equals_brute_force_and_never_beats_the_lower_bound():
    rng = random.Random(0)
    # four where tinyflow's heuristics miss the optimum by a byte, then random ones
    cases = [[Interval(s, e, z, "b%d" % k) for k, (s, e, z) in enumerate(c)] for c in (
        [(0, 0, 2), (0, 1, 3), (1, 2, 5), (0, 0, 4)], [(0, 1, 2), (1, 3, 2), (2, 2, 7), (0, 0, 8)],
        [(0, 1, 6), (0, 0, 7), (1, 2, 6), (2, 2, 8)], [(1, 1, 5), (0, 0, 6), (1, 1, 2), (0, 1, 2)])]
    cases += [random_instance(rng, rng.randint(1, 6)) for _ in range(40)]
    beaten = 0
    for ivs in cases:
        heuristic = min(minimalloc.arena_of(ivs, f(ivs)) for f in memory_pass.STRATEGIES.values())
        side_by_side = list(np.cumsum([0] + [iv.size for iv in ivs[:-1]]))
        for start in (None, side_by_side):     # from tinyflow's best plan, and from the naive one
            out = minimalloc.exact_planner(ivs, time_limit=5, start=start)
            assert out.optimal is True and out.arena == brute_force(ivs), ivs
            assert overlapping(ivs, out) == [] and out.arena == minimalloc.arena_of(ivs, out)
            assert out.lower_bound == minimalloc.peak_live(ivs) <= out.arena
        beaten += out.arena < heuristic
    assert beaten >= 4


def test_time_limit_returns_the_best_plan_found_unproved():
    ivs = [Interval(0, 0, 2, "a"), Interval(0, 1, 3, "b"), Interval(1, 2, 5, "c"), Interval(0, 0, 4, "d")]
    out = minimalloc.exact_planner(ivs, time_limit=0, start=[0, 2, 5, 10])
    # no time to search: the plan it was given, not proved
    assert list(out) == [0, 2, 5, 10] and out.optimal is False and out.arena == 14 and out.lower_bound == 9
    assert minimalloc.exact_planner([], time_limit=0).optimal is True
    # as a planner by name: the proof travels into the plan (the lower bound reached counts as proof too)
    buffers = [memory_pass.Buffer(i, iv.size, iv.start, iv.end, [iv.name]) for i, iv in enumerate(ivs)]
    arena, name, optimal = memory_pass.place(buffers, "minimalloc", 9)
    assert (arena, name, optimal) == (9, "minimalloc", True)
    assert memory_pass.place(buffers, lambda ivs: minimalloc.exact_planner(ivs, 0, [0, 2, 5, 10]), 9)[2] is False
    # without a plan to start from, one dive of the search gives the first (here the optimum at once)
    assert minimalloc.minimalloc(time_limit=0)(ivs).arena == 9
    assert "minimalloc" in memory_pass.PLANNERS and "minimalloc" not in memory_pass.default_planners()


def test_csv_round_trip_and_bad_files(tmp_path):
    buffers = [memory_pass.Buffer(i, z, s, e, ["v%d" % i]) for i, (s, e, z) in enumerate([(0, 2, 64), (1, 3, 32)])]
    for b, o in zip(buffers, (0, 64)):
        b.offset = o
    problem = minimalloc.write_csv(str(tmp_path / "p.csv"), buffers, offsets=False)
    solution = minimalloc.write_csv(str(tmp_path / "s.csv"), buffers)
    assert open(problem).read() == "id,lower,upper,size\n0,0,3,64\n1,1,4,32\n"
    assert open(solution).read().splitlines()[1:] == ["0,0,3,64,0", "1,1,4,32,64"]
    rows = minimalloc.read_csv(solution)
    assert minimalloc.same_buffers(rows, buffers) and minimalloc.solution_offsets(solution, rows, buffers) == [0, 64]
    assert not minimalloc.same_buffers(rows, buffers[:1])
    # MiniMalloc's own column order, and a solution without offsets
    (tmp_path / "o.csv").write_text("offset,size,upper,lower,id\n0,64,3,0,0\n64,32,4,1,1\n")
    assert minimalloc.read_csv(str(tmp_path / "o.csv")) == rows
    with pytest.raises(ValueError, match="p.csv: buffer 0 has no offset"):
        minimalloc.solution_offsets(problem, minimalloc.read_csv(problem), buffers)
    (tmp_path / "x.csv").write_text("name,start\n")
    with pytest.raises(ValueError, match="x.csv: not a MiniMalloc CSV .no id, lower, upper, size column"):
        minimalloc.read_csv(str(tmp_path / "x.csv"))
    (tmp_path / "y.csv").write_text("id,lower,upper,size\n0,0,three,4\n")
    with pytest.raises(ValueError, match="y.csv, line 2: '0,0,three,4' is not id,lower,upper,size"):
        minimalloc.read_csv(str(tmp_path / "y.csv"))


def _training_step():
    x = tf.placeholder(tf.float32, [16, 32])
    h = x
    for _ in range(3):
        h = tf.nn.relu(tf.layers.dense(h, 32))
    loss = tf.reduce_mean(tf.square(tf.layers.dense(h, 4)))
    return loss, tf.train.GradientDescentOptimizer(0.1).minimize(loss), {x: np.ones((16, 32), np.float32)}


@pytest.mark.slow
def test_report_exports_both_granularities_and_takes_solutions_back(tmp_path):
    with tf.Graph().as_default():
        loss, train, feeds = _training_step()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            r = sess.memory_report([train, loss], feeds, planners=["minimalloc"])
    (name, exact, verified, fused), = r.planners
    assert name == "minimalloc" and verified is True and exact.optimal and fused.optimal
    assert exact.planned_bytes == r.lower_bound_bytes and fused.planned_bytes >= fused.lower_bound_bytes
    paths = [os.path.basename(p) for p in r.export_csv(str(tmp_path))]
    assert paths == ["tf_ops.csv", "tf_ops.tinyflow.solution.csv", "tf_ops.minimalloc.solution.csv", "fused_hlo.csv",
                     "fused_hlo.tinyflow.solution.csv", "fused_hlo.minimalloc.solution.csv"]
    # each solution read back is the plan it came from: replayed (TF ops) or checked for overlaps (fused)
    label, plan, ok, none = r.check_solution(str(tmp_path / "tf_ops.minimalloc.solution.csv"))
    assert (label, ok, none) == ("tf_ops.minimalloc.solution.csv", True, None)
    assert [b.offset for b in plan.buffers] == [b.offset for b in exact.buffers]
    label, none, ok, hlo = r.check_solution(str(tmp_path / "fused_hlo.tinyflow.solution.csv"))
    assert none is None and hlo.planned_bytes == r.fused.planned_bytes and hlo.overlaps() == []
    assert "fused_hlo.tinyflow.solution" in str(r)
    # a wrong offset: the two buffers named, with the file
    lines = open(tmp_path / "tf_ops.tinyflow.solution.csv").read().splitlines()
    live = sorted(r.plan.buffers, key=lambda b: -b.size)
    a, b = next((a, b) for a, b in itertools.combinations(live, 2) if a.start <= b.end and b.start <= a.end)
    i, j = r.plan.buffers.index(a), r.plan.buffers.index(b)
    lines[1 + j] = ",".join(lines[1 + j].split(",")[:4] + [str(a.offset)])
    (tmp_path / "bad.csv").write_text("\n".join(lines) + "\n")
    pattern = r"bad.csv: buffers (%d|%d) \(.*\) and (%d|%d) \(.*\) overlap: both live at step" % (i, j, i, j)
    with pytest.raises(ValueError, match=pattern):
        r.check_solution(str(tmp_path / "bad.csv"))
    (tmp_path / "other.csv").write_text("id,lower,upper,size,offset\n0,0,1,4,0\n")
    with pytest.raises(ValueError, match="other.csv: its 1 buffers are neither the TF-op plan's"):
        r.check_solution(str(tmp_path / "other.csv"))


@pytest.mark.slow
def test_python_m_tinyflow_memory_csv_and_solution(tmp_path, capsys):
    script = tmp_path / "script.py"
    script.write_text("import numpy as np\nimport tensorflow as tf\n"
                      "x = tf.placeholder(tf.float32, [8, 16])\nv = tf.Variable(np.ones((16, 16), np.float32))\n"
                      "y = tf.reduce_sum(tf.tanh(tf.matmul(tf.tanh(tf.matmul(x, v)), v)))\n"
                      "with tf.Session() as s:\n    s.run(tf.global_variables_initializer())\n"
                      "    s.run(y, {x: np.ones((8, 16))})\n")
    from tinyflow.cli import memory as memory_cli
    out_dir = tmp_path / "csv"
    assert memory_cli.main(["--planner", "minimalloc", "--csv", str(out_dir), str(script)]) == 0
    out = capsys.readouterr().out
    assert "minimalloc" in out and "csv: " in out
    solution = out_dir / "fetch_set_2" / "tf_ops.minimalloc.solution.csv"
    assert memory_cli.main(["--solution", str(solution), str(script)]) == 0
    out = capsys.readouterr().out
    assert "tf_ops.minimalloc.solution" in out.split("[2]")[1]
    lines = solution.read_text().splitlines()
    lines[1:] = [",".join(line.split(",")[:4] + ["0"]) for line in lines[1:]]   # everything at offset 0
    bad = tmp_path / "zero.csv"
    bad.write_text("\n".join(lines) + "\n")
    assert memory_cli.main(["--solution", str(bad), str(script)]) == 1
    assert "zero.csv: buffers" in capsys.readouterr().err
