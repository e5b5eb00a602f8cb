"""Gradient checkpointing: tf.gradients(checkpoints=...), minimize(checkpoints=...), tf.recompute_grad,
the Recompute op surviving into XLA's HLO, and tinyflow.memory.plan_recompute under a budget."""
import re

import numpy as np
import pytest

import tinyflow as tf
import tinyflow.cli.memory as tm
from tinyflow.passes.recompute_plan import predict


def _mlp(layers=6, width=8, batch=5, dtype=tf.float64, seed=0):
    rng = np.random.RandomState(seed)
    x = tf.placeholder(dtype, [None, width], name="x")
    ws, h, acts = [], x, []
    for i in range(layers):
        w = tf.Variable(rng.randn(width, width) / np.sqrt(width), dtype=dtype, name="w%d" % i)
        ws.append(w)
        h = tf.tanh(tf.matmul(h, w))
        acts.append(h)
    loss = tf.reduce_mean(tf.square(h))
    return x, ws, acts, loss, rng.randn(batch, width)


def _plain_and_checkpointed(checkpoints, **kw):
    g = tf.Graph()
    with g.as_default():
        x, ws, acts, loss, xv = _mlp(**kw)
        ck = checkpoints(acts) if callable(checkpoints) else checkpoints
        plain = tf.gradients(loss, ws)
        remat = tf.gradients(loss, ws, checkpoints=ck)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            a, b = sess.run([plain, remat], {x: xv})
        return g, a, b, remat


@pytest.mark.parametrize("checkpoints", ["sqrt", "memory", "speed", lambda acts: acts[1::2]],
                         ids=["sqrt", "memory", "speed", "list"])
def test_checkpointed_gradients_equal_plain(checkpoints):
    g, plain, remat, grads = _plain_and_checkpointed(checkpoints)
    for a, b in zip(plain, remat):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-14)
    assert any(op.type == "Recompute" and op.outputs for op in g.get_operations())


def test_backward_reads_only_checkpoints():
    """With acts[2] and acts[4] kept, no gradient op reads another tanh value of the forward pass."""
    g = tf.Graph()
    with g.as_default():
        x, ws, acts, loss, _ = _mlp()
        n_fwd = len(g.get_operations())
        kept = [acts[2], acts[4]]
        tf.gradients(loss, ws, checkpoints=kept)
        forward = {t for op in g.get_operations()[:n_fwd] for t in op.outputs}
        read = {t for op in g.get_operations()[n_fwd:] if op.type != "Recompute" for t in op.inputs}
        tanhs = {t for t in forward & read if t.op.type == "Tanh"}
        assert tanhs <= set(kept) | {acts[-1]}, sorted(t.name for t in tanhs)


def test_checkpointed_gradient_matches_finite_differences():
    g = tf.Graph()
    with g.as_default():
        x, ws, acts, loss, xv = _mlp(layers=4, width=4, batch=3)
        gw = tf.gradients(loss, ws[1], checkpoints="sqrt")[0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            analytic = sess.run(gw, {x: xv})
            w0 = sess.run(ws[1])
            eps, numeric = 1e-6, np.zeros_like(w0)
            for idx in np.ndindex(*w0.shape):
                vals = []
                for s in (1, -1):
                    w = w0.copy()
                    w[idx] += s * eps
                    ws[1].load(w, sess)
                    vals.append(sess.run(loss, {x: xv}))
                numeric[idx] = (vals[0] - vals[1]) / (2 * eps)
        np.testing.assert_allclose(analytic, numeric, rtol=1e-6, atol=1e-9)


def test_second_order_through_recompute():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float64, [3])
        y = tf.reduce_sum(tf.sin(tf.sin(tf.sin(x * x))))
        g1 = tf.gradients(y, x, checkpoints="sqrt")[0]
        g2 = tf.gradients(tf.reduce_sum(g1 * g1), x)[0]
        p1 = tf.gradients(y, x)[0]
        p2 = tf.gradients(tf.reduce_sum(p1 * p1), x)[0]
        with tf.Session() as sess:
            a, b = sess.run([g2, p2], {x: [0.3, -0.7, 1.1]})
        np.testing.assert_allclose(a, b, rtol=1e-12)


@pytest.mark.slow
def test_minimize_with_checkpoints_trains_the_same():
    losses = []
    for ck in (None, "sqrt"):
        g = tf.Graph()
        with g.as_default():
            x, ws, acts, loss, xv = _mlp(dtype=tf.float32)
            train = tf.train.MomentumOptimizer(0.5, 0.9).minimize(loss, checkpoints=ck)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                losses.append([sess.run([loss, train], {x: xv})[0] for _ in range(4)])
    np.testing.assert_allclose(losses[1], losses[0], rtol=1e-5)


def test_recompute_grad_block():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float64, [4, 3])
        w = tf.Variable(np.random.RandomState(1).randn(3, 3))

        @tf.recompute_grad
        def block(h):
            return tf.tanh(tf.matmul(tf.tanh(tf.matmul(h, w)), w))
        loss = tf.reduce_sum(tf.square(block(x)))
        gw = tf.gradients(loss, w)[0]
        rec = [op for op in g.get_operations() if op.type == "Recompute" and op.outputs]
        assert rec, "the block's inner values are recomputed"
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            xv = np.random.RandomState(2).randn(4, 3)
            wv = sess.run(w)
            got = sess.run(gw, {x: xv})
    h1 = np.tanh(xv @ wv)
    out = np.tanh(h1 @ wv)
    d2 = 2 * out * (1 - out ** 2)
    d1 = (d2 @ wv.T) * (1 - h1 ** 2)
    np.testing.assert_allclose(got, h1.T @ d2 + xv.T @ d1, rtol=1e-10)


def test_bad_policy_is_a_clear_error():
    with tf.Graph().as_default():
        x, ws, acts, loss, _ = _mlp(layers=2)
        with pytest.raises(ValueError, match="checkpoints must be None, a list of tensors or one of"):
            tf.gradients(loss, ws, checkpoints="fast")


def _train_step(layers, width, batch, checkpoints):
    g = tf.Graph()
    with g.as_default():
        x, ws, acts, loss, _ = _mlp(layers=layers, width=width, batch=batch, dtype=tf.float32)
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, checkpoints=checkpoints)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        xv = np.random.RandomState(3).randn(batch, width).astype(np.float32)
        return g, sess, x, loss, train, xv


@pytest.mark.slow
def test_recompute_survives_into_xla():
    """XLA keeps the recomputed matmuls (more dots in the optimized HLO) and needs fewer temp bytes."""
    dots, temp = {}, {}
    for ck in (None, "sqrt"):
        g, sess, x, loss, train, xv = _train_step(16, 64, 256, ck)
        bound = sess.lowered([loss, train], {x: xv})
        compiled = bound.function.lower(*bound.args).compile()
        dots[ck] = len(re.findall(r" dot\(", compiled.as_text()))
        temp[ck] = compiled.memory_analysis().temp_size_in_bytes
        sess.close()
    assert dots[None] == 16 + 2 * 16 - 1          # forward, and the backward's two per layer but the first
    assert dots["sqrt"] > dots[None] + 8, dots     # the recomputed forward matmuls are still there
    assert temp["sqrt"] < 0.7 * temp[None], temp


@pytest.mark.slow
def test_memory_report_shows_recompute_flops():
    g, sess, x, loss, train, xv = _train_step(8, 16, 32, "sqrt")
    with g.as_default():
        report = sess.memory_report([loss, train], {x: xv}, verify=True)
    assert report.verified is True
    segs = [op for op in report.plan.steps if op.type == "Recompute"]
    assert segs
    # each recomputed matmul costs 2 * batch * width * width
    n_mm = sum(op.type == "MatMul" for r in segs for op in r.attrs["ops"])
    assert report.recompute_flops >= n_mm * 2 * 32 * 16 * 16
    assert "extra GFLOPs" in str(report)


@pytest.mark.slow
@pytest.mark.parametrize("solver", ["greedy", "milp"])
def test_plan_recompute_respects_budget(solver):
    if solver == "milp":
        pytest.importorskip("scipy.optimize")
    g = tf.Graph()
    with g.as_default():
        x, ws, acts, loss, _ = _mlp(layers=12, width=16, batch=64, dtype=tf.float32)
        free = tm.plan_recompute(loss, None, {x: [64, 16]})
        plain_arena, _ = predict(loss, [w._as_graph_element() for w in ws], None, {x: [64, 16]})
        budget = int(0.6 * plain_arena)
        plan = tm.plan_recompute(loss, budget, {x: [64, 16]}, solver=solver)
    assert free.predicted_peak_bytes < plain_arena
    assert plan.fits and plan.predicted_peak_bytes <= budget
    assert plan.extra_flops > 0 and plan.checkpoints
    with pytest.raises(ValueError, match="solver must be"):
        tm.plan_recompute(loss, budget, {x: [64, 16]}, solver="magic")


def test_checkpointed_graph_round_trips_through_json():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        grad = tf.gradients(tf.reduce_sum(tf.sin(tf.sin(tf.sin(x)))), x, checkpoints="sqrt")[0]
    g2 = tf.Graph.from_json(g.to_json())
    assert any(op.type == "Recompute" for op in g2.get_operations())
    v = np.linspace(-1, 1, 6).reshape(2, 3).astype(np.float32)
    with tf.Session(graph=g) as s1, tf.Session(graph=g2) as s2:
        a = s1.run(grad, {x: v})
        b = s2.run(g2.get_tensor_by_name(grad.name), {g2.get_tensor_by_name("x:0"): v})
    np.testing.assert_allclose(b, a, rtol=1e-6)
