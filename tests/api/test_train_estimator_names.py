"""Behaviour of TF 1.15's tf.train managers and hooks and tf.estimator's head-based premade estimators."""
import os

import numpy as np
import pytest

import tinyflow as tf


def test_checkpoint_manager_keeps_max_to_keep(tmp_path):
    tf.reset_default_graph()
    v = tf.Variable(1.0, name="v")
    ckpt = tf.train.Checkpoint(v=v)
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    with tf.Session() as sess, sess.as_default():
        sess.run(v.initializer)
        paths = []
        for i in range(4):
            sess.run(v.assign(float(i)))
            paths.append(manager.save())
    assert [os.path.basename(p) for p in paths] == ["ckpt-1", "ckpt-2", "ckpt-3", "ckpt-4"]
    assert manager.checkpoints == paths[2:] and manager.latest_checkpoint == paths[3]
    assert sorted(f for f in os.listdir(tmp_path) if f.endswith(".index")) == ["ckpt-3.index", "ckpt-4.index"]
    assert tf.train.latest_checkpoint(str(tmp_path)) == paths[3]
    assert tf.train.load_variable(paths[3], "v/.ATTRIBUTES/VARIABLE_VALUE") == 3.0
    again = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)   # picks the directory's state up
    assert again.checkpoints == paths[2:]
    assert len(tf.train.get_checkpoint_mtimes(paths)) == 2
    tf.train.remove_checkpoint(paths[2])
    assert not os.path.exists(paths[2] + ".index")


def test_session_manager_initializes_then_restores(tmp_path):
    tf.reset_default_graph()
    v = tf.Variable(3.0, name="v")
    saver = tf.train.Saver()
    sm = tf.train.SessionManager(ready_op=tf.report_uninitialized_variables())
    with pytest.raises(RuntimeError, match="no init_op or init_fn or local_init_op"):
        sm.prepare_session("", saver=saver, checkpoint_dir=str(tmp_path))
    with pytest.raises(RuntimeError, match="Init operations did not make model ready"):
        sm.prepare_session("", init_op=tf.no_op(), saver=saver, checkpoint_dir=str(tmp_path))
    sess = sm.prepare_session("", init_op=tf.global_variables_initializer(), saver=saver,
                              checkpoint_dir=str(tmp_path))
    sess.run(v.assign(7.0))
    saver.save(sess, str(tmp_path / "model"), global_step=1)
    sess, ready = sm.recover_session("", saver=saver, checkpoint_dir=str(tmp_path))
    assert ready and sess.run(v) == 7.0
    assert isinstance(tf.train.ChiefSessionCreator(), tf.train.SessionCreator)


def test_hooks_feed_final_ops_and_waiter():
    tf.reset_default_graph()
    step = tf.train.get_or_create_global_step()
    x = tf.placeholder(tf.float32, [])
    total = tf.Variable(0.0)
    train = tf.group(tf.assign_add(total, x), tf.assign_add(step, 1))
    final = tf.train.FinalOpsHook(total * 2)
    feeds = iter([1.0, 2.0, 3.0])
    hooks = [tf.train.FeedFnHook(lambda: {x: next(feeds)}), final, tf.train.GlobalStepWaiterHook(0),
             tf.train.StopAtStepHook(last_step=3)]
    with tf.train.MonitoredSession(hooks=hooks) as sess:
        while not sess.should_stop():
            sess.run(train)
    assert final.final_ops_values == 12.0


def test_maybe_batch_keeps_only_marked_elements():
    tf.reset_default_graph()
    queue = tf.train.input_producer(tf.constant(np.arange(6, dtype=np.int32)), num_epochs=1, shuffle=False)
    value = queue.dequeue()
    batch = tf.train.maybe_batch([value], keep_input=tf.equal(value % 2, 0), batch_size=3,
                                 allow_smaller_final_batch=True)
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        got = sess.run(batch)
        coord.request_stop()
        coord.join(threads)
    assert sorted(np.ravel(got).tolist()) == [0, 2, 4]


def _input_fn():
    rs = np.random.RandomState(0)
    x = rs.randn(64, 2).astype(np.float32)
    y = (x[:, :1] > 0).astype(np.int64)
    return tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=16, num_epochs=None, shuffle=False)


def test_dnn_estimator_with_a_head_trains_and_evaluates(tmp_path):
    head = tf.estimator.BinaryClassHead()
    est = tf.estimator.DNNEstimator(head, hidden_units=[4], feature_columns=[tf.feature_column.numeric_column(
        "x", shape=(2,))], model_dir=str(tmp_path / "dnn"), optimizer="Adam")
    est.train(_input_fn(), steps=20)
    result = est.evaluate(_input_fn(), steps=4)
    assert {"accuracy", "auc", "precision", "recall", "average_loss", "loss", "global_step"} <= set(result)
    assert result["global_step"] == 20 and result["accuracy"] > 0.6
    from tinyflow.api.estimator.estimator import _load_global_step_from_checkpoint_dir
    assert _load_global_step_from_checkpoint_dir(est.model_dir) == 20
    assert _load_global_step_from_checkpoint_dir(str(tmp_path / "none")) == 0
    stop = tf.estimator.experimental.stop_if_higher_hook(est, "accuracy", 0.5, run_every_secs=None,
                                                         run_every_steps=1)
    est.train(_input_fn(), steps=50, hooks=[stop])
    assert est.get_variable_value("global_step") < 70   # evaluated accuracy was already above 0.5: stopped


def test_baseline_regressor_learns_the_mean(tmp_path):
    y = np.full((32, 1), 3.0, np.float32)
    input_fn = tf.estimator.inputs.numpy_input_fn({"x": np.zeros((32, 1), np.float32)}, y, batch_size=32,
                                                  num_epochs=None, shuffle=False)
    est = tf.estimator.BaselineRegressor(model_dir=str(tmp_path / "base"), optimizer=tf.train.GradientDescentOptimizer(
        0.02))
    est.train(input_fn, steps=200)
    assert abs(float(est.get_variable_value("baseline/bias")[0]) - 3.0) < 0.05
