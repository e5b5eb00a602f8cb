"""tf.contrib.learn's old Estimator API against TF 1.15's recorded numbers
(tests/fixtures/contrib_learn/make_fixture.py): a model_fn returning ModelFnOps, fit on an input_fn and on
numpy x / y, evaluate with a MetricSpec, predict; plus Experiment / learn_runner, datasets.base, premades."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "contrib_learn", "learn_estimator.json")
with open(FIXTURE) as f:
    TF = json.load(f)
learn = tf.contrib.learn
X = np.array([[1.0, 2.0], [0.5, -1.0], [-1.5, 0.5], [2.0, 1.0]], np.float32)
Y = np.array([[3.0], [-0.5], [-1.0], [4.0]], np.float32)


def input_fn():
    return {"x": tf.constant(X)}, tf.constant(Y)


def model_fn(features, targets, mode, params):
    w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    x = features["x"] if isinstance(features, dict) else features
    pred = tf.matmul(x, w) + b
    if mode == learn.ModeKeys.INFER:
        return learn.ModelFnOps(mode, predictions={"y": pred})
    targets = tf.reshape(targets, [-1, 1])
    loss = tf.losses.mean_squared_error(targets, pred)
    train_op = tf.train.GradientDescentOptimizer(params["lr"]).minimize(loss, tf.train.get_global_step())
    return learn.ModelFnOps(mode, predictions={"y": pred}, loss=loss, train_op=train_op,
                            eval_metric_ops={"rmse": tf.metrics.root_mean_squared_error(targets, pred)})


def test_model_fn_ops_fit_evaluate_predict_match_tf(tmp_path):
    est = learn.Estimator(model_fn=model_fn, model_dir=str(tmp_path / "a"), params={"lr": 0.1},
                          config=learn.RunConfig(tf_random_seed=1))
    assert est.fit(input_fn=input_fn, steps=5) is est
    metrics = {"mae": learn.MetricSpec(tf.contrib.metrics.streaming_mean_absolute_error, prediction_key="y")}
    ev = est.evaluate(input_fn=input_fn, steps=1, metrics=metrics)
    assert sorted(ev) == sorted(TF["evaluate"])
    for k, v in TF["evaluate"].items():
        np.testing.assert_allclose(ev[k], v, rtol=1e-5, err_msg=k)
    got = [p["y"][0] for p in est.predict(input_fn=lambda: {"x": tf.constant(X)})]
    np.testing.assert_allclose(got, TF["predict"], rtol=1e-5)
    np.testing.assert_allclose(est.get_variable_value("w"), TF["w"], rtol=1e-5)
    whole = est.predict(input_fn=lambda: {"x": tf.constant(X)}, as_iterable=False)
    np.testing.assert_allclose(whole["y"][:, 0], TF["predict"], rtol=1e-5)


def test_fit_and_predict_on_numpy(tmp_path):
    est = learn.Estimator(model_fn=model_fn, model_dir=str(tmp_path / "b"), params={"lr": 0.1})
    est.fit(x=X, y=Y[:, 0], steps=5, batch_size=4)
    np.testing.assert_allclose(est.get_variable_value("w"), TF["x_fit_w"], rtol=1e-5)
    assert int(est.get_variable_value("global_step")) == TF["x_fit_global_step"]
    got = [p["y"][0] for p in est.predict(x=X, batch_size=4)]
    np.testing.assert_allclose(got, TF["x_predict"], rtol=1e-5)
    with pytest.raises(ValueError, match="either x or input_fn|Either x or input_fn"):
        est.fit(steps=1)
    with pytest.raises(ValueError, match="params"):
        learn.Estimator(model_fn=lambda features, labels, mode: None, params={"a": 1})


def test_keys_and_tuple_model_fn(tmp_path):
    assert (learn.PredictionKey.CLASSES, learn.PredictionKey.PROBABILITIES, learn.ProblemType.CLASSIFICATION) == (
        TF["keys"]["CLASSES"], TF["keys"]["PROBABILITIES"], TF["keys"]["CLASSIFICATION"])

    def tuple_fn(features, labels):   # learn's oldest form: (predictions, loss, train_op), no mode
        w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
        pred = tf.matmul(features, w)
        loss = tf.reduce_mean(tf.square(pred - labels)) if labels is not None else None
        opt = tf.train.GradientDescentOptimizer(0.05)
        return pred, loss, opt.minimize(loss, tf.train.get_global_step()) if loss is not None else None
    est = learn.Estimator(model_fn=tuple_fn, model_dir=str(tmp_path / "c"))
    est.fit(x=X, y=Y, steps=200, batch_size=4)
    lstsq = np.linalg.lstsq(X, Y, rcond=None)[0]
    np.testing.assert_allclose(est.get_variable_value("w"), lstsq, atol=2e-2)


def test_experiment_learn_runner_and_premade(tmp_path):
    feature = tf.contrib.layers.real_valued_column("x", dimension=2)

    def experiment_fn(run_config, hparams):
        est = learn.LinearRegressor(feature_columns=[feature], config=run_config,
                                    optimizer=tf.train.GradientDescentOptimizer(0.02))
        return learn.Experiment(est, train_input_fn=lambda: ({"x": tf.constant(X)}, tf.constant(Y)),
                                eval_input_fn=lambda: ({"x": tf.constant(X)}, tf.constant(Y)), train_steps=400,
                                eval_steps=1)
    result, exports = learn.learn_runner.run(experiment_fn, run_config=learn.RunConfig(model_dir=str(tmp_path / "d")))
    assert result["global_step"] == 400 and exports == []
    exact = np.linalg.lstsq(np.hstack([X, np.ones([4, 1])]), Y, rcond=None)[1][0] / 4   # the least mean square
    np.testing.assert_allclose(result["average_loss"], exact, atol=1e-3)
    with pytest.raises(TypeError, match="Experiment"):
        learn.learn_runner.run(lambda c, h: None, run_config=learn.RunConfig())


def test_datasets_base_csv_and_offline_download(tmp_path):
    path = tmp_path / "iris.csv"
    path.write_text("3,2,a,b\n1.0,2.0,0\n3.5,4.0,1\n5.0,6.5,2\n")
    base = learn.datasets.base
    ds = base.load_csv_with_header(str(path), target_dtype=np.int32, features_dtype=np.float32)
    np.testing.assert_array_equal(ds.target, [0, 1, 2])
    np.testing.assert_array_equal(ds.data, [[1.0, 2.0], [3.5, 4.0], [5.0, 6.5]])
    assert base.Datasets(train=ds, validation=None, test=ds).train is ds
    assert base.maybe_download("iris.csv", str(tmp_path), "http://x") == str(path)
    with pytest.raises(IOError, match="does not download"):
        base.maybe_download("other.csv", str(tmp_path), "http://x")
