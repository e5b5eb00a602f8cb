"""Ops whose output shape depends on run-time values (docs/dynamic_shapes.md): each against numpy,
gradients through them, a masked-loss Adam script against a JAX reference, variables across
segments, errors and the generated source."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tinyflow as tf


@pytest.fixture(autouse=True)
def _graph():
    tf.reset_default_graph()
    yield


def _lowered(fetches, feeds):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.lowered(fetches, feeds)


@pytest.mark.slow
def test_boolean_mask_forms_vs_numpy():
    rng = np.random.RandomState(0)
    x = tf.placeholder(tf.float32, [None, 3, 2])
    m1 = tf.placeholder(tf.bool, [None])
    m2 = tf.placeholder(tf.bool, [None, 3])
    m_axis = tf.placeholder(tf.bool, [3])
    a, b, c = tf.boolean_mask(x, m1), tf.boolean_mask(x, m2), tf.boolean_mask(x, m_axis, axis=1)
    assert a.shape.as_list() == [None, 3, 2] and b.shape.as_list() == [None, 2]
    assert c.shape.as_list() == [None, None, 2]
    with tf.Session() as sess:
        for n in (4, 6, 4):     # new shapes and a repeated one
            xv = rng.randn(n, 3, 2).astype(np.float32)
            v1, v2, v3 = rng.rand(n) > 0.5, rng.rand(n, 3) > 0.5, np.array([True, False, True])
            got = sess.run([a, b, c, x[m1]], {x: xv, m1: v1, m2: v2, m_axis: v3})
            for g, want in zip(got, [xv[v1], xv[v2], xv[:, v3], xv[v1]]):
                np.testing.assert_array_equal(g, want)


def test_where_single_argument_vs_numpy():
    c = tf.placeholder(tf.float32, [None, None])
    w = tf.where(c > 0.5)
    assert w.dtype == tf.int64 and w.shape.as_list() == [None, 2]
    cv = np.random.RandomState(1).rand(5, 4).astype(np.float32)
    with tf.Session() as sess:
        got = sess.run(w, {c: cv})
        np.testing.assert_array_equal(got, np.argwhere(cv > 0.5))
        assert got.dtype == np.int64
        assert sess.run(w, {c: np.zeros([2, 3], np.float32)}).shape == (0, 2)


def test_unique_and_unique_with_counts_vs_numpy():
    x = tf.placeholder(tf.int64, [None])
    y, idx = tf.unique(x // 2)
    uc = tf.unique_with_counts(x // 2, out_idx=tf.int64)
    xv = np.array([7, 1, 0, 6, 7, 3, 2, 9], np.int64)
    with tf.Session() as sess:
        got_y, got_idx, got_uc = sess.run([y, idx, uc], {x: xv})
    h = xv // 2
    _, first = np.unique(h, return_index=True)
    want_y = h[np.sort(first)]
    np.testing.assert_array_equal(got_y, want_y)
    np.testing.assert_array_equal(got_y[got_idx], h)
    np.testing.assert_array_equal(got_uc.y, want_y)
    np.testing.assert_array_equal(got_uc.idx, got_idx)
    np.testing.assert_array_equal(got_uc.count, [np.sum(h == v) for v in want_y])
    assert got_idx.dtype == np.int32 and got_uc.count.dtype == np.int64


@pytest.mark.slow
def test_dynamic_partition_stitch_and_gradient():
    d = tf.placeholder(tf.float64, [None, 2])
    p = tf.placeholder(tf.int32, [None])
    parts = tf.dynamic_partition(d, p, 3)
    assert [t.shape.as_list() for t in parts] == [[None, 2]] * 3
    loss = tf.reduce_sum(parts[0] ** 2) + 3.0 * tf.reduce_sum(parts[2])    # parts[1] unused
    grad = tf.gradients(loss, d)[0]
    positions = tf.dynamic_partition(tf.range(tf.shape(d)[0]), p, 3)
    back = tf.dynamic_stitch(positions, parts)
    dv = np.arange(10.0).reshape(5, 2)
    pv = np.array([0, 2, 1, 2, 0], np.int32)
    with tf.Session() as sess:
        got, g, b = sess.run([parts, grad, back], {d: dv, p: pv})
        for i in range(3):
            np.testing.assert_array_equal(got[i], dv[pv == i])
        want = np.where((pv == 0)[:, None], 2 * dv, np.where((pv == 2)[:, None], 3.0, 0.0))
        np.testing.assert_allclose(g, want)
        np.testing.assert_array_equal(b, dv)      # partition then stitch by position: the identity
        # a later index wins in dynamic_stitch
        st = tf.dynamic_stitch([tf.constant([0, 1]), p], [tf.constant([[-1.0, -1.0]] * 2, tf.float64), d])
        np.testing.assert_array_equal(sess.run(st, {d: dv[:2], p: [1, 3]}),
                                      [[-1, -1], dv[0], [0, 0], dv[1]])


@pytest.mark.slow
def test_slices_with_run_time_bounds():
    x = tf.placeholder(tf.float32, [None, 4])
    i = tf.placeholder(tf.int32, [])
    n = tf.placeholder(tf.int32, [])
    a, b, c = x[i:i + 2], x[i:, 1:3], tf.slice(x, [0, i], [n, 2])
    d = x[i]                       # a single run-time index stays one jit
    xv = np.arange(24, dtype=np.float32).reshape(6, 4)
    with tf.Session() as sess:
        for iv, nv in ((0, 3), (3, 2), (1, 5)):
            got = sess.run([a, b, c, d], {x: xv, i: iv, n: nv})
            for g, want in zip(got, [xv[iv:iv + 2], xv[iv:, 1:3], xv[:nv, iv:iv + 2], xv[iv]]):
                np.testing.assert_array_equal(g, want)
    assert "segment_1" in _lowered(a, {x: xv, i: 1}).source
    assert "segment_" not in _lowered(d, {x: xv, i: 1}).source


def test_range_with_a_fed_limit_and_sequence_mask():
    k = tf.placeholder(tf.int32, [])
    lengths = tf.placeholder(tf.int32, [None])
    r = tf.range(k) * 2
    mask = tf.sequence_mask(lengths)            # maxlen = max(lengths): a run-time length
    assert r.shape.as_list() == [None] and mask.shape.as_list() == [None, None]
    with tf.Session() as sess:
        for kv in (3, 0, 5):
            np.testing.assert_array_equal(sess.run(r, {k: kv}), np.arange(kv) * 2)
        lv = np.array([1, 3, 2], np.int32)
        np.testing.assert_array_equal(sess.run(mask, {lengths: lv}), np.arange(3)[None, :] < lv[:, None])


@pytest.mark.slow
def test_bincount_of_a_run_time_input():
    arr = tf.placeholder(tf.int32, [None])
    w = tf.placeholder(tf.float32, [None])
    counts = tf.bincount(arr)
    weighted = tf.bincount(arr, weights=w, minlength=6)
    capped = tf.bincount(arr, maxlength=2)
    av = np.array([1, 1, 3, 0, 3, 3], np.int32)
    wv = np.arange(6, dtype=np.float32)
    with tf.Session() as sess:
        got = sess.run([counts, weighted, capped], {arr: av, w: wv})
        np.testing.assert_array_equal(got[0], np.bincount(av))
        np.testing.assert_array_equal(got[1], np.bincount(av, wv, minlength=6))
        np.testing.assert_array_equal(got[2], np.bincount(av)[:2])
        assert sess.run(counts, {arr: np.zeros([0], np.int32)}).shape == (0,)
        with pytest.raises(tf.errors.InvalidArgumentError, match="non-negative"):
            sess.run(counts, {arr: [1, -1]})


def test_gradient_through_boolean_mask_vs_finite_differences():
    x0 = np.random.RandomState(2).randn(5, 3)
    x = tf.Variable(x0)
    m = tf.placeholder(tf.bool, [None])
    loss = tf.reduce_sum(tf.sin(tf.boolean_mask(x, m)) ** 2)
    g = tf.gradients(loss, x)[0]
    mv = np.array([True, False, True, True, False])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(g, {m: mv})

    def f(v):
        return np.sum(np.sin(v[mv]) ** 2)
    eps, num = 1e-6, np.zeros_like(x0)
    for idx in np.ndindex(*x0.shape):
        e = np.zeros_like(x0)
        e[idx] = eps
        num[idx] = (f(x0 + e) - f(x0 - e)) / (2 * eps)
    np.testing.assert_allclose(got, num, atol=1e-6)


ADAM = (0.875, 0.9375, 2.0 ** -20)   # beta1, beta2, epsilon: their powers stay exact in float32


def _adam_reference(w0, b0, batches, lr=0.0625):
    """The masked loss trained by TF's Adam in JAX: a fixed-size mask (jnp.where) instead of a gather."""
    def loss_fn(params, xs, ys, lengths):
        w, b = params
        pred = jnp.einsum("btf,fo->bto", xs, w)[..., 0] + b
        mask = jnp.arange(xs.shape[1])[None, :] < lengths[:, None]
        sq = jnp.where(mask, (pred - ys) ** 2, 0.0)
        return jnp.sum(sq) / jnp.sum(mask)
    params = [jnp.asarray(w0), jnp.asarray(b0)]
    m = [jnp.zeros_like(p) for p in params]
    v = [jnp.zeros_like(p) for p in params]
    # hyperparameters exact in float32 (tinyflow, as TF, makes them float32 constants)
    b1, b2, eps = ADAM
    p1, p2 = b1, b2
    losses = []
    for xs, ys, lengths in batches:
        loss, grads = jax.value_and_grad(loss_fn)(params, xs, ys, lengths)
        losses.append(float(loss))
        lr_t = lr * np.sqrt(1 - p2) / (1 - p1)
        p1, p2 = p1 * b1, p2 * b2
        for k, g in enumerate(grads):
            m[k] = b1 * m[k] + (1 - b1) * g
            v[k] = b2 * v[k] + (1 - b2) * g * g
            params[k] = params[k] - lr_t * m[k] / (jnp.sqrt(v[k]) + eps)
    return [np.asarray(p) for p in params], losses


@pytest.mark.slow
def test_masked_loss_training_with_adam_matches_jax():
    rng = np.random.RandomState(3)
    T, F = 5, 3
    w0 = rng.randn(F, 1)
    xs = tf.placeholder(tf.float64, [None, T, F])
    ys = tf.placeholder(tf.float64, [None, T])
    lengths = tf.placeholder(tf.int32, [None])
    w = tf.Variable(w0, name="w")
    b = tf.Variable(0.0, dtype=tf.float64, name="b")
    pred = tf.squeeze(tf.tensordot(xs, w, axes=1), -1) + b
    mask = tf.sequence_mask(lengths, T)
    loss = tf.reduce_mean(tf.boolean_mask(tf.square(pred - ys), mask))
    train = tf.train.AdamOptimizer(0.0625, *ADAM).minimize(loss)
    batches = [(rng.randn(n, T, F), rng.randn(n, T), rng.randint(1, T + 1, n).astype(np.int32))
               for n in (4, 3, 4, 2, 4)]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = [sess.run([loss, train], {xs: a, ys: c, lengths: n})[0] for a, c, n in batches]
        got_w, got_b = sess.run([w, b])
    (want_w, want_b), want_losses = _adam_reference(w0, 0.0, batches)
    np.testing.assert_allclose(losses, want_losses, rtol=1e-10)
    np.testing.assert_allclose(got_w, want_w, rtol=1e-10)
    np.testing.assert_allclose(got_b, want_b, rtol=1e-10)


def test_variables_across_segments_follow_design_rule():
    v = tf.Variable(1.0)
    x = tf.placeholder(tf.float32, [None])
    start = tf.identity(v)                                  # unordered read: the start value
    upd = tf.assign_add(v, 10.0)
    with tf.control_dependencies([upd]):
        after = tf.identity(v)                              # ordered after the update
    picked = tf.boolean_mask(x, x > 0)
    total = tf.reduce_sum(picked) * after + start           # after the dynamic op
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([total, start, after], {x: [1.0, -2.0, 3.0]})
        assert got == [4.0 * 11.0 + 1.0, 1.0, 11.0]
        assert sess.run(v) == 11.0


def test_failure_in_a_later_segment_changes_no_variable():
    v = tf.Variable([1.0, 2.0])
    p = tf.placeholder(tf.int32, [None])
    upd = tf.assign_add(v, [5.0, 5.0])                      # runs in the first segment
    with tf.control_dependencies([upd]):
        parts = tf.dynamic_partition(tf.identity(v), p, 2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"partitions\[1\] = 7 is not in \[0, 2\)"):
            sess.run(parts, {p: [0, 7]})
        np.testing.assert_array_equal(sess.run(v), [1.0, 2.0])     # the failed step stored nothing
        got = sess.run(parts, {p: [1, 0]})
        np.testing.assert_array_equal(got[0], [7.0])
        np.testing.assert_array_equal(sess.run(v), [6.0, 7.0])


def test_source_errors_and_single_jit_unchanged():
    x = tf.placeholder(tf.float32, [None])
    y = tf.reduce_sum(tf.boolean_mask(x, x > 0) * 2.0)
    z = tf.reduce_sum(x * 2.0)
    low = _lowered(y, {x: [1.0, -1.0]})
    src = low.source
    assert "def segment_1(" in src and "def segment_2(" in src and "dynamic shape" in src
    assert "Where(" in src.split("def segment_1")[0]            # the dynamic op sits in the main function
    with pytest.raises(tf.errors.UnimplementedError, match="2 jitted segments"):
        low.jaxpr
    plain = _lowered(z, {x: [1.0, -1.0]})
    assert "segment" not in plain.source and "reduce" in str(plain.jaxpr).lower()
    # a value-dependent shape inside a tf.cond body has no segments: a TF error, not a JAX one
    c = tf.cond(tf.reduce_sum(x) > 0, lambda: tf.reduce_sum(tf.boolean_mask(x, x > 0)), lambda: tf.constant(0.0))
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="inside tf.cond"):
            sess.run(c, {x: [1.0]})


@pytest.mark.slow
def test_segment_ops_with_run_time_ids():
    d = tf.placeholder(tf.float64, [None, 2])
    ids = tf.placeholder(tf.int32, [None])
    total, top = tf.segment_sum(d, ids), tf.segment_max(d, ids)
    counted = tf.unsorted_segment_max(d, ids, tf.reduce_max(ids) + 2)
    assert total.shape.as_list() == [None, 2]
    g = tf.gradients(tf.reduce_sum(total ** 2) + tf.reduce_sum(top), d)[0]
    dv = np.arange(10.0).reshape(5, 2)
    iv = np.array([0, 0, 2, 2, 3], np.int32)
    want_sum = np.stack([dv[iv == j].sum(0) if np.any(iv == j) else np.zeros(2) for j in range(4)])
    want_max = np.stack([dv[iv == j].max(0) if np.any(iv == j) else np.zeros(2) for j in range(4)])
    with tf.Session() as sess:
        got = sess.run([total, top, counted, g], {d: dv, ids: iv})
        np.testing.assert_array_equal(got[0], want_sum)
        np.testing.assert_array_equal(got[1], want_max)
        np.testing.assert_array_equal(got[2][[0, 2, 3]], want_max[[0, 2, 3]])
        assert got[2].shape == (5, 2) and got[2][1, 0] == np.finfo(np.float64).min
        is_max = dv == want_max[iv]
        np.testing.assert_array_equal(got[3], 2 * want_sum[iv] + is_max)
        with pytest.raises(tf.errors.InvalidArgumentError, match="not increasing"):
            sess.run(total, {d: dv, ids: [1, 0, 2, 2, 3]})


def test_values_named_like_segments():
    x = tf.placeholder(tf.float32, [None], name="segment_1")
    y = tf.identity(x * 2.0, name="segment_2")
    z = tf.reduce_sum(tf.boolean_mask(y, y > 1.0), name="segment")
    with tf.Session() as sess:
        assert sess.run(z, {x: [0.0, 1.0, 2.0]}) == 6.0


def _masked_adam_run(steps):
    """A step whose loss reads a boolean_mask (its count changes every step) and whose Adam updates
    (static shapes: a long run of steps no dynamic op decides) come after it."""
    tf.reset_default_graph()
    tf.set_random_seed(1)
    rng = np.random.RandomState(5)
    x = tf.placeholder(tf.float64, [6, 4])
    keep = tf.placeholder(tf.bool, [6])
    h = tf.layers.dense(tf.layers.dense(x, 5, activation=tf.nn.tanh, name="a"), 3, name="b")
    loss = tf.reduce_sum(tf.square(tf.boolean_mask(h, keep)))
    train = tf.train.AdamOptimizer(0.1).minimize(loss)
    feeds = [(rng.randn(6, 4), np.arange(6) < n) for n in (2, 4, 5)][:steps]   # three counts
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = [sess.run([loss, train], {x: a, keep: m})[0] for a, m in feeds]
        low, = [v for v in sess._compiled.values() if v.segments]   # the step's, as it ran
        return losses, sess.run(tf.trainable_variables()), low


def test_a_long_run_of_static_shapes_after_a_dynamic_op_compiles_once(monkeypatch, caplog):
    from tinyflow.lower import segments
    with jax.log_compiles(True), caplog.at_level("WARNING"):
        losses, variables, low = _masked_adam_run(3)
    compiled = [r.getMessage() for r in caplog.records if "Finished XLA compilation of jit(segment_" in r.getMessage()]
    last = "jit(%s)" % low.segments[-1]
    # the Adam updates' segment was compiled once for the three counts, the masked ops' for each
    assert sum(last in m for m in compiled) == 1 and sum("jit(segment_2)" in m for m in compiled) == 3, compiled
    monkeypatch.setattr(segments, "STABLE_RUN", 10 ** 9)   # no such cut: the same values
    want_losses, want_variables, uncut = _masked_adam_run(3)
    assert len(uncut.segments) < len(low.segments)
    np.testing.assert_allclose(losses, want_losses, rtol=1e-12)
    for got, want in zip(variables, want_variables):
        np.testing.assert_allclose(got, want, rtol=1e-12)
