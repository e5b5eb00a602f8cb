"""tf.keras models trained from fixed weights give TF 1.15's history, weight names, evaluate and
predict values (tests/fixtures/keras/keras_fit.json, written by make_keras_fixture.py)."""
import importlib.util
import json
import os

import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.slow   # 16 models trained against TF 1.15's numbers

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "keras")
_spec = importlib.util.spec_from_file_location("make_keras_fixture", os.path.join(FIXTURES, "make_keras_fixture.py"))
fixture = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fixture)
with open(os.path.join(FIXTURES, "keras_fit.json")) as f:
    EXPECTED = json.load(f)


@pytest.mark.parametrize("case", sorted(fixture.OPTIMIZERS))
def test_fit_matches_tf115(case):
    tf.keras.backend.clear_session()
    got, want = fixture.run(tf, case), EXPECTED[case]
    assert got["weight_names"] == want["weight_names"]
    assert got["metrics_names"] == want["metrics_names"]
    assert got["optimizer_weight_names"] == want["optimizer_weight_names"]   # training/Adam/dense/kernel/m:0
    assert sorted(got["history"]) == sorted(want["history"])
    for k in want["history"]:
        np.testing.assert_allclose(got["history"][k], want["history"][k], rtol=2e-5, atol=2e-6, err_msg=k)
    if case == "multi_output":   # one array per output
        for g, w in zip(got["predict"], want["predict"]):
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6)
    else:
        np.testing.assert_allclose(got["predict"], want["predict"], rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(got["evaluate"], want["evaluate"], rtol=2e-5, atol=2e-6)
