"""Registry-driven tests: every op has its rules, agrees with numpy, declares the dtype and shape
its lowering produces, and (when differentiable) has a gradient that matches finite differences."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.graph.registry import NOT_SET, registered_ops

from opspecs import EXEMPT, all_specs

SPECS = all_specs()
NO_LOWER = {"Placeholder", "VariableV2", "NoOp"}


def test_every_op_has_every_rule():
    for name, opdef in registered_ops().items():
        assert callable(opdef.shape), name
        assert callable(opdef.dtype), name
        assert opdef.grad is not NOT_SET, "%s: say grad=None if it is not differentiable" % name
        if name not in NO_LOWER and opdef.host is None:
            assert callable(opdef.lower), name


def _build(spec, dtype_override=None):
    g = tf.Graph()
    with g.as_default():
        phs = []
        for i, a in enumerate(spec.inputs):
            a = np.asarray(a)
            if dtype_override is not None and a.dtype.kind == "f":
                a = a.astype(dtype_override)
            shape = a.shape if spec.static_shape else [None] * a.ndim
            phs.append(tf.placeholder(tf.as_dtype(a.dtype), shape, name="in%d" % i))
        out = spec.build(tf, *phs)
    return g, phs, out


def _feeds(spec, phs, dtype_override=None):
    feed = {}
    for p, a in zip(phs, spec.inputs):
        a = np.asarray(a)
        feed[p] = a.astype(dtype_override) if dtype_override is not None and a.dtype.kind == "f" else a
    return feed


@pytest.mark.parametrize("spec", SPECS, ids=repr)
def test_value_dtype_and_shape(spec):
    g, phs, out = _build(spec)
    outs = out if isinstance(out, (list, tuple)) else [out]
    with tf.Session(graph=g) as sess:
        got = sess.run(list(outs), _feeds(spec, phs))
    for t, v in zip(outs, got):
        v = np.asarray(v)
        assert v.dtype == t.dtype.as_numpy_dtype, "%s: declared %s, lowering gave %s" % (t.name, t.dtype, v.dtype)
        assert t.shape.is_compatible_with(v.shape), "%s: declared %s, lowering gave %s" % (t.name, t.shape, v.shape)
    if spec.numpy is not None:
        want = spec.numpy(*[np.asarray(a) for a in spec.inputs])
        wants = want if isinstance(out, (list, tuple)) else [want]
        for v, w in zip(got, wants):
            np.testing.assert_allclose(np.asarray(v, dtype=np.float64) if np.asarray(v).dtype.kind != "b" else v,
                                       w, rtol=spec.rtol, atol=spec.atol)


def _fd_check(sess, y, xs, feed, eps=1e-6, rtol=1e-4, atol=1e-6):
    """Compares tf.gradients(sum(w * y), xs) with central differences of the same scalar."""
    rng = np.random.RandomState(0)
    yv = np.asarray(sess.run(y, feed))
    w = rng.uniform(0.5, 1.5, size=yv.shape)
    loss = tf.reduce_sum(y * tf.constant(w, dtype=y.dtype))
    grads = tf.gradients(loss, xs)
    for x, gsym in zip(xs, grads):
        x0 = np.array(feed[x], dtype=np.float64)
        num = np.zeros_like(x0)
        it = np.nditer(x0, flags=["multi_index"])
        for _ in it:
            i = it.multi_index
            for sgn in (1, -1):
                xp = x0.copy()
                xp[i] += sgn * eps
                num[i] += sgn * sess.run(loss, {**feed, x: xp}) / (2 * eps)
        if gsym is None:
            np.testing.assert_allclose(num, 0, atol=atol, err_msg="gradient is None but finite differences are not 0")
            continue
        sym = np.asarray(sess.run(gsym, feed))
        assert sym.shape == x0.shape
        np.testing.assert_allclose(sym, num, rtol=rtol, atol=max(atol, 1e-5 * np.abs(num).max()))
    return grads


@pytest.mark.parametrize("spec", [s for s in SPECS if s.grad], ids=repr)
def test_gradient_matches_finite_differences(spec):
    g, phs, out = _build(spec, np.float64)
    y = out[0] if isinstance(out, (list, tuple)) else out
    idx = spec.grad_inputs if spec.grad_inputs is not None else [
        i for i, a in enumerate(spec.inputs) if np.asarray(a).dtype.kind == "f"]
    xs = [phs[i] for i in idx]
    with g.as_default(), tf.Session(graph=g) as sess:
        feed = _feeds(spec, phs, np.float64)
        grads = _fd_check(sess, y, xs, feed)
        if spec.second_order:
            for x, gx in zip(xs, grads):
                _fd_check(sess, gx, [x], feed, eps=1e-5, rtol=1e-3)


def test_every_registered_op_is_exercised():
    """A registered op type that appears in no spec graph (forward or gradient) fails here."""
    seen = set()
    for spec in SPECS:
        g, phs, out = _build(spec, np.float64 if spec.grad else None)
        y = out[0] if isinstance(out, (list, tuple)) else out
        if spec.grad:
            with g.as_default():
                idx = spec.grad_inputs if spec.grad_inputs is not None else [
                    i for i, a in enumerate(spec.inputs) if np.asarray(a).dtype.kind == "f"]
                gs = tf.gradients(tf.reduce_sum(y), [phs[i] for i in idx])
                if spec.second_order:
                    for i, gx in zip(idx, gs):
                        if gx is not None:
                            tf.gradients(tf.reduce_sum(gx), phs[i])
        seen.update(op.type for op in g.get_operations())
    missing = sorted(set(registered_ops()) - seen - set(EXEMPT))
    assert not missing, "op types with no spec in tests/opspecs: %s" % missing
