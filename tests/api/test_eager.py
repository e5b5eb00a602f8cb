"""Eager execution: eager tensors (TF 1.15's printed forms and Python interop), variables, the
kernel cache, GradientTape (checked against numpy and finite differences), tfe, mode switching."""
import os
from paths import TESTS as _TESTS  # the tests/ folder
import subprocess
import sys

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.api.eager import eager_mode
from tinyflow.runtime.eager import execute
from tinyflow.runtime.eager.tensor import EagerTensor



@pytest.fixture
def eager():
    with eager_mode():
        yield


# ---- eager tensors -------------------------------------------------------------------------------
def test_printed_forms_match_tf(eager):
    # expected strings printed by TF 1.15 (eager) for the same values
    x = tf.constant(3.0)
    assert str(x) == "tf.Tensor(3.0, shape=(), dtype=float32)"
    assert repr(x).startswith("<tf.Tensor: id=") and repr(x).endswith(", shape=(), dtype=float32, numpy=3.0>")
    m = tf.constant([[1, 2], [3, 4]])
    assert str(m) == "tf.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)"
    assert repr(m).endswith("shape=(2, 2), dtype=int32, numpy=\narray([[1, 2],\n       [3, 4]], dtype=int32)>")
    assert repr(tf.constant([1.5, 2.0], dtype=tf.float64)).endswith("numpy=array([1.5, 2. ])>")
    assert str(tf.constant("abc")) == "tf.Tensor(b'abc', shape=(), dtype=string)"
    v = tf.Variable([1.0, 2.0], name="w")
    assert repr(v) == "<tf.Variable 'w:0' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>"
    assert tf.Variable(1.0).name == "Variable:0"  # eager mode does not make names unique (TF)


def test_python_and_numpy_interop(eager):
    m = tf.constant([[1, 2], [3, 4]])
    x = tf.constant(3.0)
    assert isinstance(x, tf.Tensor) and isinstance(x, EagerTensor)
    assert float(x) == 3.0 and int(m[0, 1]) == 2 and len(m) == 2 and bool(tf.constant(True))
    assert "%.2f" % x == "3.00" and "{:.1f}".format(x) == "3.0"
    assert [r.numpy().tolist() for r in m] == [[1, 2], [3, 4]]
    np.testing.assert_array_equal(np.array(m) + 1, [[2, 3], [4, 5]])
    assert isinstance(m.numpy(), np.ndarray) and isinstance(x.numpy(), np.float32)
    assert x.shape == tf.TensorShape([]) and m.shape.as_list() == [2, 2] and m.dtype == tf.int32
    assert m.device.endswith("device:CPU:0") or m.device.endswith("device:GPU:0")
    assert (x == x) is True and (x == 3.0) is False  # TF1: identity, tensors stay hashable
    assert len({x, m}) == 2
    with pytest.raises(TypeError, match="Scalar tensor has no `len\\(\\)`"):
        len(x)
    with pytest.raises(TypeError):
        float(m)
    y = (x * 2 + 1) / 7 - x ** 2  # Python operators run eagerly, numpy scalars on either side
    np.testing.assert_allclose(y.numpy(), (3.0 * 2 + 1) / 7 - 9.0, rtol=1e-6)
    np.testing.assert_allclose((np.float32(2) * x).numpy(), 6.0)
    np.testing.assert_array_equal((m @ m).numpy(), np.array([[1, 2], [3, 4]]) @ np.array([[1, 2], [3, 4]]))


@pytest.mark.slow
def test_ops_match_numpy(eager):
    a = np.random.RandomState(0).randn(4, 6).astype(np.float32)
    t = tf.constant(a)
    b = a.copy()
    a += 1  # a tensor holds a copy of the array it was made from
    np.testing.assert_array_equal(t.numpy(), b)
    np.testing.assert_array_equal(tf.reduce_sum(t, 1).numpy(), tf.reduce_sum(b, 1).numpy())
    a = b
    np.testing.assert_allclose(tf.reduce_sum(t, 1).numpy(), a.sum(1), rtol=1e-5)
    np.testing.assert_allclose(tf.reduce_mean(t, axis=[0, 1]).numpy(), a.mean(), rtol=1e-5)
    np.testing.assert_array_equal(tf.reshape(t, [3, -1]).numpy(), a.reshape(3, -1))
    np.testing.assert_array_equal(tf.transpose(t).numpy(), a.T)
    np.testing.assert_allclose(tf.nn.softmax(t).numpy(), np.exp(a) / np.exp(a).sum(1, keepdims=True), rtol=1e-5)
    np.testing.assert_array_equal(tf.argmax(t, 1).numpy(), a.argmax(1))
    assert tf.argmax(t, 1).dtype == tf.int64  # TF's dtypes
    np.testing.assert_array_equal(tf.shape(t).numpy(), [4, 6])
    np.testing.assert_array_equal(t[1:3, ::2].numpy(), a[1:3, ::2])
    parts = tf.split(t, 2, axis=1)
    np.testing.assert_array_equal(parts[1].numpy(), a[:, 3:])
    np.testing.assert_array_equal(tf.concat([t, t], 0).numpy(), np.concatenate([a, a]))


def test_kernels_are_cached_per_signature(eager):
    a, b = tf.constant(np.ones((3, 4), np.float32)), tf.constant(np.ones((4, 2), np.float32))
    tf.matmul(a, b)
    n = len(execute._KERNELS)
    for _ in range(3):
        tf.matmul(a * 2.0, b)  # same signature: no new kernel for MatMul
    n2 = len(execute._KERNELS)
    tf.matmul(a * 2.0, b)
    assert len(execute._KERNELS) == n2
    assert n2 - n <= 2  # the multiply and its scalar
    tf.matmul(tf.constant(np.ones((5, 4), np.float32)), b)  # a new shape: a new kernel
    assert len(execute._KERNELS) == n2 + 1


@pytest.mark.slow
def test_random_ops_draw_new_numbers_with_one_kernel(eager):
    a = tf.random_normal([1000])
    n = len(execute._KERNELS)
    b = tf.random_normal([1000])  # new seeds, same kernels (seeds and a counter are arguments)
    assert len(execute._KERNELS) == n
    assert not np.allclose(a.numpy(), b.numpy())
    assert abs(a.numpy().mean()) < 0.15 and abs(a.numpy().std() - 1) < 0.15


def test_shape_and_dtype_errors_are_tf_eager_errors(eager):
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"but are 3 and 4 .*\[Op:MatMul\]"):
        tf.matmul(tf.ones([2, 3]), tf.ones([4, 5]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"int32 .*float32.*\[Op:AddV2\]"):
        tf.constant(1.0) + tf.constant(1)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[Op:ConcatV2\]"):
        tf.concat([tf.ones([2]), tf.ones([2, 2])], 0)


# ---- variables ---------------------------------------------------------------------------------
def test_variable_updates(eager):
    v = tf.Variable([1.0, 2.0])
    assert isinstance(v, tf.Variable)
    v.assign([3.0, 4.0])
    np.testing.assert_array_equal(v.numpy(), [3.0, 4.0])
    out = v.assign_add([1.0, 1.0])
    np.testing.assert_array_equal(out.numpy(), [4.0, 5.0])
    v.assign_sub([0.5, 0.5])
    np.testing.assert_array_equal(v.read_value().numpy(), [3.5, 4.5])
    np.testing.assert_array_equal((v * 2).numpy(), [7.0, 9.0])
    np.testing.assert_array_equal(np.asarray(v), [3.5, 4.5])
    w = tf.Variable(lambda: tf.zeros([2, 3]), dtype=tf.float64)
    assert w.dtype == tf.float64 and w.shape.as_list() == [2, 3]
    with pytest.raises(tf.errors.InvalidArgumentError):
        v.assign([1.0, 2.0, 3.0])  # a new shape: the Assign shape rule says no
    np.testing.assert_array_equal(v.numpy(), [3.5, 4.5])  # unchanged


# ---- GradientTape ------------------------------------------------------------------------------
def _fd(f, x, eps=1e-4):
    """Central finite differences of scalar f at x (float64)."""
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


@pytest.mark.slow
def test_gradient_matches_finite_differences(eager):
    rng = np.random.RandomState(1)
    a0, w0 = rng.randn(3, 4), rng.randn(4, 2)

    def f(a, w):
        return tf.reduce_sum(tf.tanh(tf.matmul(a, w)) ** 2 + tf.exp(-tf.abs(a[:, :2] @ tf.ones([2, 2], tf.float64))))

    a, w = tf.constant(a0), tf.Variable(w0)
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = f(a, w)
    ga, gw = tape.gradient(y, [a, w])
    np.testing.assert_allclose(ga.numpy(), _fd(lambda x: f(tf.constant(x), tf.constant(w0)).numpy(), a0), rtol=1e-5,
                               atol=1e-7)
    np.testing.assert_allclose(gw.numpy(), _fd(lambda x: f(tf.constant(a0), tf.constant(x)).numpy(), w0), rtol=1e-5,
                               atol=1e-7)


@pytest.mark.slow
def test_tape_structures_persistent_and_unconnected(eager):
    x, z = tf.constant(2.0), tf.constant(5.0)
    v = tf.Variable(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, z])
        y = x * x * v
        u = tf.sin(x)
    g = tape.gradient(y, {"x": x, "vs": (v, z)})
    assert set(g) == {"x", "vs"} and g["vs"][1] is None
    np.testing.assert_allclose(g["x"].numpy(), 2 * 2.0 * 3.0)
    np.testing.assert_allclose(g["vs"][0].numpy(), 4.0)
    np.testing.assert_allclose(tape.gradient([y, u], x).numpy(), 12.0 + np.cos(2.0), rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(y, z, unconnected_gradients="zero").numpy(), 0.0)
    np.testing.assert_allclose(tape.gradient(y, x, output_gradients=tf.constant(0.5)).numpy(), 6.0)
    assert tape.watched_variables() == (v,)
    del tape


def test_tape_once_stop_recording_and_variable_watching(eager):
    x = tf.constant(1.5)
    v = tf.Variable(2.0)
    frozen = tf.Variable(4.0, trainable=False)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * v
        with tape.stop_recording():
            z = x * x
        w = y + z * frozen
    gx, gf = tape.gradient(w, [x, frozen])
    np.testing.assert_allclose(gx.numpy(), 2.0)  # z was not recorded
    assert gf is None  # non-trainable variables are not watched
    with pytest.raises(RuntimeError, match="GradientTape.gradient can only be called once on non-persistent tapes."):
        tape.gradient(w, x)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        y = v * v
    assert tape.gradient(y, v) is None and tape.watched_variables() == ()
    with tf.GradientTape() as tape:
        y = tf.cast(tf.constant(3), tf.float32) * v
        s = tf.stop_gradient(y) * v
    np.testing.assert_allclose(tape.gradient(s, v).numpy(), 6.0)  # only the second factor


@pytest.mark.slow
def test_second_order_with_nested_tapes(eager):
    x0 = np.array([0.3, -1.2, 2.0])
    x = tf.constant(x0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.sin(x) * x ** 3)
        dy = inner.gradient(y, x)
    d2 = outer.gradient(dy, x)
    np.testing.assert_allclose(dy.numpy(), np.cos(x0) * x0 ** 3 + 3 * x0 ** 2 * np.sin(x0), rtol=1e-10)
    # d2 is the sum over rows of the Hessian, which is diagonal here
    expected = -np.sin(x0) * x0 ** 3 + 6 * x0 ** 2 * np.cos(x0) + 6 * x0 * np.sin(x0)
    np.testing.assert_allclose(d2.numpy(), expected, rtol=1e-10)
    w = tf.Variable(1.5, dtype=tf.float64)
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            y = tf.exp(w * w)
        g = t1.gradient(y, w)
    np.testing.assert_allclose(t2.gradient(g, w).numpy(), (2 + 4 * 1.5 ** 2) * np.exp(1.5 ** 2), rtol=1e-10)


@pytest.mark.slow
def test_jacobian(eager):
    x0 = np.array([1.0, 2.0])
    x = tf.constant(x0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.stack([x[0] * x[1], x[0] ** 2, tf.sin(x[1])])
    j = tape.jacobian(y, x).numpy()
    np.testing.assert_allclose(j, [[2.0, 1.0], [2.0, 0.0], [0.0, np.cos(2.0)]], rtol=1e-12)


# ---- tf.contrib.eager ----------------------------------------------------------------------------
def test_tfe_function_gradients(eager):
    tfe = tf.contrib.eager

    def f(x, y):
        return x * x * y + y

    np.testing.assert_allclose([g.numpy() for g in tfe.gradients_function(f)(3.0, 2.0)], [12.0, 10.0])
    value, grads = tfe.value_and_gradients_function(f, params=[1])(3.0, 2.0)
    assert float(value) == 20.0 and len(grads) == 1 and float(grads[0]) == 10.0
    v = tfe.Variable(2.0)
    loss = lambda x: v * v * x  # noqa: E731
    (g, var), = tfe.implicit_gradients(loss)(3.0)
    assert var is v and float(g) == 12.0
    value, [(g, var)] = tfe.implicit_value_and_gradients(loss)(1.0)
    assert float(value) == 4.0 and float(g) == 4.0
    assert tfe.executing_eagerly() and tfe.num_gpus() >= 0
    ds = tf.data.Dataset.range(5).map(lambda i: i * 2)
    it = tfe.Iterator(ds)
    assert [int(next(it)) for _ in range(5)] == [0, 2, 4, 6, 8]
    with pytest.raises(tf.errors.OutOfRangeError):
        it.get_next()
    one_shot = ds.make_one_shot_iterator()
    assert int(one_shot.get_next()) == 0


# ---- modes ---------------------------------------------------------------------------------------
def test_graph_mode_is_unaffected_and_graph_blocks_inside_eager():
    assert not tf.executing_eagerly()
    with eager_mode():
        assert tf.executing_eagerly()
        with tf.Graph().as_default() as g:  # a graph block inside eager mode builds a graph (TF)
            assert not tf.executing_eagerly()
            c = tf.constant(2.0) * 3.0
            v = tf.Variable(1.0)
            assert type(v) is tf.Variable and not isinstance(c, EagerTensor)
            with tf.Session() as sess:
                sess.run(v.initializer)
                assert sess.run(c + v) == 7.0
        assert tf.executing_eagerly() and g.get_operations()
        a = tf.constant(2.0)
        tf.reset_default_graph()  # stays eager; old and new tensors still combine
        assert tf.executing_eagerly() and float(a * tf.constant(3.0)) == 6.0
    assert not tf.executing_eagerly()
    with pytest.raises(RuntimeError, match="only supported when eager execution is enabled"):
        iter(tf.data.Dataset.range(3))
    with pytest.raises(RuntimeError, match="should be a Tensor in graph mode"):
        tf.train.GradientDescentOptimizer(0.1).minimize(lambda: 1.0)


@pytest.mark.slow
def test_enable_at_startup_and_the_late_error():
    code = ("import tinyflow as tf\n"
            "tf.enable_eager_execution(); tf.enable_eager_execution()\n"
            "print(tf.executing_eagerly(), tf.constant([1, 2]) + 1)\n"
            "tf.reset_default_graph(); print(tf.executing_eagerly())\n"
            "tf.disable_eager_execution(); print(tf.executing_eagerly())\n"
            "tf.constant(1.0)\n"
            "try:\n    tf.enable_eager_execution()\n"
            "except ValueError as e:\n    print(type(e).__name__, e)\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(_TESTS))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "True tf.Tensor([2 3], shape=(2,), dtype=int32)", "True", "False",
        "ValueError tf.enable_eager_execution must be called at program startup."]


def test_custom_gradient(eager):
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))
        return tf.log(1 + e), grad

    x = tf.constant([0.0, 2.0, 100.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(log1pexp(x) * 3.0)
    g = tape.gradient(y, x).numpy()
    np.testing.assert_allclose(g, 3.0 * np.array([0.5, 1 - 1 / (1 + np.exp(2.0)), 1.0]), rtol=1e-6)
    assert np.isfinite(g).all()  # the plain gradient would be inf/inf = nan at x = 100


@pytest.mark.slow
def test_rules_needing_values_and_bad_inputs(eager):
    x = tf.constant(np.arange(12.0).reshape(3, 4))
    shape = tf.shape(x)[::-1]  # a computed shape: Reshape's kernel gets it as a static value
    np.testing.assert_array_equal(tf.reshape(x, shape).numpy(), np.arange(12.0).reshape(4, 3))
    np.testing.assert_array_equal(tf.reshape(x, [2, 6]).numpy(), np.arange(12.0).reshape(2, 6))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Cannot reshape a tensor with 12 .*\[Op:Reshape\]"):
        tf.reshape(x, [5, -1])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 7 is not in \[0, 3\)"):
        tf.gather(x, [0, 7])
    assert execute._MODE.get("GatherV2") in (None, "jit")  # a bad index is no reason to stop jitting
    np.testing.assert_array_equal(tf.gather(x, [2]).numpy(), [np.arange(8.0, 12.0)])
    tf.Assert(tf.constant(True), [x])
    with pytest.raises(tf.errors.InvalidArgumentError, match="assertion failed"):
        tf.Assert(x[0, 0] > 1.0, ["x[0, 0] is", x[0, 0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tensor had NaN values"):
        tf.check_numerics(x / 0.0 * 0.0, "x")
    assert float(tf.py_func(lambda a: a + 1, [tf.constant(1.0)], tf.float32)) == 2.0


@pytest.mark.slow
def test_layers_and_network(eager):
    tfe = tf.contrib.eager

    class MLP(tfe.Network):
        def __init__(self):
            super().__init__()
            self.hidden = self.track_layer(tf.layers.Dense(8, activation=tf.nn.relu))
            self.out = self.track_layer(tf.layers.Dense(2))

        def call(self, x):
            return self.out(self.hidden(x))

    net = MLP()
    x = tf.constant(np.random.RandomState(0).randn(5, 3).astype(np.float32))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(net(x) ** 2)
    assert len(net.trainable_variables) == 4 and len(net.variables) == 4
    assert set(map(id, tape.watched_variables())) == set(map(id, net.trainable_variables))
    grads = tape.gradient(loss, net.trainable_variables)
    k1, b1, k2, b2 = [v.numpy() for v in net.trainable_variables]
    h = np.maximum(x.numpy() @ k1 + b1, 0)
    dy = 2 * (h @ k2 + b2)
    np.testing.assert_allclose(grads[2].numpy(), h.T @ dy, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(grads[1].numpy(), ((dy @ k2.T) * (h > 0)).sum(0), rtol=1e-4, atol=1e-5)


@pytest.mark.slow
def test_saver_and_slots_eagerly(eager, tmp_path):
    w = tf.Variable(np.arange(6.0, dtype=np.float32).reshape(2, 3), name="w")
    step = tf.Variable(0, dtype=tf.int64, name="global_step")
    opt = tf.train.AdamOptimizer(0.1)
    opt.minimize(lambda: tf.reduce_sum(w * w), global_step=step)
    assert opt.get_slot(w, "m").name == "w/Adam:0"
    saver = tf.train.Saver([w, step])
    prefix = saver.save(None, str(tmp_path / "model"), global_step=step)
    assert prefix.endswith("model-1") and tf.train.latest_checkpoint(str(tmp_path)) == prefix
    saved = w.numpy()
    w.assign(tf.zeros([2, 3]))
    step.assign(7)
    saver.restore(None, prefix)
    np.testing.assert_array_equal(w.numpy(), saved)
    assert int(step) == 1
    assert tf.train.load_variable(prefix, "w").tolist() == saved.tolist()  # a checkpoint graph mode reads
    tfe_saver = tf.contrib.eager.Saver([w])
    w.assign_add(tf.ones([2, 3]))
    path = tfe_saver.save(str(tmp_path / "tfe"))
    w.assign(tf.zeros([2, 3]))
    tfe_saver.restore(path)
    np.testing.assert_array_equal(w.numpy(), saved + 1)


@pytest.mark.slow
def test_gradient_penalty_double_backprop_matches_finite_differences(eager):
    """d/dW of ||d loss / dx||^2 for a small tanh/sigmoid/softmax network, through nested tapes."""
    rng = np.random.RandomState(5)
    x0, w0, v0 = rng.randn(4, 3), rng.randn(3, 5) * 0.5, rng.randn(5, 2) * 0.5
    labels = np.eye(2)[[0, 1, 1, 0]]

    def penalty(w_value, record=None):
        w = tf.constant(w_value) if record is None else record
        x = tf.constant(x0)
        with tf.GradientTape() as inner:
            inner.watch(x)
            h = tf.sigmoid(tf.matmul(tf.tanh(x), w))
            logits = tf.matmul(h, tf.constant(v0))
            loss = tf.reduce_sum(tf.nn.softmax(logits) * labels) + tf.reduce_sum(tf.nn.relu(h - 0.5) ** 2)
        gx = inner.gradient(loss, x)
        return tf.reduce_sum(gx * gx)

    w = tf.constant(w0)
    with tf.GradientTape() as outer:
        outer.watch(w)
        p = penalty(None, record=w)
    g = outer.gradient(p, w).numpy()
    np.testing.assert_allclose(g, _fd(lambda a: penalty(a).numpy(), w0), rtol=1e-5, atol=1e-8)


def test_cond_case_switch_case_and_while_loop_run_only_the_selected_fn(eager):
    """As TF 1.15's eager cond: the other fn is never called, so one that cannot run at these shapes
    (squeezing an axis of length 2) raises only when selected. Values and error class from TF 1.15."""
    x = tf.constant([[1.0, 2.0]])

    def squeeze():
        return tf.squeeze(x, 1)
    assert tf.cond(tf.constant(False), squeeze, lambda: tf.reduce_sum(x, 1)).numpy().tolist() == [3.0]
    assert tf.case([(tf.constant(False), squeeze)], default=lambda: x[:, 0]).numpy().tolist() == [1.0]
    assert tf.switch_case(tf.constant(1), [squeeze, lambda: x[:, 1]]).numpy().tolist() == [2.0]
    assert tf.cond(tf.constant(True), lambda: [x * 2], lambda: [x]).numpy().tolist() == [[2.0, 4.0]]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Can not squeeze dim\[1\], expected a dimension"):
        tf.cond(tf.constant(True), squeeze, lambda: tf.reduce_sum(x, 1))
    # tf.while_loop is a Python loop (TF's eager one): the cond in its body runs one branch too
    i, acc = tf.while_loop(lambda i, acc: i < 3, lambda i, acc: (i + 1, acc + tf.reduce_sum(tf.cond(
        tf.constant(False), squeeze, lambda: tf.reduce_sum(x, 1)))), [tf.constant(0), tf.constant(0.0)])
    assert (int(i), float(acc)) == (3, 9.0)
    assert int(tf.while_loop(lambda i: i < 10, lambda i: i + 2, [tf.constant(0)], maximum_iterations=3)) == 6
    _, ta = tf.while_loop(lambda i, t: i < 3, lambda i, t: (i + 1, t.write(i, tf.cast(i, tf.float32) * 2.0)),
                          [0, tf.TensorArray(tf.float32, size=3)])
    assert ta.stack().numpy().tolist() == [0.0, 2.0, 4.0]
