"""tf.train.ClusterSpec, Server, replica_device_setter and SyncReplicasOptimizer against TF 1.15's
recorded behaviour (tests/fixtures/distributed/record_api.py); what cannot map raises a clear error.
The multi-process runs are tests/runtime/test_between_graph.py."""
import json
import os
import types

import numpy as np
import pytest

import tinyflow as tf

FIXTURE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "distributed",
                       "api.json")
TF = json.load(open(FIXTURE))


def _cluster():
    return tf.train.ClusterSpec({"ps": ["localhost:2222"], "worker": ["localhost:2223", "localhost:2224"]})


def test_cluster_spec_as_tf():
    c = _cluster()
    got = {"as_dict": c.as_dict(), "jobs": c.jobs, "num_tasks": c.num_tasks("worker"),
           "task_indices": c.task_indices("worker"), "task_address": c.task_address("worker", 1),
           "job_tasks": c.job_tasks("worker"), "equal": c == tf.train.ClusterSpec(c.as_dict())}
    assert got == TF["dense"]
    s = tf.train.ClusterSpec({"worker": {1: "a:1", 3: "b:2"}})
    assert {k: {str(i): a for i, a in v.items()} for k, v in s.as_dict().items()} == TF["sparse"]["as_dict"]
    assert s.task_indices("worker") == TF["sparse"]["task_indices"]
    assert s.job_tasks("worker") == TF["sparse"]["job_tasks"]
    assert tf.train.ClusterSpec(c) == c and bool(c) and not tf.train.ClusterSpec({})


@pytest.mark.parametrize("i, call", [(0, lambda c: c.num_tasks("chief")), (1, lambda c: c.task_address("worker", 5)),
                                     (2, lambda c: tf.train.ClusterSpec(["a:1"]))])
def test_cluster_spec_errors_as_tf(i, call):
    cls, message = TF["errors"][i]
    with pytest.raises({"ValueError": ValueError, "TypeError": TypeError}[cls]) as e:
        call(_cluster())
    assert str(e.value) == message


def _op(type_, device=""):
    return types.SimpleNamespace(type=type_, device=device)


def test_replica_device_setter_gives_tf_devices():
    f = tf.train.replica_device_setter(ps_tasks=2)
    got = [f(_op("VariableV2")) for _ in range(3)] + [f(_op("Add")), f(_op("Mul", "/gpu:0"))]
    assert got == TF["ps_tasks_2"]
    f = tf.train.replica_device_setter(cluster=_cluster(), worker_device="/job:worker/task:1")
    assert [f(_op("VariableV2")), f(_op("AddV2"))] == TF["cluster"]
    assert [tf.train.replica_device_setter(ps_tasks=0) is None,
            tf.train.replica_device_setter(cluster={"worker": ["a:1"]}) is None] == TF["none"]
    # accepted by tf.device, and the graph trains as without it
    with tf.Graph().as_default():
        with tf.device(tf.train.replica_device_setter(cluster=_cluster())):
            v = tf.Variable(2.0)
            y = v * 3.0
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(y) == 6.0


def test_local_server_and_session_target():
    server = tf.train.Server.create_local_server()
    assert server.target.rsplit(":", 1)[0] == TF["local_server"]["target_prefix"]
    with tf.Graph().as_default():
        with tf.Session(server.target) as sess:
            assert sess.run(tf.constant(3) + 4) == 7


def test_ps_join_returns_and_worker_join_is_an_error():
    cluster = {"ps": ["localhost:1"], "worker": ["localhost:2", "localhost:3"]}
    tf.train.Server(cluster, job_name="ps", task_index=0).join()   # nothing to serve: returns
    worker = tf.train.Server(cluster, job_name="worker", task_index=1, start=False)
    with pytest.raises(tf.errors.UnimplementedError, match="in-graph replication"):
        worker.join()
    with pytest.raises(ValueError, match="No task with index 7"):
        tf.train.Server(cluster, job_name="worker", task_index=7)


def test_sync_replicas_optimizer_is_its_optimizer_in_one_process():
    with tf.Graph().as_default():
        w = tf.Variable(np.ones(3, np.float32))
        loss = tf.reduce_sum(w * w)
        step = tf.train.get_or_create_global_step()
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.25), replicas_to_aggregate=1)
        train = opt.minimize(loss, global_step=step)
        hook = opt.make_session_run_hook(is_chief=True)
        with tf.train.MonitoredTrainingSession(hooks=[hook]) as sess:
            sess.run(train)
            assert np.allclose(sess.run(w), 0.5) and sess.run(step) == 1
        bad = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.25), replicas_to_aggregate=2)
        with pytest.raises(tf.errors.UnimplementedError, match="replicas_to_aggregate=2"):
            bad.minimize(loss)
