"""tf.contrib.layers.optimize_loss and layer_norm give TF 1.15's losses, weights, variable names and
summaries (tests/fixtures/contrib/optimize_loss.json, written by make_optimize_loss.py)."""
import json
import os
import sys

import numpy as np
import pytest

import tinyflow as tf

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "contrib")
sys.path.insert(0, HERE)
import optimize_cases  # noqa: E402

with open(os.path.join(HERE, "optimize_loss.json")) as _f:
    TF = json.load(_f)


@pytest.mark.parametrize("name", sorted(optimize_cases.CASES))
def test_optimize_loss_matches_tf(name):
    got = optimize_cases.run_one(tf, name)
    want = TF[name]
    assert got["variables"] == want["variables"] and got["summaries"] == want["summaries"]
    assert got["step"] == want["step"]
    np.testing.assert_allclose(got["losses"], want["losses"], rtol=2e-5)
    np.testing.assert_allclose(got["w"], want["w"], rtol=2e-5, atol=1e-6)


def test_bad_arguments_are_tf_s():
    tf.reset_default_graph()
    loss = tf.reduce_sum(tf.get_variable("v", [2]))
    gs = tf.train.get_or_create_global_step()
    with pytest.raises(ValueError, match="Optimizer name should be one of"):
        tf.contrib.layers.optimize_loss(loss, gs, 0.1, "Nope")
    with pytest.raises(ValueError, match="Learning rate is None"):
        tf.contrib.layers.optimize_loss(loss, gs, None, "SGD")
    with pytest.raises(ValueError, match="Summaries should be one of"):
        tf.contrib.layers.optimize_loss(loss, gs, 0.1, "SGD", summaries=["weights"])
    with pytest.raises(ValueError, match="must be < rank"):
        tf.contrib.layers.layer_norm(tf.zeros([2, 3]), begin_norm_axis=2)
