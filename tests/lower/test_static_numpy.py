"""Values known while tracing (shape computations, constants) are computed by the ops' numpy rules
(OpDef.numpy), bit for bit what their JAX rules give, so tracing a fetch set compiles no XLA program
of its own per primitive and shape (issue 30: 20-30 of them at a tutorial script's start); a large
value of constants alone is left to XLA."""
import jax
import pytest
import jax.monitoring
import numpy as np

import tinyflow as tf
from tinyflow.graph.core import constant_value
from tinyflow.graph.registry import get_op_def
from tinyflow.lower import compiler_options, program
from tinyflow.passes import prune, state

TRACED = []   # names of the functions JAX traces while ACTIVE (an eager primitive is traced as a jit)
ACTIVE = [False]


def _listen(event, duration, **kw):
    if ACTIVE[0] and event.endswith("jaxpr_trace_duration"):
        TRACED.append(kw.get("fun_name"))


jax.monitoring.register_event_duration_secs_listener(_listen)


def _both(t):
    """(numpy rule's value, JAX rule's value) of tensor t's op on its inputs' constant values."""
    op = t.op
    args = [np.asarray(constant_value(i)) for i in op.inputs]
    opdef = get_op_def(op.type)
    assert all(a.dtype != object for a in args), op.name   # every input a constant
    with jax.ensure_compile_time_eval():
        ref = opdef.lower(op.attrs, *args)
    mine = opdef.numpy and opdef.numpy(op.attrs, *args)   # None: left to the JAX rule
    return (None if mine is None else np.asarray(mine)), np.asarray(ref)


def test_numpy_rules_give_the_jax_rules_values_and_dtypes():
    x = tf.constant(np.arange(24, dtype=np.int64).reshape(4, 6))
    f = tf.constant(np.array([1.5, -2.25, 3e38], np.float32))
    g = tf.constant(np.array([-0.5, np.nan, 3e38], np.float32))
    cases = [tf.fill([2, 3], np.float32(1.5)), tf.fill(tf.constant([3], tf.int32), tf.constant(7, tf.int64)),
             tf.stack([tf.constant([1, 2]), tf.constant([3, 4])], axis=1),
             tf.invert_permutation(tf.constant([2, 0, 3, 1])),
             x[1:, ::-2], x[:, 3], x[..., None, 2:5],
             tf.gather(x, tf.constant([3, 0, 3]), axis=0), tf.gather(x, tf.constant([[5], [1]]), axis=1),
             f + g, f - g, f * g, tf.maximum(f, g), tf.minimum(g, f), tf.realdiv(f, g),
             tf.realdiv(tf.constant([1.0, -0.0, 0.0, np.inf, 7.0], tf.float64), tf.constant([3.0, 2.0, 0.0, -1.0, 0.0],
                                                                                           tf.float64)),
             tf.realdiv(f, tf.constant(np.float32(3e38))),   # a subnormal result: the JAX rule's (flushed on a CPU)
             tf.concat([x, x[:2]], 0), tf.concat([f[None], g[None]], -1), tf.concat([tf.constant([True])] * 3, 0),
             tf.constant(2 ** 31 - 1) + tf.constant(1),   # int32 wraps in both
             tf.constant(np.int64(7)) * tf.constant(np.int64(-3))]
    left = []
    for t in cases:
        with np.errstate(all="ignore"):   # (inf and NaN on purpose)
            mine, ref = _both(t)
        if mine is None:   # no numpy rule, or a value it leaves to the JAX rule
            left.append(t.op.type)
            continue
        assert mine.dtype == ref.dtype == t.dtype.np, t.op.name
        np.testing.assert_array_equal(mine, ref, err_msg=t.op.name)
    assert left == ["Maximum", "Minimum", "RealDiv"]   # (TF's NaN rules; the subnormal quotient)


def test_a_gather_index_out_of_range_is_left_to_the_jax_rule_and_its_check():
    t = tf.gather(tf.constant([1.0, 2.0]), tf.constant([-1]))
    assert get_op_def("GatherV2").numpy(t.op.attrs, np.array([1.0, 2.0]), np.array([-1]), np.array(0)) is None
    with tf.Session() as sess:
        try:
            sess.run(t)
        except tf.errors.InvalidArgumentError as e:
            assert "indices[0] = -1 is not in [0, 2)" in str(e)
        else:
            raise AssertionError("no error for index -1")


@pytest.mark.slow
def test_tracing_a_training_step_compiles_no_program_per_shape_computation():
    # odd sizes: no earlier test can have compiled these primitives' shapes
    x = tf.placeholder(tf.float32, [None, 7, 5])
    y = tf.placeholder(tf.int32, [None])
    outputs, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(11), x, dtype=tf.float32)
    logits = tf.layers.dense(outputs[:, -1], 3)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    opt = tf.train.AdamOptimizer(1e-3)   # clipped as the tutorial scripts do (a static RealDiv; a concat)
    grads, variables = zip(*opt.compute_gradients(loss))
    train = opt.apply_gradients(zip(tf.clip_by_global_norm(grads, 5.0)[0], variables))
    feed = {x: np.ones((13, 7, 5), np.float32), y: np.arange(13) % 3}
    compiler_options.known(compiler_options.YNN_FLAG, compiler_options.YNN_NO_CONV)   # its probe, once a process
    del TRACED[:]
    ACTIVE[0] = True
    try:
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first = sess.run([train, loss], feed)[1]
            second = sess.run([train, loss], feed)[1]
    finally:
        ACTIVE[0] = False
    assert np.isfinite(first) and second < first
    assert TRACED == ["step", "step"], TRACED   # the two fetch sets, nothing else


def test_a_large_value_of_constants_is_computed_by_xla_a_small_one_while_tracing():
    big, small = tf.zeros([1001]), tf.zeros([1000])
    sub = prune.prune([big, small], [], [])
    prog = program.plan(sub, state.analyze(sub))
    static = {s.op.name: s.static for s in prog.steps}
    assert static[big.op.name] is False and static[small.op.name] is True
    with tf.Session() as sess:
        a, b = sess.run([big, small])
    assert a.shape == (1001,) and b.shape == (1000,) and not a.any() and not b.any()
