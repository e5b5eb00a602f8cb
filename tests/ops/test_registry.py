"""Registry-driven tests: every op has its rules, agrees with numpy, declares the dtype and shape
its lowering produces, and (when differentiable) has a gradient that matches finite differences.

The contract with tests/opspecs/<family>.py: a module lists SPECS (OpSpec); it may also list
EXEMPT = {op type: reason} (types no spec can run) and GRAD_EXEMPT = {op type: reason}
(differentiable types whose gradient no spec checks). Coverage fails, naming the types, when a
registered type is in no spec graph, or a type with a gradient rule has no finite-difference check.
"""
import importlib
import pkgutil

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.graph.registry import NOT_SET, registered_ops

import opspecs
from opspecs import EXEMPT, all_specs

SPECS = all_specs()
NO_LOWER = {"Placeholder", "VariableV2", "NoOp"}


def test_every_op_has_every_rule():
    for name, opdef in registered_ops().items():
        assert callable(opdef.shape), name
        assert callable(opdef.dtype), name
        assert opdef.grad is not NOT_SET, "%s: say grad=None if it is not differentiable" % name
        if name not in NO_LOWER:
            # Assert is only a check; summaries and tf.data iterators are computed by the Session
            assert any(callable(f) for f in (opdef.lower, opdef.check, opdef.host)), name
        if opdef.check is not None:
            assert callable(opdef.check_message), "%s: a check needs its message" % name


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


def _fd_check(sess, ys, xs, feed, eps=1e-6, rtol=1e-4, atol=1e-6):
    """Compares tf.gradients(L, xs) with central differences of L = sum_k sum(w_k * ys[k]) (random
    weights w_k). One fetch set [L, gradients...] serves every run, so it compiles once."""
    rng = np.random.RandomState(0)
    ys = [y for y in ys if y is not None]
    if not ys:
        return [None] * len(xs)
    parts = []
    for y in ys:
        shape = y.shape.as_list() if y.shape.is_fully_defined() else np.shape(sess.run(y, feed))
        parts.append(tf.reduce_sum(y * tf.constant(rng.uniform(0.5, 1.5, size=shape), dtype=y.dtype)))
    loss = tf.add_n(parts)
    grads = [g if not isinstance(g, tf.IndexedSlices) else tf.convert_to_tensor(g) for g in tf.gradients(loss, xs)]
    fetch = [loss] + [g for g in grads if g is not None]
    sym = iter(sess.run(fetch, feed)[1:])
    for x, gsym in zip(xs, grads):
        x0 = np.array(feed[x], dtype=np.float64)
        num = np.zeros_like(x0)
        for i in np.ndindex(x0.shape):
            for sgn in (1, -1):
                xp = x0.copy()
                xp[i] += sgn * eps
                num[i] += sgn * sess.run(fetch, {**feed, x: xp})[0] / (2 * eps)
        if gsym is None:
            np.testing.assert_allclose(num, 0, atol=atol, err_msg="gradient is None but finite differences are not 0")
            continue
        got = np.asarray(next(sym))
        assert got.shape == x0.shape
        np.testing.assert_allclose(got, num, rtol=rtol, atol=max(atol, 1e-5 * np.abs(num).max()))
    return grads


@pytest.mark.slow  # 241 finite-difference checks: the fast subset keeps the value checks
@pytest.mark.parametrize("spec", [s for s in SPECS if s.grad], ids=repr)
def test_gradient_matches_finite_differences(spec):
    g, phs, out = _build(spec, np.float64)
    y = out[0] if isinstance(out, (list, tuple)) else out
    idx = _grad_inputs(spec)
    xs = [phs[i] for i in idx]
    with g.as_default(), tf.Session(graph=g) as sess:
        feed = _feeds(spec, phs, np.float64)
        grads = _fd_check(sess, [y], xs, feed)
        if spec.second_order:  # all first gradients at once: checks d(sum_k w_k . g_k)/dx_j for every j
            _fd_check(sess, grads, xs, feed, eps=1e-5, rtol=1e-3)


def _grad_inputs(spec):
    if spec.grad_inputs is not None:
        return list(spec.grad_inputs)
    return [i for i, a in enumerate(spec.inputs) if np.asarray(a).dtype.kind == "f"]


def _spec_modules():
    return [importlib.import_module("opspecs." + m.name) for m in pkgutil.iter_modules(opspecs.__path__)]


_COVERAGE = []


def _coverage():
    """Builds every spec's graphs once: (op types in any spec graph, op types whose gradient is
    checked against finite differences: in the forward graph of a grad=True spec, or in the first
    gradient graph of a second_order spec)."""
    if not _COVERAGE:
        seen, grad_checked = set(), set()
        for spec in SPECS:
            g, phs, out = _build(spec, np.float64 if spec.grad else None)
            y = out[0] if isinstance(out, (list, tuple)) else out
            if spec.grad:
                grad_checked.update(op.type for op in g.get_operations())
                with g.as_default():
                    idx = _grad_inputs(spec)
                    n_ops = len(g.get_operations())
                    gs = tf.gradients(tf.reduce_sum(y), [phs[i] for i in idx])
                    if spec.second_order:
                        grad_checked.update(op.type for op in g.get_operations()[n_ops:])
                        for i, gx in zip(idx, gs):
                            if gx is not None:
                                tf.gradients(tf.reduce_sum(gx), phs[i])
            seen.update(op.type for op in g.get_operations())
        _COVERAGE.append((seen, grad_checked))
    return _COVERAGE[0]


def test_every_registered_op_is_exercised():
    """A registered op type that appears in no spec graph (forward or gradient) fails here."""
    seen, _ = _coverage()
    exempt = dict(EXEMPT)
    for mod in _spec_modules():
        exempt.update(getattr(mod, "EXEMPT", {}))
    missing = sorted(set(registered_ops()) - seen - set(exempt))
    assert not missing, ("%d registered op types appear in no spec graph; add an OpSpec to "
                         "tests/opspecs/<family>.py for each: %s" % (len(missing), ", ".join(missing)))


def test_every_differentiable_op_has_a_gradient_spec():
    """Issue 3's gradient coverage: every op type with a gradient rule must have its gradient
    checked against finite differences by some spec (grad=True, or second_order=True for op types
    that only appear inside gradients). A module of opspecs may exempt a type in GRAD_EXEMPT =
    {type: reason}."""
    _, grad_checked = _coverage()
    exempt = {}
    for mod in _spec_modules():
        exempt.update(getattr(mod, "GRAD_EXEMPT", {}))
    differentiable = {name for name, opdef in registered_ops().items() if callable(opdef.grad)}
    missing = sorted(differentiable - grad_checked - set(exempt))
    assert not missing, ("%d differentiable op types have no gradient check; add an OpSpec with grad=True "
                         "(second_order=True if the type only appears in gradient graphs) to "
                         "tests/opspecs/<family>.py for each: %s" % (len(missing), ", ".join(missing)))
