"""TF1 between-graph replication run unchanged (tests/fixtures/distributed/between_graph.py: a ps task,
two worker tasks, replica_device_setter, SyncReplicasOptimizer, MonitoredTrainingSession(master,
is_chief)) by real processes under `python -m tinyflow`: the workers train as one data-parallel job,
with the numbers TF 1.15 records for that step (one worker on the whole batch: record.py)."""
import json
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.slow   # three real processes

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "distributed")
TF = json.load(open(os.path.join(FIXTURES, "between_graph.json")))["one_worker"]


def _ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("localhost", 0))
    out = ["localhost:%d" % s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return out


def test_a_between_graph_script_trains_as_tf(tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu")
    args = ["--ps_hosts=" + ",".join(_ports(1)), "--worker_hosts=" + ",".join(_ports(2)),
            "--checkpoint_dir=" + str(tmp_path)]
    run = [sys.executable, "-m", "tinyflow", os.path.join(FIXTURES, "between_graph.py")]
    procs = [subprocess.Popen(run + ["--job_name=%s" % job, "--task_index=%d" % i] + args, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for job, i in (("ps", 0), ("worker", 0), ("worker", 1))]
    outs = []
    for p in procs:
        try:
            out, err = p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            pytest.fail("a task hung")
        assert p.returncode == 0, err[-3000:]
        outs.append((out, err))
    assert "has nothing to serve" in outs[0][1]          # the ps: join() returned, exit 0
    for out, _ in outs[1:]:
        got = json.loads(next(line for line in out.splitlines() if line.startswith("{")))
        assert got["global_step"] == TF["global_step"] == 6
        # the loss fetched is the global batch's (both workers see it): TF's one worker on that batch
        np.testing.assert_allclose(got["losses"], TF["losses"], rtol=1e-5)
        for a, b in zip(got["variables"], TF["variables"]):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    # the chief (process 0) alone wrote the checkpoints, every 3 steps
    assert sorted(f for f in os.listdir(tmp_path) if f.endswith(".index")) == [
        "model.ckpt-0.index", "model.ckpt-3.index", "model.ckpt-6.index"]
