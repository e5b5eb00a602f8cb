"""Tiered compilation (runtime/executables.py, lower/compiler_options.FIRST_TIER): a fetch set's first
program is compiled with cheaper XLA options and replaced by the optimized one once it has run long
enough. Both tiers give the same values within float32 rounding, a failed check in either keeps every
variable, and a failed second compile leaves the first tier running."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.graph import errors
from tinyflow.lower import compiler_options


@pytest.fixture
def tiers(monkeypatch):
    """Tiers on (the suite pins them off: tests/conftest.py), the whole FIRST_TIER passed (the suite's
    XLA_FLAGS set one of them for the process), and the optimized program on XLA's new fusion emitters
    (the suite's XLA_FLAGS pick the older ones for the process), so that the first tier, on the older
    ones (compiler_options.older_emitters_pay: a small step), is another program."""
    monkeypatch.setenv("TINYFLOW_TIERED", "1e9")   # never upgraded on its own: the test upgrades
    monkeypatch.setenv("XLA_FLAGS", "")
    choose = compiler_options.choose
    monkeypatch.setattr(compiler_options, "choose", lambda program, platform="cpu": {
        **choose(program, platform), "xla_cpu_use_fusion_emitters": True})


def _model():
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [8, 6])
    y = tf.placeholder(tf.int64, [8])
    logits = tf.layers.dense(tf.layers.dense(x, 5, activation=tf.nn.tanh), 3)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    with tf.control_dependencies([tf.debugging.assert_non_negative(x)]):   # a run-time check gating the update
        train = tf.train.AdamOptimizer(0.05).minimize(loss)
    rng = np.random.RandomState(0)
    feed = {x: rng.rand(8, 6).astype(np.float32), y: rng.randint(0, 3, 8)}
    return x, feed, loss, train


def _entry(sess):
    low, = [v for v in sess._compiled.values() if v.rw_vars and v.checks]
    entry, = low.executables.entries.values()
    return low, entry


def _vars(sess):
    return sess.run(tf.trainable_variables())


@pytest.mark.slow   # ~3 s of CPU: two Sessions, four programs of the step, the failed check's diagnosis
def test_both_tiers_agree_a_failed_check_keeps_every_variable_and_a_failed_upgrade_keeps_the_first_tier(
        tiers, monkeypatch):
    x, feed, loss, train = _model()
    bad = dict(feed)
    bad[x] = -feed[x]
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    losses = [sess.run([train, loss], feed)[1]]
    low, entry = _entry(sess)
    tier, cheap = entry.tier, entry.compiled
    assert tier is not None and entry.call == tier.call   # runs the first tier
    # a small step (under SMALL_STEP ops): level 1 and one LLVM module, the new emitters
    assert compiler_options.first_tier(low.compiler_options, "cpu", low.sub.ops, True) == compiler_options.FIRST_TIER
    # a compile that fails in the background: the first tier runs on
    failing_lowered = tier.lowered
    monkeypatch.setattr(tier, "lowered", type("Fails", (), {"compile": lambda self: 1 / 0})())
    tier.ratio = 0.0
    losses.append(sess.run([train, loss], feed)[1])   # starts it
    tier.thread.join()
    assert entry.compiled is cheap and entry.call == tier.call
    losses.append(sess.run([train, loss], feed)[1])
    monkeypatch.setattr(tier, "lowered", failing_lowered)
    kept = _vars(sess)
    with pytest.raises(errors.InvalidArgumentError):   # a failed check in the first tier
        sess.run(train, bad)
    for a, b in zip(kept, _vars(sess)):
        np.testing.assert_array_equal(a, b)
    tier.upgrade()   # what the background thread does
    assert entry.compiled is not cheap and tier.lowered is None and entry.call != tier.call
    with pytest.raises(errors.InvalidArgumentError):   # and in the second
        sess.run(train, bad)
    for a, b in zip(kept, _vars(sess)):
        np.testing.assert_array_equal(a, b)
    losses.append(sess.run([train, loss], feed)[1])
    # the same steps without tiers: the same losses and variables within TF's float32 tolerance
    monkeypatch.setenv("TINYFLOW_TIERED", "0")
    plain = tf.Session()
    plain.run(tf.global_variables_initializer())
    expected = [plain.run([train, loss], feed)[1] for _ in range(4)]
    assert _entry(plain)[1].tier is None
    np.testing.assert_allclose(losses, expected, rtol=1e-5)
    for a, b in zip(_vars(sess), _vars(plain)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert compiler_options.tier_ratio() == 0.0 and compiler_options.first_tier({}) == {}
    monkeypatch.setenv("TINYFLOW_TIERED", "x")
    with pytest.raises(ValueError, match="TINYFLOW_TIERED"):
        compiler_options.tier_ratio()


def test_the_first_tier_takes_the_older_emitters_where_they_pay(monkeypatch):
    """compiler_options.older_emitters_pay: not for a step holding overlapping pooling windows, LRN or
    histograms (the older emitters run those kernels 17-25% slower), nor for a program of more than
    BIG_PROGRAM ops, loop bodies counted, nor for a step of fewer than SMALL_STEP ops; an evaluation
    (no variable updated) takes them anyway."""
    pay = compiler_options.older_emitters_pay

    def ops(build):
        with tf.Graph().as_default() as g:
            build(tf.placeholder(tf.float32, [4, 8, 8, 3]))
            return g.get_operations()
    small = ops(lambda x: tf.reduce_sum(x))
    overlapping = ops(lambda x: tf.nn.max_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME"))
    tiling = ops(lambda x: tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"))
    one_window = ops(lambda x: tf.nn.max_pool(x, [1, 8, 1, 1], [1, 1, 1, 1], "VALID"))   # a text CNN's
    lrn = ops(lambda x: tf.nn.lrn(x))
    histogram = ops(lambda x: tf.summary.histogram("h", x))
    loop = ops(lambda x: tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, tf.tanh(v * 2.0 + 1.0)),
                                       [tf.constant(0), x]))
    assert not pay(small, True) and pay(small, False)   # a small step: nothing to save
    monkeypatch.setattr(compiler_options, "SMALL_STEP", 0)
    assert [pay(o, True) for o in (small, overlapping, tiling, one_window, lrn, histogram, loop)] == [
        True, False, True, True, False, False, True]
    assert all(pay(o, False) for o in (overlapping, lrn, histogram))
    monkeypatch.setattr(compiler_options, "BIG_PROGRAM", len(loop) + 2)   # the body's ops count too
    assert pay(small, True) and not pay(loop, False)
    monkeypatch.setenv("TINYFLOW_TIERED", "3")
    monkeypatch.setenv("XLA_FLAGS", "")
    assert compiler_options.first_tier({}, "cpu", small, True) == compiler_options.RUN_ONCE_OPTIONS
    assert compiler_options.first_tier({}, "cpu", lrn, True) == compiler_options.FIRST_TIER
    assert compiler_options.first_tier({}, "gpu", small, True) == {}


def test_a_first_tier_of_little_arithmetic_takes_level_0(monkeypatch):
    """compiler_options.work counts a traced step's arithmetic (contractions by multiply-adds, scans
    by their length); a first tier of at most SMALL_WORK compiles at backend optimization level 0
    with the older emitters (char-rnn's step: 0.6 s of compile instead of 3.8 s), a larger one keeps
    FIRST_TIER; the Session's step of a small model gets it, its Tier counting 4x its compile."""
    import jax
    import jax.numpy as jnp
    monkeypatch.setenv("TINYFLOW_TIERED", "3")
    monkeypatch.setenv("XLA_FLAGS", "")
    a, b = jnp.ones((4, 6)), jnp.ones((6, 5))
    assert compiler_options.work(jax.make_jaxpr(jnp.dot)(a, b)) == 2 * 4 * 6 * 5
    square = jnp.ones((6, 6))
    scan = jax.make_jaxpr(lambda a: jax.lax.scan(lambda c, x: (jnp.tanh(c @ square), None), a, None, length=7)[0])
    assert compiler_options.work(scan(a)) == 7 * (2 * 4 * 6 * 6 + 4 * 6)
    small = jax.make_jaxpr(lambda a: jnp.tanh(a @ b))(a)
    big = jax.make_jaxpr(jnp.dot)(jnp.ones((512, 512)), jnp.ones((512, 512)))
    level0 = {**compiler_options.RUN_ONCE_OPTIONS, **compiler_options.LEVEL0}
    assert compiler_options.first_tier({}, "cpu", (), True, small) == level0
    assert compiler_options.first_tier({}, "cpu", (), True, big) == compiler_options.FIRST_TIER   # (no ops: small)
    chosen, first_tier = [], compiler_options.first_tier
    monkeypatch.setattr(compiler_options, "first_tier", lambda *a: chosen.append(first_tier(*a)) or chosen[-1])
    x, feed, loss, train = _model()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, feed)
        _, entry = _entry(sess)
    assert chosen[-1] == level0 and entry.tier.compile_s > 0


def test_each_first_tier_is_credited_with_its_own_run(monkeypatch):
    """A first-tier program's run is the time from its call to the next call of any first-tier program
    (its results are read before then): a training step (0.9 s) and an evaluation (0.1 s) called in
    turn, once per epoch, upgrade after 4 and 31 epochs (compile 1 s, ratio 3), not both after 3 as
    when each was credited with the intervals between its own calls (GAT: 12 s of optimized compile
    for its evaluation's 122 calls of 44 ms). No compile: a clock the test moves, upgrades counted."""
    from tinyflow.runtime import executables
    clock = [0.0]
    monkeypatch.setattr(executables.time, "perf_counter", lambda: clock[0])
    monkeypatch.setattr(executables.threading, "Thread", lambda target, name, daemon: type(
        "Started", (), {"start": lambda self: None, "join": lambda self: None})())
    monkeypatch.setattr(executables.atexit, "register", lambda f: None)
    monkeypatch.setenv("TINYFLOW_TIERED", "3")
    monkeypatch.setattr(executables.Tier, "latest", (lambda: None, 0.0), raising=False)
    train, evaluation = executables.Tier(None, None, 1.0), executables.Tier(None, None, 1.0)
    for tier in (train, evaluation):
        tier.entry = type("Entry", (), {"compiled": staticmethod(lambda: None)})()
    upgraded = {}
    for epoch in range(1, 41):
        for tier, seconds in ((train, 0.9), (evaluation, 0.1)):
            tier.call()
            clock[0] += seconds
        for name, tier in (("train", train), ("evaluation", evaluation)):
            if tier.thread is not None:
                upgraded.setdefault(name, epoch)
    assert upgraded == {"train": 4, "evaluation": 31}
