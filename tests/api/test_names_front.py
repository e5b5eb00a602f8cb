"""TF 1.15 names of issue 37 item 3 (tests/fixtures/names_front/make_names_front.py's `record` run with tinyflow
gives TF 1.15's recording): tf.summary.get_summary_description and initialize, tf.layers.experimental's
keras_style_scope, tf.config.experimental_run_functions_eagerly; and tf.test.create_local_cluster's in-process
servers (TF 1.15 needs the portpicker package for it, which the oracle lacks: checked here directly)."""
import os

import pytest

import recorded_cases
import tinyflow as tf

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "names_front")


def test_summary_keras_style_and_config_names_as_tf():
    maker, want = recorded_cases.maker(HERE, "names_front")
    assert maker.record(tf) == want
    tf.config.experimental_run_functions_eagerly(True)
    assert tf.config.experimental_functions_run_eagerly()
    tf.config.experimental_run_functions_eagerly(False)


def test_create_local_cluster_runs_sessions_in_process():
    workers, ps = tf.test.create_local_cluster(2, 1)
    assert len(workers) == 2 and len(ps) == 1
    assert workers[0].target.startswith("grpc://localhost:") and workers[0].target != workers[1].target
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(3.0)
        with tf.device("/job:worker/task:1"):
            y = v * 2
        with tf.Session(workers[0].target) as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(y) == 6.0
    with pytest.raises(ValueError):
        tf.train.Server(tf.train.ClusterSpec({"worker": ["localhost:1"]}), job_name="ps", task_index=0, start=False)
