"""tf.RegisterGradient + Graph.gradient_override_map (gradient reversal, straight-through estimators),
tf.NotDifferentiable and graph-mode tf.custom_gradient, against TF 1.15's numbers
(tests/fixtures/custom_gradient/record.py wrote tf115.json)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tinyflow as tf
from paths import TESTS

TF = json.load(open(os.path.join(TESTS, "fixtures", "custom_gradient", "tf115.json")))
X0 = np.array([-1.5, -0.2, 0.0, 0.3, 2.0], np.float32)


def test_override_map_and_registered_gradient_match_tf():
    g = tf.Graph()
    with g.as_default():
        @tf.RegisterGradient("FlipGradientTest")
        def _flip(op, grad):
            return tf.negative(grad) * 0.5   # one tensor for a one-input op, as TF allows
        x = tf.constant(X0)
        with g.gradient_override_map({"Identity": "FlipGradientTest", "Sign": "Identity"}):
            y = tf.identity(x * x)
            s = tf.sign(x)
        w = tf.constant([1., 2., 3., 4., 5.])
        gx = tf.gradients(tf.reduce_sum(y * w) + tf.reduce_sum(s * w * x), x)[0]
        nodes = {n.name: n for n in g.as_graph_def().node}
        assert [nodes[k].attr["_gradient_op_type"].s.decode() for k in ("Identity", "Sign")] == [
            "FlipGradientTest", "Identity"] and TF["attr"] == ["FlipGradient115", "Identity"]
        assert "_gradient_op_type" not in nodes["mul"].attr   # only the mapped types, only inside the block
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(gx), TF["gx"], rtol=1e-6)
        with pytest.raises(KeyError, match="Registering two gradient with name 'FlipGradientTest'!"):
            tf.RegisterGradient("FlipGradientTest")(_flip)
        with pytest.raises(KeyError, match="Registering two gradient with name 'Identity'!"):
            tf.RegisterGradient("Identity")(_flip)


def test_not_differentiable_and_unknown_override():
    g = tf.Graph()
    with g.as_default():
        tf.NotDifferentiable("NoGradTest")
        x = tf.constant([1., 2.])
        with g.gradient_override_map({"Square": "NoGradTest"}):
            y = tf.square(x)
        with tf.Session() as sess:   # only the direct path remains
            np.testing.assert_allclose(sess.run(tf.gradients(y + x, x)[0]), [1., 1.])
        with g.gradient_override_map({"Exp": "NoSuchGradient"}):
            z = tf.exp(x)
        with pytest.raises(LookupError, match="gradient registry has no entry for: NoSuchGradient"):
            tf.gradients(z, x)
        with pytest.raises(TypeError):
            with g.gradient_override_map({"Exp": 3}):
                pass


def test_custom_gradient_in_graph_mode_matches_tf():
    g = tf.Graph()
    with g.as_default():
        @tf.custom_gradient
        def log1pexp(v):
            e = tf.exp(v)

            def grad(dy):
                return dy * (1 - 1 / (1 + e))
            return tf.log(1 + e), grad
        a = tf.constant([0., 10., 100.])
        la = log1pexp(a)
        ga = tf.gradients(la, a)[0]

        @tf.custom_gradient
        def clip_mul(p, q):
            def grad(dy):
                return tf.clip_by_value(dy * q, -1., 1.), dy * p * 2.0
            return p * q, grad
        p, q = tf.constant([1., -3., 0.5]), tf.constant([4., 0.1, -2.])
        r = clip_mul(p, q)
        gp, gq = tf.gradients(tf.reduce_sum(r * r), [p, q])

        with tf.variable_scope("cg", use_resource=True):
            v = tf.get_variable("v", initializer=tf.constant([1., 2.]))

        @tf.custom_gradient
        def scaled(z):
            def grad(dy, variables=None):
                assert [u.op.name for u in variables] == ["cg/v"]
                return dy * 3.0, [dy * 10.0 * z]
            return z * v, grad
        z = tf.constant([0.5, -1.])
        sv = scaled(z)
        gz, gv = tf.gradients(tf.reduce_sum(sv), [z, v])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run({"la": la, "ga": ga, "r": r, "gp": gp, "gq": gq, "sv": sv, "gz": gz, "gv": gv})
    for k, val in got.items():
        np.testing.assert_allclose(val, TF[k], rtol=1e-6, err_msg=k)


def test_custom_gradient_still_works_eagerly():
    code = ("import tinyflow as tf\ntf.enable_eager_execution()\n"
            "@tf.custom_gradient\ndef f(x):\n    return x * x, lambda dy: dy * 7.0\n"
            "x = tf.constant(3.0)\nwith tf.GradientTape() as t:\n    t.watch(x)\n    y = f(x)\n"
            "print('G', float(t.gradient(y, x)), float(y))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "G 7.0 9.0" in out.stdout, out.stderr[-1500:]
