"""tf.keras.experimental's LinearModel, WideDeepModel (fit with one optimizer per part), PeepholeLSTMCell and
tf.keras.layers.ConvLSTM2D against TF 1.15: tests/fixtures/keras_experimental/make_keras_experimental.py's
`record` run with tinyflow gives TF's recording (weight names and order, outputs with the same weights, configs)."""
import os

import numpy as np
import pytest

import recorded_cases
import tinyflow as tf

HERE = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "keras_experimental")


def _close(got, want, path="value"):
    if isinstance(want, dict):
        assert sorted(got) == sorted(want), path
        for k in want:
            _close(got[k], want[k], path + "." + k)
    elif isinstance(want, list) and want and isinstance(want[0], (list, str)) and not isinstance(want[0], float):
        assert len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want)):
            _close(g, w, "%s[%d]" % (path, i))
    elif isinstance(want, (str, bool)) or want is None:
        assert got == want, path
    else:
        np.testing.assert_allclose(np.array(got, np.float64), np.array(want, np.float64), rtol=1e-5, atol=1e-6,
                                   err_msg=path)


@pytest.mark.slow   # (~2 s of CPU: nine layers and a fit step compiled)
def test_premade_models_peephole_and_conv_lstm_match_tf():
    maker, want = recorded_cases.maker(HERE, "keras_experimental")
    tf.keras.backend.clear_session()
    try:
        got = maker.record(tf)
    finally:
        tf.keras.backend.clear_session()
    _close(got, want)


def test_conv_lstm_says_what_it_lacks():
    with pytest.raises(NotImplementedError, match="stateful"):
        tf.keras.layers.ConvLSTM2D(2, 3, stateful=True)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="expected ndim=5"):
            tf.keras.layers.ConvLSTM2D(2, 3)(tf.zeros([2, 3, 4, 1]))


def test_sequence_features_match_tf():
    """SequenceFeatures of embedding / indicator columns over sequence ids and of a numeric sequence:
    tests/fixtures/keras_experimental/make_sequence_features.py's `record` (TF given SparseTensors, tinyflow
    the same steps dense with -1 for a missing id)."""
    maker, want = recorded_cases.maker(HERE, "sequence_features")
    got = maker.record(tf, sparse=False)
    assert got["weights"] == want["weights"] and got["lengths"] == want["lengths"] and got["depth"] == want["depth"]
    for g, w in zip(got["values"], want["values"]):
        np.testing.assert_allclose(g, w, rtol=1e-6)
