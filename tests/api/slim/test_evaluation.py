"""slim.evaluation and slim.model_analyzer (TF 1.15's output, recorded from
~/.tf1-oracle/bin/python for analyze_vars)."""
import logging as pylogging

import numpy as np

import tinyflow as tf
import tinyflow.api.contrib.slim as slim


def test_analyze_vars_prints_tf_s_lines(capsys):
    with tf.Graph().as_default():
        v = slim.model_variable("w", [3, 4])
        u = tf.Variable(tf.zeros([2], tf.float64))
        assert slim.model_analyzer.analyze_vars([v, u], print_info=True) == (14, 64)
    assert capsys.readouterr().out.splitlines() == [
        "---------", "Variables: name (type shape) [size]", "---------", "w:0 (float32_ref 3x4) [12, bytes: 48]",
        "Variable:0 (float64_ref 2) [2, bytes: 16]", "Total size of variables: 14", "Total bytes of variables: 64"]


def test_evaluate_once_and_loop(tmp_path, caplog):
    ckpt_dir = str(tmp_path / "train")
    with tf.Graph().as_default():
        w = slim.model_variable("w", [2], initializer=tf.constant_initializer([1.5, -2.0]))
        step = tf.train.get_or_create_global_step()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(step.assign(7))
            tf.train.Saver().save(sess, ckpt_dir + "/model.ckpt", global_step=step)
    with tf.Graph().as_default():
        w = slim.model_variable("w", [2])
        tf.train.get_or_create_global_step()
        batches = tf.constant([[1.0, 1.0], [2.0, 0.0], [0.0, 3.0]])
        i = tf.Variable(0, trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES])
        x = tf.gather(batches, i % 3)
        mean, update = tf.metrics.mean(tf.reduce_sum(x * w))
        with tf.control_dependencies([update]):
            eval_op = tf.assign_add(i, 1)
        tf.summary.scalar("mean", mean)
        with caplog.at_level(pylogging.INFO, logger="tensorflow"):
            got = slim.evaluation.evaluate_once("", ckpt_dir + "/model.ckpt-7", str(tmp_path / "eval"), num_evals=3,
                                                eval_op=eval_op, final_op=mean)
            again = slim.evaluation.evaluation_loop("", ckpt_dir, str(tmp_path / "eval"), num_evals=3,
                                                    eval_op=eval_op, final_op=mean, max_number_of_evaluations=1)
    # (1.5 - 2.0) + 3.0 - 6.0 over 3 evaluations
    np.testing.assert_allclose([got, again], [(-0.5 + 3.0 - 6.0) / 3] * 2, rtol=1e-6)
    messages = [r.getMessage() for r in caplog.records]
    assert [m for m in messages if m.startswith("Evaluation [")] == ["Evaluation [1/3]", "Evaluation [2/3]",
                                                                     "Evaluation [3/3]"] * 2
    assert any(m.startswith("Starting evaluation at ") for m in messages)
    assert any(f.startswith("events.out.tfevents") for f in (p.name for p in (tmp_path / "eval").iterdir()))
