"""slim.losses and slim.metrics keep contrib's argument order (logits/predictions first); numbers
against numpy."""
import numpy as np

import tinyflow as tf
import tinyflow.api.contrib.slim as slim


def test_losses_take_logits_first_and_collect():
    logits = np.array([[2.0, 0.5, -1.0], [0.1, 0.2, 3.0]], np.float32)
    labels = np.array([0, 2])
    onehot = np.eye(3, dtype=np.float32)[labels]
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    want = -logp[np.arange(2), labels].mean()
    with tf.Graph().as_default():
        a = slim.losses.softmax_cross_entropy(tf.constant(logits), tf.constant(onehot))
        b = slim.losses.sparse_softmax_cross_entropy(tf.constant(logits), tf.constant(labels))
        c = slim.losses.mean_squared_error(tf.constant([1.0, 2.0]), tf.constant([0.0, 4.0]))
        w = tf.get_variable("w", [2], initializer=tf.ones_initializer(), regularizer=slim.l2_regularizer(0.5))
        total = slim.losses.get_total_loss()
        assert slim.losses.get_losses() == [a, b, c] and len(slim.losses.get_regularization_losses()) == 1
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            av, bv, cv, tv = sess.run([a, b, c, total])
    np.testing.assert_allclose([av, bv, cv], [want, want, 2.5], rtol=1e-6)
    np.testing.assert_allclose(tv, 2 * want + 2.5 + 0.5 * 2 / 2, rtol=1e-6)
    assert w.op.name == "w"


def test_streaming_metrics_take_predictions_first():
    with tf.Graph().as_default():
        preds = tf.placeholder(tf.int64, [None])
        labels = tf.placeholder(tf.int64, [None])
        names_to_values, names_to_updates = slim.metrics.aggregate_metric_map({
            "accuracy": slim.metrics.streaming_accuracy(preds, labels),
            "mean": slim.metrics.streaming_mean(tf.cast(preds, tf.float32)),
        })
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            sess.run(list(names_to_updates.values()), {preds: [1, 2, 3], labels: [1, 0, 3]})
            sess.run(list(names_to_updates.values()), {preds: [0], labels: [1]})
            got = sess.run(names_to_values)
    np.testing.assert_allclose([got["accuracy"], got["mean"]], [0.5, 1.5])
