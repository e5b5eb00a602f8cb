"""tf.contrib.opt's LARSOptimizer, AdamWOptimizer and MomentumWOptimizer: three steps against TF 1.15's
recorded variables and slot names (tests/fixtures/contrib_opt/make_fixture.py)."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "contrib_opt", "contrib_opt.json")) as f:
    TF = json.load(f)
W0 = np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)
B0 = np.array([0.1, -0.2], np.float32)
X = np.array([[1.0, 2.0], [-0.5, 1.5], [3.0, -1.0]], np.float32)
CASES = {
    "lars": lambda: tf.contrib.opt.LARSOptimizer(0.5, momentum=0.9, weight_decay=0.01, eeta=0.1),
    "lars_nesterov_skip": lambda: tf.contrib.opt.LARSOptimizer(0.5, momentum=0.8, weight_decay=0.001, eeta=0.01,
                                                               epsilon=1e-3, skip_list=["b"], use_nesterov=True),
}
DECOUPLED = {
    "adamw": (lambda: tf.contrib.opt.AdamWOptimizer(0.01, learning_rate=0.1), 0.01,
              lambda: tf.train.AdamOptimizer(0.1)),
    "momentumw": (lambda: tf.contrib.opt.MomentumWOptimizer(0.02, learning_rate=0.1, momentum=0.9), 0.02,
                  lambda: tf.train.MomentumOptimizer(0.1, 0.9)),
}


def _variables():
    w, b = tf.Variable(W0, name="w"), tf.Variable(B0, name="b")
    return w, b, tf.reduce_sum(tf.square(tf.tanh(tf.matmul(tf.constant(X), w) + b) - 0.3))


def _three_steps(make):
    with tf.Graph().as_default():
        w, b, loss = _variables()
        step = make().minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(step)
            wv, bv = sess.run([w, b])
        slots = sorted(v.op.name for v in tf.global_variables() if v.op.name not in ("w", "b"))
    return wv, bv, slots


@pytest.mark.parametrize("name", sorted(CASES))
def test_lars_matches_tf(name):
    wv, bv, slots = _three_steps(CASES[name])
    assert slots == TF[name]["slots"]
    np.testing.assert_allclose(wv, TF[name]["w"], rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(bv, TF[name]["b"], rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(DECOUPLED))
def test_decoupled_weight_decay(name):
    """AdamW / MomentumW = the gradient at var, var -= wd * var, then the plain optimizer's update with that
    gradient (checked against tf.train's optimizer fed the gradients). TF 1.15's own numbers differ (AdamW by
    3e-4, MomentumW by 8e-3 after three steps): its decay op has no dependency on the forward pass, so TF's
    executor can let forward reads see the decayed variable (a race: a run with the decay first matches some
    of TF's AdamW entries to 1e-6 and not others). AdamW stays within 1e-3 of TF."""
    make, wd, plain = DECOUPLED[name]
    wv, bv, slots = _three_steps(make)
    assert slots == TF[name]["slots"]
    with tf.Graph().as_default():
        w, b, loss = _variables()
        grads = tf.gradients(loss, [w, b])
        feeds = [tf.placeholder(tf.float32, g.shape) for g in grads]
        apply = plain().apply_gradients(list(zip(feeds, [w, b])))
        decay = tf.group(tf.assign_sub(w, wd * w), tf.assign_sub(b, wd * b))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                g = sess.run(grads)
                sess.run(decay)
                sess.run(apply, dict(zip(feeds, g)))
            want_w, want_b = sess.run([w, b])
    np.testing.assert_allclose(wv, want_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bv, want_b, rtol=1e-5, atol=1e-6)
    if name == "adamw":
        np.testing.assert_allclose(wv, TF[name]["w"], atol=1e-3)
        np.testing.assert_allclose(bv, TF[name]["b"], atol=1e-3)


def test_decoupled_weight_decay_of_a_sparse_gradient():
    """An IndexedSlices gradient (TF's DecoupledWeightDecayExtension._apply_sparse): the indexed rows decay
    (a repeated index once), then the base optimizer's sparse update; the other rows keep their values."""
    w0 = np.arange(8, dtype=np.float32).reshape(4, 2)
    w = tf.Variable(w0)
    opt = tf.contrib.opt.MomentumWOptimizer(0.1, 0.5, 0.9)
    step = opt.apply_gradients([(tf.IndexedSlices(tf.ones([3, 2]), tf.constant([2, 0, 2])), w)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(step)
        got = sess.run(w)
    want = w0.copy()
    want[[0, 2]] *= 0.9
    want[0] -= 0.5 * 1
    want[2] -= 0.5 * 2
    np.testing.assert_allclose(got, want, rtol=1e-6)
