"""Model.fit / evaluate with sample_weight and class_weight weigh each sample's loss as TF 1.15 does: the
epochs' losses, the weighted evaluate and the trained weights are TF's (tests/fixtures/keras_sample_weight,
recorded by make_fixture.py with TF 1.15)."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "keras_sample_weight", "sample_weight.json")
with open(FIXTURE) as f:
    TF = json.load(f)
CASES = {
    "sample_weight_sparse": dict(loss="sparse_categorical_crossentropy", onehot=False, fit=dict(sample_weight=True)),
    "class_weight_sparse": dict(loss="sparse_categorical_crossentropy", onehot=False,
                                fit=dict(class_weight={0: 1.0, 1: 3.0, 2: 0.5})),
    "class_weight_onehot": dict(loss="categorical_crossentropy", onehot=True,
                                fit=dict(class_weight={0: 0.5, 1: 2.0, 2: 1.0})),
}


def _data():
    x = np.linspace(-1, 1, 60).reshape(20, 3).astype("float32")
    return x, np.array([i % 3 for i in range(20)]), np.linspace(0.2, 2.0, 20).astype("float32")


def _model(loss):
    c = tf.keras.initializers.Constant
    m = tf.keras.Sequential([
        tf.keras.layers.Dense(4, activation="tanh", input_shape=(3,), kernel_initializer=c(0.3), name="d1"),
        tf.keras.layers.Dense(3, activation="softmax", kernel_initializer=tf.keras.initializers.Identity(),
                              name="d2")])
    m.compile(tf.keras.optimizers.SGD(0.3), loss, metrics=["accuracy"])
    return m


@pytest.mark.parametrize("case", sorted(CASES))
def test_weighted_fit_matches_tf(case):
    tf.keras.backend.clear_session()
    x, y, sw = _data()
    spec, expected = CASES[case], TF[case]
    m = _model(spec["loss"])
    yy = np.eye(3, dtype="float32")[y] if spec["onehot"] else y
    kw = dict(spec["fit"])
    if kw.get("sample_weight"):
        kw["sample_weight"] = sw
    h = m.fit(x, yy, batch_size=8, epochs=3, shuffle=False, verbose=0, **kw)
    for k, v in expected["history"].items():
        np.testing.assert_allclose(h.history[k], v, rtol=1e-5, atol=1e-6, err_msg=k)
    np.testing.assert_allclose(m.evaluate(x, yy, batch_size=8, sample_weight=sw, verbose=0),
                               expected["evaluate_sample_weight"], rtol=1e-5, atol=1e-6)
    for got, want in zip(m.get_weights(), expected["weights"]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_weight_errors():
    tf.keras.backend.clear_session()
    x, y, sw = _data()
    m = _model("sparse_categorical_crossentropy")
    with pytest.raises(ValueError, match="class_weight"):
        m.fit(x, y, class_weight={0: 1.0, 1: 2.0}, verbose=0)
    with pytest.raises(ValueError, match="sample_weight"):
        m.fit(x, y, sample_weight=sw[:5], verbose=0)
    with pytest.raises(ValueError, match="dataset"):
        m.fit(tf.data.Dataset.from_tensor_slices((x, y)).batch(4), sample_weight=sw, verbose=0)
