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
CASES = [c for c in FIX["cases"] if c["cls"] in ("DepthwiseConv2D", "SeparableConv2D", "SeparableConv1D")]


def _normalized(config):
    return json.loads(json.dumps(dict(config, name=None)))


def test_layers_match_tf():
    """All cases in one graph and one run (one compile)."""
    tf.keras.backend.clear_session()
    L = tf.keras.layers
    layers, outs = [], []
    for case in CASES:
        layer = getattr(L, case["cls"])(**case["kw"])
        y = layer(tf.keras.Input(batch_shape=case["shape"]))
        assert y.shape.as_list() == case["out_shape"], case
        assert _normalized(layer.get_config()) == _normalized(case["config"]), case
        assert [[n.split("/", 1)[1], s] for n, s in case["weights"]] == \
            [[w.name.split("/", 1)[1], w.shape.as_list()] for w in layer.weights], case
        layers.append(layer)
        outs.append(y)
    sess = tf.Session()   # every variable loaded with the fixture's values: no initializer run (a compile)
    for layer, case in zip(layers, CASES):
        for v, w in zip(layer.weights, case["w"]):
            v.load(np.array(w, np.float32), sess)
    got = sess.run(outs, {layer.input: np.array(c["x"], np.float32) for layer, c in zip(layers, CASES)})
    for case, g in zip(CASES, got):
        np.testing.assert_allclose(g, case["y"], rtol=1e-5, atol=1e-5, err_msg=str(case["kw"]))


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
