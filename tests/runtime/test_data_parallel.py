"""tf.distribute.DataParallel: N devices or N processes training on their slices give the variables one
device gives on the whole batch, step after step (1 process x 4 devices, 2 processes x 2 devices)."""
import json
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # every test here takes over a second (the fast subset: -m "not slow")

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dp_worker.py")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENV = dict(os.environ, PYTHONPATH=ROOT)   # the workers import this checkout's tinyflow


def _run(*args, timeout=240):
    out = subprocess.run([sys.executable, WORKER] + [str(a) for a in args], capture_output=True, text=True,
                         timeout=timeout, env=ENV)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _same_training(one, many):
    np.testing.assert_allclose(one["losses"], many["losses"], rtol=1e-5)
    for step_one, step_many in zip(one["trajectory"], many["trajectory"]):
        for a, b in zip(step_one, step_many):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("model", ["mlp", "cnn"])
def test_four_devices_train_like_one(model):
    one, four = _run(1, model), _run(4, model)
    _same_training(one, four)
    assert four["all_reduce"]                 # XLA inserted the gradient all-reduce
    assert four["logits_rows"] == 8           # one process: the caller's rows are the whole batch
    assert "3 rows" in four["indivisible"] and "4 devices" in four["indivisible"]


def test_every_optimizer_metrics_and_summaries_train_alike_on_four_devices():
    out = _run(4, "every_optimizer")
    for name, (one, four) in out.items():
        for a, b in zip(one[:-2], four[:-2]):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6, err_msg=name)
        assert one[-2] == four[-2], name      # tf.metrics.accuracy over the global batch
        assert len(one[-1]) > 0 and len(four[-1]) > 0   # the summary of the loss (its bytes)
        assert abs(_summary_value(one[-1]) - _summary_value(four[-1])) < 1e-5, name


def test_sharded_variables_train_alike_and_hold_fewer_bytes_per_device():
    out = _run(4, "sharded_variables")
    for name in ("replicated", "sharded"):
        for a, b in zip(out["one"]["values"], out[name]["values"]):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6, err_msg=name)
    # the 1 MiB kernel and its momentum slot live a quarter on each device
    saved = out["replicated"]["bytes_per_device"] - out["sharded"]["bytes_per_device"]
    assert saved == 2 * 512 * 512 * 4 * 3 // 4


def _summary_value(hex_bytes):
    from tinyflow.formats.tf_protos import Summary
    s = Summary.FromString(bytes.fromhex(hex_bytes))
    return s.value[0].simple_value


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_processes_of_two_devices_train_like_one(tmp_path):
    port = _free_port()
    ckpt = str(tmp_path / "model.ckpt")
    procs = [subprocess.Popen([sys.executable, WORKER, "2", "mlp", str(i), "2", str(port), ckpt],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV) for i in range(2)]
    outs = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=240)
        assert p.returncode == 0, stderr[-3000:]
        outs.append(json.loads(next(line for line in reversed(stdout.strip().splitlines()) if line.startswith("{"))))
    one = _run(1, "mlp")
    for out in outs:
        _same_training(one, out)
        assert out["logits_rows"] == 4        # each process gets its own rows back
    # the checkpoint the job wrote restores in a plain Session with the job's values
    import tinyflow as tf
    tf.reset_default_graph()
    sys.argv = ["x"]
    x = tf.placeholder(tf.float32, [None, 6])
    h = tf.layers.dense(x, 16)
    tf.layers.dense(h, 3)
    with tf.Session() as sess:
        tf.train.Saver(tf.trainable_variables()).restore(sess, outs[0]["checkpoint"])
        for a, b in zip(sess.run(tf.trainable_variables()), outs[0]["trajectory"][-1]):
            np.testing.assert_allclose(a, np.asarray(b), rtol=1e-6)
