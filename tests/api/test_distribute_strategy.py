"""tf.distribute's strategies (and tf.contrib.distribute's) against TF 1.15 on a CPU
(tests/fixtures/distributed/record_strategy.py); a strategy's scope makes Sessions data-parallel over
its devices (checked in a process of 2 CPU devices); TPU names are errors naming the TPU."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tinyflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TF = json.load(open(os.path.join(ROOT, "tests", "fixtures", "distributed", "strategy.json")))


def test_mirrored_strategy_and_enums_as_tf():
    s = tf.distribute.MirroredStrategy()
    assert s.num_replicas_in_sync == TF["num_replicas_in_sync"]
    assert list(s.extended.worker_devices) == TF["worker_devices"]
    assert [m.name for m in tf.distribute.experimental.CollectiveCommunication] == TF["collective"]
    assert [m.name for m in tf.distribute.ReduceOp] == TF["reduce_op"]
    assert tf.distribute.get_strategy().num_replicas_in_sync == 1 and not tf.distribute.has_strategy()
    with s.scope():
        assert tf.distribute.get_strategy() is s and tf.distribute.has_strategy()


def _model_fn(features, labels, mode):
    w = tf.get_variable("w", [3, 1], initializer=tf.constant_initializer(0.5))
    loss = tf.reduce_mean(tf.square(tf.matmul(features, w) - labels))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, tf.train.get_or_create_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train)


def _input_fn():
    rs = np.random.RandomState(0)
    x, y = rs.randn(8, 3).astype(np.float32), rs.randn(8, 1).astype(np.float32)
    return tf.data.Dataset.from_tensors((x, y)).repeat()


@pytest.mark.slow
def test_estimator_with_train_distribute_trains_as_tf(tmp_path):
    strategies = [None, tf.distribute.MirroredStrategy(), tf.contrib.distribute.MirroredStrategy(
        cross_device_ops=tf.contrib.distribute.AllReduceCrossDeviceOps("nccl"))]
    for i, (dist, (w, step)) in enumerate(zip(strategies, TF["estimator"])):
        est = tf.estimator.Estimator(_model_fn, model_dir=str(tmp_path / str(i)),
                                     config=tf.estimator.RunConfig(train_distribute=dist))
        est.train(_input_fn, steps=5)
        np.testing.assert_allclose(est.get_variable_value("w").ravel(), w, rtol=1e-5)
        assert est.get_variable_value("global_step") == step


CHILD = r'''
import os, json
os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=2"
import numpy as np
import tinyflow as tf
rs = np.random.RandomState(1)
xs, ys = rs.randn(8, 3).astype(np.float32), rs.randn(8, 1).astype(np.float32)
out = {}
for name, strategy in (("none", None), ("mirrored", tf.distribute.MirroredStrategy()),
                       ("one", tf.distribute.OneDeviceStrategy("/cpu:1"))):
    tf.reset_default_graph()
    x, y = tf.placeholder(tf.float32, [None, 3]), tf.placeholder(tf.float32, [None, 1])
    w = tf.Variable(np.full((3, 1), 0.5, np.float32))
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
    train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    scope = strategy.scope() if strategy else tf.distribute.get_strategy().scope()
    with scope:
        sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    for _ in range(3):
        sess.run(train, {x: xs, y: ys})
    out[name] = {"w": sess.run(w).ravel().tolist(), "replicas": strategy.num_replicas_in_sync if strategy else 1,
                 "devices": None if sess._placement is None else sess._placement.size}
print(json.dumps(out))
'''


@pytest.mark.slow
def test_a_strategy_scope_makes_sessions_data_parallel_over_its_devices():
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu"))
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["none"]["devices"] is None
    assert got["mirrored"]["devices"] == got["mirrored"]["replicas"] == 2   # both CPU devices
    assert got["one"]["devices"] == got["one"]["replicas"] == 1
    for name in ("mirrored", "one"):   # the same training as one device
        np.testing.assert_allclose(got[name]["w"], got["none"]["w"], rtol=1e-6)


def test_strategy_helpers():
    s = tf.distribute.MirroredStrategy()
    v = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    assert s.experimental_run_v2(lambda a: a * 2, args=(v,)) is not None
    with tf.Session() as sess:
        assert sess.run(s.reduce(tf.distribute.ReduceOp.SUM, v, axis=0)).tolist() == [4.0, 6.0]
        assert sess.run(s.reduce("MEAN", v, axis=None)).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert s.experimental_local_results(v) == (v,)
    ds = tf.data.Dataset.range(3)
    assert s.experimental_distribute_dataset(ds) is ds


@pytest.mark.parametrize("make", [lambda: tf.tpu.experimental.initialize_tpu_system(),
                                  lambda: tf.contrib.tpu.TPUDistributionStrategy(),
                                  lambda: tf.distribute.experimental.TPUStrategy(),
                                  lambda: tf.contrib.distribute.TPUStrategy(),
                                  lambda: tf.contrib.distribute.initialize_tpu_system()])
def test_tpu_names_are_errors_naming_the_tpu(make):
    with pytest.raises(tf.errors.NotFoundError, match="needs a TPU"):
        make()


def test_keras_to_tpu_model_is_an_error_naming_the_tpu():
    with pytest.raises(tf.errors.UnimplementedError, match="keras_to_tpu_model needs a TPU"):
        tf.contrib.tpu.keras_to_tpu_model(None)
