"""TPUEstimator with use_tpu=False trains, evaluates and predicts as TF 1.15's does (its numbers are in
tests/fixtures/tpu/, written by make_tpu_estimator.py with real TensorFlow)."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "tpu", "tpu_estimator.json")) as _f:
    TF = json.load(_f)
X, Y = np.array(TF["X"], np.float32), np.array(TF["Y"], np.float32)


def _run(model_dir):
    seen = {"input_fn": [], "model_fn": []}

    def input_fn(params):
        seen["input_fn"].append(sorted([k, v] for k, v in params.items() if k in ("batch_size", "use_tpu")))
        return tf.data.Dataset.from_tensor_slices((X, Y)).repeat().batch(params["batch_size"], drop_remainder=True)

    def predict_input_fn(params):
        seen["input_fn"].append(sorted([k, v] for k, v in params.items() if k in ("batch_size", "use_tpu")))
        return tf.data.Dataset.from_tensor_slices(X[:8]).batch(params["batch_size"])

    def model_fn(features, labels, mode, params):
        seen["model_fn"].append([mode, sorted([k, v] for k, v in params.items()
                                              if k in ("batch_size", "use_tpu", "extra"))])
        w = tf.get_variable("w", [3, 1], initializer=tf.constant_initializer(0.1))
        b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
        pred = tf.matmul(features, w) + b
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.contrib.tpu.TPUEstimatorSpec(mode, predictions={"y": pred})
        loss = tf.reduce_mean(tf.square(pred - labels))
        if mode == tf.estimator.ModeKeys.EVAL:
            def metric_fn(labels, pred):
                return {"mae": tf.metrics.mean_absolute_error(labels, pred),
                        "mse": tf.metrics.mean_squared_error(labels, pred)}
            return tf.contrib.tpu.TPUEstimatorSpec(mode, loss=loss, eval_metrics=(metric_fn, [labels, pred]))
        opt = tf.train.GradientDescentOptimizer(0.1)
        if params["use_tpu"]:
            opt = tf.contrib.tpu.CrossShardOptimizer(opt)
        train_op = opt.minimize(loss, global_step=tf.train.get_global_step())
        return tf.contrib.tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op,
                                               scaffold_fn=lambda: tf.train.Scaffold())

    config = tf.contrib.tpu.RunConfig(model_dir=model_dir, tpu_config=tf.contrib.tpu.TPUConfig(iterations_per_loop=10))
    est = tf.contrib.tpu.TPUEstimator(model_fn=model_fn, config=config, use_tpu=False, train_batch_size=16,
                                      eval_batch_size=8, predict_batch_size=4, params={"extra": 7})
    est.train(input_fn, max_steps=30)
    ev = est.evaluate(input_fn, steps=4)
    preds = [p["y"].tolist() for p in est.predict(predict_input_fn)]
    return est, ev, preds, seen


@pytest.mark.slow
def test_trains_evaluates_and_predicts_as_tf(tmp_path):
    est, ev, preds, seen = _run(str(tmp_path))
    assert seen == TF["seen"]   # params: batch size by mode; use_tpu for the model_fn only
    assert set(ev) == set(TF["eval"])
    for k, v in TF["eval"].items():
        assert ev[k] == pytest.approx(v, rel=1e-5), k
    np.testing.assert_allclose(preds, TF["predictions"], rtol=1e-5)
    np.testing.assert_allclose(est.get_variable_value("w"), TF["w"], rtol=1e-5)


def test_construction_errors_are_tf_s(tmp_path):
    def model_fn(features, labels, mode, params):
        raise AssertionError("not called")
    config = tf.contrib.tpu.RunConfig(model_dir=str(tmp_path))
    for name, make in {"no_config": lambda: tf.contrib.tpu.TPUEstimator(model_fn=model_fn, use_tpu=False),
                       "plain_config": lambda: tf.contrib.tpu.TPUEstimator(
                           model_fn=model_fn, config=tf.estimator.RunConfig(), use_tpu=False),
                       "reserved": lambda: tf.contrib.tpu.TPUEstimator(model_fn=model_fn, config=config,
                                                                       use_tpu=False, params={"batch_size": 3}),
                       "no_batch_tpu": lambda: tf.contrib.tpu.TPUEstimator(model_fn=model_fn, config=config,
                                                                           use_tpu=True)}.items():
        cls, message = TF["errors"][name]
        with pytest.raises(ValueError) as e:
            make()
        assert (type(e.value).__name__, str(e.value)) == (cls, message), name


def test_what_needs_a_tpu_says_so():
    with pytest.raises(tf.errors.UnavailableError, match="cannot reach the TPU 'my-tpu'"):
        tf.contrib.cluster_resolver.TPUClusterResolver(tpu="my-tpu")
    with pytest.raises(tf.errors.UnavailableError):
        tf.distribute.cluster_resolver.TPUClusterResolver("grpc://10.0.0.2:8470")
    with pytest.raises(tf.errors.UnimplementedError, match="use_tpu=False"):
        tf.contrib.tpu.TPUEstimator(model_fn=lambda features, labels, mode, params: None,
                                    config=tf.contrib.tpu.RunConfig(), use_tpu=True, train_batch_size=8)
    with pytest.raises(tf.errors.UnimplementedError, match="needs a TPU"):
        tf.contrib.tpu.initialize_system()
    import importlib   # TF's module path, served by the tree (api/tree.py)
    assert importlib.import_module("tinyflow.contrib.tpu.python.tpu.tpu_estimator").TPUEstimator is \
        tf.contrib.tpu.TPUEstimator


def test_tf_config_resolver_reads_tf_config(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"worker": ["h0:1", "h1:2"], "ps": ["p:3"]},
                                                "task": {"type": "worker", "index": 1}}))
    r = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    assert (r.task_type, r.task_id, r.master()) == ("worker", 1, "h1:2")
    assert r.cluster_spec()["ps"] == ["p:3"]


def test_estimator_tpu_names_and_global_step_of_a_model_dir(tmp_path):
    from tinyflow.api.estimator.estimator import _load_global_step_from_checkpoint_dir
    assert tf.estimator.tpu.TPUEstimator is tf.contrib.tpu.TPUEstimator
    assert tf.estimator.tpu.InputPipelineConfig.PER_HOST_V2 == tf.contrib.tpu.InputPipelineConfig.PER_HOST_V2
    assert _load_global_step_from_checkpoint_dir(str(tmp_path)) == 0
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(tf.assign(step, 7))
            tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"), global_step=step)
    assert _load_global_step_from_checkpoint_dir(str(tmp_path)) == 7
