"""tf.metrics: running values over batches against numpy, TF's local variables and reset."""
import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.slow  # every test here takes over a second (the fast subset: -m "not slow")


def _session():
    sess = tf.Session()
    sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
    return sess


def test_accuracy_accumulates_over_batches_and_resets():
    labels = tf.placeholder(tf.int64, [None])
    preds = tf.placeholder(tf.int64, [None])
    acc, update = tf.metrics.accuracy(labels, preds)
    names = [v.name for v in tf.local_variables()]
    assert names == ["accuracy/total:0", "accuracy/count:0"]
    assert tf.get_collection(tf.GraphKeys.METRIC_VARIABLES) == tf.local_variables()
    assert tf.global_variables() == []
    sess = _session()
    batches = [([1, 2, 3, 4], [1, 2, 0, 0]), ([5, 6], [5, 6]), ([1, 1, 1], [0, 1, 0])]
    right = total = 0
    for y, p in batches:
        got = sess.run(update, {labels: y, preds: p})
        right += np.sum(np.equal(y, p))
        total += len(y)
        assert got == pytest.approx(right / total)
        assert sess.run(acc) == pytest.approx(right / total)
    sess.run(tf.local_variables_initializer())
    assert sess.run(acc) == 0.0


def test_mean_with_weights_and_errors():
    x = tf.placeholder(tf.float32, [None])
    w = tf.placeholder(tf.float32, [None])
    m, m_up = tf.metrics.mean(x, weights=w)
    y = tf.placeholder(tf.float32, [None])
    mse, mse_up = tf.metrics.mean_squared_error(y, x)
    mae, mae_up = tf.metrics.mean_absolute_error(y, x)
    rmse, rmse_up = tf.metrics.root_mean_squared_error(y, x)
    sess = _session()
    xs, ws, ys = [np.array([1.0, 2.0]), np.array([4.0])], [np.array([1.0, 3.0]), np.array([2.0])], \
        [np.array([0.0, 0.0]), np.array([1.0])]
    for xv, wv, yv in zip(xs, ws, ys):
        sess.run([m_up, mse_up, mae_up, rmse_up], {x: xv, w: wv, y: yv})
    xa, wa, ya = np.concatenate(xs), np.concatenate(ws), np.concatenate(ys)
    got = sess.run([m, mse, mae, rmse])
    want = [np.sum(xa * wa) / np.sum(wa), np.mean((xa - ya) ** 2), np.mean(np.abs(xa - ya)),
            np.sqrt(np.mean((xa - ya) ** 2))]
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_precision_recall_and_counts():
    labels = tf.placeholder(tf.bool, [None])
    preds = tf.placeholder(tf.bool, [None])
    p, p_up = tf.metrics.precision(labels, preds)
    r, r_up = tf.metrics.recall(labels, preds)
    tp, tp_up = tf.metrics.true_positives(labels, preds)
    sess = _session()
    y = np.array([1, 1, 0, 0, 1, 0], bool)
    q = np.array([1, 0, 1, 0, 1, 1], bool)
    sess.run([p_up, r_up, tp_up], {labels: y, preds: q})
    assert sess.run(tp) == 2
    assert sess.run(p) == pytest.approx(2 / 4) and sess.run(r) == pytest.approx(2 / 3)
