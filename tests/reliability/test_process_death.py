"""A data-parallel process that dies (issue 31, item 2), with two real processes: the survivor raises
tf.errors.UnavailableError within seconds and exits normally when process 1 dies; when process 0
(JAX's coordinator) raises, the survivor ends within $TINYFLOW_DISTRIBUTED_TIMEOUT, not JAX's 300 s."""
import os
import socket
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CHILD = r'''
import os, sys, time
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=1"
import numpy as np
import tinyflow as tf
pid, port, dies, how = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
tf.distribute.initialize("127.0.0.1:" + port, 2, pid)
x = tf.placeholder(tf.float32, [None, 4])
w = tf.Variable(np.ones((4, 1), np.float32))
train = tf.train.GradientDescentOptimizer(0.01).minimize(tf.reduce_sum(tf.matmul(x, w)))
sess = tf.Session(config=tf.distribute.DataParallel())
sess.run(tf.global_variables_initializer())
t0 = time.time()
for i in range(2000):
    if pid == dies and i == 3:
        print("dying", flush=True)
        if how == "raise":
            raise RuntimeError("a plain Python error in process %d" % pid)
        os._exit(3)
    try:
        sess.run(train, {x: np.ones((2, 4), np.float32)})
    except tf.errors.UnavailableError as e:
        print("UnavailableError after %.1f s: %s" % (time.time() - t0, str(e)[:300]), flush=True)
        sys.exit(0)
    time.sleep(0.02)
print("never noticed", flush=True)
'''


def _port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


def _run(dies, how):
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu", TINYFLOW_DISTRIBUTED_TIMEOUT="20")
    port = _port()
    start = time.time()
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, str(p), port, str(dies), how], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for p in (0, 1)]
    outs = []
    for p in procs:
        try:
            out, err = p.communicate(timeout=240)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            pytest.fail("a process hung")
        outs.append((p.returncode, out, err, time.time() - start))
    return outs


def test_a_dead_worker_makes_the_coordinator_raise_unavailable_within_seconds():
    (rc0, out0, err0, t0), (rc1, out1, _, _) = _run(1, "exit")
    assert "dying" in out1 and rc1 == 3
    assert rc0 == 0, err0[-2000:]
    assert "UnavailableError after" in out0 and "process 0 of the data-parallel job could not finish the step: " \
        "another process failed or died" in out0
    assert float(out0.split("UnavailableError after ")[1].split(" s")[0]) < 20


@pytest.mark.slow
def test_a_raising_coordinator_ends_the_worker_within_the_timeout():
    (rc0, out0, err0, _), (rc1, out1, err1, t1) = _run(0, "raise")
    assert "dying" in out0 and rc0 == 1 and "a plain Python error in process 0" in err0
    # the worker raised UnavailableError, or JAX ended it for the lost coordinator: either way, soon
    assert "UnavailableError after" in out1 or "JAX distributed service detected fatal errors" in err1, err1[-2000:]
    assert t1 < 20 + 60   # the timeout, and the start of two processes on a loaded machine
