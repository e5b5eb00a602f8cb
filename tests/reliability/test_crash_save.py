"""Saver.save survives kill -9 at every step: the checkpoint the `checkpoint` file names stays
complete and restorable (TF's order: files, state file, then deletion), two crashes in a row on
one prefix included, and the next save cleans what the killed ones left.

Each crash is a forked child that SIGKILLs itself at the n-th marked step of a save (durable's
_fault_hook). The child touches no JAX: its "session" hands the Saver numpy values."""
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.formats import durable

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


class _Values:
    """What Saver.save needs of a Session: the graph and each variable's value."""

    def __init__(self, graph, values):
        self.graph = graph
        self.values = values

    def _variable_value(self, op):
        return self.values[op.name]


def _model(fmt="npz"):
    """A graph and its Saver(max_to_keep=1) writing format `fmt` ("npz": tinyflow's, which also
    survives two crashes on one prefix; 2: TF's V2 bundle where this tinyflow has it)."""
    g = tf.Graph()
    with g.as_default():
        tf.Variable(np.zeros((2, 3), np.float32), name="w")
        tf.Variable(np.zeros([], np.int64), name="step")
        saver = tf.train.Saver(max_to_keep=1, write_version=fmt)
    if fmt != "npz" and not hasattr(saver, "_write_version"):
        pytest.skip("this Saver writes only tinyflow's npz format")
    return g, saver


def _vals(k):
    return {"w": np.full((2, 3), k, np.float32), "step": np.array(k, np.int64)}


def _in_child(fn, timeout=20.0):
    """Runs fn() in a forked child; returns how it ended ("killed", "ok")."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 0
        try:
            fn()
        except BaseException:
            code = 3
        os._exit(code)
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise AssertionError("the child save did not finish in %.0f s" % timeout)
        time.sleep(0.005)
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
        return "killed"
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, "child failed: %r" % status
    return "ok"


def _crash_at(n):
    """A fault hook that SIGKILLs this process at the n-th marked step (1-based)."""
    hits = [0]

    def hook(point, path):
        hits[0] += 1
        if hits[0] == n:
            os.kill(os.getpid(), signal.SIGKILL)
    return hook


def _count_points(save):
    seen = []
    durable._fault_hook = lambda point, path: seen.append((point, path))
    try:
        save()
    finally:
        durable._fault_hook = None
    return seen


def _check_named_checkpoint(folder, g, saver, allowed):
    """The checkpoint the state file names is complete and holds one of the `allowed` value sets."""
    latest = tf.train.latest_checkpoint(str(folder))
    assert latest is not None, "no checkpoint named after the crash: %s" % sorted(os.listdir(folder))
    reader = tf.train.NewCheckpointReader(latest)
    got = {n: reader.get_tensor(n) for n in ("w", "step")}
    assert any(all(np.array_equal(got[n], v[n]) for n in v) for v in allowed), (latest, got)
    return latest, got


def _leftovers(folder):
    return [n for n in os.listdir(folder) if n.endswith(".tmp") or n.endswith(".pending")]


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["npz", 2])
def test_kill_at_every_step_keeps_a_named_checkpoint(tmp_path, fmt):
    """max_to_keep=1, ckpt-1 saved; a save of ckpt-2 is killed at each of its steps in turn."""
    g, saver = _model(fmt)
    probe = tmp_path / "probe"
    probe.mkdir()
    saver.save(_Values(g, _vals(1)), str(probe / "ckpt"), global_step=1)
    points = _count_points(lambda: saver.save(_Values(g, _vals(2)), str(probe / "ckpt"), global_step=2))
    assert len(points) >= 10 and [p for p, _ in points].index("state_written") < [p for p, _ in points].index("deleted")
    crashed = 0
    for n in range(1, len(points) + 1):
        folder = tmp_path / ("crash%d" % n)
        folder.mkdir()
        g, saver = _model(fmt)
        saver.save(_Values(g, _vals(1)), str(folder / "ckpt"), global_step=1)

        def child():
            durable._fault_hook = _crash_at(n)
            saver.save(_Values(g, _vals(2)), str(folder / "ckpt"), global_step=2)
        crashed += _in_child(child) == "killed"
        latest, got = _check_named_checkpoint(folder, g, saver, [_vals(1), _vals(2)])
        assert int(got["step"]) == int(latest.rsplit("-", 1)[1])  # the name and the values agree
        # the next save (a new process: a fresh Saver) cleans the killed save's temp files
        g, saver = _model(fmt)
        saver.save(_Values(g, _vals(3)), str(folder / "ckpt"), global_step=3)
        assert _leftovers(folder) == [], (n, points[n - 1], os.listdir(folder))
        _check_named_checkpoint(folder, g, saver, [_vals(3)])
    assert crashed == len(points)  # every marked step was a real crash
    print("kill -9 during Saver.save (%s): %d faults injected, %d survived (named checkpoint restorable, leftovers "
          "cleaned)" % (fmt, crashed, crashed))


@pytest.mark.slow
def test_two_crashes_in_a_row_on_one_prefix(tmp_path):
    """Save P, then two saves of the same P killed at any pair of steps: P stays restorable.
    Run in a fresh interpreter: each of its ~90 forks copies the forking process's page tables, and a
    pytest worker that has run hundreds of tests makes them 7x slower (24 s against 3.5 s)."""
    code = ("import pathlib, sys; sys.path.insert(0, %r); import test_crash_save as t; "
            "t.two_crashes_in_a_row(pathlib.Path(%r))" % (os.path.dirname(os.path.abspath(__file__)), str(tmp_path)))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    print(p.stdout)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "survived" in p.stdout


def two_crashes_in_a_row(tmp_path):
    g, saver = _model()
    probe = tmp_path / "probe"
    probe.mkdir()
    saver.save(_Values(g, _vals(0)), str(probe / "model"))
    points = _count_points(lambda: saver.save(_Values(g, _vals(1)), str(probe / "model"), write_meta_graph=False))
    n_points = len(points)
    for i in range(1, n_points + 1):
        for j in sorted({1, 2, 4, 6, n_points}):  # 2: after the pending index, before the data
            folder = tmp_path / ("c%d_%d" % (i, j))
            folder.mkdir()
            prefix = str(folder / "model")
            g, saver = _model()
            saver.save(_Values(g, _vals(0)), prefix, write_meta_graph=False)
            for k, n in ((1, i), (2, j)):
                def child():
                    durable._fault_hook = _crash_at(n)
                    saver.save(_Values(g, _vals(k)), prefix, write_meta_graph=False)
                assert _in_child(child) == "killed"
            _check_named_checkpoint(folder, g, saver, [_vals(0), _vals(1), _vals(2)])
            saver.save(_Values(g, _vals(3)), prefix, write_meta_graph=False)
            assert _leftovers(folder) == []
            _check_named_checkpoint(folder, g, saver, [_vals(3)])
    pairs = n_points * len({1, 2, 4, 6, n_points})
    print("two kill -9 in a row on one prefix: %d pairs injected, %d survived" % (pairs, pairs))


def test_old_checkpoints_are_deleted_only_after_the_state_file(tmp_path):
    g, saver = _model()
    order = []
    durable._fault_hook = lambda point, path: order.append((point, os.path.basename(path)))
    try:
        saver.save(_Values(g, _vals(1)), str(tmp_path / "m"), global_step=1)
        del order[:]
        saver.save(_Values(g, _vals(2)), str(tmp_path / "m"), global_step=2)
    finally:
        durable._fault_hook = None
    state_at = order.index(("state_written", "m-2"))
    deleted = [k for k, (p, name) in enumerate(order) if p == "deleted"]
    assert deleted and min(deleted) > state_at
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "m-2.index", "m-2.meta", "m-2.npz"]


_CHILD = r"""
import os, signal, sys
import numpy as np
import tinyflow as tf
from tinyflow.formats import durable
w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")
bump = tf.assign_add(w, tf.ones([2, 3]))
saver = tf.train.Saver(max_to_keep=1)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    saver.save(sess, sys.argv[1], global_step=1)
    sess.run(bump)
    def hook(point, path):
        if point == sys.argv[2]:
            os.kill(os.getpid(), signal.SIGKILL)
    durable._fault_hook = hook
    saver.save(sess, sys.argv[1], global_step=2)
"""


@pytest.mark.slow
def test_real_session_killed_before_the_state_file(tmp_path):
    """A real training process killed after writing ckpt-2's files, before the state file names it:
    a new process restores ckpt-1 (max_to_keep=1 did not delete it)."""
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(tmp_path / "ckpt"), "meta_written"], env=env,
                          timeout=120, capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "ckpt-1")
    with tf.Graph().as_default():
        w = tf.Variable(np.zeros((2, 3), np.float32), name="w")
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, str(tmp_path / "ckpt-1"))
            np.testing.assert_array_equal(sess.run(w), np.arange(6, dtype=np.float32).reshape(2, 3))
