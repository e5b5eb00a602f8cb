"""tf.train.experimental's loss scaling and enable_mixed_precision_graph_rewrite, and tf.train.ProfilerHook,
against TF 1.15's numbers (tests/fixtures/train/mixed_precision.json, written by make_mixed_precision.py)."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "train", "mixed_precision.json")) as _f:
    TF = json.load(_f)
X, Y = np.array(TF["X"], np.float32), np.array(TF["Y"], np.float32)


def _train(mp, adam, inf_step=None):
    with tf.Graph().as_default():
        w = tf.get_variable("w", [3, 1], initializer=tf.constant_initializer(0.1))
        bad = tf.placeholder_with_default(1.0, [])
        loss = tf.reduce_mean(tf.square(tf.matmul(X, w) - Y)) * bad
        opt = tf.train.AdamOptimizer(0.1) if adam else tf.train.GradientDescentOptimizer(0.1)
        if mp:
            opt = tf.train.experimental.enable_mixed_precision_graph_rewrite(opt)
            assert isinstance(opt, tf.train.experimental.MixedPrecisionLossScaleOptimizer)
        gs = tf.train.get_or_create_global_step()
        step = opt.minimize(loss, global_step=gs)
        names = sorted(v.name for v in tf.global_variables())
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for i in range(4):
                s.run(step, {bad: np.inf} if i == inf_step else {})
            out = {"w": s.run(w).ravel().tolist(), "global_step": int(s.run(gs)), "variables": names}
            if mp:
                out["scale"] = float(s.run(opt._loss_scale()))
                tf.train.experimental.disable_mixed_precision_graph_rewrite()
        return out


@pytest.mark.parametrize("opt", ["sgd", "adam"])
@pytest.mark.parametrize("case", ["fp32", "mixed", "mixed_inf_at_1"])
def test_loss_scaled_training_matches_tf(opt, case):
    got, want = _train(case != "fp32", opt == "adam", 1 if case.endswith("inf_at_1") else None), TF[opt + "_" + case]
    np.testing.assert_allclose(got["w"], want["w"], rtol=1e-5, atol=1e-6)
    assert got["global_step"] == want["global_step"]
    assert got.get("scale") == want.get("scale")
    # TF makes Adam's beta powers inside its apply tf.cond (cond_1/beta1_power); tinyflow's keep their plain names
    assert got["variables"] == sorted(n.replace("cond_1/", "") for n in want["variables"])


def test_dynamic_loss_scale_updates_as_tf():
    with tf.Graph().as_default():
        ls = tf.train.experimental.DynamicLossScale(initial_loss_scale=8, increment_period=2, multiplier=2.)
        assert ls.get_config() == {"initial_loss_scale": 8.0, "increment_period": 2, "multiplier": 2.0}
        g = tf.placeholder(tf.float32, [2])
        upd, ok = ls.update([g])
        got = []
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for v in TF["dynamic_grads"]:
                r = s.run([ok, upd], {g: v})
                got.append([bool(r[0]), float(s.run(ls()))])
        assert got == TF["dynamic"]
        fixed = tf.train.experimental.FixedLossScale(128)
        assert fixed.get_config() == {"loss_scale_value": 128.0}
        with pytest.raises(ValueError, match="already be an instance"):
            tf.train.experimental.enable_mixed_precision_graph_rewrite(
                tf.train.experimental.MixedPrecisionLossScaleOptimizer(tf.train.GradientDescentOptimizer(0.1), 4))


def test_profiler_hook_writes_chrome_traces_at_tfs_steps(tmp_path):
    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        inc = tf.assign_add(gs, 1)
        hook = tf.train.ProfilerHook(save_steps=2, output_dir=str(tmp_path))
        with tf.train.MonitoredTrainingSession(hooks=[hook]) as s:
            for _ in range(5):
                s.run(inc)
    files = sorted(f for f in os.listdir(tmp_path) if f.startswith("timeline"))
    assert files == TF["profiler_files"]
    with open(tmp_path / files[0]) as f:
        trace = json.load(f)
    step = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(step) == 1 and step[0]["args"]["global_step"] == 2 and step[0]["dur"] >= 1
    assert inc.name in step[0]["args"]["fetches"]
    with pytest.raises(ValueError, match="every_secs or every_steps"):
        tf.train.ProfilerHook()
