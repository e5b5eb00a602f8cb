"""tf.keras.callbacks.TensorBoard writes the event file TF 1.15's graph-mode callback writes: the same
events (graph, histograms, epoch/batch scalars), tags, steps and values (tests/fixtures/keras_tensorboard,
recorded by make_fixture.py with TF 1.15)."""
import glob
import json
import os

import numpy as np
import pytest

import tinyflow as tf

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "keras_tensorboard", "tensorboard.json")
with open(FIXTURE) as f:
    TF = json.load(f)


def _data():
    x = np.linspace(-1, 1, 40).reshape(20, 2).astype("float32")
    return x, (x[:, :1] * 0.7 - x[:, 1:] * 0.2 > 0).astype("float32")


def _model():
    c = tf.keras.initializers.Constant
    m = tf.keras.Sequential([
        tf.keras.layers.Dense(3, activation="relu", input_shape=(2,), kernel_initializer=c(0.3),
                              bias_initializer=c(0.1), name="d1"),
        tf.keras.layers.Dense(1, activation="sigmoid", kernel_initializer=c(-0.2), name="d2")])
    m.compile(tf.keras.optimizers.SGD(0.5), "binary_crossentropy", metrics=["accuracy"])
    return m


def _events(logdir):
    files = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    assert len(files) == 1, files
    out = []
    for e in tf.train.summary_iterator(files[0]):
        what = e.WhichOneof("what")
        if what != "summary":
            out.append([what, e.step])
            continue
        for v in e.summary.value:
            if v.HasField("simple_value"):
                out.append(["scalar", e.step, v.tag, v.simple_value])
            else:
                h = v.histo
                out.append(["histo", e.step, v.tag, h.min, h.max, h.num, h.sum, h.sum_squares])
    return out


@pytest.mark.parametrize("case", sorted(TF))
def test_tensorboard_events_match_tf(case, tmp_path):
    tf.keras.backend.clear_session()
    x, y = _data()
    expected = TF[case]
    history = _model().fit(x, y, batch_size=8, epochs=3, validation_data=(x[:6], y[:6]), shuffle=False, verbose=0,
                           callbacks=[tf.keras.callbacks.TensorBoard(log_dir=str(tmp_path), **expected["kwargs"])])
    for k, v in expected["history"].items():
        np.testing.assert_allclose(history.history[k], v, rtol=1e-5, atol=1e-6)
    got = _events(str(tmp_path))
    assert [e[:3] for e in got] == [e[:3] for e in expected["events"]]
    for g, e in zip(got, expected["events"]):
        np.testing.assert_allclose(g[3:], e[3:], rtol=1e-5, atol=1e-6, err_msg=str(e[:3]))


def test_tensorboard_bad_update_freq():
    with pytest.raises(ValueError, match="update_freq"):
        tf.keras.callbacks.TensorBoard(update_freq="often")
