"""tf.keras.applications against TF 1.15 (tests/fixtures/keras_applications/make_applications.py): the
same layers (names, classes, output shapes, parameter counts, in order), weights (names, shapes) and
ImageNet pre/post-processing."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf

FIX = json.load(open(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "keras_applications",
                                  "applications.json")))


def _build(rec):
    tf.keras.backend.clear_session()
    kw = dict(rec["kw"])
    if "input_shape" in kw:
        kw["input_shape"] = tuple(kw["input_shape"])
    return getattr(tf.keras.applications, rec["fn"])(**kw)


@pytest.mark.parametrize("idx", range(len(FIX["models"])))
def test_model_matches_tf(idx):
    rec = FIX["models"][idx]
    if True:
        m = _build(rec)   # clear_session: a fresh default graph and Keras' name counters, as the fixture
        assert m.name == rec["name"]
        got = {la.name: [type(la).__name__, list(la.output_shape), la.count_params()] for la in m.layers}
        want = {n: [c, s, p] for n, c, s, p in rec["layers"]}
        # the first Input is "input_1" as in TF 1.15 (its output_shape is reported differently: class only)
        assert got.pop("input_1")[0] == want.pop("input_1")[0] == "InputLayer"
        # model.layers' ORDER is the engine's (first use); TF 1.15 sorts by depth: compared as a mapping
        assert sorted(got) == sorted(want)
        for name, w in want.items():
            assert got[name] == w, (name, got[name], w)
        assert m.count_params() == rec["params"]
        assert sorted([w.name, w.shape.as_list()] for w in m.weights) == sorted(rec["weights"])
        assert sum(int(np.prod(w.shape.as_list())) for w in m.trainable_weights) == rec["trainable"]


def test_preprocess_input_matches_tf():
    x = np.array(FIX["x"])
    A = tf.keras.applications
    for fam, want in FIX["pre"].items():
        np.testing.assert_allclose(getattr(A, fam).preprocess_input(x.copy()), want, rtol=1e-12)
    np.testing.assert_allclose(A.vgg16.preprocess_input(x.transpose(0, 3, 1, 2).copy(),
                                                        data_format="channels_first"), FIX["pre_cf"], rtol=1e-12)
    np.testing.assert_allclose(A.densenet.preprocess_input(np.arange(12, dtype=np.uint8).reshape(1, 2, 2, 3)),
                               FIX["pre_int"], rtol=1e-6)
    with tf.Graph().as_default():   # a graph tensor goes through the symbolic branch: same numbers
        t = A.vgg16.preprocess_input(tf.constant(x, dtype=tf.float32))
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(t), FIX["pre"]["vgg16"], rtol=1e-5)


def test_decode_predictions_reads_the_cached_index(monkeypatch, tmp_path):
    from tinyflow.api.keras.applications import common
    monkeypatch.setattr(common, "_CLASS_INDEX", None)
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(tf.errors.NotFoundError, match="imagenet_class_index.json"):
        tf.keras.applications.resnet50.decode_predictions(np.zeros((1, 1000)))
    os.makedirs(str(tmp_path / ".keras" / "models"))
    with open(str(tmp_path / ".keras" / "models" / "imagenet_class_index.json"), "w") as f:
        json.dump({str(i): ["n%08d" % i, "class_%d" % i] for i in range(1000)}, f)
    got = tf.keras.applications.vgg16.decode_predictions(np.array(FIX["preds"]), top=3)
    assert [[list(r[:2]) + [float(r[2])] for r in row] for row in got] == FIX["decoded"]
    with pytest.raises(ValueError, match="2D array of shape"):
        tf.keras.applications.vgg16.decode_predictions(np.zeros((2, 10)))


def test_weights_arguments(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    A = tf.keras.applications
    tf.keras.backend.clear_session()
    if True:
        with pytest.raises(tf.errors.NotFoundError, match="vgg16_weights_tf_dim_ordering_tf_kernels_notop.h5"):
            A.VGG16(include_top=False, input_shape=(32, 32, 3))
        with pytest.raises(ValueError, match="`weights` argument"):
            A.VGG16(weights="/no/such/file.h5")
        with pytest.raises(ValueError, match="classes"):
            A.ResNet50(classes=10)
        with pytest.raises(ValueError, match="at least 32x32"):
            A.VGG19(weights=None, include_top=False, input_shape=(16, 16, 3))
        with pytest.raises(ValueError, match="static `input_shape`"):
            A.DenseNet121(weights=None, input_shape=(None, None, 3))


@pytest.mark.slow
def test_weights_from_a_local_file(tmp_path):
    tf.keras.backend.clear_session()
    if True:
        m = tf.keras.applications.VGG16(weights=None, include_top=False, input_shape=(32, 32, 3), pooling="avg")
        sess = tf.keras.backend.get_session()
        sess.run(tf.global_variables_initializer())
        path = str(tmp_path / "w.ckpt")   # what save_weights writes (.h5 once the HDF5 writer lands)
        m.save_weights(path)
        x = np.random.RandomState(0).rand(2, 32, 32, 3).astype("float32")
        want = m.predict(x)
    tf.keras.backend.clear_session()
    if True:
        m2 = tf.keras.applications.VGG16(weights=path, include_top=False, input_shape=(32, 32, 3), pooling="avg")
        np.testing.assert_allclose(m2.predict(x), want, rtol=1e-5, atol=1e-6)
