"""tf.keras.estimator.model_to_estimator gives TF 1.15's numbers: train / evaluate / predict of a small MLP
warm-started from the Keras model's weights (tests/fixtures/keras_estimator, recorded by make_fixture.py
with TF 1.15)."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "keras_estimator", "model_to_estimator.json")
with open(FIXTURE) as f:
    TF = json.load(f)
CASES = {"sgd": lambda: tf.keras.optimizers.SGD(0.5), "adam": lambda: tf.keras.optimizers.Adam(0.05)}


def _data():
    x = np.linspace(-1, 1, 40).reshape(20, 2).astype("float32")
    return x, (x[:, :1] * 0.7 - x[:, 1:] * 0.2 > 0).astype("float32")


def _model(optimizer):
    inp = tf.keras.Input((2,), name="feats")
    h = tf.keras.layers.Dense(3, activation="tanh", name="d1")(inp)
    out = tf.keras.layers.Dense(1, activation="sigmoid", name="d2")(h)
    m = tf.keras.Model(inp, out)
    m.compile(optimizer, "binary_crossentropy", metrics=["accuracy"])
    m.set_weights([np.array([[0.3, -0.5, 0.2], [0.4, 0.1, -0.3]], "float32"), np.array([0.1, 0.0, -0.1], "float32"),
                   np.array([[0.5], [-0.4], [0.3]], "float32"), np.array([0.05], "float32")])
    return m


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_model_to_estimator_matches_tf(case, tmp_path):
    tf.keras.backend.clear_session()
    x, y = _data()
    expected = TF[case]
    est = tf.keras.estimator.model_to_estimator(keras_model=_model(CASES[case]()), model_dir=str(tmp_path))
    assert sorted(os.listdir(tmp_path / "keras")) == expected["keras_files"]
    est.train(lambda: tf.data.Dataset.from_tensor_slices(({"feats": x}, y)).batch(8).repeat(2), steps=5)
    ev = est.evaluate(lambda: tf.data.Dataset.from_tensor_slices(({"feats": x}, y)).batch(8))
    assert sorted(ev) == sorted(expected["evaluate"])
    for k, v in expected["evaluate"].items():
        np.testing.assert_allclose(float(ev[k]), v, rtol=1e-5, atol=1e-6, err_msg=k)
    pred = [p["d2"] for p in est.predict(lambda: tf.data.Dataset.from_tensor_slices({"feats": x}).batch(8))]
    np.testing.assert_allclose(np.concatenate(pred), expected["predict"], rtol=1e-5, atol=1e-6)
    ckpt = est.latest_checkpoint()
    for name, value in expected["weights"].items():
        np.testing.assert_allclose(tf.train.load_variable(ckpt, name), value, rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.slow
def test_model_to_estimator_one_tensor_feature_and_errors(tmp_path):
    tf.keras.backend.clear_session()
    x, y = _data()
    est = tf.keras.estimator.model_to_estimator(keras_model=_model(tf.keras.optimizers.SGD(0.5)),
                                                model_dir=str(tmp_path))
    est.train(lambda: tf.data.Dataset.from_tensor_slices((x, y)).batch(8).repeat(2), steps=5)
    ev = est.evaluate(lambda: tf.data.Dataset.from_tensor_slices((x, y)).batch(8))
    np.testing.assert_allclose(ev["loss"], TF["sgd"]["evaluate"]["loss"], rtol=1e-5)
    m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
    with pytest.raises(ValueError, match="not been compiled"):
        tf.keras.estimator.model_to_estimator(keras_model=m)
    with pytest.raises(ValueError, match="keras_model"):
        tf.keras.estimator.model_to_estimator()
