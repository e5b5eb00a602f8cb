"""A step that fails after dispatch, threads, feeds and the executable cache (issue: nothing lost)."""
import threading

import jax
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.graph import errors
from tinyflow.lower.program import Names


def _model(opt):
    x = tf.placeholder(tf.float32, [None, 2])
    w = tf.Variable(np.ones((2, 1), np.float32))
    loss = tf.reduce_sum(tf.square(tf.matmul(x, w)))
    return x, w, loss, opt.minimize(loss)


def _state(sess):
    return [np.array(v) for v in sess.run(tf.global_variables())]


@pytest.mark.slow
@pytest.mark.parametrize("opt", [tf.train.MomentumOptimizer(0.1, 0.9), tf.train.AdamOptimizer(0.1)])
def test_a_py_func_raising_in_a_training_step_keeps_every_variable_and_slot(opt):
    x, w, loss, train = _model(opt)

    def boom(v):
        raise RuntimeError("host side failed")
    bad = tf.py_func(boom, [loss], tf.float32)
    bad.set_shape([])
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    feed = {x: np.ones((3, 2), np.float32)}
    sess.run(train, feed)
    before = _state(sess)
    with pytest.raises(errors.OpError) as e:
        sess.run([train, bad], feed)
    assert "host side failed" in str(e.value)
    after = _state(sess)
    for a, b in zip(before, after):
        np.testing.assert_array_equal(a, b)
    sess.run(train, feed)   # and the session goes on
    assert not np.array_equal(sess.run(w), before[0])


def test_a_device_failure_after_dispatch_keeps_the_variables(monkeypatch):
    x, w, loss, train = _model(tf.train.GradientDescentOptimizer(0.1))
    sess = tf.Session()
    sess.donate = "never"   # what an accelerator does by default: out of memory can come after dispatch
    sess.run(tf.global_variables_initializer())
    feed = {x: np.ones((3, 2), np.float32)}
    sess.run(train, feed)
    before = sess.run(w)
    lowered = [v for v in sess._compiled.values() if v.rw_vars][0]
    entry, = lowered.executables.entries.values()   # the program for this shape of the feeds
    real = entry.call

    def fails_after_dispatch(*args):
        real(*args)   # the step ran on the device; then the runtime reports a failure
        raise jax.errors.JaxRuntimeError("RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1 bytes.")
    monkeypatch.setattr(entry, "call", fails_after_dispatch)
    with pytest.raises(errors.ResourceExhaustedError, match="Out of memory"):
        sess.run(train, feed)
    np.testing.assert_array_equal(sess.run(w), before)


def test_who_donates_steps_yes_py_func_steps_no():
    from tinyflow.lower import pipeline
    x, w, loss, train = _model(tf.train.GradientDescentOptimizer(0.1))
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    low = sess.lowered(train, {x: np.ones((1, 2), np.float32)}).function
    assert low.rw_vars and low.donate          # checks gate the updates; memory is checked before dispatch
    assert not low.waits                       # ... so the new values are stored without waiting
    gpu = pipeline.compile_fetch_set([], [x], [train], platform="gpu")
    assert gpu.donate and not gpu.waits        # accelerators too (each call checked: runtime/executables.py)
    assert pipeline.compile_fetch_set([], [x], [train], donate="never").waits
    sess = tf.Session()
    sess.donate = "never"
    sess.run(tf.global_variables_initializer())
    assert not sess.lowered(train, {x: np.ones((1, 2), np.float32)}).function.donate
    with pytest.raises(ValueError, match="donate must be 'auto', 'always' or 'never'"):
        pipeline.compile_fetch_set([], [x], [train], donate="yes")
    with_callback = tf.group(train, tf.py_func(lambda v: v, [loss], tf.float32).op)
    assert not sess.lowered(with_callback, {x: np.ones((1, 2), np.float32)}).function.donate


@pytest.mark.parametrize("donate", ["always", "never"])
def test_threads_lose_no_update(donate):
    v = tf.Variable(0, dtype=tf.int64)
    inc = tf.assign_add(v, 1)
    sess = tf.Session()
    sess.donate = donate
    sess.run(v.initializer)
    reads = []

    def work():
        for _ in range(150):
            sess.run(inc)
            reads.append(sess.run(v))
    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sess.run(v) == 900
    assert all(0 < r <= 900 for r in reads)


def test_python_ints_that_do_not_fit_a_feed_raise_tf_type_error():
    n = tf.placeholder(tf.int32, [])
    with tf.Session() as sess:
        with pytest.raises(TypeError, match="is not compatible with Tensor type"):
            sess.run(n + 0, {n: 2 ** 40})
        assert sess.run(n + 0, {n: 2 ** 31 - 1}) == 2 ** 31 - 1


def test_feed_errors_do_not_quote_the_whole_value():
    x = tf.placeholder(tf.float32, [2])
    with tf.Session() as sess, pytest.raises(ValueError) as e:
        sess.run(x, {x: ["a"] * 100000})
    assert len(str(e.value)) < 400


def test_generated_names_are_unique_valid_identifiers():
    names = Names()
    got = [names.new(n) for n in ["filter", "\ufb01lter", "x\u00b2", "x", "class", "key", "1abc", "a/b-c.d"]]
    assert len(set(got)) == len(got)
    for g in got:
        assert g.isidentifier() and g.isascii()
        compile("%s = 1" % g, "<t>", "exec")


@pytest.mark.slow
def test_the_executable_cache_is_bounded_and_freed_by_close():
    x = tf.placeholder(tf.float32, [])
    ys = [x * float(i) for i in range(12)]
    sess = tf.Session()
    sess.executable_cache_size = 4
    for y in ys:
        assert sess.run(y, {x: 2.0}) == 2.0 * ys.index(y)
    assert len(sess._plans) <= 4 and len(sess._compiled) <= 4
    sess.close()
    assert len(sess._plans) == 0 and len(sess._compiled) == 0


def test_reordered_feeds_and_dict_fetches_reuse_one_function():
    a = tf.placeholder(tf.float32, [])
    b = tf.placeholder(tf.float32, [])
    c = a - b
    with tf.Session() as sess:
        assert sess.run(c, {a: 5.0, b: 2.0}) == 3.0
        assert sess.run(c, {b: 2.0, a: 5.0}) == 3.0
        for _ in range(3):
            assert sess.run({"c": c}, {a: 1.0, b: 1.0}) == {"c": 0.0}
        assert len(sess._compiled) == 1
        assert len(sess._plans) == 3


@pytest.mark.slow
def test_a_saver_reads_one_consistent_snapshot_while_another_thread_trains(tmp_path):
    a = tf.Variable(0, dtype=tf.int64)
    b = tf.Variable(0, dtype=tf.int64)
    step = tf.group(tf.assign_add(a, 1), tf.assign_add(b, 1))
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    saver = tf.train.Saver([a, b], write_version="npz")
    stop = threading.Event()

    def train():
        while not stop.is_set():
            sess.run(step)
    t = threading.Thread(target=train)
    t.start()
    try:
        for i in range(15):
            prefix = saver.save(sess, str(tmp_path / "m"), global_step=i)
            reader = tf.train.NewCheckpointReader(prefix)
            va, vb = reader.get_tensor(a.op.name), reader.get_tensor(b.op.name)
            assert va == vb    # both variables from the same moment: no half-applied step
    finally:
        stop.set()
        t.join()
    assert sess.run(a) == sess.run(b) > 0


def test_ctrl_c_inside_a_py_func_is_keyboard_interrupt_and_keeps_the_variables():
    x, w, loss, train = _model(tf.train.AdamOptimizer(0.1))

    def interrupted(v):
        raise KeyboardInterrupt()   # what Ctrl-C does to the function while it runs
    stop = tf.py_func(interrupted, [loss], tf.float32)
    stop.set_shape([])
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    feed = {x: np.ones((3, 2), np.float32)}
    before = _state(sess)
    with pytest.raises(KeyboardInterrupt):
        sess.run([train, stop], feed)
    for a, b in zip(before, _state(sess)):
        np.testing.assert_array_equal(a, b)
    sess.run(train, feed)   # and the session goes on: the script's `except KeyboardInterrupt: save` works


@pytest.mark.parametrize("donate", ["always", "never"])
def test_a_failed_check_keeps_a_variable_whose_update_changes_its_shape(donate):
    """validate_shape=False: the new value cannot be selected against the old inside the step."""
    tf.reset_default_graph()
    v = tf.Variable([1.0, 2.0], name="v")
    w = tf.Variable([3.0], name="w")
    flag = tf.placeholder(tf.bool, [])
    with tf.control_dependencies([tf.Assert(flag, [flag])]):
        grow = tf.group(tf.assign(v, tf.concat([v, v], 0), validate_shape=False), tf.assign_add(w, [1.0]))
    with tf.Session() as sess:
        sess.donate = donate
        sess.run(tf.global_variables_initializer())
        with pytest.raises(errors.InvalidArgumentError):
            sess.run(grow, {flag: False})
        assert sess.run(v).tolist() == [1.0, 2.0] and sess.run(w).tolist() == [3.0]
        sess.run(grow, {flag: True})
        assert sess.run(v).tolist() == [1.0, 2.0, 1.0, 2.0] and sess.run(w).tolist() == [4.0]
