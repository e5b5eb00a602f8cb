"""TF 1.15's keras.backend / metrics / losses names against its recorded values (tests/fixtures/keras_names):
each case set is one graph run in one session.run."""
import os
import sys

import numpy as np
import pytest

import tinyflow as tf

HERE = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "keras_names")
sys.path.insert(0, HERE)
import keras_cases as cases  # noqa: E402

VALUES = np.load(os.path.join(HERE, "values.npz"))


def _run(fn_name):
    tf.reset_default_graph()
    tensors = getattr(cases, fn_name)(tf)
    with tf.Session() as sess:
        if hasattr(cases, fn_name + "_run"):
            return getattr(cases, fn_name + "_run")(tf, sess, tensors)
        sess.run(tf.global_variables_initializer())
        sess.run(tf.local_variables_initializer())
        return sess.run(tensors)


@pytest.mark.parametrize("fn_name", [pytest.param(n, marks=pytest.mark.slow) if n in cases.SLOW else n
                                     for n in cases.RECORDED])
def test_against_tf115(fn_name):
    got = _run(fn_name)
    want = {k.split("/", 1)[1]: VALUES[k] for k in VALUES.files if k.startswith(fn_name + "/")}
    assert sorted(got) == sorted(want)
    bad = []
    for k in sorted(want):
        g, w = np.asarray(got[k]), want[k]
        if g.shape != w.shape or g.dtype != w.dtype and not (g.dtype.kind == w.dtype.kind == "f") or \
                not np.allclose(g.astype(np.float64) if g.dtype.kind != "b" else g,
                                w.astype(np.float64) if w.dtype.kind != "b" else w, rtol=2e-5, atol=2e-5):
            bad.append("%s: got %s %s, want %s %s" % (k, g.dtype, g.shape, w.dtype, w.shape))
    assert not bad, "\n".join(bad)


def test_stateful_metrics_in_compile_log_the_whole_epoch():
    """AUC / Precision in compile(metrics=...): evaluate over 3 batches gives the value over all the data at
    once (not a mean of per-batch values), and a second evaluate starts again from zero."""
    tf.keras.backend.clear_session()
    rs = np.random.RandomState(3)
    x = rs.randn(40, 3).astype("float32")
    y = (x[:, :1] + 0.8 * rs.randn(40, 1) > 0).astype("float32")
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, activation="sigmoid", input_shape=(3,))])
    model.compile("sgd", "binary_crossentropy", metrics=[tf.keras.metrics.AUC(), tf.keras.metrics.Precision(),
                                                         "accuracy"])
    assert model.metrics_names == ["loss", "auc", "precision", "acc"]
    first = model.evaluate(x, y, batch_size=16, verbose=0)
    again = model.evaluate(x, y, batch_size=16, verbose=0)
    probs = model.predict(x)
    auc, prec = tf.keras.metrics.AUC(name="whole"), tf.keras.metrics.Precision(name="whole_p")
    values = [auc(y, probs), prec(y, probs)]
    sess = tf.keras.backend.get_session()
    sess.run([v.initializer for v in auc.variables + prec.variables])
    want = sess.run(values)
    np.testing.assert_allclose(first[1:3], want, rtol=1e-6)
    np.testing.assert_allclose(again, first, rtol=1e-6)
    history = model.fit(x, y, batch_size=16, epochs=2, verbose=0)
    assert 0.0 <= history.history["auc"][-1] <= 1.0
