"""slim.learning.train against TF 1.15 (tests/fixtures/slim/learning_train_oracle.py printed the
losses, log lines and checkpoint files asserted here)."""
import logging as pylogging
import os
import re

import numpy as np
import pytest

import tinyflow as tf
import tinyflow.api.contrib.slim as slim

TF_LOSSES = {1: 0.3219, 2: 0.2870, 3: 0.2709, 4: 0.2615}


def build():
    x = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3) / 10.0)
    y = tf.constant([[1.0], [0.0], [1.0], [0.5]])
    pred = slim.fully_connected(x, 1, activation_fn=None, weights_initializer=tf.constant_initializer(0.2),
                                scope="fc")
    slim.losses.mean_squared_error(pred, y)
    total = slim.losses.get_total_loss()
    return slim.learning.create_train_op(total, tf.train.GradientDescentOptimizer(0.1))


def test_train_logs_checkpoints_and_resumes(tmp_path, caplog):
    logdir = str(tmp_path)
    with caplog.at_level(pylogging.INFO, logger="tensorflow"):
        with tf.Graph().as_default():
            final = slim.learning.train(build(), logdir, number_of_steps=3, log_every_n_steps=1)
        np.testing.assert_allclose(final, 0.27092135, rtol=1e-5)
        with tf.Graph().as_default():
            final = slim.learning.train(build(), logdir, number_of_steps=5, log_every_n_steps=2)
        np.testing.assert_allclose(final, 0.25457284, rtol=1e-5)
    steps = {}
    for rec in caplog.records:
        m = re.match(r"global step (\d+): loss = (\d+\.\d{4}) \((\d+\.\d{3}) sec/step\)$", rec.getMessage())
        if m:
            steps[int(m.group(1))] = float(m.group(2))
    assert steps == TF_LOSSES
    messages = [r.getMessage() for r in caplog.records]
    assert "Restoring parameters from %s" % os.path.join(logdir, "model.ckpt-3") in messages
    assert messages.count("Finished training! Saving model to disk.") == 2
    names = sorted(f for f in os.listdir(logdir) if f.startswith("model.ckpt"))
    assert names == ["model.ckpt-%d.%s" % (n, ext) for n in (0, 3, 5)
                     for ext in ("data-00000-of-00001", "index", "meta")]
    assert tf.train.latest_checkpoint(logdir) == os.path.join(logdir, "model.ckpt-5")


def test_create_train_op_options():
    with tf.Graph().as_default():
        w = tf.Variable(2.0, name="w")
        v = tf.Variable(3.0, name="v")
        loss = w * v
        train_op = slim.learning.create_train_op(loss, tf.train.GradientDescentOptimizer(1.0),
                                                 variables_to_train=[w], gradient_multipliers={"w": 0.5})
        assert train_op in tf.get_collection(tf.GraphKeys.TRAIN_OP)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(train_op) == 6.0
            assert sess.run([w, v]) == [0.5, 3.0]  # only w, its gradient 3 halved
        with pytest.raises(ValueError, match="cannot be None"):
            slim.learning.train(None, None)
