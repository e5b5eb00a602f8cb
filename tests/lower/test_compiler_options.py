"""Per-fetch-set XLA compiler options (lower/compiler_options.py): which fetch sets get which, and
that a CNN training step gives the same values with and without them (benchmarks/compiler_options.py
measures whether each still helps)."""
import jax
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.lower import compiler_options as co


pytestmark = pytest.mark.usefixtures("production_compile")   # XLA's defaults, as a user's process


def _cnn():
    tf.reset_default_graph()
    tf.set_random_seed(3)
    x = tf.placeholder(tf.float32, [None, 12, 12, 1])
    y = tf.placeholder(tf.int64, [None])
    w1 = tf.Variable(tf.truncated_normal([3, 3, 1, 8], stddev=0.3))
    h = tf.nn.relu(tf.nn.conv2d(x, w1, [1, 1, 1, 1], "SAME") + tf.Variable(tf.constant(0.1, shape=[8])))
    h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    w2 = tf.Variable(tf.random_normal([3, 3, 8, 16], stddev=0.2))
    h = tf.nn.relu(tf.nn.conv2d(h, w2, [1, 1, 1, 1], "VALID"))
    logits = tf.layers.dense(tf.reshape(h, [-1, 4 * 4 * 16]), 5)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.AdamOptimizer(0.01).minimize(loss)
    return x, y, loss, train, tf.global_variables_initializer()


def _feed(x, y):
    rng = np.random.RandomState(0)
    return {x: rng.rand(16, 12, 12, 1).astype(np.float32), y: rng.randint(0, 5, 16)}


@pytest.mark.skipif(jax.default_backend() != "cpu", reason="XLA:CPU options: none are passed on an accelerator")
def test_choices_by_what_the_fetch_set_holds(monkeypatch):
    monkeypatch.delenv("XLA_FLAGS", raising=False)
    monkeypatch.delenv("TINYFLOW_COMPILER_OPTIONS", raising=False)
    x, y, loss, train, init = _cnn()
    with tf.Session() as sess:
        assert sess.lowered([init]).function.compiler_options == co.RUN_ONCE_OPTIONS   # level 1, older emitters
        sess.run(init)
        feed = _feed(x, y)
        assert sess.lowered(loss, feed).function.compiler_options == {}   # forward only: YNNPACK's convs
        if not co.known(co.YNN_FLAG, co.YNN_NO_CONV):   # a jaxlib before YNNPACK (0.7, numpy 1): none passed
            assert sess.lowered([train, loss], feed).function.compiler_options == {}
            assert np.isfinite(sess.run(loss, feed))
        else:
            assert sess.lowered([train, loss], feed).function.compiler_options == {co.YNN_FLAG: co.YNN_NO_CONV}
            hlo = sess.lowered([train, loss], feed).hlo
            ynn = [ln for ln in hlo.splitlines() if ln.strip().startswith(("%ynn_fusion", "ROOT %ynn_fusion"))]
            assert ynn and not any("Conv" in ln for ln in ynn)   # YNNPACK keeps dots and reductions, not convs
            # the tiling MaxPool is XLA's reduce-window there (pooling_ops._materialized), strided views elsewhere
            assert _pool_windows(hlo) and not _pool_windows(sess.lowered(loss, feed).hlo)
        program = sess.lowered([init]).function.program
    assert co.choose(program, "gpu") == {}
    assert not co.known("xla_cpu_no_such_option", "1")   # left out, where XLA would refuse the compile
    monkeypatch.setenv("XLA_FLAGS", "--xla_backend_optimization_level=2")
    assert co.OPT_LEVEL_FLAG not in co.choose(program)   # the user's own setting wins
    monkeypatch.delenv("XLA_FLAGS")
    monkeypatch.setenv("TINYFLOW_COMPILER_OPTIONS", "0")
    assert co.choose(program) == {}


def _pool_windows(hlo):
    return [ln for ln in hlo.splitlines() if 'MaxPool/reduce_window' in ln]


def _train(monkeypatch, setting):
    monkeypatch.setenv("TINYFLOW_COMPILER_OPTIONS", setting)
    x, y, loss, train, init = _cnn()
    with tf.Session() as sess:
        sess.run(init)
        feed = _feed(x, y)
        losses = [sess.run([train, loss], feed)[1] for _ in range(3)]
        return losses, sess.run(tf.trainable_variables())


@pytest.mark.slow
def test_cnn_step_same_values_with_and_without_options(monkeypatch):
    monkeypatch.delenv("XLA_FLAGS", raising=False)
    with_losses, with_vars = _train(monkeypatch, "1")
    without_losses, without_vars = _train(monkeypatch, "0")
    np.testing.assert_allclose(with_losses, without_losses, rtol=1e-5, atol=1e-5)
    for a, b in zip(with_vars, without_vars):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    assert not np.allclose(with_losses[0], with_losses[-1])   # it trained


@pytest.mark.parametrize("types", [{"Assign", "VariableV2", "Const", "MatMul"}])
def test_an_assign_of_a_computed_value_is_not_run_once(types):
    assert not types <= co.RUN_ONCE
