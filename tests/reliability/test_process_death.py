"""A data-parallel process that dies (issue 31, item 2), with two real processes: the survivor raises
tf.errors.UnavailableError naming the process that went, within WAIT_FOR_NEWS seconds of its death
(tinyflow's liveness hub, api/distribute/liveness.py), and ends with an ordinary Python exit, never
JAX's abort; process 0 (which starts JAX's coordination service) included: the service lives in a
helper process. The checkpoint process 0 wrote before it died restores."""
import os
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # two real processes each

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BOUND = 2.0 + 1.0   # liveness.WAIT_FOR_NEWS, and a loaded machine's scheduling

CHILD = r'''
import os, sys, time
os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=1"
import numpy as np
import tinyflow as tf
pid, port, dies, how, ckpt = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
tf.distribute.initialize("127.0.0.1:" + port, 2, pid)
x = tf.placeholder(tf.float32, [None, 4])
w = tf.Variable(np.ones((4, 1), np.float32), name="w")
step = tf.train.get_or_create_global_step()
train = tf.train.GradientDescentOptimizer(0.01).minimize(tf.reduce_sum(tf.matmul(x, w)), global_step=step)
saver = tf.train.Saver()
sess = tf.Session(config=tf.distribute.DataParallel())
sess.run(tf.global_variables_initializer())
for i in range(2000):
    if how == "leave" and i == 5:   # a normal end: process 0 leaves first, process 1 a while later
        time.sleep(2 * pid)
        print("left", flush=True)
        sys.exit(0)
    if pid == dies and i == 5:
        print("dying at %.3f" % time.time(), flush=True)
        if how == "raise":
            raise RuntimeError("a plain Python error in process %d" % pid)
        os.kill(os.getpid(), 9)
    try:
        sess.run(train, {x: np.ones((2, 4), np.float32)})
    except tf.errors.UnavailableError as e:
        print("raised at %.3f" % time.time(), flush=True)
        raise
    if pid == 0 and i < 5:
        saver.save(sess, ckpt, global_step=step)
    time.sleep(0.02)
print("never noticed", flush=True)
'''


def _port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


def _run(dies, how, ckpt):
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu", TINYFLOW_DISTRIBUTED_TIMEOUT="20")
    port = _port()
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, str(p), port, str(dies), how, ckpt], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for p in (0, 1)]
    outs = []
    for p in procs:
        try:
            out, err = p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            pytest.fail("a process hung")
        outs.append((p.returncode, out, err))
    _run.port = port
    return outs


def _stamp(out, word):
    return float(out.split(word + " at ")[1].split()[0])


def _survived(rc, out, err, dead, how):
    """The survivor raised UnavailableError naming `dead` within BOUND s of its death, and ended
    with Python's exit status 1 for an uncaught exception (JAX's abort is 134 and a fatal log)."""
    assert rc == 1, err[-3000:]
    assert "Terminating process" not in err and "Check failure" not in err, err[-3000:]
    assert "UnavailableError" in err and "process %d %s" % (dead, how) in err, err[-3000:]
    return _stamp(out, "raised")


def test_a_dead_worker_makes_the_coordinator_raise_unavailable_naming_it(tmp_path):
    (rc0, out0, err0), (rc1, out1, _) = _run(1, "kill", str(tmp_path / "m"))
    assert "dying" in out1 and rc1 == -9
    assert _survived(rc0, out0, err0, 1, "died") - _stamp(out1, "dying") < BOUND


def test_a_dead_coordinator_makes_the_worker_raise_unavailable_naming_it(tmp_path):
    (rc0, out0, _), (rc1, out1, err1) = _run(0, "kill", str(tmp_path / "m"))
    assert "dying" in out0 and rc0 == -9
    assert _survived(rc1, out1, err1, 0, "died") - _stamp(out0, "dying") < BOUND
    assert "process 0 ran JAX's coordinator" in err1
    # the last checkpoint process 0 wrote restores, with the value of its step
    import tinyflow as tf
    tf.reset_default_graph()
    w = tf.Variable(np.zeros((4, 1), np.float32), name="w")
    step = tf.train.get_or_create_global_step()
    with tf.Session() as sess:
        tf.train.Saver().restore(sess, tf.train.latest_checkpoint(str(tmp_path)))
        n, value = sess.run([step, w])
    assert n == 5   # saved after steps 1..5 (the 5th save, then process 0 died before its 6th step)
    # each step: w -= 0.01 * (sum of the rows of x over the global batch of 4 ones rows) = 0.04
    np.testing.assert_allclose(value, np.full((4, 1), 1 - 0.04 * n, np.float32), rtol=1e-6)


def test_a_raising_coordinator_makes_the_worker_raise_unavailable_naming_its_error(tmp_path):
    (rc0, out0, err0), (rc1, out1, err1) = _run(0, "raise", str(tmp_path / "m"))
    assert "dying" in out0 and rc0 == 1 and "a plain Python error in process 0" in err0
    _survived(rc1, out1, err1, 0, "failed")
    assert "RuntimeError: a plain Python error in process 0" in err1


def test_process_0_may_leave_first_at_a_normal_end(tmp_path):
    """No exit order: JAX aborts a process whose disconnect finds the coordination service gone; the
    service lives in a helper that ends with the last process."""
    for rc, out, err in _run(-1, "leave", str(tmp_path / "m")):
        assert rc == 0 and "left" in out, err[-3000:]


def test_the_helper_process_ends_with_the_job(tmp_path):
    """The coordination service's helper outlives process 0, and no process of the job."""
    _run(0, "kill", str(tmp_path / "m"))
    deadline = time.time() + 20
    while time.time() < deadline:
        ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
        if not any("service_main.py" in line and ":%s " % _run.port in line for line in ps.splitlines()):
            return
        time.sleep(0.2)
    pytest.fail("the coordination service's helper is still running")
