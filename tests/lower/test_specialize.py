"""A fetch set whose shapes are decided by fed values (a SparseTensor's fed dense_shape, a fed count) is
compiled again for those values (lower/specialize.py), and a tf.sparse_retain read by
sparse_tensor_dense_matmul decides no shape: counted in compiles and segments, values as without."""
import jax
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.lower import specialize


@pytest.fixture(autouse=True)
def _graph():
    tf.reset_default_graph()
    yield


def _xla_compiles(caplog):
    return [r.getMessage().split("compilation of ")[1].split(" ")[0] for r in caplog.records
            if "Finished XLA compilation of" in r.getMessage()]


def _gcn_step(values, shape_feed=True):
    """A GCN-like step (sparse placeholder @ variable, a fed count for a uniform draw's shape): its
    losses and variable over `values` (the SparseTensorValues fed), and the step's Lowered."""
    tf.reset_default_graph()
    sp = tf.sparse_placeholder(tf.float64) if shape_feed else tf.sparse_placeholder(
        tf.float64, shape=np.array(values[0].dense_shape, np.int64))
    count = tf.placeholder(tf.int32)
    w = tf.Variable(np.linspace(-1, 1, 12).reshape(4, 3))
    noise = tf.reduce_sum(tf.random_uniform(count, dtype=tf.float64) * 0.0)   # shape from a fed count
    y = tf.sparse_tensor_dense_matmul(sp, w)
    loss = tf.reduce_sum(tf.square(y)) + noise
    train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = [sess.run([loss, train], {sp: v, count: [len(v.values)]})[0] for v in values]
        low, = [x for x in sess._compiled.values() if train in x.sub.targets]
        return losses, sess.run(w), low


def _value(nnz, rows=3, seed=0):
    rng = np.random.RandomState(seed)
    return tf.SparseTensorValue(np.stack([rng.randint(0, rows, nnz), rng.randint(0, 4, nnz)], 1),
                                rng.randn(nnz), np.array([rows, 4]))


def test_fed_dense_shape_compiles_once_as_one_function(caplog):
    values = [_value(5, seed=s) for s in range(3)]
    with jax.log_compiles(True), caplog.at_level("WARNING"):
        losses, w, low = _gcn_step(values)
    compiled = _xla_compiles(caplog)
    assert low.program.dynamic and low.specialized is not None   # as built: segments; specialized on
    assert [t.op.name for t in low.specialized.tensors] == ["Placeholder", "Placeholder_3"]   # dense_shape, count
    ((one, _),) = low.specialized.entries.values()
    assert not one.program.segmented
    # the same values 3 times: one program for the step (and one for the initializer, one reading w), no segment
    assert not [c for c in compiled if c.startswith("jit(segment_")] and compiled.count("jit(step)") == 3, compiled
    # the same values as the graph with the shape as a constant, and as the segments compute
    want_losses, want_w, _ = _gcn_step(values, shape_feed=False)
    np.testing.assert_allclose(losses, want_losses, rtol=1e-13)
    np.testing.assert_allclose(w, want_w, rtol=1e-13)
    specialize.ENABLED = False
    try:
        seg_losses, seg_w, seg_low = _gcn_step(values)
    finally:
        specialize.ENABLED = True
    assert seg_low.specialized is None and seg_low.program.segmented
    np.testing.assert_allclose(losses, seg_losses, rtol=1e-13)
    np.testing.assert_allclose(w, seg_w, rtol=1e-13)


def test_values_that_keep_changing_fall_back_to_segments(monkeypatch):
    monkeypatch.setenv("TINYFLOW_SHAPE_CACHE_SIZE", "2")
    rows = [2, 3, 2, 4, 5, 6, 2]   # dense_shape [rows, 4]: compiled for 2, 3, 4, 5; 6 is a third new one in a row
    values = [_value(4, rows=r, seed=r) for r in rows]
    losses, w, low = _gcn_step(values)
    assert low.specialized.compiles == 4 and low.specialized.base is low and not low.specialized.entries
    want, rate = np.linspace(-1, 1, 12).reshape(4, 3), float(np.float32(0.01))   # gradient descent in numpy
    for v, loss in zip(values, losses):
        a = np.zeros(v.dense_shape)
        np.add.at(a, tuple(v.indices.T), v.values)
        np.testing.assert_allclose(loss, np.sum((a @ want) ** 2), rtol=1e-12)
        want = want - rate * 2 * a.T @ (a @ want)
    np.testing.assert_allclose(w, want, rtol=1e-12)


def test_sparse_retain_read_by_matmul_decides_no_shape(caplog):
    """A random mask's count (gcn's sparse dropout): sparse_tensor_dense_matmul reads every entry, those
    not kept as zeros; the result and its gradient equal the compacted form's bit for bit."""
    rng = np.random.RandomState(1)
    idx = np.stack([rng.randint(0, 6, 40), rng.randint(0, 5, 40)], 1)
    sp = tf.SparseTensor(idx, tf.constant(rng.randn(40)), [6, 5])
    mask = tf.placeholder(tf.bool, [40])
    b = tf.constant(rng.randn(5, 3))
    kept = tf.sparse_retain(sp, mask) * tf.constant(2.0, tf.float64)
    out = tf.sparse_tensor_dense_matmul(kept, b)
    compact = tf.SparseTensor(kept.indices, kept.values, kept.dense_shape)   # the same entries, no mask
    want = tf.sparse_tensor_dense_matmul(compact, b)
    grads = [tf.convert_to_tensor(tf.gradients(tf.reduce_sum(tf.sin(y)), b)[0]) for y in (out, want)]
    with tf.Session() as sess, jax.log_compiles(True), caplog.at_level("WARNING"):
        runs = [sess.run([out, grads[0]], {mask: rng.rand(40) < p}) for p in (0.3, 0.5, 0.8)]
        assert not [c for c in _xla_compiles(caplog) if "segment" in c]   # 3 counts kept: no segments
        for p in (0.3, 0.5, 0.8):
            m = rng.rand(40) < p
            got, got_grad, ref, ref_grad, values = sess.run([out, grads[0], want, grads[1], kept.values], {mask: m})
            assert np.array_equal(got, ref) and np.array_equal(got_grad, ref_grad)
            assert values.shape == (m.sum(),)   # the SparseTensor itself is still compacted
            dense = np.zeros((6, 5))
            np.add.at(dense, tuple(idx[m].T), 2.0 * sess.run(sp.values)[m])
            np.testing.assert_allclose(got, dense @ sess.run(b), rtol=1e-12)
    assert len(runs) == 3


def test_sparse_add_of_computed_values_runs_one_where():
    """tf.sparse_add's result (GAT's attention logits) takes its indices and values from one Where of
    the kept mask (each Where is a cut between segments); an exclusive cumprod of nothing is nothing."""
    a = tf.SparseTensor([[0, 1], [2, 3], [1, 1]], tf.placeholder(tf.float64, [3]), [3, 4])
    b = tf.SparseTensor([[0, 1], [1, 0]], tf.constant([-1.0, 5.0], tf.float64), [3, 4])
    total = tf.sparse_add(a, b)
    empty = tf.cumprod(tf.zeros([0]), exclusive=True)
    with tf.Session() as sess:
        got, nothing = sess.run([total, empty], {a.values: [1.0, 2.0, 3.0]})
        low = sess.lowered([total.indices, total.values], {a.values: [1.0, 2.0, 3.0]})
    assert [s.op.type for s in low.function.program.steps if s.dynamic] == ["Where"]
    np.testing.assert_array_equal(got.indices, [[0, 1], [1, 0], [1, 1], [2, 3]])
    np.testing.assert_array_equal(got.values, [0.0, 5.0, 3.0, 2.0])
    assert nothing.shape == (0,)


def _masked_sparse_adam(counts):
    """A specialized step that keeps a dynamic op of its own (a boolean_mask of a fed mask) before a long
    run of static-shape steps (Adam): its losses and the specialized functions it ran."""
    tf.reset_default_graph()
    sp = tf.sparse_placeholder(tf.float64)
    keep = tf.placeholder(tf.bool, [9])
    w = tf.Variable(np.linspace(-1, 1, 12).reshape(4, 3))
    y = tf.reshape(tf.sparse_tensor_dense_matmul(sp, w), [-1])   # 9 values once dense_shape is known
    loss = tf.reduce_sum(tf.square(tf.boolean_mask(y, keep)))
    train = tf.train.AdamOptimizer(0.1).minimize(loss)
    value, lows = _value(6), []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = [sess.run([loss, train], {sp: value, keep: np.arange(9) < n})[0] for n in counts]
        base, = [x for x in sess._compiled.values() if train in x.sub.targets]
        if base.specialized is not None:
            lows = [low for low, _ in base.specialized.entries.values()]
    return losses, lows


@pytest.mark.slow
def test_specialized_segments_cut_out_static_runs_once_a_count_changes():
    losses, lows = _masked_sparse_adam([4, 4])   # one count: segments only around the Where
    (uncut,) = lows
    assert not uncut.program.stable_cuts and len(uncut.segments) == 2
    losses, lows = _masked_sparse_adam([4, 4, 6, 6])   # another count: compiled again, the static runs cut out
    (cut,) = lows
    assert cut.program.stable_cuts and len(cut.segments) > 2
    specialize.ENABLED = False
    try:
        want, _ = _masked_sparse_adam([4, 4, 6, 6])
    finally:
        specialize.ENABLED = True
    np.testing.assert_allclose(losses, want, rtol=1e-12)
