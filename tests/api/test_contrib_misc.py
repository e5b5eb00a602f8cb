"""tf.contrib.estimator (clip_gradients_by_norm, add_metrics, forward_features) and tf.contrib.staging:
numbers against numpy."""
import numpy as np
import pytest

import tinyflow as tf


def test_clip_gradients_by_norm_clips_the_global_norm():
    with tf.Graph().as_default():
        a = tf.Variable([3.0, 4.0])
        b = tf.Variable([0.0])
        loss = tf.reduce_sum(a * a) / 2 + tf.reduce_sum(b) * 12.0   # gradients [3, 4] and [12]: global norm 13
        opt = tf.contrib.estimator.clip_gradients_by_norm(tf.train.GradientDescentOptimizer(1.0), 2.6)
        assert opt.get_name() == "ClipByNormGradientDescent"
        step = opt.minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(step)
            av, bv = sess.run([a, b])
    np.testing.assert_allclose(av, [3.0 - 0.6, 4.0 - 0.8], rtol=1e-6)
    np.testing.assert_allclose(bv, [-2.4], rtol=1e-6)


def _model_fn(features, labels, mode):
    w = tf.get_variable("w", [1], initializer=tf.constant_initializer(2.0))
    pred = features["x"] * w
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"y": pred})
    loss = tf.reduce_mean(tf.square(pred - labels))
    return tf.estimator.EstimatorSpec(mode, loss=loss, predictions={"y": pred},
                                      train_op=tf.assign_add(tf.train.get_global_step(), 1))


def test_add_metrics_and_forward_features(tmp_path):
    x, y = np.array([1.0, 2.0, 3.0], np.float32), np.array([1.0, 5.0, 6.0], np.float32)
    est = tf.estimator.Estimator(_model_fn, model_dir=str(tmp_path))
    est.train(lambda: ({"x": tf.constant(x)}, tf.constant(y)), steps=1)

    def metric_fn(labels, predictions):
        return {"mae": tf.metrics.mean_absolute_error(labels, predictions["y"])}
    result = tf.contrib.estimator.add_metrics(est, metric_fn).evaluate(
        lambda: ({"x": tf.constant(x)}, tf.constant(y)), steps=1)
    np.testing.assert_allclose(result["mae"], np.abs(2 * x - y).mean(), rtol=1e-6)
    np.testing.assert_allclose(result["loss"], np.square(2 * x - y).mean(), rtol=1e-6)
    forwarded = tf.contrib.estimator.forward_features(est, "id")
    out = list(forwarded.predict(lambda: tf.data.Dataset.from_tensor_slices(
        {"x": x, "id": np.array([7, 8, 9], np.int64)}).batch(3)))
    assert [int(o["id"]) for o in out] == [7, 8, 9]
    np.testing.assert_allclose([o["y"] for o in out], 2 * x, rtol=1e-6)
    with pytest.raises(ValueError, match="unsupported argument"):
        tf.contrib.estimator.add_metrics(est, lambda labels, other: {})


def test_staging_area_passes_through():
    with tf.Graph().as_default():
        area = tf.contrib.staging.StagingArea([tf.float32, tf.int32], names=["img", "label"])
        with pytest.raises(ValueError, match="before any put"):
            area.get()
        put = area.put({"img": tf.constant([1.5, 2.5]), "label": tf.constant(3)})
        got = area.get()
        with tf.Session() as sess:
            sess.run(put)
            out = sess.run(got)
        np.testing.assert_allclose(out["img"], [1.5, 2.5])
        assert out["label"] == 3
        with pytest.raises(ValueError, match="Type mismatch"):
            area.put({"img": tf.constant([1]), "label": tf.constant(3)})


def test_memory_stats_read_the_device_allocator():
    import jax
    want = (jax.devices()[0].memory_stats() or {}).get("bytes_limit", 0)
    with tf.Graph().as_default():
        peak, limit = tf.contrib.memory_stats.MaxBytesInUse(), tf.contrib.memory_stats.BytesLimit()
        assert peak.dtype == tf.int64
        with tf.Session() as sess:
            pv, lv = sess.run([peak, limit])
    assert lv == want and pv >= 0 and np.asarray(pv).shape == ()
