"""tf.keras' recurrent layers, cells, masks and wrappers give TF 1.15's weight names and numbers from
the same weights (tests/fixtures/keras_recurrent/recurrent.json, written by make_fixture.py): masks
through Bidirectional / TimeDistributed, go_backwards, return_state, initial_state, stateful layers,
a two-step fit, cuDNN's layers, configs and a TF-written .h5."""
import importlib.util
import json
import os

import numpy as np
import pytest

import tinyflow as tf

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "keras_recurrent")
_spec = importlib.util.spec_from_file_location("make_recurrent_fixture", os.path.join(FIXTURES, "make_fixture.py"))
fixture = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fixture)
with open(os.path.join(FIXTURES, "recurrent.json")) as f:
    EXPECTED = json.load(f)
K, L = tf.keras, tf.keras.layers


def _close(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, np.asarray(w, np.float32), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("case", [pytest.param("mask_bidirectional", marks=pytest.mark.slow), "gru_backwards", "cells",
                                  "initial_state", "stateful", pytest.param("fit", marks=pytest.mark.slow),
                                  pytest.param("masked_fit", marks=pytest.mark.slow), "cudnn_like"])
def test_matches_tf115(case):
    K.backend.clear_session()
    got, want = fixture.run(tf, case), EXPECTED[case]
    assert got["weight_names"] == want["weight_names"]
    assert got["weight_shapes"] == want["weight_shapes"]
    if case in ("fit", "masked_fit"):
        assert sorted(got["history"]) == sorted(want["history"])
        for k in want["history"]:
            np.testing.assert_allclose(got["history"][k], want["history"][k], rtol=2e-5, err_msg=k)
        _close(got["weights_after"], want["weights_after"])
    else:
        _close(got["predict"], want["predict"])


def test_masks_propagate_as_tf():
    K.backend.clear_session()
    ids = K.Input((5,), dtype="int32")
    e = L.Embedding(10, 3, mask_zero=True)(ids)
    seq = L.LSTM(2, return_sequences=True)(e)
    assert e._keras_mask is not None and seq._keras_mask is e._keras_mask   # passed through
    assert L.TimeDistributed(L.Dense(2))(seq)._keras_mask is not None
    assert getattr(L.LSTM(2)(e), "_keras_mask", None) is None             # the last output: no mask
    assert L.Bidirectional(L.GRU(2, return_sequences=True))(e)._keras_mask is e._keras_mask
    with tf.Graph().as_default():   # a graph without variables: nothing to initialize
        inp = K.Input((4, 2))
        masked = L.Masking(0.5)(inp)
        x = np.array([[[0.5, 0.5], [0.5, 1.0], [2.0, 0.5], [0.5, 0.5]]], np.float32)
        with tf.Session() as sess:
            mask, out = sess.run([masked._keras_mask, masked], {inp: x})
    np.testing.assert_array_equal(mask, [[False, True, True, False]])
    np.testing.assert_array_equal(out, x * np.array([0, 1, 1, 0], np.float32)[None, :, None])
    with pytest.raises(TypeError, match="does not support masking"):
        L.Reshape((15,)).compute_mask(e, e._keras_mask)


def test_cudnn_layers_load_tf_layout():
    """CuDNNLSTM / CuDNNGRU: TF's weight names, shapes and configs, and the math of an LSTM with sigmoid
    gates and a GRU with reset_after=True (TF's numbers) from the same weights, the bias split in two."""
    K.backend.clear_session()
    x = K.Input((4, 3))
    model = K.Model(x, [L.CuDNNLSTM(2)(x), L.CuDNNGRU(2)(x)])
    want = EXPECTED["cudnn"]
    assert [w.name for w in model.weights] == want["weight_names"]
    assert [w.shape.as_list() for w in model.weights] == want["weight_shapes"]
    assert [layer.get_config() for layer in model.layers[1:]] == want["configs"]

    K.backend.clear_session()
    x = K.Input((4, 3))
    model = K.Model(x, [L.CuDNNLSTM(3, return_sequences=True)(x), L.CuDNNGRU(3, go_backwards=True)(x)])
    with tf.Graph().as_default():
        reference = fixture.build(tf, "cudnn_like")     # the same weights as TF's LSTM / GRU had
    lstm_k, lstm_r, lstm_b, gru_k, gru_r, gru_b = fixture.init_weights(reference)
    half = np.linspace(-0.3, 0.3, 12).astype(np.float32)   # any split of the LSTM's bias in two
    model.set_weights([lstm_k, lstm_r, np.concatenate([lstm_b - half, half]), gru_k, gru_r, gru_b.reshape(-1)])
    _close(model.predict(fixture.data("cudnn_like")[0]), EXPECTED["cudnn_like"]["predict"])


@pytest.mark.slow
def test_configs_json_and_tf_h5_round_trip(tmp_path):
    K.backend.clear_session()
    model = fixture.build(tf, "mask_bidirectional")
    configs = {layer.name: layer.get_config() for layer in model.layers}
    assert configs == EXPECTED["configs"]
    text = model.to_json()
    K.backend.clear_session()
    rebuilt = K.models.model_from_json(text)
    assert {layer.name: layer.get_config() for layer in rebuilt.layers} == configs
    pytest.importorskip("h5py", reason="Keras .h5 files need h5py (the [keras] extra)")
    K.backend.clear_session()
    loaded = K.models.load_model(os.path.join(FIXTURES, "tf_bilstm.h5"))    # written by TF 1.15
    _close(loaded.predict(fixture.data("mask_bidirectional")[0]), EXPECTED["mask_bidirectional"]["predict"])
    path = str(tmp_path / "m.h5")
    loaded.save(path)
    K.backend.clear_session()
    again = K.models.load_model(path)
    assert [w.name for w in again.weights] == EXPECTED["mask_bidirectional"]["weight_names"]


@pytest.mark.slow
def test_dropout_only_in_training():
    """dropout / recurrent_dropout: none at inference (static or by the learning phase), masks in training."""
    K.backend.clear_session()
    x = K.Input((2, 3))
    plain = L.GRU(3, return_sequences=True)
    dropped = L.GRU(3, dropout=0.5, recurrent_dropout=0.5, return_sequences=True)
    a, b_test, b_phase = plain(x), dropped(x, training=False), dropped(x)
    weights = [np.random.RandomState(1).uniform(-0.5, 0.5, w.shape.as_list()).astype(np.float32)
               for w in plain.weights]
    plain.set_weights(weights)
    dropped.set_weights(weights)
    data = np.random.RandomState(0).rand(5, 2, 3).astype(np.float32)
    got_a, got_test, got_train = K.backend.get_session().run([a, b_test, b_phase],
                                                              {x: data, K.backend.learning_phase(): True})
    np.testing.assert_allclose(got_test, got_a, rtol=1e-6)
    assert not np.allclose(got_train, got_a)
    config = dropped.get_config()
    assert (config["dropout"], config["recurrent_dropout"]) == (0.5, 0.5)


def test_lstm_on_a_placeholder_under_session_run():
    """Keras layers in graph code: an LSTM on a tf.placeholder, its variables initialized and loaded
    through a plain Session."""
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 4, 3])
    layer = L.LSTM(3, recurrent_activation="sigmoid", return_sequences=True)
    y = layer(x)
    assert [w.name for w in layer.weights] == ["lstm/kernel:0", "lstm/recurrent_kernel:0", "lstm/bias:0"]
    weights = fixture.init_weights(fixture.build(tf, "cudnn_like"))[:3]
    with tf.Session(graph=y.graph) as sess:
        for v, w in zip(layer.weights, weights):   # loading initializes them
            v.load(w, sess)
        out = sess.run(y, {x: fixture.data("cudnn_like")[0]})
    _close([out], EXPECTED["cudnn_like"]["predict"][:1])


def test_errors_name_the_layer():
    K.backend.clear_session()
    with pytest.raises(ValueError, match="stateful, it needs to know its batch size"):
        L.LSTM(2, stateful=True)(K.Input((3, 2)))
    with pytest.raises(ValueError, match="Invalid merge mode"):
        L.Bidirectional(L.LSTM(2), merge_mode="max")
    with pytest.raises(ValueError, match="`Layer` instance"):
        L.TimeDistributed("dense")
    with pytest.raises(ValueError, match="expected ndim=3"):
        L.GRU(2)(K.Input((3,)))
    with pytest.raises(AttributeError, match="Layer must be stateful"):
        L.LSTM(2).reset_states()
