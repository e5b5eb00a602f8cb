"""Session.run: fetch structures, feeds, caching, devices and TF's errors for bad input."""
import collections
import warnings

import numpy as np
import pytest

import tinyflow as tf


def test_fetch_structures():
    a = tf.constant(1.0, name="a")
    b = tf.constant([2, 3], name="b")
    op = tf.no_op(name="nothing")
    Pair = collections.namedtuple("Pair", "x y")
    with tf.Session() as sess:
        assert sess.run(a) == 1.0
        assert sess.run(op) is None
        assert sess.run("a:0") == 1.0
        np.testing.assert_array_equal(sess.run("b:0"), [2, 3])
        got = sess.run([a, (b, op), {"k": a, "p": Pair(a, b)}])
        assert isinstance(got, list) and isinstance(got[1], tuple) and isinstance(got[2]["p"], Pair)
        assert got[0] == 1.0 and got[1][1] is None
        np.testing.assert_array_equal(got[2]["p"].y, [2, 3])
        assert sess.run([]) == [] and sess.run({}) == {}
        assert sess.run([a, a]) == [1.0, 1.0]


def test_fetch_results_are_numpy_with_tf_dtypes():
    with tf.Session() as sess:
        v = sess.run(tf.constant(3, tf.int64))
        assert isinstance(v, np.integer) and v.dtype == np.int64
        m = sess.run(tf.ones([2, 2]))
        assert isinstance(m, np.ndarray) and m.dtype == np.float32
        m[0, 0] = 5.0  # writable, like TF's results


def test_feed_placeholder_intermediate_and_variable():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    h = x * 2.0
    y = h + 1.0
    v = tf.Variable([1.0, 1.0], name="v")
    z = y + v
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_allclose(sess.run(y, {x: [[1, 2]]}), [[3, 5]])
        np.testing.assert_allclose(sess.run(y, {h: [[10, 10]]}), [[11, 11]])  # intermediate fed
        np.testing.assert_allclose(sess.run(z, {"x:0": [[0, 0]], v: [5, 6]}), [[6, 7]])  # variable fed
        np.testing.assert_allclose(sess.run(v), [1, 1])  # feeding does not assign


def test_feed_conversion_follows_tensor_dtype():
    x = tf.placeholder(tf.int32, [3])
    f = tf.placeholder(tf.float16, [])
    with tf.Session() as sess:
        out = sess.run(x * 2, {x: np.array([1, 2, 3], np.int64)})
        assert out.dtype == np.int32
        np.testing.assert_array_equal(out, [2, 4, 6])
        assert sess.run(f + f, {f: 1.5}).dtype == np.float16
        np.testing.assert_array_equal(sess.run(x, {x: [True, False, True]}), [1, 0, 1])


def test_wrong_feed_shape_names_tensor_and_shapes():
    x = tf.placeholder(tf.float32, [None, 3], name="inp")
    with tf.Session() as sess:
        with pytest.raises(ValueError, match=r"Cannot feed value of shape \(2, 4\) for Tensor 'inp:0', "
                                             r"which has shape '\(\?, 3\)'"):
            sess.run(x, {x: np.zeros((2, 4))})


def test_missing_feed_names_placeholder():
    x = tf.placeholder(tf.float32, [2], name="needed")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="You must feed a value for placeholder tensor "
                                                                 "'needed' with dtype float and shape \\[2\\]"):
            sess.run(x + 1.0)


def test_uninitialized_variable_names_it():
    v = tf.Variable(1.0, name="lonely")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value lonely"):
            sess.run(v + 1.0)
        assert isinstance(tf.errors.FailedPreconditionError("n", "o", "m"), tf.errors.OpError)


def test_bad_fetches():
    tf.constant(1.0, name="c")
    with tf.Session() as sess:
        for bad in (None, 3, 1.5, np.zeros(2)):
            with pytest.raises(TypeError):
                sess.run(bad)
        with pytest.raises(ValueError):
            sess.run("nope:0")
        with pytest.raises((ValueError, KeyError)):
            sess.run("c:3")


def test_other_graph_fetch_and_feed():
    g2 = tf.Graph()
    with g2.as_default():
        other = tf.constant(1.0)
        other_ph = tf.placeholder(tf.float32)
    mine = tf.constant(2.0)
    with tf.Session() as sess:
        with pytest.raises(ValueError):
            sess.run(other)
        with pytest.raises((TypeError, ValueError)):
            sess.run(mine, {other_ph: 1.0})
        with pytest.raises(TypeError):
            sess.run(mine, {mine: tf.constant(1.0)})  # a Tensor is not a feed value


def test_failed_run_keeps_variables():
    w = tf.Variable([1.0, 2.0], name="w")
    x = tf.placeholder(tf.float32, [2], name="x")
    loss = tf.reduce_sum(w * x)
    train = tf.train.GradientDescentOptimizer(1.0).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for bad_feed in ({}, {x: np.zeros(3)}, {x: "abc"}):
            with pytest.raises((ValueError, tf.errors.InvalidArgumentError)):
                sess.run(train, bad_feed)
            np.testing.assert_allclose(sess.run(w), [1.0, 2.0])
        sess.run(train, {x: [1.0, 1.0]})
        np.testing.assert_allclose(sess.run(w), [0.0, 1.0])


def test_close_and_default_session():
    c = tf.constant(4.0)
    sess = tf.Session()
    assert tf.get_default_session() is None
    with sess.as_default():
        assert tf.get_default_session() is sess
        assert c.eval() == 4.0
        tf.no_op(name="n").run()
    sess.close()
    with pytest.raises(RuntimeError):
        sess.run(c)
    with pytest.raises(ValueError):
        c.eval()


def test_interactive_session():
    c = tf.constant([1, 2])
    sess = tf.InteractiveSession()
    try:
        np.testing.assert_array_equal(c.eval(), [1, 2])
    finally:
        sess.close()
    assert tf.get_default_session() is None


def test_session_graph_argument():
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(7)
    with tf.Session(graph=g) as sess:
        assert sess.graph is g
        assert sess.run(c) == 7


def test_fetch_sets_are_cached_without_size_limit():
    x = tf.placeholder(tf.float32, [])
    a, b = x + 1.0, x * 3.0
    with tf.Session() as sess:
        for _ in range(3):
            assert sess.run(a, {x: 1.0}) == 2.0
            assert sess.run(b, {x: 1.0}) == 3.0
            assert sess.run([a, b], {x: 2.0}) == [3.0, 6.0]
        assert len(sess._compiled) == 3


def test_fetch_set_with_host_op_behind_a_control_dependency_compiles_once(monkeypatch):
    from tinyflow.lower import pipeline
    calls = []
    compile_fetch_set = pipeline.compile_fetch_set
    monkeypatch.setattr(pipeline, "compile_fetch_set", lambda *a, **k: calls.append(a) or compile_fetch_set(*a, **k))
    x = tf.placeholder(tf.float32, [None])
    it = tf.data.Dataset.from_tensor_slices(x * 2.0).batch(2).make_initializable_iterator()
    v = tf.Variable(1.0)
    with tf.Session() as sess:
        sess.run(tf.group(v.initializer, it.initializer), {x: np.arange(3.0)})   # the iterator reads x * 2
        assert len(calls) == 1 and "mul:0" in [t.name for t in calls[0][0]]   # once, fetching what it reads
        assert sess.run(it.get_next()).tolist() == [0.0, 2.0] and sess.run(v) == 1.0


def test_device_config_falls_back_to_cpu():
    c = tf.constant(2.0) * 3.0
    import jax
    has_gpu = any(d.platform == "gpu" for d in jax.devices()) if jax.default_backend() == "gpu" else False
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with tf.Session(config="gpu") as sess:
            assert sess.run(c) == 6.0
    if not has_gpu:
        assert any("no GPU" in str(x.message) for x in w)
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 0})) as sess:
        assert sess.run(c) == 6.0
    with tf.Session(config="cpu") as sess:
        assert sess.run(c) == 6.0
    with tf.Session(device="cpu") as sess:  # TinyFlow's keyword
        assert sess.run(c) == 6.0


def test_run_many_steps_updates_in_place():
    v = tf.Variable(0.0)
    inc = tf.assign_add(v, 1.0)
    with tf.Session() as sess:
        sess.run(v.initializer)
        for _ in range(5):
            sess.run(inc)
        assert sess.run(v) == 5.0
        assert sess.run([inc, v])[0] == 6.0


def test_lowered_source_one_line_per_op():
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.exp(x, name="e") + 1.0
    with tf.Session() as sess:
        low = sess.lowered(y, {x: [0.0, 1.0]})
        assert "e = op.Exp(x)  # f32[2]  e" in low.source
        assert "exp" in str(low.jaxpr)
        assert "exponential" in low.hlo


@pytest.mark.slow
def test_runner_aliases_tensorflow(tmp_path):
    import subprocess
    import sys
    script = tmp_path / "s.py"
    script.write_text("import sys\nimport tensorflow as tf\nimport tensorflow.compat.v1 as v1\n"
                      "assert v1 is tf\nwith tf.Session() as s:\n"
                      "    print(s.run(tf.constant(2) * 3), sys.argv[1])\n")
    out = subprocess.run([sys.executable, "-m", "tinyflow", str(script), "arg"], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == ["6", "arg"]


def test_stateless_fetch_sets_take_the_short_path_with_every_check():
    """A fetch set that reads no variable runs through one closure (plan.stateless) without the
    lock: it still converts and checks feeds, returns fresh writable arrays and TF's errors."""
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = x * 2.0
    s = tf.reduce_sum(y)
    v = tf.Variable(1.0, name="v")
    with tf.Session() as sess:
        sess.run(v.initializer)
        feed = np.ones((3, 2), np.float32)
        first = sess.run(y, {x: feed})
        plans = {p.single: p for p in sess._plans.values()}
        assert plans[True].stateless is not None
        first[0, 0] = 99.0                                  # writable, and not the next call's buffer
        np.testing.assert_array_equal(sess.run(y, {x: feed}), np.full((3, 2), 2.0, np.float32))
        got = sess.run({"y": y, "s": [s]}, {x: [[1, 2], [3, 4]]})   # lists converted; structures rebuilt
        np.testing.assert_array_equal(got["y"], [[2, 4], [6, 8]])
        assert got["s"][0] == 20.0 and got["s"][0].dtype == np.float32
        assert sess.run(y, {x: np.ones((1, 2), np.float64)}).dtype == np.float32
        with pytest.raises(ValueError, match=r"Cannot feed value of shape \(2, 3\) for Tensor 'x:0'"):
            sess.run(y, {x: np.ones((2, 3), np.float32)})
        assert sess.run(v + 1.0) == 2.0
        with_var = [p for p in sess._plans.values() if p.lowered is not None and p.lowered.ro_vars]
        assert with_var and with_var[0].stateless is None     # variables: the locked path


def test_accelerator_dots_are_float32_as_tf115_and_cpu_programs_unchanged(monkeypatch):
    # TF 1.15 never rounded float32 matmuls to TF32; on a GPU, JAX's default would (errors ~1e-3)
    from tinyflow.lower import jax_backend
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    y = tf.matmul(x, tf.ones([3, 4]), name="mm")
    feed = {x: np.ones((2, 3), np.float32)}
    monkeypatch.setattr(jax_backend, "_FULL_F32", [False])         # as on the CPU: left as it was
    with tf.Session() as sess:
        assert "HIGHEST" not in str(sess.lowered(y, feed).jaxpr)
    monkeypatch.setattr(jax_backend, "_FULL_F32", [True])          # as on a GPU
    with tf.Session() as sess:
        assert "HIGHEST" in str(sess.lowered(y, feed).jaxpr)


def test_a_platform_list_without_the_cpu_gets_it_for_host_callbacks():
    # JAX_PLATFORMS=cuda left no CPU device: every tf.py_func failed in jax.io_callback
    import tinyflow.api as api
    assert api._with_host_platform("cuda") == "cuda,cpu"
    assert api._with_host_platform("cuda,cpu") == "cuda,cpu"
    assert api._with_host_platform("cpu") == "cpu"
    assert api._with_host_platform(None) is None and api._with_host_platform("") == ""
