"""Run-time checks (tf.Assert and the assert_* family, check_numerics, indices and labels out of
range) and printing (tf.Print, tf.print): a failed check raises TF's InvalidArgumentError naming the
op, and no variable changes, even those the jitted function donated."""
import sys

import numpy as np
import pytest

import tinyflow as tf


def _session():
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    return sess


def test_assert_passes_and_fails_with_tf_message():
    x = tf.placeholder(tf.float32, [None], name="x")
    check = tf.assert_positive(x, message="need positive")
    with tf.control_dependencies([check]):
        y = tf.identity(x) * 2.0
    sess = _session()
    np.testing.assert_allclose(sess.run(y, {x: [1.0, 2.0]}), [2.0, 4.0])
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        sess.run(y, {x: [1.0, -2.0, 3.0, 4.0]})
    msg = str(e.value)
    assert msg.startswith("assertion failed: [need positive] [Condition x > 0 did not hold element-wise:] "
                          "[x (x:0) = ] [1 -2 3...]")
    assert "assert_positive/Assert/Assert" in msg and e.value.op is check


@pytest.mark.parametrize("fn, good, bad", [
    (tf.assert_equal, ([1, 2], [1, 2]), ([1, 2], [1, 3])),
    (tf.assert_none_equal, ([1, 2], [2, 1]), ([1, 2], [1, 3])),
    (tf.assert_less, ([1, 2], [2, 3]), ([1, 2], [2, 2])),
    (tf.assert_less_equal, ([1, 2], [1, 2]), ([1, 3], [2, 2])),
    (tf.assert_greater, ([2, 3], [1, 2]), ([2, 2], [1, 2])),
    (tf.assert_greater_equal, ([1, 2], [1, 2]), ([1, 1], [1, 2])),
])
def test_binary_asserts_on_fed_values(fn, good, bad):
    a, b = tf.placeholder(tf.int32, [2]), tf.placeholder(tf.int32, [2])
    op = fn(a, b)
    sess = _session()
    assert sess.run(op, {a: good[0], b: good[1]}) is None
    with pytest.raises(tf.errors.InvalidArgumentError, match="did not hold element-wise"):
        sess.run(op, {a: bad[0], b: bad[1]})


@pytest.mark.parametrize("fn, good, bad", [
    (tf.assert_negative, [-1.0], [0.0]), (tf.assert_non_negative, [0.0], [-1.0]),
    (tf.assert_non_positive, [0.0], [1.0]), (tf.debugging.assert_positive, [1.0], [0.0]),
])
def test_sign_asserts(fn, good, bad):
    x = tf.placeholder(tf.float32, [1])
    op = fn(x)
    sess = _session()
    sess.run(op, {x: good})
    with pytest.raises(tf.errors.InvalidArgumentError):
        sess.run(op, {x: bad})


def test_assert_near_uses_tolerances():
    x = tf.placeholder(tf.float64, [2])
    op = tf.assert_near(x, tf.constant([1.0, 2.0], tf.float64), rtol=0.0, atol=0.1)
    sess = _session()
    sess.run(op, {x: [1.05, 1.95]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="not equal to tolerance"):
        sess.run(op, {x: [1.2, 2.0]})


def test_assert_equal_of_constants_fails_while_building():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"x \(Const:0\) = \n\[1 2\]"):
        tf.assert_equal(tf.constant([1, 2]), tf.constant([1, 3]))
    assert tf.assert_equal(tf.constant([1, 2]), tf.constant([1, 2])).type == "Assert"


def test_static_rank_and_type_checks():
    with pytest.raises(ValueError, match="must have rank 3.  Received rank 2"):
        tf.assert_rank(tf.ones([2, 3]), 3)
    assert tf.assert_rank(tf.ones([2, 3]), 2).type == "NoOp"
    assert tf.assert_rank_at_least(tf.ones([2, 3]), 1).type == "NoOp"
    with pytest.raises(ValueError):
        tf.assert_rank_in(tf.ones([2]), [0, 2])
    with pytest.raises(TypeError, match="must be of type"):
        tf.assert_type(tf.ones([2]), tf.int32)
    with pytest.raises(TypeError, match="integer"):
        tf.assert_integer(tf.ones([2]))
    with pytest.raises(ValueError, match="Expected scalar"):
        tf.assert_scalar(tf.ones([2]))
    with pytest.raises(ValueError, match="rank 0"):
        tf.Assert(tf.constant([True, False]), ["not a scalar condition"])


def test_assert_rank_of_unknown_rank_checks_at_run_time():
    x = tf.placeholder(tf.float32)  # rank unknown until fed
    op = tf.assert_rank(x, 2)
    sess = _session()
    sess.run(op, {x: np.ones((2, 2))})
    with pytest.raises(tf.errors.InvalidArgumentError, match="must have rank 2"):
        sess.run(op, {x: np.ones(3)})


def test_failed_check_changes_no_variable():
    """The training step reads (and donates) w; the failed assert gives w back untouched."""
    x = tf.placeholder(tf.float32, [None, 2])
    w = tf.Variable([[1.0], [2.0]])
    step = tf.Variable(0, trainable=False)
    loss = tf.reduce_sum(tf.matmul(x, w))
    with tf.control_dependencies([tf.debugging.assert_less(x, 10.0)]):
        loss = tf.identity(loss)
    train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss, global_step=step)
    sess = _session()
    sess.run(train, {x: [[1.0, 1.0]]})
    before = {v.name: sess.run(v) for v in tf.global_variables()}
    with pytest.raises(tf.errors.InvalidArgumentError):
        sess.run(train, {x: [[1.0, 20.0]]})
    for v in tf.global_variables():
        np.testing.assert_array_equal(sess.run(v), before[v.name], err_msg=v.name)
    sess.run(train, {x: [[1.0, 1.0]]})
    assert sess.run(step) == 2


@pytest.mark.slow
def test_a_failed_check_keeps_sparse_updated_tables_bit_identical():
    """Row updates (SparseApplyMomentum, SparseApplyAdam, SparseApplyAdagrad) of donated tables run under
    the checks' one conditional (render.gated): a passing step equals the ungated update, XLA updates the
    tables in place (no copy of one in the compiled step), and a failed tf.Assert, check_numerics or index
    check (the lookup's, or the update's own) leaves every table and slot as it was, bit for bit."""
    from tinyflow.lower import pipeline
    rows, dim = 50, 3
    rs = np.random.RandomState(0)
    tables = [tf.Variable(rs.randn(rows, dim).astype(np.float32), name="t%d" % k) for k in range(4)]
    ids, extra = tf.placeholder(tf.int32, [None]), tf.placeholder(tf.int32, [None])
    flag, scale = tf.placeholder(tf.bool, []), tf.placeholder(tf.float32, [])
    looked = [tf.nn.embedding_lookup(t, ids) for t in tables[:3]]   # a linear term too: a read nothing orders
    loss = tf.check_numerics((tf.reduce_sum(tf.square(looked[0])) + tf.reduce_sum(tf.tanh(looked[1])) +
                              tf.reduce_sum(looked[2] * [1.0, -2.0, 0.5])) * scale, "loss")
    with tf.control_dependencies([tf.Assert(flag, [scale])]):
        loss = tf.identity(loss)
    opts = [tf.train.MomentumOptimizer(0.1, 0.9), tf.train.AdamOptimizer(0.01), tf.train.AdagradOptimizer(0.1)]
    train = tf.group(*[o.apply_gradients([(tf.gradients(loss, t)[0], t)]) for o, t in zip(opts, tables)] + [
        tf.train.AdagradOptimizer(0.1).apply_gradients([(tf.IndexedSlices(tf.ones([tf.shape(extra)[0], dim]), extra),
                                                         tables[3])])])   # the update's own index check
    sess = tf.Session()
    sess.donate = "always"
    sess.run(tf.global_variables_initializer())
    good = {ids: [1, 7, 1, 49], extra: [0, 3, 3], flag: True, scale: 1.0}
    bound = sess.lowered([loss, train], good)
    assert bound.function.donate and "= gate(ok, updates, " in bound.source
    hlo = bound.hlo
    assert " conditional(" in hlo and "f32[%d,%d]{1,0} copy(" % (rows, dim) not in hlo
    ungated = pipeline.compile_fetch_set([loss], [ids, extra, flag, scale], [train], checks=False)
    start = sess._variable_values(ungated.rw_vars)
    want, _ = ungated.call(start, sess._variable_values(ungated.ro_vars), [np.array(good[t], t.dtype.as_numpy_dtype)
                                                                            for t in ungated.sub.feeds])
    sess.run(train, good)
    for v, w in zip(ungated.updated, want):
        np.testing.assert_array_equal(sess._variable_value(v), w, err_msg=v.name)
    before = {v.name: sess.run(v) for v in tf.global_variables()}
    for bad, text in [({flag: False}, "assertion failed"), ({scale: np.nan}, "loss : Tensor had NaN values"),
                      ({ids: [1, 7, rows, 2]}, r"indices\[2\] = 50 is not in \[0, 50\)"),   # (same shapes:
                      ({ids: [-1, 7, 1, 2]}, r"indices\[0\] = -1 is not in \[0, 50\)"),    # no new compile)
                      ({extra: [2, rows + 3, 2]}, "Index 53 at offset 1 in indices is out of range")]:
        with pytest.raises(tf.errors.InvalidArgumentError, match=text):
            sess.run(train, {**good, **bad})
        for v in tf.global_variables():
            np.testing.assert_array_equal(sess.run(v), before[v.name], err_msg="%s after %s" % (v.name, text))
    sess.run(train, good)
    assert not np.array_equal(sess.run(tables[0]), before[tables[0].name])


def test_check_numerics_and_its_gradient():
    x = tf.placeholder(tf.float32, [None])
    y = tf.check_numerics(tf.log(x), "log of x")
    g, = tf.gradients(tf.reduce_sum(y), x)
    sess = _session()
    np.testing.assert_allclose(sess.run(g, {x: [1.0, 2.0]}), [1.0, 0.5])
    with pytest.raises(tf.errors.InvalidArgumentError, match="log of x : Tensor had NaN values"):
        sess.run(y, {x: [-1.0]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="log of x : Tensor had Inf values"):
        sess.run(y, {x: [0.0]})
    with pytest.raises(TypeError):
        tf.check_numerics(tf.constant([1, 2]), "ints")


@pytest.mark.slow
def test_verify_tensor_all_finite_and_add_check_numerics_ops():
    x = tf.placeholder(tf.float32, [2])
    y = tf.verify_tensor_all_finite(x * 2.0, "doubled")
    z = tf.sqrt(y)
    everything = tf.add_check_numerics_ops()
    sess = _session()
    np.testing.assert_allclose(sess.run(y, {x: [1.0, 2.0]}), [2.0, 4.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="doubled"):
        sess.run(y, {x: [np.inf, 1.0]})
    sess.run([z, everything], {x: [1.0, 2.0]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Sqrt:0 : Tensor had NaN values"):
        sess.run([z, everything], {x: [-1.0, 2.0]})


@pytest.mark.slow
def test_gather_index_out_of_range_raises_and_keeps_the_table():
    table = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2))
    ids = tf.placeholder(tf.int32, [None, 2])
    loss = tf.reduce_sum(tf.nn.embedding_lookup(table, ids))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    sess = _session()
    sess.run(train, {ids: [[0, 2]]})
    before = sess.run(table)
    for bad, text in (([[0, 1], [2, 3]], r"indices\[1,1\] = 3 is not in \[0, 3\)"),
                      ([[-1, 0]], r"indices\[0,0\] = -1 is not in \[0, 3\)")):
        with pytest.raises(tf.errors.InvalidArgumentError, match=text):
            sess.run(train, {ids: bad})
    np.testing.assert_array_equal(sess.run(table), before)


@pytest.mark.slow
def test_gather_nd_and_constant_indices_out_of_range():
    params = tf.constant(np.arange(6.0).reshape(3, 2))
    sess = _session()
    np.testing.assert_allclose(sess.run(tf.gather_nd(params, [[2, 1]])), [5.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = \[3, 1\] does not index into param "
                                                             r"shape \[3,2\]"):
        sess.run(tf.gather_nd(params, [[0, 0], [3, 1]]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[0\] = 7 is not in \[0, 3\)"):
        sess.run(tf.gather(params, [7]))


def test_sparse_softmax_cross_entropy_label_out_of_range():
    logits = tf.placeholder(tf.float32, [None, 3])
    labels = tf.placeholder(tf.int64, [None])
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    sess = _session()
    np.testing.assert_allclose(sess.run(loss, {logits: np.zeros((2, 3)), labels: [0, 2]}), [np.log(3)] * 2,
                               rtol=1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Received a label value of 3 which is outside the "
                                                             r"valid range of \[0, 3\).  Label values: 0 3"):
        sess.run(loss, {logits: np.zeros((2, 3)), labels: [0, 3]})


@pytest.mark.slow
def test_checks_appear_in_the_generated_source_and_plans_verify():
    table = tf.Variable(np.ones((4, 3), np.float32))
    ids = tf.placeholder(tf.int32, [None])
    loss = tf.reduce_sum(tf.gather(table, ids))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    sess = _session()
    src = sess.lowered(train, {ids: [1, 2]}).source
    assert "op.GatherV2.check(" in src and "= gate(ok, updates, " in src
    report = sess.memory_report(train, {ids: [1, 2]})
    assert report.verified


def test_print_writes_message_and_data_first_n_times(capfd):
    x = tf.placeholder(tf.float32, [None])
    y = tf.reduce_sum(tf.Print(x, [x, tf.shape(x)], "x is ", first_n=2))
    sess = _session()
    for _ in range(3):
        assert sess.run(y, {x: [1.0, 2.0, 3.0, 4.0]}) == 10.0
    err = capfd.readouterr().err
    assert err.count("x is [1 2 3...][4]") == 2


def test_tf_print_is_an_op_that_prints_when_run(capfd):
    x = tf.placeholder(tf.float32, [3])
    op = tf.print("loss:", tf.reduce_sum(x), x, output_stream=sys.stdout, sep="|")
    with tf.control_dependencies([op]):
        y = tf.identity(x)
    sess = _session()
    sess.run(y, {x: [1.0, 2.5, 3.0]})
    assert capfd.readouterr().out == "loss:|6.5|[1 2.5 3]\n"
    assert sess.run(op, {x: [1.0, 1.0, 1.0]}) is None
    assert capfd.readouterr().out == "loss:|3|[1 1 1]\n"
