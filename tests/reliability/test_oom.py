"""Out of memory in a training step, on the CPU too, keeps every variable (issue 31, item 1)."""
import jax
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.graph import errors
from tinyflow.runtime import executables


def _model():
    x = tf.placeholder(tf.float32, [None, 8])
    w = tf.Variable(np.ones((1,), np.float32))
    big = tf.matmul(x, x, transpose_b=True)   # [n, n]: 78 GB fetched for n = 140,000
    train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(tf.reduce_sum(x) * tf.reduce_sum(w))
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    sess.run([train, big], {x: np.ones((3, 8), np.float32)})
    return sess, x, big, train


def _state(sess):
    return [np.array(v) for v in sess.run(tf.global_variables())]


def test_a_step_larger_than_the_machine_is_refused_before_dispatch_and_keeps_every_variable():
    _, total = executables.memory()
    if total is None:
        pytest.skip("no /proc/meminfo: the memory of this machine is unknown")
    sess, x, big, train = _model()
    before = _state(sess)
    n = int((2 * total / 4) ** 0.5) + 1   # the fetched [n, n] float32 matrix: twice the machine
    with pytest.raises(errors.ResourceExhaustedError, match=r"OOM when running the step \[MatMul:0, Momentum\]"):
        sess.run([train, big], {x: np.ones((n, 8), np.float32)})
    for a, b in zip(before, _state(sess)):
        np.testing.assert_array_equal(a, b)
    sess.run(train, {x: np.ones((3, 8), np.float32)})   # and the session goes on
    assert not np.array_equal(_state(sess)[0], before[0])


def test_a_step_needing_much_of_the_free_memory_does_not_donate_so_a_failure_after_dispatch_keeps_it(monkeypatch):
    sess, x, big, train = _model()
    feed = {x: np.ones((50, 8), np.float32)}
    low = [v for v in sess._compiled.values() if v.rw_vars][0]
    # the program for 50 rows needs ~10 kB; with 8 kB free it must not donate
    monkeypatch.setattr(executables, "memory", lambda: (8000, 10 ** 12))
    sess.run([train, big], feed)
    entry = low.executables.entries[((50, 8),)]
    assert not entry.donates and entry.waits and entry.need > 4000
    before = _state(sess)
    real = entry.call

    def fails_after_dispatch(*args):
        real(*args)   # the step ran; then XLA reports the allocation failure
        raise jax.errors.JaxRuntimeError("RESOURCE_EXHAUSTED: Out of memory allocating 10000 bytes.")
    monkeypatch.setattr(entry, "call", fails_after_dispatch)
    with pytest.raises(errors.ResourceExhaustedError, match="Out of memory allocating"):
        sess.run([train, big], feed)
    for a, b in zip(before, _state(sess)):
        np.testing.assert_array_equal(a, b)


def test_a_small_step_donates_on_the_cpu():
    sess, x, big, train = _model()
    low = [v for v in sess._compiled.values() if v.rw_vars][0]
    entry = low.executables.entries[((3, 8),)]
    assert entry.donates == (jax.default_backend() == "cpu") and entry.need < 10 ** 6


def test_out_of_memory_while_tracing_is_resource_exhausted_naming_the_op():
    # the multiples come from a fed shape: known only while tracing, so the tile is computed then
    # (a tile of constant multiples over 1,000 elements is left to XLA instead: lower/program.py)
    w = tf.Variable(np.ones((1,), np.float32))
    x = tf.placeholder(tf.float32, [None])
    n = tf.shape(x)[0] * 400000
    step = tf.assign_add(w, tf.reduce_sum(tf.tile(tf.ones([1, 1]), tf.stack([n, n])))[None])
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    with pytest.raises(errors.ResourceExhaustedError, match=r"node Tile|OOM when running the step"):
        sess.run(step, {x: np.ones(1, np.float32)})
    np.testing.assert_array_equal(sess.run(w), [1.0])


def test_on_an_accelerator_a_call_without_room_runs_the_program_that_keeps_the_old_buffers(monkeypatch):
    """Before each call on an accelerator the device's free memory is read again: with room the
    donating program runs; without, its twin that keeps the old buffers, so that a failure after
    dispatch (here: the runtime reporting out of memory once the step ran) leaves every variable."""
    sess, x, big, train = _model()
    feed = {x: np.ones((3, 8), np.float32)}
    low = [v for v in sess._compiled.values() if v.rw_vars][0]
    table = low.executables
    entry = table.entries[((3, 8),)]
    assert entry.donates
    free = [10 ** 12]
    monkeypatch.setattr(table, "platform", "gpu")   # what a Session on an accelerator builds
    monkeypatch.setattr(table, "memory", lambda: (free[0], 10 ** 12))
    assert table.for_call(entry, None) is entry   # room: donate
    sess.run([train, big], feed)
    free[0] = entry.need   # the step would take over DONATE_SHARE of what is free now
    before = _state(sess)
    real_for_call = table.for_call
    chosen = []

    def for_call(e, a):
        chosen.append(real_for_call(e, a))
        return chosen[-1]
    monkeypatch.setattr(table, "for_call", for_call)
    sess.run([train, big], feed)   # runs the twin: not donating, and the Session waited for it
    assert chosen[-1] is entry.kept and not chosen[-1].donates and chosen[-1].waits
    after_one = _state(sess)
    assert not np.array_equal(after_one[0], before[0])
    real = entry.kept.call

    def fails_after_dispatch(*a):
        real(*a)
        raise jax.errors.JaxRuntimeError("RESOURCE_EXHAUSTED: Out of memory allocating 10000 bytes.")
    monkeypatch.setattr(entry.kept, "call", fails_after_dispatch)
    with pytest.raises(errors.ResourceExhaustedError, match="Out of memory allocating"):
        sess.run([train, big], feed)
    for a, b in zip(after_one, _state(sess)):
        np.testing.assert_array_equal(a, b)
