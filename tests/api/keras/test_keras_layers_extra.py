"""tf.keras layers of layers_extra.py, the functional model's layer order, and compile with a tf.train
optimizer, against TF 1.15's numbers (tests/fixtures/keras_extra/make_keras_extra.py)."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf

K = tf.keras
L = K.layers
HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "..", "..", "fixtures", "keras_extra", "keras_extra.json")) as f:
    TF = json.load(f)
X = {k: np.array(v, "float32") for k, v in TF["inputs"].items()}


def _cases():
    """(fixture key, layer, inputs, weights to set): the make_keras_extra.py cases, with its random weights."""
    rs = np.random.RandomState(0)
    for shape in [(2, 3, 4), (3, 4), (3, 4), (2, 3, 4)]:   # (the fixture's inputs, drawn first)
        rs.randn(*shape)
    gamma, beta = rs.rand(4).astype("float32") + 0.5, rs.randn(4).astype("float32")
    g34, b34 = rs.rand(3, 4).astype("float32") + 0.5, rs.randn(3, 4).astype("float32")
    alpha = rs.rand(1, 4).astype("float32")
    y5 = rs.randn(2, 4, 5).astype("float32")
    x2, x3, y2, y3 = X["x2"], X["x3"], X["y2"], X["y3"]
    return [("ln", L.LayerNormalization(), [x3], [gamma, beta]),
            ("ln_axes", L.LayerNormalization(axis=[1, 2], epsilon=0.1), [x3], [g34, b34]),
            ("ln_noscale", L.LayerNormalization(axis=1, scale=False), [x3], None),
            ("prelu", L.PReLU(shared_axes=[1]), [x3], [alpha]),
            ("prelu_default", L.PReLU(alpha_initializer="ones"), [x2], None),
            ("elu", L.ELU(alpha=0.5), [x3], None),
            ("thresholded_relu", L.ThresholdedReLU(theta=0.3), [x3], None),
            ("dot_2d", L.Dot(axes=1), [x2, y2], None),
            ("dot_2d_norm", L.Dot(axes=-1, normalize=True), [x2, y2], None),
            ("dot_3d_22", L.Dot(axes=(2, 2)), [x3, y3], None),
            ("dot_3d_11", L.Dot(axes=1), [x3, y3], None),
            ("dot_3d_21", L.Dot(axes=(2, 1)), [x3, y5], None),
            ("actreg", L.ActivityRegularization(l1=0.1, l2=0.2), [x3], None)]


def _strip_names(config):
    return {k: v for k, v in json.loads(json.dumps(config)).items() if k != "name"}


def test_layers_give_tf115_values_weights_and_configs():
    K.backend.clear_session()
    feeds, fetches, cases = {}, [], _cases()
    for key, layer, xs, weights in cases:
        inputs = [K.Input(batch_shape=x.shape) for x in xs]
        feeds.update(zip(inputs, xs))
        out = layer(inputs if len(inputs) > 1 else inputs[0])
        if weights is not None:
            layer.set_weights(weights)
        assert out.shape.as_list() == TF[key]["shape"], key
        fetches.append((out, layer.losses))
    values = K.backend.get_session().run(fetches, feeds)   # (one fetch set: one compile)
    for (key, layer, _, _), (value, losses) in zip(cases, values):
        want = TF[key]
        np.testing.assert_allclose(value, want["value"], rtol=1e-5, atol=1e-6, err_msg=key)
        np.testing.assert_allclose(losses, want["losses"], rtol=1e-5, err_msg=key)
        base = layer.name.rsplit("_", 1)[0] if layer.name[-1].isdigit() else layer.name
        assert [[w.name.replace(layer.name + "/", base + "/"), w.shape.as_list()] for w in layer.weights] \
            == want["weights"], key
        assert _strip_names(layer.get_config()) == _strip_names(want["config"]), key
    # configs of the noise layers (unbuilt: dtype None) and a round trip through from_config
    for cls, args in [("SpatialDropout1D", [0.3]), ("SpatialDropout2D", [0.3]), ("SpatialDropout3D", [0.3]),
                      ("GaussianNoise", [0.5]), ("GaussianDropout", [0.4]), ("AlphaDropout", [0.2])]:
        config = getattr(L, cls)(*args).get_config()
        assert _strip_names(config) == _strip_names(TF["config_" + cls]), cls
        assert getattr(L, cls).from_config(config).get_config() == config
    assert repr(L.InputSpec(ndim=3, axes={-1: 4})) == TF["input_spec_repr"]
    assert L.dot is not None and L.InputSpec is tf.layers.InputSpec


def test_input_spec_and_argument_errors_are_tf115s():
    def dense_rank1():
        L.Dense(3)(K.backend.placeholder(shape=(4,)))

    def prelu_rank():
        p = L.PReLU()
        p(K.Input((3, 4)))
        p(K.Input((3,)))

    def dense_axis():
        d = L.Dense(2)
        d(K.Input((4,)))
        d(K.Input((5,)))
    cases = {"dense_rank1": dense_rank1, "prelu_rank": prelu_rank, "dense_axis": dense_axis,
             "spatial2d_rank3": lambda: L.SpatialDropout2D(0.5)(K.Input((3, 4))),
             "spatial1d_rank4": lambda: L.SpatialDropout1D(0.5)(K.Input((3, 4, 5))),
             "dot_one_input": lambda: L.Dot(axes=1)(K.Input((3,))),
             "dot_mismatch": lambda: L.Dot(axes=1)([K.Input((3,)), K.Input((4,))]),
             "ln_bad_axis": lambda: L.LayerNormalization(axis=3)(K.Input((3,)))}
    for key, fn in cases.items():
        K.backend.clear_session()
        cls, message = TF["errors"][key]
        with pytest.raises(ValueError) as e:
            fn()
        assert (type(e.value).__name__, str(e.value)) == (cls, message), key


def test_noise_layers_act_in_the_training_phase_only():
    K.backend.clear_session()
    x = np.random.RandomState(1).rand(64, 40).astype("float32") + 1.0
    inp = K.Input((40,))
    rate = 0.2
    layers = [L.GaussianNoise(0.5), L.GaussianDropout(0.4), L.AlphaDropout(rate)]
    outs = [[layer(inp, training=phase) for layer in layers] for phase in (True, False)]
    train, test = K.backend.get_session().run(outs, {inp: x})
    for t in test:
        np.testing.assert_array_equal(t, x)
    noise, gauss, alpha = train
    assert abs((noise - x).std() - 0.5) < 0.03 and abs((noise - x).mean()) < 0.03
    ratio = gauss / x
    assert abs(ratio.mean() - 1) < 0.05 and abs(ratio.std() - np.sqrt(0.4 / 0.6)) < 0.05
    # AlphaDropout: kept values a*x + b, dropped ones a*alpha_p + b (TF 1.15's affine correction)
    alpha_p = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946
    a = ((1 - rate) * (1 + rate * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * rate
    kept = np.isclose(alpha, a * x + b, rtol=1e-5)
    assert np.allclose(alpha[~kept], a * alpha_p + b, rtol=1e-5) and 0.1 < (~kept).mean() < 0.3


@pytest.mark.slow
def test_spatial_dropout_drops_whole_feature_maps():
    # (slow: XLA takes seconds to compile a random op of rank 4 here)
    K.backend.clear_session()
    x = np.random.RandomState(1).rand(4, 3, 5, 16).astype("float32") + 1.0
    inp = K.Input((3, 5, 16))
    outs = [L.SpatialDropout2D(0.5)(inp), L.SpatialDropout1D(0.5)(L.Reshape((15, 16))(inp))]
    sess = K.backend.get_session()
    spatial, spatial1d = sess.run(outs, {inp: x, K.backend.learning_phase(): True})
    # a sample's channel dropped over all rows and columns, the rest scaled by 1/(1-rate)
    dropped = spatial == 0
    assert (dropped.any(axis=(1, 2)) == dropped.all(axis=(1, 2))).all() and 0.25 < dropped.mean() < 0.75
    np.testing.assert_allclose(spatial[~dropped], 2 * x[~dropped], rtol=1e-6)
    d1 = spatial1d == 0
    assert (d1.any(axis=1) == d1.all(axis=1)).all() and 0.25 < d1.mean() < 0.75
    for t in sess.run(outs, {inp: x}):   # (Keras' learning phase: False unless fed)
        np.testing.assert_array_equal(t.reshape(x.shape), x)


def test_functional_layer_order_is_tf115s():
    K.backend.clear_session()
    a, b = K.Input((4,), name="a"), K.Input((3,), name="b")
    shared = L.Dense(5, name="shared")
    ha, hb = shared(a), shared(L.Dense(4, name="proj")(b))
    main = L.Dense(2, name="main")(L.BatchNormalization(name="bn")(L.concatenate([ha, hb], name="cat")))
    model = K.Model([a, b], [main, L.Dense(1, name="aux")(ha)])
    want = TF["order"]
    assert [layer.name for layer in model.layers] == want["layers"]
    assert [w.name for w in model.weights] == want["weights"]
    assert [list(w.shape) for w in model.get_weights()] == want["get_weights_shapes"]
    assert [layer["name"] for layer in model.get_config()["layers"]] == want["config_layers"]
    lines = []
    model.summary(print_fn=lines.append, line_length=100)
    assert lines == want["summary"]
    assert model.input_names == ["a", "b"]
    K.backend.clear_session()
    a, b = K.Input((3,), name="a"), K.Input((2,), name="b")
    d2 = L.Dense(3, name="d2")(L.Dense(3, name="d1")(a))
    model = K.Model([a, b], L.add([d2, L.Dense(3, name="d3")(b)], name="sum"))
    assert [layer.name for layer in model.layers] == TF["order2"]


def test_compile_with_a_tf_train_optimizer_fits_as_tf115():
    want = TF["tfopt"]
    x, y = np.array(want["x"], "float32"), np.array(want["y"], "float32")
    K.backend.clear_session()
    model = K.Sequential([L.Dense(4, activation="tanh", input_shape=(3,)), L.Dense(2)])
    model.set_weights([np.array(w, "float32") for w in want["w0"]])
    model.compile(optimizer=tf.train.AdamOptimizer(0.05), loss="mse", metrics=["mae"])
    assert type(model.optimizer).__name__ == want["optimizer_class"]
    history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    for key, values in want["history"].items():
        np.testing.assert_allclose(history.history[key], values, rtol=1e-5)
    for w, t in zip(model.get_weights(), want["w1"]):
        np.testing.assert_allclose(w, t, rtol=1e-5, atol=1e-6)
    assert K.backend.get_value(model.optimizer.iterations) == want["iterations"]
    np.testing.assert_allclose(model.evaluate(x, y, verbose=0), want["eval"], rtol=1e-5)


@pytest.mark.slow
def test_model_to_estimator_with_a_tf_train_optimizer(tmp_path):
    """The Estimator trains with the same tf.train optimizer, from the Keras weights: its 4 steps on
    the same batches end where TF 1.15's fit ended."""
    want = TF["tfopt"]
    x, y = np.array(want["x"], "float32"), np.array(want["y"], "float32")
    K.backend.clear_session()
    model = K.Sequential([L.Dense(4, activation="tanh", input_shape=(3,)), L.Dense(2)])
    model.set_weights([np.array(w, "float32") for w in want["w0"]])
    model.compile(optimizer=tf.train.AdamOptimizer(0.05), loss="mse")
    est = K.estimator.model_to_estimator(model, model_dir=str(tmp_path))
    est.train(lambda: tf.data.Dataset.from_tensor_slices((x, y)).batch(4).repeat(2))
    for name, t in zip(["dense/kernel", "dense/bias", "dense_1/kernel", "dense_1/bias"], want["w1"]):
        np.testing.assert_allclose(tf.train.load_variable(str(tmp_path), name), t, rtol=1e-5, atol=1e-6)
    assert tf.train.load_variable(str(tmp_path), "global_step") == want["iterations"]
