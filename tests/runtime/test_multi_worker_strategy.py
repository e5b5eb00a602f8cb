"""tf.distribute.experimental.MultiWorkerMirroredStrategy from $TF_CONFIG (a chief and a worker, two real
processes): each feeds its rows, and Sessions created in the strategy's scope train like one process
on the whole batch."""
import json
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.slow   # two real processes

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CHILD = r'''
import json, os, sys
import numpy as np
import tinyflow as tf
strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy(
    tf.distribute.experimental.CollectiveCommunication.RING)
n = tf.distribute.process_count()
i = tf.distribute.process_index()
rs = np.random.RandomState(2)
xs, ys = rs.randn(8, 3).astype(np.float32), rs.randn(8, 1).astype(np.float32)
rows = slice(i * 8 // n, (i + 1) * 8 // n)
x, y = tf.placeholder(tf.float32, [None, 3]), tf.placeholder(tf.float32, [None, 1])
w = tf.Variable(np.full((3, 1), 0.5, np.float32))
loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
train = tf.train.AdamOptimizer(0.1).minimize(loss)
with strategy.scope():
    sess = tf.Session()
sess.run(tf.global_variables_initializer())
losses = [float(sess.run([loss, train], {x: xs[rows], y: ys[rows]})[0]) for _ in range(4)]
print(json.dumps({"process": i, "processes": n, "replicas": strategy.num_replicas_in_sync, "losses": losses,
                  "w": sess.run(w).ravel().tolist()}), flush=True)
'''


def _ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("localhost", 0))
    out = ["localhost:%d" % s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return out


def _start(tf_config):
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu", TF_CONFIG=json.dumps(tf_config) if tf_config else "")
    return subprocess.Popen([sys.executable, "-c", CHILD], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _result(p):
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1])


def test_multi_worker_mirrored_strategy_from_tf_config_trains_like_one_process():
    chief, worker = _ports(2)
    cluster = {"chief": [chief], "worker": [worker]}
    procs = [_start({"cluster": cluster, "task": {"type": "worker", "index": 0}}),
             _start({"cluster": cluster, "task": {"type": "chief", "index": 0}})]
    got = [_result(p) for p in procs]
    alone = _result(_start(None))
    assert [g["process"] for g in got] == [1, 0]   # the chief is process 0
    assert alone["processes"] == 1
    for g in got:
        assert g["processes"] == g["replicas"] == 2
        np.testing.assert_allclose(g["losses"], alone["losses"], rtol=1e-5)
        np.testing.assert_allclose(g["w"], alone["w"], rtol=1e-5, atol=1e-6)
