"""Xception, InceptionResNetV2, NASNetMobile and NASNetLarge against TF 1.15
(tests/fixtures/keras_apps/make_keras_apps.py): the same layers (names, classes, output shapes, parameter
counts), weights (names, shapes), model outputs and error messages. Building these models is the cost (0.5 s
for Xception, 2-4 s for the others): each configuration is built once, no forward pass."""
import collections
import hashlib
import json
import os

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.api.keras.applications import more_models

FIX = json.load(open(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "keras_apps",
                                  "keras_apps.json")))
A = tf.keras.applications


def _kw(rec):
    kw = dict(rec["kw"])
    if kw.get("input_shape") is not None:
        kw["input_shape"] = tuple(kw["input_shape"])
    return kw


def _digest(rows):
    return hashlib.sha256(json.dumps(sorted(rows)).encode()).hexdigest()


def _check(m, rec):
    """What the fixture script records of TF's model, recomputed from tinyflow's."""
    rows = [[la.name, type(la).__name__, None if type(la).__name__ == "InputLayer" else list(la.output_shape),
             la.count_params()] for la in m.layers]
    assert (m.name, m.count_params(), list(m.output_shape)) == (rec["name"], rec["params"], rec["output_shape"])
    assert sum(w.shape.num_elements() for w in m.trainable_weights) == rec["trainable"]
    assert dict(collections.Counter(r[1] for r in rows)) == rec["classes"]
    assert (len(rows), len(m.weights)) == (rec["n_layers"], rec["n_weights"])
    assert _digest(rows) == rec["layers_sha"]
    assert hashlib.sha256(json.dumps([la.name for la in m.layers]).encode()).hexdigest() == rec["order_sha"]
    assert _digest([["/".join(w.name.split("/")[-2:]), w.shape.as_list()] for w in m.weights]) == rec["weights_sha"]


def _build(rec, **kw):
    tf.keras.backend.clear_session()   # a fresh graph and Keras' name counters, as the fixture script
    fn = more_models.NASNet if rec["fn"] == "NASNet" else getattr(A, rec["fn"])
    return fn(**dict(_kw(rec), **kw))


XCEPTION = [r for r in FIX["models"] if r["fn"] == "Xception"]
OTHERS = [r for r in FIX["models"] if r["fn"] != "Xception"]


@pytest.mark.slow
def test_xception_matches_tf(tmp_path):
    """With and without the top and pooling, at 299x299 and at the smallest size (71); the weights saved as
    HDF5 load into a fresh model (weights=<path>)."""
    pytest.importorskip("h5py")
    path = str(tmp_path / "xception.h5")
    for i, rec in enumerate(XCEPTION):
        m = _build(rec)
        _check(m, rec)
        if i == 1:   # 71x71 without the top: its weights (each its own value) saved, loaded below
            want = [np.full(w.shape.as_list(), j + .5, np.float32) for j, w in enumerate(m.weights)]
            m.set_weights(want)
            m.save_weights(path)
    fresh = _build(XCEPTION[1], weights=path)
    _check(fresh, XCEPTION[1])
    got = fresh.get_weights()
    assert len(got) == len(want) == 234
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


@pytest.mark.slow
@pytest.mark.parametrize("idx", range(len(OTHERS)), ids=[r["fn"] for r in OTHERS])
def test_model_matches_tf(idx):
    """InceptionResNetV2 at its smallest size (75), NASNetMobile at 224, and NASNet with NASNetLarge's numbers
    but one block per stage (NASNetLarge itself is 1,040 layers, 6 s to build) at the smallest size (32)."""
    _check(_build(OTHERS[idx]), OTHERS[idx])


def test_bad_arguments_raise_as_tf(monkeypatch, tmp_path):
    """TF's ValueErrors and messages, raised before any layer is built; weights='imagenet' reads Keras' cache
    (~/.keras/models) and names the file it lacks (TF would download it)."""
    for rec in FIX["errors"]:
        with pytest.raises(ValueError) as err:
            _build(rec)
        assert str(err.value) == rec["message"]
        assert not tf.global_variables()
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(ValueError, match="`weights` argument"):
        A.NASNetLarge(weights="/no/such/file.h5")
    for fn, kw, fname in [(A.Xception, {}, "xception_weights_tf_dim_ordering_tf_kernels.h5"),
                          (A.NASNetMobile, {"include_top": False}, "nasnet_mobile_no_top.h5"),
                          (A.NASNetLarge, {}, "nasnet_large.h5")]:
        tf.keras.backend.clear_session()
        with pytest.raises(tf.errors.NotFoundError, match=fname):
            fn(**kw)
        assert not tf.global_variables()   # found missing before the model is built


def test_families_preprocess_as_tf():
    x = np.array(FIX["x"])
    for fam, want in FIX["pre"].items():
        mod = getattr(A, fam)
        np.testing.assert_allclose(mod.preprocess_input(x.copy()), want, rtol=1e-12)
        assert mod.decode_predictions is A.imagenet_utils.decode_predictions
    assert (A.xception.Xception, A.inception_resnet_v2.InceptionResNetV2, A.nasnet.NASNetMobile,
            A.nasnet.NASNetLarge) == (A.Xception, A.InceptionResNetV2, A.NASNetMobile, A.NASNetLarge)
