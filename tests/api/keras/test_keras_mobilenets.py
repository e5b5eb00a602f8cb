"""tf.keras.applications.MobileNet / MobileNetV2 against TF 1.15 (tests/fixtures/keras_conv/make_mobilenets.py):
the same model name, layers (names, classes, output shapes, parameter counts) in TF's order, weights (names,
shapes) in TF's order, parameter counts, and for two small headless models TF's outputs with fixed weights."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf

HERE = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "keras_conv")
FIX = json.load(open(os.path.join(HERE, "mobilenets.json")))


def _fixed_weights(model, seed=1):   # make_mobilenets.fixed_weights (that script imports TF)
    rng = np.random.RandomState(seed)
    return [rng.uniform(0.5, 1.5, w.shape.as_list()) if "moving_variance" in w.name else
            rng.uniform(-0.5, 0.5, w.shape.as_list()) for w in model.weights]


def _build(rec):
    tf.keras.backend.clear_session()
    kw = dict(rec["kw"])
    if "input_shape" in kw:
        kw["input_shape"] = tuple(kw["input_shape"])
    return getattr(tf.keras.applications, rec["fn"])(**kw)


def _check_structure(m, rec):
    assert m.name == rec["name"]
    got = [[la.name, type(la).__name__, list(la.output_shape), la.count_params()] for la in m.layers]
    want = [list(r) for r in rec["layers"]]
    assert got[0][1] == want[0][1] == "InputLayer"   # TF 1.15 reports an InputLayer's output_shape differently
    assert got[1:] == want[1:]
    assert [[w.name, w.shape.as_list()] for w in m.weights] == rec["weights"]
    assert m.count_params() == rec["params"]


@pytest.mark.parametrize("idx", [i for i, r in enumerate(FIX["models"]) if "y" not in r])
def test_structure_matches_tf(idx):
    _check_structure(_build(FIX["models"][idx]), FIX["models"][idx])


@pytest.mark.slow   # one compile of a ~90 / ~150 layer model
@pytest.mark.parametrize("idx", [i for i, r in enumerate(FIX["models"]) if "y" in r])
def test_forward_matches_tf(idx):
    rec = FIX["models"][idx]
    m = _build(rec)
    _check_structure(m, rec)
    m.set_weights(_fixed_weights(m))
    x = np.random.RandomState(2).uniform(-1, 1, (2,) + tuple(rec["kw"]["input_shape"])).astype(np.float32)
    np.testing.assert_allclose(m.predict(x), rec["y"], rtol=1e-4, atol=1e-5)


def test_arguments_and_modules(monkeypatch, tmp_path):
    A = tf.keras.applications
    monkeypatch.setenv("HOME", str(tmp_path))
    tf.keras.backend.clear_session()
    with pytest.raises(tf.errors.NotFoundError, match="mobilenet_2_5_128_tf_no_top.h5"):
        A.MobileNet(include_top=False, alpha=0.25, input_shape=(128, 128, 3))
    with pytest.raises(tf.errors.NotFoundError, match="mobilenet_v2_weights_tf_dim_ordering_tf_kernels_0.35_96.h5"):
        A.MobileNetV2(alpha=0.35, input_shape=(96, 96, 3))
    with pytest.raises(ValueError, match="depth multiplier must be 1"):
        A.MobileNet(depth_multiplier=2)
    with pytest.raises(ValueError, match="alpha can be one of"):
        A.MobileNetV2(alpha=0.6)
    with pytest.raises(ValueError, match="Input size must be at least 32x32"):
        A.MobileNetV2(weights=None, include_top=False, input_shape=(31, 40, 3))
    x = np.array([[[0., 127.5, 255.]]])
    for mod in (A.mobilenet, A.mobilenet_v2):   # mode 'tf': to [-1, 1]
        np.testing.assert_allclose(mod.preprocess_input(x.copy()), [[[-1., 0., 1.]]])
    assert A.mobilenet.MobileNet is A.MobileNet and A.mobilenet_v2.MobileNetV2 is A.MobileNetV2
    assert A.mobilenet_v2.decode_predictions is A.vgg16.decode_predictions


@pytest.mark.slow   # saves and reloads 260 weights
def test_weights_from_a_local_file(tmp_path):
    """weights=<path>: a model's own save_weights file gives back the same weights."""
    pytest.importorskip("h5py", reason="Keras .h5 files need h5py (the [keras] extra)")
    tf.keras.backend.clear_session()
    kw = dict(include_top=False, alpha=0.35, input_shape=(32, 32, 3))
    m = tf.keras.applications.MobileNetV2(weights=None, **kw)
    want = _fixed_weights(m)
    m.set_weights(want)
    path = str(tmp_path / "w.h5")
    m.save_weights(path)
    tf.keras.backend.clear_session()
    again = tf.keras.applications.MobileNetV2(weights=path, **kw)
    for got, w in zip(again.get_weights(), want):
        np.testing.assert_allclose(got, w, rtol=1e-6)
