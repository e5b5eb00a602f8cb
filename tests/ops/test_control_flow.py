"""tf.cond / tf.case / tf.while_loop / map_fn / scan: TF 1.15 semantics, numpy values, gradients
against finite differences (wrt fed tensors, captured tensors and variables), build-time errors."""
import collections

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.ops.functional_ops import get_item

XV = np.array([0.5, -1.5, 2.0])


def _fd(sess, loss, x, feed, x0, eps=1e-6):
    """Central differences of scalar `loss` wrt the value x0 fed to x (or loaded into variable x)."""
    num = np.zeros_like(x0)
    for i in np.ndindex(*x0.shape):
        for sgn in (1, -1):
            xp = x0.copy()
            xp[i] += sgn * eps
            if isinstance(x, tf.Variable):
                x.load(xp, sess)
                num[i] += sgn * sess.run(loss, feed) / (2 * eps)
            else:
                num[i] += sgn * sess.run(loss, {**feed, x: xp}) / (2 * eps)
    if isinstance(x, tf.Variable):
        x.load(x0, sess)
    return num


@pytest.mark.slow
def test_cond_picks_branch_and_differentiates_captured_and_variables():
    x = tf.placeholder(tf.float64, [3], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    w = tf.Variable(np.array([1.0, 2.0, 3.0]), name="w")
    y = tf.cond(p, lambda: x * w, lambda: tf.square(w) + x)
    assert y.op.type == "StatelessIf" and y.name == "cond:0" and y.shape.as_list() == [3]
    loss = tf.reduce_sum(tf.sin(y))
    gx, gw = tf.gradients(loss, [x, w])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        wv = np.array([1.0, 2.0, 3.0])
        for pv, want in ((True, XV * wv), (False, wv ** 2 + XV)):
            feed = {x: XV, p: pv}
            np.testing.assert_allclose(sess.run(y, feed), want)
            np.testing.assert_allclose(sess.run(gx, feed), _fd(sess, loss, x, feed, XV), rtol=1e-6)
            np.testing.assert_allclose(sess.run(gw, feed), _fd(sess, loss, w, feed, wv), rtol=1e-6)


def test_cond_sees_variable_updated_in_the_same_run():
    v = tf.Variable(1.0)
    with tf.control_dependencies([tf.assign_add(v, 10.0)]):
        y = tf.cond(tf.constant(True), lambda: v * 2.0, lambda: v)
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(y) == pytest.approx(22.0)


def test_nested_cond_and_structures():
    x = tf.placeholder(tf.float64, [3])
    Pair = collections.namedtuple("Pair", "a b")
    out = tf.cond(tf.reduce_sum(x) > 0,
                  lambda: {"s": Pair(x, tf.cond(tf.reduce_max(x) > 1.0, lambda: x * 3.0, lambda: x)), "k": 1},
                  lambda: {"s": Pair(-x, x), "k": 2})
    assert isinstance(out["s"], Pair)
    single = tf.cond(tf.constant(True), lambda: [x], lambda: [x])
    strict = tf.cond(tf.constant(True), lambda: [x], lambda: [x], strict=True)
    assert isinstance(single, tf.Tensor) and isinstance(strict, list)
    with tf.Session() as sess:
        r = sess.run(out, {x: XV})
        np.testing.assert_allclose(r["s"].b, XV * 3.0)
        assert r["k"] == 1
        r = sess.run(out, {x: -XV})
        np.testing.assert_allclose(r["s"].a, XV)
        assert r["k"] == 2


def test_cond_errors():
    x = tf.placeholder(tf.float32, [3])
    p = tf.reduce_sum(x) > 0
    with pytest.raises(ValueError, match="must have the same type: float32, int32.*'cond'"):
        tf.cond(p, lambda: x, lambda: tf.cast(x, tf.int32))
    with pytest.raises(ValueError, match="compatible shapes.*'cond_1'"):
        tf.cond(p, lambda: x, lambda: tf.ones([4]))
    with pytest.raises(ValueError, match="same nested structure"):
        tf.cond(p, lambda: (x, x), lambda: x)
    with pytest.raises(TypeError, match="pred must not be a Python bool"):
        tf.cond(True, lambda: x, lambda: x)
    with pytest.raises(TypeError, match="true_fn must be callable"):
        tf.cond(p, x, lambda: x)


@pytest.mark.slow
def test_case_and_switch_case():
    x = tf.placeholder(tf.float64, [3])
    k = tf.placeholder(tf.int32, [])
    c = tf.case([(tf.equal(k, 0), lambda: x + 1.0), (tf.equal(k, 1), lambda: x * 10.0)], default=lambda: -x)
    s = tf.switch_case(k, {0: lambda: x + 1.0, 1: lambda: x * 10.0}, default=lambda: -x)
    nodefault = tf.case([(tf.equal(k, 0), lambda: x + 1.0), (tf.equal(k, 1), lambda: x * 10.0)])
    g = tf.gradients(tf.reduce_sum(c * c), x)[0]
    with tf.Session() as sess:
        for kv, want, dwant in ((0, XV + 1, 2 * (XV + 1)), (1, XV * 10, 200 * XV), (7, -XV, 2 * XV)):
            cv, sv, gv = sess.run([c, s, g], {x: XV, k: kv})
            np.testing.assert_allclose(cv, want)
            np.testing.assert_allclose(sv, want)
            np.testing.assert_allclose(gv, dwant)
        np.testing.assert_allclose(sess.run(nodefault, {x: XV, k: 5}), XV * 10)  # last fn is the default


@pytest.mark.slow
def test_while_loop_values_and_gradients():
    x = tf.placeholder(tf.float64, [3])
    w = tf.Variable(np.array([0.5, 1.0, -2.0]))
    body = lambda i, a: (i + 1, tf.tanh(a * w + x))  # noqa: E731
    i, a = tf.while_loop(lambda i, a: i < 4, body, [tf.constant(0), tf.zeros([3], tf.float64)])
    _, a_bounded = tf.while_loop(lambda i, a: i < 4, body, [0, tf.zeros([3], tf.float64)], maximum_iterations=10)
    _, a_cut = tf.while_loop(lambda i, a: i < 4, body, [0, tf.zeros([3], tf.float64)], maximum_iterations=2)
    assert a.shape.as_list() == [3] and i.dtype == tf.int32
    loss = tf.reduce_sum(a * a)
    loss_b = tf.reduce_sum(a_bounded * a_bounded)
    gx, gw = tf.gradients(loss, [x, w])
    gxb, gwb = tf.gradients(loss_b, [x, w])
    wv = np.array([0.5, 1.0, -2.0])

    def ref(n):
        v = np.zeros(3)
        for _ in range(n):
            v = np.tanh(v * wv + XV)
        return v
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        iv, av, acut = sess.run([i, a, a_cut], {x: XV})
        assert iv == 4
        np.testing.assert_allclose(av, ref(4))
        np.testing.assert_allclose(acut, ref(2))
        feed = {x: XV}
        fdx, fdw = _fd(sess, loss, x, feed, XV), _fd(sess, loss, w, feed, wv)
        for got, want in zip(sess.run([gx, gw, gxb, gwb], feed), [fdx, fdw, fdx, fdw]):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-8)


def test_while_loop_nested_structure_and_single_var():
    x = tf.placeholder(tf.float64, [2])
    State = collections.namedtuple("State", "h c")
    out = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, State(s.h + s.c, s.c * 2.0)),
                        (0, State(x, x)))
    single = tf.while_loop(lambda v: tf.reduce_sum(v) < 100.0, lambda v: v * 2.0, [x])
    assert isinstance(out[1], State) and isinstance(single, tf.Tensor)
    with tf.Session() as sess:
        o, sv = sess.run([out, single], {x: np.array([1.0, 2.0])})
        np.testing.assert_allclose(o[1].h, [8.0, 16.0])  # h and c double each step
        np.testing.assert_allclose(sv, [64.0, 128.0])  # sum 96 < 100 doubles once more


def test_while_loop_shape_checks():
    x = tf.placeholder(tf.float32, [3])
    with pytest.raises(ValueError, match="enters the loop with shape \\(3,\\), but has shape \\(2, 3\\)"):
        tf.while_loop(lambda v: tf.reduce_sum(v) < 10, lambda v: tf.stack([v, v]), [x])
    with pytest.raises(ValueError, match="shape invariant specified .* is not compatible"):
        tf.while_loop(lambda v: tf.reduce_sum(v) < 10, lambda v: v, [x], shape_invariants=[tf.TensorShape([4])])
    y = tf.placeholder(tf.float32, [None])
    out = tf.while_loop(lambda v: tf.reduce_sum(v) < 10, lambda v: v + 1.0, [y],
                        shape_invariants=[tf.TensorShape([None])])
    assert out.shape.as_list() == [None]
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(out, {y: [1.0, 2.0]}), [5.0, 6.0])


def test_assign_in_body_is_refused_clearly():
    v = tf.Variable(1.0)
    with pytest.raises(NotImplementedError, match="inside a tf.cond branch or tf.while_loop body"):
        tf.while_loop(lambda i: i < 3.0, lambda i: tf.assign(v, i + 1.0), [tf.constant(0.0)])


def test_variables_created_in_a_body_are_lifted_out():
    x = tf.placeholder(tf.float64, [2, 3])

    def body(i, h):
        with tf.variable_scope("cell", reuse=tf.AUTO_REUSE):
            w = tf.get_variable("W", [3, 3], tf.float64, initializer=tf.ones_initializer())
        return i + 1, tf.matmul(h, w) * 0.5
    _, h = tf.while_loop(lambda i, h: i < 2, body, [0, x])
    c = tf.cond(tf.constant(True), lambda: tf.Variable(2.0, name="b") * 3.0, lambda: tf.constant(1.0))
    names = sorted(v.name for v in tf.global_variables())
    assert names == ["cell/W:0", "cond/b:0"]
    assert all(not hasattr(v.graph, "outer_graph") for v in tf.global_variables())
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(h, {x: np.ones((2, 3))}), np.full((2, 3), 2.25))
        assert sess.run(c) == pytest.approx(6.0)


@pytest.mark.slow
def test_map_fn_scan_fold():
    x = tf.placeholder(tf.float64, [4, 3])
    dyn = tf.placeholder(tf.float64, [None, 3])
    xv = np.random.RandomState(0).randn(4, 3)
    m = tf.map_fn(lambda t: (t[0] * 2.0, tf.reduce_sum(t[1])), (x, x), dtype=(tf.float64, tf.float64))
    md = tf.map_fn(lambda r: r * r, dyn)
    fr = tf.foldr(lambda a, r: a * 2.0 + r, x, initializer=tf.zeros([3], tf.float64))
    sr = tf.scan(lambda a, r: a + r, x, reverse=True)
    si = tf.scan(lambda a, r: (a[0] + r, a[1] * r), x, initializer=(tf.zeros([3], tf.float64),
                                                                     tf.ones([3], tf.float64)))
    loss = tf.reduce_sum(tf.sin(sr)) + tf.reduce_sum(md)
    g = tf.gradients(loss, [x, dyn])
    with tf.Session() as sess:
        r = sess.run([m, md, fr, sr, si], {x: xv, dyn: xv})
        np.testing.assert_allclose(r[0][0], 2 * xv)
        np.testing.assert_allclose(r[0][1], xv.sum(1))
        np.testing.assert_allclose(r[1], xv * xv)
        want = np.zeros(3)
        for row in xv[::-1]:
            want = want * 2 + row
        np.testing.assert_allclose(r[2], want)
        np.testing.assert_allclose(r[3], np.cumsum(xv[::-1], 0)[::-1])
        np.testing.assert_allclose(r[4][0], np.cumsum(xv, 0))
        np.testing.assert_allclose(r[4][1], np.cumprod(xv, 0))
        feed = {x: xv, dyn: xv}
        gx, gd = sess.run(g, feed)
        np.testing.assert_allclose(gx, _fd(sess, loss, x, feed, xv), rtol=1e-5)
        np.testing.assert_allclose(gd, 2 * xv, rtol=1e-6)


@pytest.mark.slow
def test_training_through_while_loop_reduces_loss():
    rng = np.random.RandomState(1)
    xs = rng.randn(5, 8, 2)  # 5 steps, batch 8; target: the same recurrence with w = [1, -1]
    target = np.zeros((8, 1))
    for t in range(5):
        target = xs[t] @ np.array([[1.0], [-1.0]]) + 0.5 * target
    x = tf.constant(xs)
    w = tf.Variable(np.zeros((2, 1)))
    _, h = tf.while_loop(lambda i, h: i < 5, lambda i, h: (i + 1, tf.matmul(get_item(x, i), w) + 0.5 * h),
                         [0, tf.zeros([8, 1], tf.float64)])
    loss = tf.reduce_mean(tf.square(h - target))
    train = tf.train.GradientDescentOptimizer(0.2).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss)
        for _ in range(30):
            sess.run(train)
        assert sess.run(loss) < 0.01 * first
        np.testing.assert_allclose(sess.run(w), [[1.0], [-1.0]], atol=0.05)


@pytest.mark.slow
def test_tensor_array_in_while_loop():
    x = tf.placeholder(tf.float64, [4, 3])
    rows = tf.TensorArray(tf.float64, size=4).unstack(x)
    out = tf.TensorArray(tf.float64, size=4)  # no element_shape: learned from the body's write

    def body(t, h, out):
        h = tf.tanh(h * 0.5 + rows.read(t))
        return t + 1, h, out.write(t, h * 2.0)
    _, h, out = tf.while_loop(lambda t, h, o: t < 4, body, [0, tf.zeros([3], tf.float64), out])
    stacked = out.stack()
    assert isinstance(out, tf.TensorArray) and stacked.shape.as_list() == [4, 3]
    loss = tf.reduce_sum(tf.sin(stacked))
    g = tf.gradients(loss, x)[0]
    xv = np.random.RandomState(0).randn(4, 3)
    want, hv = [], np.zeros(3)
    for row in xv:
        hv = np.tanh(hv * 0.5 + row)
        want.append(hv * 2.0)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(stacked, {x: xv}), want)
        np.testing.assert_allclose(sess.run(g, {x: xv}), _fd(sess, loss, x, {x: xv}, xv), rtol=1e-5)


@pytest.mark.slow
def test_nested_control_flow_gradients():
    x = tf.placeholder(tf.float64, [3])

    def body(i, a):
        a = tf.cond(tf.reduce_sum(a) > 1.0, lambda: a * 0.5 + x, lambda: tf.sin(a) * x)
        return i + 1, tf.while_loop(lambda j, b: j < 2, lambda j, b: (j + 1, b * x), [0, a])[1]
    _, out = tf.while_loop(lambda i, a: i < 3, body, [0, x], maximum_iterations=3)
    loss = tf.reduce_sum(out)
    g = tf.gradients(loss, x)[0]
    for xv in (np.array([0.3, -0.2, 0.7]), np.array([0.9, 0.5, 0.7])):  # both branches of the inner cond
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(g, {x: xv}), _fd(sess, loss, x, {x: xv}, xv), rtol=1e-5)


def test_branch_source_is_printable():
    from tinyflow.lower.subgraph import source
    x = tf.placeholder(tf.float32, [3])
    y = tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0, lambda: tf.exp(x))
    text = source(y.op)
    assert "# cond: branches[0]" in text and "  # f32[3]  cond/mul" in text and "cond_Exp = op.Exp(" in text


def test_second_order_through_while_loop_is_refused():
    x = tf.placeholder(tf.float64, [2])
    y = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), [tf.constant(0), tf.ones([2], tf.float64)])[1]
    g = tf.gradients(tf.reduce_sum(y), x)[0]
    with pytest.raises(NotImplementedError):
        tf.gradients(tf.reduce_sum(g), x)


def test_a_counted_loop_is_a_scan_without_a_conditional_and_trains_as_the_unrolled_loop():
    """dynamic_rnn's loop (`time < n`, time from 0 by 1, n known) runs its known number of iterations:
    its step is a scan with no lax.cond per iteration but on XLA:CPU (a GPU reads each cond's predicate
    back to the host), forward and gradient, and it computes what static_rnn's unrolled graph does."""
    rng = np.random.RandomState(0)
    xb = rng.randn(3, 5, 4).astype(np.float32)
    results = []
    for dynamic in (True, False):
        tf.reset_default_graph()
        x = tf.placeholder(tf.float32, [3, 5, 4])
        cell = tf.nn.rnn_cell.LSTMCell(6, initializer=tf.constant_initializer(0.1))
        with tf.variable_scope("rnn"):
            if dynamic:
                out, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32, scope="r")
            else:
                out = tf.stack(tf.nn.static_rnn(cell, tf.unstack(x, axis=1), dtype=tf.float32, scope="r")[0], 1)
        loss = tf.reduce_sum(tf.sin(out))
        grads = tf.gradients(loss, tf.trainable_variables() + [x])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            results.append(sess.run([loss] + grads, {x: xb}))
            if dynamic:
                loop = [op for op in tf.get_default_graph().get_operations() if op.type.endswith("While")]
                assert loop and loop[0].attrs["trip_count"] == 5
                text = str(sess.lowered([loss] + grads, {x: xb}).jaxpr)
                assert "scan[" in text and "while[" not in text
                # the only conditionals: the gradient's TensorListTakeItem on XLA:CPU, chosen by platform
                # (ops/functional_ops.py), each an outer cond over the platform around the CPU's own
                assert text.count("cond[") == 2 * text.count("branches_platforms=(('cpu',), None)")
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_loops_whose_count_is_not_known_keep_the_while_loop():
    i = tf.constant(0)
    n = tf.placeholder(tf.int32, [])
    out = tf.while_loop(lambda i: i < n, lambda i: i + 2, [i])
    cond_on_value = tf.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, [tf.constant(1.0)])
    by_two = tf.while_loop(lambda i: i < 7, lambda i: i + 2, [tf.constant(0)])
    ops = [t.op for t in (out, cond_on_value, by_two)]
    assert [op.attrs["trip_count"] for op in ops] == [None, None, 4]
    with tf.Session() as sess:
        assert sess.run([out, cond_on_value, by_two], {n: 5}) == [6, 16.0, 8]

