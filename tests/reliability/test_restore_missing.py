"""A `checkpoint` state file naming a checkpoint that is gone: MonitoredTrainingSession and Estimator
raise as TF 1.15 does (ValueError "The passed save_path is not a valid checkpoint: <path>", recorded
from the TF 1.15 oracle), never a silent fresh start from step 0 that overwrites the folder's history
(issue 31, item 3)."""
import os

import numpy as np
import pytest

import tinyflow as tf


def _state_file(d):
    with open(os.path.join(d, "checkpoint"), "w") as f:
        f.write('model_checkpoint_path: "model.ckpt-100"\nall_model_checkpoint_paths: "model.ckpt-100"\n')
    return sorted(os.listdir(d))


def test_monitored_training_session_refuses_a_missing_named_checkpoint(tmp_path):
    d = str(tmp_path)
    before = _state_file(d)
    with tf.Graph().as_default():
        step = tf.assign_add(tf.train.get_or_create_global_step(), 1)
        tf.Variable(1.0)
        with pytest.raises(ValueError, match="The passed save_path is not a valid checkpoint: %s"
                           % os.path.join(d, "model.ckpt-100")):
            with tf.train.MonitoredTrainingSession(checkpoint_dir=d) as s:
                s.run(step)
    assert sorted(os.listdir(d)) == before


def test_estimator_refuses_a_missing_named_checkpoint(tmp_path):
    d = str(tmp_path)
    before = _state_file(d)

    def model_fn(features, labels, mode):
        w = tf.Variable(1.0)
        loss = tf.reduce_sum(features["x"] * w)
        return tf.estimator.EstimatorSpec(mode, loss=loss,
                                          train_op=tf.assign_add(tf.train.get_or_create_global_step(), 1))
    est = tf.estimator.Estimator(model_fn, model_dir=d)
    with pytest.raises(ValueError, match="The passed save_path is not a valid checkpoint"):
        est.train(lambda: ({"x": tf.constant(np.ones(1, np.float32))}, None), steps=1)
    assert sorted(os.listdir(d)) == before


def test_no_state_file_still_starts_fresh(tmp_path):
    with tf.Graph().as_default():
        step = tf.assign_add(tf.train.get_or_create_global_step(), 1)
        with tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path)) as s:
            assert s.run(step) == 1
