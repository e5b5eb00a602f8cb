"""tf.estimator against TF 1.15: the scenarios of tests/fixtures/estimator/scenarios.py run on tinyflow
must give the metrics, variables and predictions TF 1.15 gave (estimator.json, written by make.py)."""
import json
import os
from paths import TESTS as _TESTS  # the tests/ folder
import sys

import numpy as np
import pytest

import tinyflow as tf

HERE = os.path.join(_TESTS, "fixtures", "estimator")
sys.path.insert(0, HERE)
import scenarios  # noqa: E402

pytestmark = pytest.mark.slow  # every test here takes over a second (the fast subset: -m "not slow")


with open(os.path.join(HERE, "estimator.json")) as f:
    EXPECTED = json.load(f)


def write_warm_start(values):
    """A tinyflow checkpoint holding `values`, written with tf.train.Saver (as make.py does with TF's)."""
    import tempfile
    d = tempfile.mkdtemp()
    with tf.Graph().as_default():
        variables = {k: tf.Variable(v, name="v%d" % i) for i, (k, v) in enumerate(values.items())}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return tf.train.Saver(variables).save(sess, os.path.join(d, "init.ckpt"))


def _close(got, want, what, rtol=2e-4, atol=2e-5):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=rtol, atol=atol,
                               err_msg=what)


@pytest.mark.parametrize("name", sorted(scenarios.SCENARIOS))
def test_same_as_tf(name, tmp_path):
    got = scenarios.SCENARIOS[name](tf, str(tmp_path), write_warm_start)
    want = EXPECTED[name]
    assert sorted(got["metrics"]) == sorted(want["metrics"])
    for key, value in want["metrics"].items():
        # an AUC counts predictions above 200 fixed thresholds: float noise in a prediction lying near
        # one moves its example to the next bucket (test_auc_values checks AUC exactly on fixed inputs)
        atol = 1e-3 if key.startswith("auc") else 2e-5
        _close(got["metrics"][key], value, "%s: metric %s" % (name, key), atol=atol)
    assert sorted(got["variables"]) == sorted(want["variables"])
    for key, value in want["variables"].items():
        _close(got["variables"][key], value, "%s: variable %s" % (name, key))
    for g, w in zip(got.get("predictions", []), want.get("predictions", [])):
        assert sorted(g) == sorted(w)
        for key in w:
            _close(g[key], w[key], "%s: prediction %s" % (name, key))
    if "first" in want:
        for key, value in want["first"].items():
            _close(got["first"][key], value, "%s: first evaluation %s" % (name, key))


def test_auc_values():
    from tinyflow.api.metrics import auc
    _close(scenarios.auc_values(tf, auc), EXPECTED["auc_values"], "auc", rtol=1e-6, atol=1e-7)
