"""tf.metrics (the thresholds, top-k and mean metrics) against TF 1.15.s recorded values (tests/fixtures/metrics_v1):
each case set is one graph run in one session.run."""
import os
import sys

import numpy as np
import pytest

import tinyflow as tf

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "metrics_v1")
sys.path.insert(0, HERE)
import metrics_v1_cases as cases  # noqa: E402

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


