"""tf.function in graph mode (input_signature checked as TF 1.15 checks it; values as TF 1.15 computes them:
[2, 4] and 3.0 for the functions below) and tf.autograph (no conversion: a clear error on tensor control flow)."""
import numpy as np
import pytest

import tinyflow as tf


def test_function_builds_its_ops_and_checks_the_signature():
    with tf.Graph().as_default():
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def f(x):
            return x * 2.0

        @tf.function
        def g(x, n=2):
            return x + n

        y = f(tf.constant([1.0, 2.0]))
        assert y.shape.as_list() == [2]
        for bad in (tf.constant([1, 2]), tf.constant([[1.0]])):
            with pytest.raises(ValueError, match="Python inputs incompatible with input_signature"):
                f(bad)
        with pytest.raises(TypeError, match="only pass arguments covered by it. Received 2 argument"):
            f(tf.constant([1.0]), tf.constant([1.0]))
        assert g.python_function.__name__ == "g"
        cf = f.get_concrete_function()
        assert cf.structured_input_signature[0][0].dtype == tf.float32
        with tf.Session() as s:
            got = s.run([y, g(tf.constant(1.0)), f([3.0])])
        np.testing.assert_allclose(got[0], [2.0, 4.0])
        assert got[1] == 3.0
        np.testing.assert_allclose(got[2], [6.0])


def test_autograph_runs_python_control_flow_and_refuses_tensor_control_flow():
    def scale(x, times):
        for _ in range(times):   # Python control flow over a Python int: runs as written
            x = x * 2.0
        return x

    def branchy(x):
        if x > 0:   # a Tensor as a Python bool: TF's autograph makes a tf.cond, tinyflow says so
            return x
        return -x

    with tf.Graph().as_default():
        with tf.Session() as s:
            assert s.run(tf.autograph.to_graph(scale)(tf.constant(1.5), 3)) == 12.0
        with pytest.raises(TypeError, match="tf.cond / tf.while_loop"):
            tf.autograph.to_graph(branchy)(tf.constant(1.0))
        with pytest.raises(TypeError, match="tf.cond"):
            tf.function(branchy)(tf.constant(1.0))
    assert "if x > 0" in tf.autograph.to_code(branchy)
    assert tf.autograph.experimental.do_not_convert(scale) is scale
    assert [f.name for f in tf.autograph.experimental.Feature] == [
        "ALL", "AUTO_CONTROL_DEPS", "ASSERT_STATEMENTS", "BUILTIN_FUNCTIONS", "EQUALITY_OPERATORS", "LISTS",
        "NAME_SCOPES"]
