"""tf.variable_scope / tf.get_variable: naming, sharing, reuse modes, defaults and TF's errors."""
import numpy as np
import pytest

import tinyflow as tf


def _run(*fetches):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(list(fetches))


def test_names_and_name_scope_interplay():
    with tf.variable_scope("foo"):
        w = tf.get_variable("w", [3, 4])
        c = tf.constant(1.0, name="c")
        with tf.variable_scope("bar"):
            v = tf.get_variable("v", [1])
    assert (w.name, c.name, v.name) == ("foo/w:0", "foo/c:0", "foo/bar/v:0")
    assert w.op.type == "VariableV2" and w.shape.as_list() == [3, 4] and w.dtype == tf.float32
    # Variables are named by the variable scope, ops by the name scope.
    with tf.name_scope("ns"):
        with tf.variable_scope("vs"):
            u = tf.get_variable("u", [2])
            s = tf.add(u, 1.0)
    assert u.name == "vs/u:0" and s.name == "ns/vs/Add:0"
    # Re-entering a scope by name: same variable scope, a fresh name scope.
    with tf.variable_scope("foo", reuse=True):
        assert tf.get_variable("w", [3, 4]) is w
        assert tf.constant(0.0, name="c").name == "foo_1/c:0"
    assert w in tf.global_variables() and w in tf.trainable_variables()


def test_duplicate_and_missing_errors():
    with tf.variable_scope("foo"):
        tf.get_variable("w", [3])
    with pytest.raises(ValueError, match=r"^Variable foo/w already exists, disallowed. Did you mean to set "
                                         r"reuse=True or reuse=tf.AUTO_REUSE in VarScope\?"):
        with tf.variable_scope("foo"):
            tf.get_variable("w", [3])
    with pytest.raises(ValueError, match=r"^Variable foo/x does not exist, or was not created with "
                                         r"tf.get_variable\(\). Did you mean to set reuse=tf.AUTO_REUSE in VarScope\?"):
        with tf.variable_scope("foo", reuse=True):
            tf.get_variable("x", [3])
    with pytest.raises(ValueError, match="Trying to share variable foo/w, but specified shape"):
        with tf.variable_scope("foo", reuse=True):
            tf.get_variable("w", [4])
    with pytest.raises(ValueError, match="reuse=True cannot be used without a name_or_scope"):
        with tf.variable_scope(None, default_name="d", reuse=True):
            pass


def test_reuse_variables_auto_reuse_and_inheritance():
    with tf.variable_scope("a") as scope:
        x = tf.get_variable("x", [1])
        scope.reuse_variables()
        assert tf.get_variable("x", [1]) is x
        with tf.variable_scope("inner", reuse=False):  # reuse is inherited, not undone
            assert tf.get_variable_scope().reuse is True
    assert tf.get_variable_scope().reuse is False
    for _ in range(2):
        with tf.variable_scope("auto", reuse=tf.AUTO_REUSE):
            y = tf.get_variable("y", [2])
    assert y.name == "auto/y:0" and len([v for v in tf.global_variables() if v.name == "auto/y:0"]) == 1


def test_reenter_scope_object_and_default_names():
    with tf.variable_scope("outer") as outer:
        pass
    with tf.variable_scope("other"):
        with tf.variable_scope(outer):  # a scope object is absolute, not nested
            v = tf.get_variable("v", [1])
            assert tf.get_variable_scope().original_name_scope == "outer/"
            assert tf.constant(1, name="k").name == "other/outer/k:0"
    assert v.name == "outer/v:0"
    names = []
    for _ in range(2):
        with tf.variable_scope(None, default_name="dense"):
            names.append(tf.get_variable_scope().name)
    assert names == ["dense", "dense_1"]
    with tf.variable_scope("b"):
        with tf.variable_scope(None, default_name="dense") as s:
            assert s.name == "b/dense"


@pytest.mark.slow
def test_initializers_dtypes_and_values():
    with tf.variable_scope("s", initializer=tf.constant_initializer(2.0)):
        a = tf.get_variable("a", [2])
        b = tf.get_variable("b", [2], initializer=tf.ones_initializer())
    i = tf.get_variable("i", [3], dtype=tf.int32)  # integers default to zeros
    f = tf.get_variable("f", [20, 30])  # floats default to glorot_uniform
    n = tf.get_variable("n", initializer=np.arange(4.0))  # a value gives its own shape and dtype
    t = tf.get_variable("t", initializer=tf.constant([1, 2]))
    assert n.dtype == tf.float64 and n.shape.as_list() == [4] and t.dtype == tf.int32
    assert f.initializer.inputs[1].name.startswith("f/Initializer/")
    va, vb, vi, vf, vn, vt = _run(a, b, i, f, n, t)
    np.testing.assert_array_equal(va, [2, 2])
    np.testing.assert_array_equal(vb, [1, 1])
    assert vi.dtype == np.int32 and not vi.any()
    limit = np.sqrt(6.0 / 50)
    assert np.abs(vf).max() <= limit and vf.std() > limit / 3
    np.testing.assert_array_equal(vn, np.arange(4.0))
    with pytest.raises(ValueError, match="If initializer is a constant, do not specify shape."):
        tf.get_variable("bad", [4], initializer=np.zeros(4))
    with pytest.raises(ValueError, match="Initializer type .*float64.* and explicit dtype .*float32.* don't match."):
        tf.get_variable("bad2", dtype=tf.float32, initializer=np.zeros(4))


def test_trainable_collections_regularizer_custom_getter():
    r = tf.get_variable("r", [2], trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES])
    assert r in tf.local_variables() and r not in tf.global_variables() and r not in tf.trainable_variables()
    w = tf.get_variable("w", [3], initializer=tf.ones_initializer(),
                        regularizer=lambda v: tf.reduce_sum(tf.square(v)))
    reg = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert len(reg) == 1 and reg[0].name.startswith("w/Regularizer/")
    seen = []

    def getter(next_getter, name, *args, **kwargs):
        seen.append(name)
        return next_getter(name, *args, **kwargs)
    def outer_getter(next_getter, name, *args, **kwargs):
        seen.append("outer")
        return next_getter(name, *args, **kwargs)
    with tf.variable_scope("cg", custom_getter=outer_getter):
        with tf.variable_scope("in", custom_getter=getter):  # nested getters both run, inner first
            tf.get_variable("z", [1])
    assert seen == ["cg/in/z", "outer"]
    with tf.Session() as sess:
        sess.run(w.initializer)
        assert sess.run(reg[0]) == 3.0


def test_scope_dtype_and_get_local_variable():
    with tf.variable_scope("d", dtype=tf.float64):
        v = tf.get_variable("v", [2])
    assert v.dtype == tf.float64
    loc = tf.get_local_variable("loc", [1])
    assert loc in tf.local_variables() and loc not in tf.trainable_variables()


def test_sharing_builds_one_model():
    def model(x):
        w = tf.get_variable("w", [2, 1], initializer=tf.constant_initializer(0.5))
        return tf.matmul(x, w)
    x = tf.constant([[1.0, 2.0]])
    with tf.variable_scope("m"):
        y1 = model(x)
    with tf.variable_scope("m", reuse=True):
        y2 = model(x)
    assert len(tf.trainable_variables()) == 1
    a, b = _run(y1, y2)
    np.testing.assert_allclose(a, [[1.5]]) and np.testing.assert_allclose(b, [[1.5]])


def test_make_template_shares_variables_between_calls():
    def affine(x, units):
        w = tf.get_variable("w", [x.shape[-1].value, units], initializer=tf.ones_initializer())
        b = tf.get_variable("b", [units], initializer=tf.zeros_initializer())
        return tf.matmul(x, w) + b

    layer = tf.make_template("affine", affine, units=2)
    a = layer(tf.constant([[1.0, 2.0]]))
    b = layer(tf.constant([[3.0, 4.0]]))
    assert [v.name for v in tf.global_variables()] == ["affine/w:0", "affine/b:0"]
    other = tf.make_template("affine", affine, units=2)
    other(tf.constant([[1.0, 2.0]]))
    assert [v.name for v in tf.global_variables()][2:] == ["affine_1/w:0", "affine_1/b:0"]
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    assert sess.run(a).tolist() == [[3.0, 3.0]] and sess.run(b).tolist() == [[7.0, 7.0]]
