"""tf.keras.preprocessing.image: TF 1.15's seeded draws and batches (tests/fixtures/keras_preprocessing/
make_image.py), the numpy affine warp against scipy.ndimage, files through PIL, and a Model fed by flow()."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.api.keras.preprocessing import image as kimage

FIX = json.load(open(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "keras_preprocessing",
                                  "image.json")))
X = np.array(FIX["x"], dtype="float32")
W = np.array(FIX["w"])
XZ = np.array(FIX["xz"], dtype="float32")
IDG = tf.keras.preprocessing.image.ImageDataGenerator
PARAM_CONFIGS = {
    "all": dict(rotation_range=30, width_shift_range=0.2, height_shift_range=0.1, shear_range=10, zoom_range=0.3,
                channel_shift_range=5., horizontal_flip=True, vertical_flip=True, brightness_range=(0.5, 1.5)),
    "int_shift": dict(width_shift_range=2, height_shift_range=[1, 3], zoom_range=(0.8, 1.0)),
    "cf": dict(rotation_range=5, width_shift_range=0.5, data_format="channels_first"),
}
BATCH_CONFIGS = {
    "flips": dict(horizontal_flip=True, vertical_flip=True, channel_shift_range=20., rescale=1. / 255),
    "samplewise": dict(samplewise_center=True, samplewise_std_normalization=True, horizontal_flip=True),
    "featurewise": dict(featurewise_center=True, featurewise_std_normalization=True, vertical_flip=True),
    "zca": dict(zca_whitening=True, rescale=1. / 255),
    "split": dict(validation_split=0.3, horizontal_flip=True),
}


def test_seeded_parameter_draws_are_tfs():
    for name, kw in PARAM_CONFIGS.items():
        g = IDG(**kw)
        got = [g.get_random_transform((6, 5, 3), seed=s) for s in (0, 1, 7)]
        np.random.seed(3)
        got.append(g.get_random_transform((6, 5, 3)))
        for mine, want in zip(got, FIX["params"][name]):
            assert set(mine) == set(want)
            for k, v in want.items():
                assert (mine[k] is None) if v is None else np.isclose(float(mine[k]), v, rtol=1e-12), (name, k)


def test_seeded_flow_batches_are_tfs():
    for name, kw in BATCH_CONFIGS.items():
        rec = FIX["batches"][name]
        g = IDG(**kw)
        x = XZ[:7] if name == "zca" else X
        if name in ("featurewise", "zca"):
            g.fit(XZ if name == "zca" else X, augment=(name == "featurewise"), rounds=2, seed=4)
        for attr, key in (("mean", "mean"), ("std", "std"), ("principal_components", "pc")):
            if rec[key] is None:
                assert getattr(g, attr) is None
            else:
                np.testing.assert_allclose(getattr(g, attr), rec[key], rtol=2e-4, atol=1e-5)
        if name == "split":
            it = g.flow(x, np.array([0, 1, 0, 1, 0, 1, 0]), subset="training", batch_size=3, seed=11)
        else:
            it = g.flow(x, np.arange(7), sample_weight=W, batch_size=3, seed=11)
        for want in rec["next"]:
            got = next(it)
            assert len(got) == len(want), name
            for a, b in zip(got, want):
                np.testing.assert_allclose(a, b, rtol=2e-4, atol=2e-4, err_msg=name)
        it2 = g.flow(x, None, shuffle=False, batch_size=4, seed=5)
        np.testing.assert_allclose(it2[1], rec["getitem"][0], rtol=2e-4, atol=2e-4)
        np.testing.assert_allclose(it2[0], rec["getitem"][1], rtol=2e-4, atol=2e-4)
        assert len(it2) == rec["getitem"][2]


@pytest.mark.parametrize("mode", ["nearest", "constant", "reflect", "wrap"])
@pytest.mark.parametrize("order", [0, 1])
def test_affine_warp_matches_scipy(mode, order):
    ndimage = pytest.importorskip("scipy.ndimage", reason="scipy is the reference for the numpy warp")
    rng = np.random.RandomState(5)
    img = rng.rand(9, 7, 2).astype("float32")
    for kw in (dict(theta=33), dict(tx=2.5, ty=-4.2), dict(shear=20), dict(zx=0.6, zy=1.7),
               dict(theta=-80, tx=1, ty=3, shear=-15, zx=1.3, zy=0.8), dict(tx=-30, ty=25)):
        got = kimage.apply_affine_transform(img, fill_mode=mode, cval=0.25, order=order, **kw)
        # Keras' own construction, with scipy doing the resampling
        m = np.eye(3)
        if kw.get("theta"):
            t = np.deg2rad(kw["theta"])
            m = m @ np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1]])
        if kw.get("tx") or kw.get("ty"):
            m = m @ np.array([[1, 0, kw.get("tx", 0)], [0, 1, kw.get("ty", 0)], [0, 0, 1]])
        if kw.get("shear"):
            s = np.deg2rad(kw["shear"])
            m = m @ np.array([[1, -np.sin(s), 0], [0, np.cos(s), 0], [0, 0, 1]])
        if "zx" in kw:
            m = m @ np.array([[kw["zx"], 0, 0], [0, kw["zy"], 0], [0, 0, 1]])
        m = kimage.transform_matrix_offset_center(m, 9, 7)
        want = np.stack([ndimage.affine_transform(img[..., c], m[:2, :2], m[:2, 2], order=order, mode=mode,
                                                  cval=0.25) for c in range(2)], axis=-1)
        np.testing.assert_allclose(got, want, atol=1e-5, err_msg=str(kw))


def test_channel_shift_flip_and_helpers():
    x = np.arange(24, dtype="float32").reshape(2, 4, 3)
    np.testing.assert_array_equal(kimage.apply_channel_shift(x, 5., 2), np.clip(x + 5, 0, 23))
    np.testing.assert_array_equal(kimage.flip_axis(x, 1), x[:, ::-1])
    assert kimage.apply_affine_transform(x) is x
    with pytest.raises(ValueError, match="rank 4"):
        IDG().fit(np.zeros((3, 4, 4)))
    with pytest.raises(ValueError, match="zoom_range"):
        IDG(zoom_range=(1, 2, 3))
    with pytest.raises(ValueError, match="data_format"):
        IDG(data_format="nchw")


def test_files_through_pil(tmp_path):
    pytest.importorskip("PIL", reason="image files need Pillow")
    rng = np.random.RandomState(2)
    for cls, n in (("cats", 3), ("dogs", 2)):
        os.makedirs(str(tmp_path / "d" / cls))
        for i in range(n):
            kimage.save_img(str(tmp_path / "d" / cls / ("%d.png" % i)), rng.randint(0, 256, (6, 4, 3)), scale=False)
    (tmp_path / "d" / "cats" / "notes.txt").write_text("not an image")
    img = kimage.load_img(str(tmp_path / "d" / "cats" / "0.png"), target_size=(3, 2))
    assert img.size == (2, 3) and kimage.img_to_array(img).shape == (3, 2, 3)
    it = IDG(rescale=1. / 255).flow_from_directory(str(tmp_path / "d"), target_size=(6, 4), batch_size=5,
                                                   shuffle=False)
    assert it.class_indices == {"cats": 0, "dogs": 1} and it.filenames[0] == os.path.join("cats", "0.png")
    bx, by = next(it)
    assert bx.shape == (5, 6, 4, 3) and by.tolist() == [[1, 0]] * 3 + [[0, 1]] * 2
    raw = kimage.img_to_array(kimage.load_img(str(tmp_path / "d" / "dogs" / "1.png")))
    np.testing.assert_allclose(bx[4], raw / 255, rtol=1e-6)
    with pytest.raises(tf.errors.NotFoundError, match="nowhere"):
        IDG().flow_from_directory(str(tmp_path / "nowhere"))


def test_model_fit_generator_consumes_flow():
    rng = np.random.RandomState(0)
    x = rng.rand(12, 4, 4, 1).astype("float32")
    y = (x.mean(axis=(1, 2, 3)) > 0.5).astype("float32")
    model = tf.keras.Sequential([tf.keras.layers.Flatten(input_shape=(4, 4, 1)),
                                 tf.keras.layers.Dense(1, activation="sigmoid")])
    model.compile("sgd", "binary_crossentropy")
    it = IDG(horizontal_flip=True).flow(x, y, batch_size=4, seed=1)
    hist = model.fit_generator(it, steps_per_epoch=3, epochs=2, verbose=0)
    assert len(hist.history["loss"]) == 2 and all(np.isfinite(hist.history["loss"]))


def test_contrib_keras_is_tf_keras():
    assert tf.contrib.keras.layers.Dense is tf.keras.layers.Dense
    assert tf.contrib.keras.preprocessing.text.Tokenizer is tf.keras.preprocessing.text.Tokenizer
