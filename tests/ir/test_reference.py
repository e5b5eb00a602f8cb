"""lower/reference.py: the plan executed (or replayed) in one arena must give the jitted results."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.runtime.memory_report import plan_for
from tinyflow.lower import reference


def _bound(sess, fetches, feeds=None):
    b = sess.lowered(fetches, feeds)
    return b.function, b.args


def test_concrete_shapes_follow_the_feeds():
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.reshape(tf.tanh(x), tf.stack([tf.shape(x)[0] * 3]))
    with tf.Session() as sess:
        lowered, args = _bound(sess, y, {x: np.zeros((5, 3), np.float32)})
        shapes = reference.concrete_shapes(lowered, args)
    assert shapes[y] == ((15,), np.dtype(np.float32))
    assert shapes[tf.get_default_graph().get_tensor_by_name("Tanh:0")] == ((5, 3), np.dtype(np.float32))


@pytest.mark.slow
def test_executed_plan_equals_the_jitted_function():
    x = tf.placeholder(tf.float32, [None, 4])
    logits = tf.matmul(x, tf.constant(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)))
    labels = tf.one_hot(tf.argmax(logits, 1), 3) if hasattr(tf, "one_hot") else tf.nn.softmax(logits)
    xent = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)   # two outputs inside
    y = tf.reduce_sum(xent) + tf.reduce_max(tf.nn.relu(logits))
    feeds = {x: np.linspace(-2, 2, 24, dtype=np.float32).reshape(6, 4)}
    with tf.Session() as sess:
        lowered, args = _bound(sess, [y, xent], feeds)
        plan = plan_for(lowered, args)
        finals, fetches = reference.execute(lowered, plan, args)
        expected = sess.run([y, xent], feeds)
    np.testing.assert_allclose(fetches[0], expected[0], rtol=1e-5)
    np.testing.assert_allclose(fetches[1], expected[1], rtol=1e-5)
    assert finals == ()
    assert reference.verify(lowered, plan, args)


@pytest.mark.slow
def test_variable_updates_stay_outside_the_arena():
    x = tf.placeholder(tf.float32, [4, 2])
    w = tf.Variable(np.ones((2, 2), np.float32))
    loss = tf.reduce_sum(tf.square(tf.matmul(x, w)))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    feeds = {x: np.arange(8, dtype=np.float32).reshape(4, 2) / 8}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        lowered, args = _bound(sess, [train, loss], feeds)
        plan = plan_for(lowered, args)
        assert w.op.outputs[0] in plan.arguments and all(t.op.type != "ApplyGradientDescent" for t in plan.live)
        finals, fetches = reference.execute(lowered, plan, args)
        jit_finals, jit_fetches = reference.run_jitted(lowered, args)
        np.testing.assert_allclose(finals[0], jit_finals[0], rtol=1e-6)
        np.testing.assert_allclose(fetches[0], jit_fetches[0], rtol=1e-6)
        np.testing.assert_array_equal(sess.run(w), np.ones((2, 2)))   # run_jitted donated copies only
        sess.run(train, feeds)
        np.testing.assert_allclose(sess.run(w), finals[0], rtol=1e-6)


def _broken(plan_buffers_planner):
    """A plan from `planner`, for a chain whose values would be corrupted if they shared bytes."""
    x = tf.placeholder(tf.float32, [3, 3])
    a = tf.tanh(x)
    b = tf.exp(a)
    c = tf.matmul(a, b) + a     # a and b are both live at the MatMul
    with tf.Session() as sess:
        lowered, args = _bound(sess, c, {x: np.eye(3, dtype=np.float32)})
        return lowered, args, plan_for(lowered, args, planner=plan_buffers_planner, inplace=False), (a, b)


@pytest.mark.slow
def test_a_plan_sharing_live_storage_is_caught():
    def overlap_a_and_b(buffers):
        offs, top = [], 0
        for buf in buffers:      # side by side, except b goes where a is
            offs.append(top)
            top += buf.size
        names = [buf.name.split(":")[0] for buf in buffers]   # Interval.name: the values' tensor names
        offs[names.index("Exp")] = offs[names.index("Tanh")]
        return offs

    lowered, args, plan, (a, b) = _broken(overlap_a_and_b)
    assert plan.offset(a) == plan.offset(b) and plan.live[a][1] > plan.live[b][0]
    assert [(p.values[0], q.values[0]) for p, q in plan.overlaps()] == [(a, b)]
    _, got = reference.execute(lowered, plan, args)
    _, want = reference.run_jitted(lowered, args)
    assert not np.allclose(got[0], want[0])
    assert reference.verify(lowered, plan, args) is False
    assert reference.verify(lowered, plan, args, execute_ops=True) is False
    assert reference.replay(lowered, plan, reference.all_values(lowered, args)) is False
    lowered, args, good, _ = _broken(None)
    assert reference.verify(lowered, good, args) is True
    assert reference.verify(lowered, good, args, execute_ops=True) is True
    assert reference.replay(lowered, good, reference.all_values(lowered, args)) is True


def test_all_values_are_what_the_ops_give_one_by_one():
    """The replay's values (one jitted function returning every value) equal the values the
    reference executor computes op by op with every value in its own bytes."""
    x = tf.placeholder(tf.float32, [3, 3])
    y = tf.reduce_sum(tf.matmul(tf.tanh(x), tf.exp(x)), axis=1)
    with tf.Session() as sess:
        lowered, args = _bound(sess, y, {x: np.arange(9, dtype=np.float32).reshape(3, 3) / 9})
    values = reference.all_values(lowered, args)
    name = {s.op.type: s.outs[0] for s in lowered.program.steps}
    assert {name["Tanh"], name["Exp"], name["MatMul"]} <= set(values)
    np.testing.assert_allclose(values[name["Tanh"]], np.tanh(np.arange(9).reshape(3, 3) / 9), rtol=1e-6)
    np.testing.assert_allclose(values[name["MatMul"]], values[name["Tanh"]] @ values[name["Exp"]], rtol=1e-5)
    _, fetches = reference.interpret(lowered.program, args)
    np.testing.assert_allclose(values[lowered.program.fetch_names[0]], fetches[0], rtol=1e-6)


def test_a_buffer_too_small_raises():
    lowered, args, plan, (a, b) = _broken(None)
    plan.buffer_of(b).size = 4
    with pytest.raises(ValueError, match="does not fit its planned buffer"):
        reference.execute(lowered, plan, args)
    with pytest.raises(ValueError, match="does not fit its planned buffer"):
        reference.replay(lowered, plan, reference.all_values(lowered, args))
    assert reference.verify(lowered, plan, args) is False
