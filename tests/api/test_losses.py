"""tf.losses against numpy: each loss, weights, every Reduction, collections, gradients."""
import numpy as np
import pytest

import tinyflow as tf

R = np.random.RandomState(1)
LAB = R.randn(4, 3).astype(np.float32)
PRED = R.randn(4, 3).astype(np.float32)
W = np.array([[1.0], [0.0], [2.0], [0.5]], np.float32)  # per example, broadcast over the 3 columns


def _eval(t):
    with tf.Session() as sess:
        return sess.run(t)


def _nonzero_mean(per_elem, w=1.0):
    w = np.broadcast_to(np.asarray(w, np.float32), per_elem.shape)
    return (per_elem * w).sum() / (w != 0).sum()


@pytest.mark.slow
def test_regression_losses():
    err = PRED - LAB
    huber = np.where(np.abs(err) <= 1.0, 0.5 * err ** 2, np.abs(err) - 0.5)
    cases = [
        (tf.losses.mean_squared_error(LAB, PRED), _nonzero_mean(err ** 2)),
        (tf.losses.mean_squared_error(LAB, PRED, weights=W), _nonzero_mean(err ** 2, W)),
        (tf.losses.absolute_difference(LAB, PRED, weights=W), _nonzero_mean(np.abs(err), W)),
        (tf.losses.huber_loss(LAB, PRED), _nonzero_mean(huber)),
        (tf.losses.huber_loss(LAB, PRED, delta=0.5),
         _nonzero_mean(np.where(np.abs(err) <= 0.5, 0.5 * err ** 2, 0.5 * (np.abs(err) - 0.25)))),
    ]
    got = _eval([c[0] for c in cases])
    for g, (t, want) in zip(got, cases):
        assert t.dtype == tf.float32 and t.shape.ndims == 0
        np.testing.assert_allclose(g, want, rtol=1e-5)
    assert len(tf.get_collection(tf.GraphKeys.LOSSES)) == len(cases)
    assert cases[0][0].op.name.startswith("mean_squared_error/")


def test_reductions():
    err2 = (PRED - LAB) ** 2
    weighted = err2 * W
    R_ = tf.losses.Reduction
    want = {R_.NONE: weighted, R_.SUM: weighted.sum(), R_.MEAN: weighted.sum() / (W * np.ones_like(err2)).sum(),
            R_.SUM_OVER_BATCH_SIZE: weighted.sum() / err2.size, R_.SUM_BY_NONZERO_WEIGHTS: weighted.sum() / 9}
    losses = {k: tf.losses.mean_squared_error(LAB, PRED, weights=W, reduction=k) for k in want}
    got = _eval(losses)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5)
    with pytest.raises(ValueError, match="Invalid Reduction Key bogus."):
        tf.losses.mean_squared_error(LAB, PRED, reduction="bogus")
    # All weights zero: 0, not NaN.
    assert _eval(tf.losses.mean_squared_error(LAB, PRED, weights=0.0)) == 0.0
    with pytest.raises(ValueError, match="weights can not be broadcast to values"):
        tf.losses.mean_squared_error(LAB, PRED, weights=np.ones((2, 3), np.float32))


@pytest.mark.slow
def test_log_hinge_sigmoid_cosine():
    labels = (R.rand(5, 2) > 0.5).astype(np.float32)
    logits = R.randn(5, 2).astype(np.float32)
    p = 1 / (1 + np.exp(-logits))
    eps = 1e-7
    log = -labels * np.log(p + eps) - (1 - labels) * np.log(1 - p + eps)
    hinge = np.maximum(0, 1 - (2 * labels - 1) * logits)
    smooth = labels * 0.8 + 0.1
    sig = np.maximum(logits, 0) - logits * smooth + np.log1p(np.exp(-np.abs(logits)))
    unit_l = LAB / np.linalg.norm(LAB, axis=1, keepdims=True)
    unit_p = PRED / np.linalg.norm(PRED, axis=1, keepdims=True)
    cos = 1 - (unit_l * unit_p).sum(1)
    got = _eval([tf.losses.log_loss(labels, p), tf.losses.hinge_loss(labels, logits),
                 tf.losses.sigmoid_cross_entropy(labels, logits, label_smoothing=0.2),
                 tf.losses.cosine_distance(unit_l, unit_p, axis=1)])
    for g, w in zip(got, [log.mean(), hinge.mean(), sig.mean(), cos.mean()]):
        np.testing.assert_allclose(g, w, rtol=1e-5)


def _xent(labels, logits):
    logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    return -(labels * logp).sum(-1)


@pytest.mark.slow
def test_softmax_losses():
    logits = R.randn(4, 3).astype(np.float32)
    ids = np.array([0, 2, 1, 2], np.int32)
    onehot = np.eye(3, dtype=np.float32)[ids]
    w = np.array([1.0, 0.0, 3.0, 1.0], np.float32)
    smooth = onehot * 0.7 + 0.1
    got = _eval([tf.losses.softmax_cross_entropy(onehot, logits),
                 tf.losses.softmax_cross_entropy(onehot, logits, weights=w, label_smoothing=0.3),
                 tf.losses.sparse_softmax_cross_entropy(ids, logits, weights=w),
                 tf.losses.sparse_softmax_cross_entropy(ids[:, None], logits)])
    np.testing.assert_allclose(got[0], _xent(onehot, logits).mean(), rtol=1e-5)
    np.testing.assert_allclose(got[1], (_xent(smooth, logits) * w).sum() / 3, rtol=1e-5)
    np.testing.assert_allclose(got[2], (_xent(onehot, logits) * w).sum() / 3, rtol=1e-5)
    np.testing.assert_allclose(got[3], _xent(onehot, logits).mean(), rtol=1e-5)
    with pytest.raises(ValueError, match="onehot_labels must not be None."):
        tf.losses.softmax_cross_entropy(None, logits)


def test_gradient_of_weighted_loss():
    pred = tf.constant(PRED.astype(np.float64))
    loss = tf.losses.mean_squared_error(LAB.astype(np.float64), pred, weights=W.astype(np.float64))
    assert loss.dtype == tf.float32  # TF computes in float32 (to_float of the inputs)
    assert tf.losses.compute_weighted_loss(pred).dtype == tf.float64  # cast back to the input dtype
    g = _eval(tf.gradients(loss, pred)[0])
    np.testing.assert_allclose(g, 2 * (PRED - LAB) * W / 9, rtol=1e-4)


@pytest.mark.slow
def test_total_and_regularization_losses():
    assert _eval(tf.losses.get_regularization_loss()) == 0.0
    tf.get_variable("w", [2], initializer=tf.ones_initializer(), regularizer=lambda v: tf.reduce_sum(v) * 0.5)
    mse = tf.losses.mean_squared_error([1.0, 2.0], [1.0, 4.0])
    extra = tf.constant(3.0)
    tf.losses.add_loss(extra)
    assert tf.losses.get_losses() == [mse, extra]
    total = tf.losses.get_total_loss()
    total_no_reg = tf.losses.get_total_loss(add_regularization_losses=False)
    assert total.op.name == "total_loss"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        t, tn, r = sess.run([total, total_no_reg, tf.losses.get_regularization_loss()])
    assert (t, tn, r) == (6.0, 5.0, 1.0)
    tf.losses.mean_squared_error([1.0], [2.0], loss_collection=None)
    assert len(tf.losses.get_losses()) == 2
