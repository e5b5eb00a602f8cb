"""tf.estimator behaviour: resuming from model_dir, max_steps, checkpoints kept, evaluate / predict
options, hooks, summaries, RunConfig and the TF errors for bad model_fns and input_fns."""
import os

import numpy as np
import pytest

import tinyflow as tf

rng = np.random.RandomState(0)
X = rng.randn(40, 2).astype(np.float32)
Y = (X @ [2.0, -1.0] + 0.5).astype(np.float32)


def model_fn(features, labels, mode, params):
    w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
    pred = tf.matmul(features["x"], w)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"pred": pred, "double": 2 * pred})
    loss = tf.reduce_mean(tf.square(pred - tf.reshape(labels, [-1, 1])))
    train_op = tf.train.GradientDescentOptimizer(params.get("lr", 0.1)).minimize(
        loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                      eval_metric_ops={"mse": tf.metrics.mean_squared_error(labels, pred[:, 0])})


def train_input(epochs=None, batch=10):
    return tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=batch, num_epochs=epochs, shuffle=False)


def eval_input():
    return tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=10, shuffle=False)


def numpy_sgd(steps, batch=10, lr=0.1, w=None):
    """The same training in numpy: the reference for resumed runs."""
    w = np.zeros(2) if w is None else w
    for step in range(steps):
        i = (step * batch) % len(X)
        x, y = X[i:i + batch], Y[i:i + batch]
        w = w - lr * 2 * x.T @ (x @ w - y) / batch
    return w


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """An estimator trained 5 + 3 steps (two train calls), checkpoints every 2 steps, 2 kept."""
    d = str(tmp_path_factory.mktemp("model"))
    config = tf.estimator.RunConfig(save_checkpoints_steps=2, keep_checkpoint_max=2, save_summary_steps=1)
    est = tf.estimator.Estimator(model_fn, model_dir=d, config=config, params={"lr": 0.1})
    est.train(train_input(), steps=5)
    est.train(train_input(), steps=3)
    return est


@pytest.mark.slow
def test_resume_continues_global_step(trained):
    assert trained.get_variable_value("global_step") == 8
    # the second call restarted the input_fn: 5 steps, then 3 steps from the first batch again
    w5 = numpy_sgd(5)
    want = numpy_sgd(3, w=w5)
    np.testing.assert_allclose(trained.get_variable_value("w")[:, 0], want, rtol=1e-5)
    assert sorted(trained.get_variable_names()) == ["global_step", "w"]
    assert trained.latest_checkpoint().endswith("model.ckpt-8")


@pytest.mark.slow
def test_keep_checkpoint_max_and_max_steps(trained):
    state = tf.train.get_checkpoint_state(trained.model_dir)
    # the second call saved at 5 (its start), 7 and 8; earlier ones were deleted, across calls
    assert [os.path.basename(p) for p in state.all_model_checkpoint_paths] == ["model.ckpt-7", "model.ckpt-8"]
    assert not [f for f in os.listdir(trained.model_dir) if f.startswith(("model.ckpt-4", "model.ckpt-5"))]
    before = trained.get_variable_value("w")
    trained.train(train_input(), max_steps=8)  # already there: nothing runs
    np.testing.assert_array_equal(trained.get_variable_value("w"), before)
    assert trained.get_variable_value("global_step") == 8


@pytest.mark.slow
def test_evaluate(trained):
    metrics = trained.evaluate(eval_input())
    w = trained.get_variable_value("w")[:, 0]
    mse = np.mean((X @ w - Y) ** 2)
    assert metrics["global_step"] == 8
    np.testing.assert_allclose(metrics["mse"], mse, rtol=1e-5)
    np.testing.assert_allclose(metrics["loss"], mse, rtol=1e-5)  # mean of 4 equal-size batch losses
    two = trained.evaluate(eval_input(), steps=2, name="two")
    np.testing.assert_allclose(two["mse"], np.mean((X[:20] @ w - Y[:20]) ** 2), rtol=1e-5)
    assert trained.eval_dir("two") == os.path.join(trained.model_dir, "eval_two")
    assert os.path.isdir(trained.eval_dir("two"))
    assert os.listdir(os.path.join(trained.model_dir, "eval"))
    assert any(f.startswith("events") for f in os.listdir(trained.model_dir))  # training summaries


@pytest.mark.slow
def test_predict(trained):
    w = trained.get_variable_value("w")
    inp = tf.estimator.inputs.numpy_input_fn({"x": X[:7]}, batch_size=3, shuffle=False)
    preds = list(trained.predict(inp))
    assert len(preds) == 7 and sorted(preds[0]) == ["double", "pred"]
    np.testing.assert_allclose([p["pred"][0] for p in preds], X[:7] @ w[:, 0], rtol=1e-5)
    only = list(trained.predict(inp, predict_keys=["double"]))
    assert sorted(only[0]) == ["double"]
    batches = list(trained.predict(inp, yield_single_examples=False))
    assert [len(b["pred"]) for b in batches] == [3, 3, 1]
    with pytest.raises(ValueError, match="Expected to run at least one output"):
        list(trained.predict(inp, predict_keys=["nope"]))


@pytest.mark.slow
def test_input_fn_tensors_hooks_and_nan(tmp_path):
    calls = []

    class Count(tf.train.SessionRunHook):
        def after_run(self, run_context, run_values):
            calls.append(1)

    def input_fn():  # (features, labels) tensors, not a Dataset: the same batch at every step
        return {"x": tf.constant(X[:10])}, tf.constant(Y[:10])
    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path / "a"), params={"lr": 0.1})
    est.train(input_fn, steps=4, hooks=[Count()])
    assert len(calls) == 4 and est.get_variable_value("global_step") == 4
    bad = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path / "b"), params={"lr": 1e30})
    with pytest.raises(tf.train.NanLossDuringTrainingError):
        bad.train(input_fn, steps=50)


@pytest.mark.slow
def test_train_until_input_ends_and_predict_without_checkpoint(tmp_path):
    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path), params={})
    out = list(est.predict(tf.estimator.inputs.numpy_input_fn({"x": X[:2]}, shuffle=False)))
    assert [float(p["pred"][0]) for p in out] == [0.0, 0.0]  # initialized, as TF 1.15 does
    est.train(train_input(epochs=2, batch=8))
    assert est.get_variable_value("global_step") == 10


def test_errors(tmp_path):
    d = str(tmp_path)
    with pytest.raises(ValueError, match="Missing train_op"):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.TRAIN, loss=tf.constant(1.0))
    with pytest.raises(ValueError, match="Missing predictions"):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.PREDICT)
    with pytest.raises(ValueError, match="Loss must be scalar"):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.EVAL, loss=tf.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match="must include features argument"):
        tf.estimator.Estimator(lambda x, y: None, model_dir=d)
    with pytest.raises(ValueError, match="does not include params argument"):
        tf.estimator.Estimator(lambda features, labels, mode: None, model_dir=d, params={"a": 1})
    est = tf.estimator.Estimator(model_fn, model_dir=d, params={})
    with pytest.raises(ValueError, match="Could not find trained model in model_dir"):
        est.evaluate(eval_input())
    with pytest.raises(ValueError, match="Can not provide both steps and max_steps"):
        est.train(train_input(), steps=1, max_steps=2)
    with pytest.raises(ValueError, match="shuffle must be provided and explicitly set as boolean"):
        tf.estimator.inputs.numpy_input_fn({"x": X}, Y)
    with pytest.raises(ValueError, match="Length of tensors in x and y is mismatched"):
        tf.estimator.inputs.numpy_input_fn({"x": X}, Y[:3], shuffle=False)
    with pytest.raises(ValueError, match="len 2 tuple"):
        est.train(lambda: (tf.constant(X), tf.constant(Y), tf.constant(Y)), steps=1)
    with pytest.raises(ValueError, match="hold strings, and tinyflow has no string tensors"):
        est.train(tf.estimator.inputs.numpy_input_fn({"x": np.array(["a"] * 4)}, Y[:4], shuffle=False), steps=1)
    with pytest.raises(ValueError, match="Can not provide both save_checkpoints_steps and save_checkpoints_secs"):
        tf.estimator.RunConfig(save_checkpoints_steps=1, save_checkpoints_secs=1)
    with pytest.raises(ValueError, match="are set both in constructor and `RunConfig`"):
        tf.estimator.Estimator(model_fn, model_dir=d, config=tf.estimator.RunConfig(model_dir=d + "x"), params={})


def test_run_config_replace():
    config = tf.estimator.RunConfig(tf_random_seed=3, save_checkpoints_secs=10)
    new = config.replace(save_checkpoints_steps=5, model_dir="/tmp/m")
    assert (new.save_checkpoints_steps, new.save_checkpoints_secs, new.tf_random_seed, new.model_dir) == \
        (5, None, 3, "/tmp/m")
    assert tf.estimator.RunConfig().save_checkpoints_secs == 600
    with pytest.raises(ValueError, match="not allowed in RunConfig.replace"):
        config.replace(bogus=1)


def test_pandas_input_fn():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"x": np.arange(5.0), "k": np.arange(5)})
    features, labels = tf.estimator.inputs.pandas_input_fn(df, pd.Series(np.arange(5) * 2), batch_size=2,
                                                           shuffle=False)()
    with tf.Session() as sess:
        f, l = sess.run([features, labels])
    np.testing.assert_array_equal(f["x"], [0.0, 1.0])
    np.testing.assert_array_equal(l, [0, 2])


@pytest.mark.slow
def test_seeded_dnn_is_reproducible(tmp_path):
    fc = tf.feature_column
    values = []
    for i in range(2):
        est = tf.estimator.DNNRegressor([3], [fc.numeric_column("x", shape=(2,))], model_dir=str(tmp_path / str(i)),
                                        config=tf.estimator.RunConfig(tf_random_seed=11))
        est.train(train_input(), steps=2)
        values.append(est.get_variable_value("dnn/hiddenlayer_0/kernel"))
    np.testing.assert_array_equal(values[0], values[1])
    assert np.abs(values[0]).max() > 0  # Glorot-uniform, not zeros


def test_runner_aliases():
    """`python -m tinyflow script.py`: `import tensorflow.estimator` / `.feature_column` are tinyflow's."""
    import importlib
    import sys
    from tinyflow.cli.runner import alias_tensorflow
    saved = {k: v for k, v in sys.modules.items() if k.split(".")[0] == "tensorflow"}
    try:
        alias_tensorflow()
        assert importlib.import_module("tensorflow.estimator") is tf.estimator
        assert importlib.import_module("tensorflow.compat.v1.feature_column") is tf.feature_column
        assert sys.modules["tensorflow.estimator"] is tf.estimator
    finally:  # leave sys.modules as it was for the other tests
        for k in [k for k in sys.modules if k.split(".")[0] == "tensorflow"]:
            del sys.modules[k]
        sys.modules.update(saved)


@pytest.mark.slow
def test_string_labels_through_label_vocabulary(tmp_path):
    fc = tf.feature_column
    labels = np.where(Y > 0.5, "pos", "neg")
    results = []
    for i, (y, vocab) in enumerate([(labels, ["neg", "pos"]), ((Y > 0.5).astype(np.int64), None)]):
        est = tf.estimator.LinearClassifier([fc.numeric_column("x", shape=(2,))], model_dir=str(tmp_path / str(i)),
                                            label_vocabulary=vocab)
        est.train(tf.estimator.inputs.numpy_input_fn({"x": X}, y, batch_size=20, shuffle=False))
        results.append(est)
    np.testing.assert_array_equal(results[0].get_variable_value("linear/linear_model/x/weights"),
                                  results[1].get_variable_value("linear/linear_model/x/weights"))
    preds = list(results[0].predict(tf.estimator.inputs.numpy_input_fn({"x": X[:4]}, shuffle=False),
                                    predict_keys=["classes", "class_ids"]))
    assert [p["classes"][0] for p in preds] == [[b"neg", b"pos"][p["class_ids"][0]] for p in preds]
    with pytest.raises(ValueError, match="Label 'maybe' is not in label_vocabulary"):
        results[0].train(tf.estimator.inputs.numpy_input_fn({"x": X[:2]}, np.array(["pos", "maybe"]),
                                                            shuffle=False))
