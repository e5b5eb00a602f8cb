"""The while-loop gradient of ops/while_grad.py: saved per-step values + reverse scan (bounded
loops), checkpoint bisection (unbounded loops). Checked against numpy and finite differences."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.lower.subgraph import lowered

W0 = np.array([0.5, 1.0, -2.0])
X0 = np.array([0.3, -0.7, 0.2])


def _ref(n, x, w):
    """a_n of a_{k+1} = tanh(a_k * w + x), a_0 = 0, and d(sum a_n^2)/dx, d/dw by hand (numpy)."""
    a = [np.zeros(3)]
    for _ in range(n):
        a.append(np.tanh(a[-1] * w + x))
    g, gx, gw = 2 * a[-1], np.zeros(3), np.zeros(3)
    for k in range(n, 0, -1):
        d = g * (1 - a[k] ** 2)
        gx += d
        gw += d * a[k - 1]
        g = d * w
    return a[-1], gx, gw


def _loop(n, maximum_iterations=None):
    x = tf.placeholder(tf.float64, [3])
    w = tf.Variable(W0)
    _, a = tf.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, tf.tanh(a * w + x)),
                         [tf.constant(0), tf.zeros([3], tf.float64)], maximum_iterations=maximum_iterations)
    gx, gw = tf.gradients(tf.reduce_sum(a * a), [x, w])
    return x, a, gx, gw


def test_bounded_loop_that_stops_before_its_bound():
    x, a, gx, gw = _loop(5, maximum_iterations=12)  # 5 active steps of a 12-step scan
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([a, gx, gw], {x: X0})
    for g, want in zip(got, _ref(5, X0, W0)):
        np.testing.assert_allclose(g, want, rtol=1e-10, atol=1e-12)


def test_bound_cuts_the_loop():
    x, a, gx, gw = _loop(9, maximum_iterations=3)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([a, gx, gw], {x: X0})
    for g, want in zip(got, _ref(3, X0, W0)):
        np.testing.assert_allclose(g, want, rtol=1e-10, atol=1e-12)


def test_unbounded_loop_any_trip_count():
    n = tf.placeholder(tf.int32, [])  # the trip count is known only at run time
    x, a, gx, gw = _loop(n)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for k in (0, 1, 2, 5, 37, 64):  # bisection: odd, even, powers of two
            got = sess.run([a, gx, gw], {x: X0, n: k})
            for g, want in zip(got, _ref(k, X0, W0)):
                np.testing.assert_allclose(g, want, rtol=1e-9, atol=1e-12)


@pytest.mark.slow
def test_random_body_sees_the_same_draws_in_the_gradient():
    for bound in (None, 6):
        x = tf.placeholder(tf.float64, [4])
        _, a = tf.while_loop(lambda i, a: i < 6,
                             lambda i, a: (i + 1, a * tf.random_uniform([4], 0.5, 1.5, dtype=tf.float64)),
                             [0, x], maximum_iterations=bound)
        g, = tf.gradients(tf.reduce_sum(a), x)  # a_6 = x * prod(r): d/dx = prod(r) = a_6 / x
        with tf.Session() as sess:
            x0 = np.array([1.0, 2.0, -1.0, 0.5])
            av, gv = sess.run([a, g], {x: x0})
            np.testing.assert_allclose(gv, av / x0, rtol=1e-12)
            assert not np.allclose(gv, gv[0])


def test_two_gradients_of_one_loop_and_runs_before_and_after():
    x = tf.placeholder(tf.float64, [None, 3])
    w = tf.Variable(W0)
    _, a = tf.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, tf.tanh(a * w + x)),
                         [0, tf.zeros_like(x)], maximum_iterations=4)
    loss = tf.reduce_sum(a * a)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = sess.run(a, {x: X0[None]})
        gx, = tf.gradients(loss, x)      # changes the loop op: it now saves values per step
        gw, = tf.gradients(loss, w)      # a second gradient adds what it needs
        np.testing.assert_allclose(sess.run(a, {x: X0[None]}), before)
        xs = np.stack([X0, -X0])          # a new feed shape: the earlier functions are traced again
        av, gxv, gwv = sess.run([a, gx, gw], {x: xs})
        for row in range(2):
            ra, rgx, rgw = _ref(4, xs[row], W0)
            np.testing.assert_allclose(av[row], ra, rtol=1e-10)
            np.testing.assert_allclose(gxv[row], rgx, rtol=1e-10)
        np.testing.assert_allclose(gwv, _ref(4, xs[0], W0)[2] + _ref(4, xs[1], W0)[2], rtol=1e-10)
        np.testing.assert_allclose(sess.run(a, {x: X0[None]}), before)


@pytest.mark.slow
def test_lstm_gradient_saves_step_values_and_does_not_recompute():
    x = tf.placeholder(tf.float32, [2, 5, 3])
    cell = tf.nn.rnn_cell.BasicLSTMCell(4)
    out, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    loss = tf.reduce_sum(out * out)
    kernel = [v for v in tf.trainable_variables() if "kernel" in v.name][0]
    gk, gx = tf.gradients(loss, [kernel, x])
    loop = [op for op in tf.get_default_graph().get_operations() if op.type in ("While", "StatelessWhile")][0]
    n = loop.attrs["n_vars"]
    saved = loop.outputs[n + 1:]
    assert saved and all(t.shape[0].value == 5 for t in saved)
    # per step only [batch, ...] values and scalars: never the whole [time, batch, units] outputs array
    assert all(t.shape.ndims <= 3 for t in saved), [t.shape for t in saved]
    grad_op = [op for op in tf.get_default_graph().get_operations() if op.type.endswith("WhileGrad")][0]
    # the backward body has the two MatMuls of MatMul's gradient, not a third one recomputing the step
    assert [op.type for op in lowered(grad_op.attrs["body_grad"]).sub.ops].count("MatMul") == 2
    rng = np.random.default_rng(1)
    xv = rng.normal(size=(2, 5, 3)).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        k0 = sess.run(kernel)
        gkv, gxv = sess.run([gk, gx], {x: xv})
        eps = 1e-2
        for idx in [(0, 0), (3, 5), (6, 15)]:  # a few kernel entries by central differences
            vals = []
            for s in (1, -1):
                kp = k0.copy()
                kp[idx] += s * eps
                kernel.load(kp, sess)
                vals.append(sess.run(loss, {x: xv}))
            np.testing.assert_allclose(gkv[idx], (vals[0] - vals[1]) / (2 * eps), rtol=2e-2, atol=1e-3)
        kernel.load(k0, sess)
        for idx in [(0, 0, 0), (1, 4, 2)]:
            vals = []
            for s in (1, -1):
                xp = xv.copy()
                xp[idx] += s * eps
                vals.append(sess.run(loss, {x: xp}))
            np.testing.assert_allclose(gxv[idx], (vals[0] - vals[1]) / (2 * eps), rtol=2e-2, atol=1e-3)


def test_zero_bound():
    x = tf.placeholder(tf.float64, [3])
    _, a = tf.while_loop(lambda i, a: i < 5, lambda i, a: (i + 1, a * x), [0, x], maximum_iterations=0)
    g, = tf.gradients(tf.reduce_sum(a), x)  # zero iterations: a = x
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run([a, g], {x: X0}), [X0, np.ones(3)])


def _loop_bodies(hlo):
    """{name: text} of the computations an HLO module runs as while-loop bodies."""
    import re
    names = set(re.findall(r"body=%([\w.\-]+)", hlo))
    bodies, name, lines = {}, None, []
    for line in hlo.splitlines():
        head = re.match(r"%([\w.\-]+) \(", line)
        if head:
            name, lines = head.group(1), []
        elif line.startswith("}") and name in names:
            bodies[name] = "\n".join(lines)
        lines.append(line)
    return bodies


def test_dynamic_rnn_backward_updates_the_output_gradient_in_place():
    """The backward loop reads each step's output gradient from the [time, batch, units] list and zeros
    it (TensorListSetItem's gradient, TensorListTakeItem): both in one op, whose write XLA can do in
    place. As a read and a separate write, XLA:CPU copied the whole list twice per iteration (O(T^2):
    text-rnn-cnews's 600 steps, 1.8 s of its 2.6 s step)."""
    x = tf.placeholder(tf.float32, [3, 13, 2])
    out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicRNNCell(5), x, dtype=tf.float32)
    loss = tf.reduce_sum(out * out)
    grads = tf.gradients(loss, tf.trainable_variables() + [x])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        bodies = _loop_bodies(sess.lowered([loss] + grads, {x: np.ones((3, 13, 2), np.float32)}).hlo)
    assert len(bodies) == 2   # the forward loop and the backward one
    copies = [line.strip()[:100] for body in bodies.values() for line in body.splitlines()
              if " copy(" in line and "[13,3," in line]
    assert not copies, copies
