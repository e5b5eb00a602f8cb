"""tf.keras.mixed_precision.experimental against TF 1.15 (tests/fixtures/mixed_precision/make_mixed_precision.py's
`record` run with tinyflow): policies and their errors exactly; a mixed_float16 model's dtypes exactly and its
float16 values within float16 rounding (TF 1.15's CPU kernel accumulates a float16 matmul in float16, XLA in
float32: a unit in the last place of float16 apart), and two fit steps under a LossScaleOptimizer."""
import os

import numpy as np

import recorded_cases
import tinyflow as tf

HERE = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "mixed_precision")


def test_policies_layers_and_loss_scale_optimizer_as_tf():
    maker, want = recorded_cases.maker(HERE, "mixed_precision")
    tf.keras.backend.clear_session()
    try:
        got = maker.record(tf)
    finally:
        tf.keras.backend.clear_session()
    for key in ("policies", "errors", "global", "dtypes", "loss_scale", "dynamic"):
        assert got[key] == want[key], key
    np.testing.assert_allclose(got["predict"], want["predict"], atol=5e-4)   # (float16 units: 2.4e-4 near 0.4)
    for g, w in zip(got["fit"], want["fit"]):
        np.testing.assert_allclose(g, w, atol=1e-4)


def test_dynamic_loss_scale_skips_a_non_finite_step():
    """A step whose scaled gradients overflow changes no weight nor iteration and halves the scale."""
    mp = tf.keras.mixed_precision.experimental
    with tf.Graph().as_default():
        w = tf.Variable([1.0, 2.0])
        opt = mp.LossScaleOptimizer(tf.keras.optimizers.SGD(0.5), mp.Policy("mixed_float16").loss_scale)
        scale = tf.placeholder(tf.float32, [])
        updates = opt.get_updates(tf.reduce_sum(w * scale), [w])
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(updates, {scale: 1.0})
            after_good = s.run([w, opt.iterations, opt.loss_scale()])
            s.run(updates, {scale: np.inf})
            after_bad = s.run([w, opt.iterations, opt.loss_scale()])
    np.testing.assert_allclose(after_good[0], [0.5, 1.5])
    assert after_good[1] == 1 and after_good[2] == 32768.0
    np.testing.assert_allclose(after_bad[0], [0.5, 1.5])
    assert after_bad[1] == 1 and after_bad[2] == 16384.0
