"""tf.keras.layers' conv / pooling / shape layers against TF 1.15 (tests/fixtures/keras_conv/make_keras_conv.py):
per layer, the config, the weights (names, shapes), the output shape and the output for fixed inputs and
weights; a TF-written .h5 model of them loads and predicts TF's numbers; configs round-trip."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf

HERE = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "keras_conv")
FIX = json.load(open(os.path.join(HERE, "keras_conv.json")))
CASES = FIX["cases"]


def _normalized(config):
    return json.loads(json.dumps(dict(config, name=None)))


CHANNELS_FIRST = {"DepthwiseConv2D", "SeparableConv2D", "SeparableConv1D", "Conv1D", "Conv2DTranspose", "Conv3D",
                  "Conv3DTranspose", "MaxPooling3D", "AveragePooling3D", "GlobalAveragePooling3D", "ZeroPadding3D",
                  "Cropping3D", "UpSampling2D", "UpSampling3D"}


def _channels_first(case):
    """The case in channels_first (TF 1.15 runs most of these layouts on GPUs only): the input and TF's output
    with the channels moved to axis 1, the same weights."""
    if case["cls"] not in CHANNELS_FIRST or "data_format" in case["kw"] or case["kw"].get("padding") == "causal":
        return None
    return dict(case, kw=dict(case["kw"], data_format="channels_first"), x=np.moveaxis(np.array(case["x"]), -1, 1),
                y=np.moveaxis(np.array(case["y"]), -1, 1), shape=None, out_shape=None)


def test_layers_match_tf():
    """All cases, and their channels_first twins, in one graph and one run (one compile)."""
    tf.keras.backend.clear_session()
    L = tf.keras.layers
    cases = CASES + [c for c in map(_channels_first, CASES) if c is not None]
    layers, outs = [], []
    for case in cases:
        layer = getattr(L, case["cls"])(**case["kw"])
        y = layer(tf.keras.Input(batch_shape=np.shape(case["x"])))
        if case["out_shape"] is not None:
            assert y.shape.as_list() == case["out_shape"], case
            # TF 1.15's DepthwiseConv2D.compute_output_shape leaves out the dilation: the real shape here
            want = case["out_shape"] if case["kw"].get("dilation_rate") else case["compute_output_shape"]
            assert layer.compute_output_shape(case["shape"]).as_list() == want, case
            assert _normalized(layer.get_config()) == _normalized(case["config"]), case
            assert [[n.split("/", 1)[1], s] for n, s in case["weights"]] == \
                [[w.name.split("/", 1)[1], w.shape.as_list()] for w in layer.weights], case
        layers.append(layer)
        outs.append(y)
    sess = tf.Session()   # every variable loaded with the fixture's values: no initializer run (a compile)
    for layer, case in zip(layers, cases):
        for v, w in zip(layer.weights, case["w"]):
            v.load(np.array(w, np.float32), sess)
    got = sess.run(outs, {layer.input: np.array(c["x"], np.float32) for layer, c in zip(layers, cases)})
    for case, g in zip(cases, got):
        np.testing.assert_allclose(g, case["y"], rtol=1e-5, atol=1e-5, err_msg="%s %s" % (case["cls"], case["kw"]))


def test_from_config_round_trip():
    """Each TF config rebuilds the layer (its config again, bar the name)."""
    tf.keras.backend.clear_session()
    for case in CASES:
        cls = getattr(tf.keras.layers, case["cls"])
        layer = cls.from_config(case["config"])
        assert _normalized(layer.get_config()) == _normalized(case["config"]), case


def test_bad_arguments():
    L = tf.keras.layers
    with pytest.raises(ValueError, match="should have rank 4"):
        L.DepthwiseConv2D(3)(tf.keras.Input((5, 3)))
    with pytest.raises(ValueError, match="`kernel_size` argument must be a tuple of 2"):
        L.SeparableConv2D(2, (1, 2, 3))
    with pytest.raises(TypeError, match="Keyword argument not understood"):
        L.DepthwiseConv2D(3, kernel=2)


def _h5_layout(path):
    import h5py
    out = {}
    with h5py.File(path, "r") as f:
        f["model_weights"].visititems(lambda name, obj: out.__setitem__(name, obj.shape)
                                      if isinstance(obj, h5py.Dataset) else None)
        return out, json.loads(f.attrs["model_config"])


@pytest.mark.slow   # two model compiles
def test_tf_h5_model_loads_predicts_and_saves_back(tmp_path):
    """TF 1.15's .h5 of a model of these layers: TF's predictions; its to_json is TF's; saved again, the same
    file layout (weight names and shapes, model_config) and predictions after reloading."""
    pytest.importorskip("h5py", reason="Keras .h5 files need h5py (the [keras] extra)")
    rec = FIX["model"]
    src = os.path.join(HERE, "tf_conv_model.h5")
    tf.keras.backend.clear_session()
    model = tf.keras.models.load_model(src)
    x = np.array(rec["x"], np.float32)
    np.testing.assert_allclose(model.predict(x), rec["y"], rtol=1e-4, atol=1e-5)
    assert json.loads(model.to_json())["config"] == rec["json"]["config"]
    path = str(tmp_path / "again.h5")
    model.save(path, include_optimizer=False)
    assert _h5_layout(path) == _h5_layout(src)
    tf.keras.backend.clear_session()
    np.testing.assert_allclose(tf.keras.models.load_model(path).predict(x), rec["y"], rtol=1e-4, atol=1e-5)


def test_backend_padding_and_resizing():
    """K.temporal_padding / spatial_2d_padding / spatial_3d_padding / repeat_elements / resize_images /
    resize_volumes against numpy."""
    K = tf.keras.backend
    tf.keras.backend.clear_session()
    x3, x4, x5 = (np.arange(np.prod(s), dtype=np.float32).reshape(s) for s in ((1, 3, 2), (1, 2, 3, 2),
                                                                                    (1, 2, 1, 2, 2)))
    got = tf.Session().run([K.temporal_padding(x3, (2, 1)), K.spatial_2d_padding(x4, ((1, 0), (0, 2))),
                            K.spatial_2d_padding(x4, ((1, 0), (0, 2)), "channels_first"),
                            K.spatial_3d_padding(x5), K.repeat_elements(x3, 3, -2),
                            K.resize_images(x4, 2, 3, "channels_last"),
                            K.resize_volumes(x5, 1, 2, 3, "channels_first")])
    want = [np.pad(x3, [(0, 0), (2, 1), (0, 0)]), np.pad(x4, [(0, 0), (1, 0), (0, 2), (0, 0)]),
            np.pad(x4, [(0, 0), (0, 0), (1, 0), (0, 2)]), np.pad(x5, [(0, 0)] + [(1, 1)] * 3 + [(0, 0)]),
            np.repeat(x3, 3, 1), np.repeat(np.repeat(x4, 2, 1), 3, 2), np.repeat(np.repeat(x5, 2, 3), 3, 4)]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    with pytest.raises(ValueError, match="Unknown data_format"):
        K.spatial_2d_padding(x4, data_format="NHWC")
