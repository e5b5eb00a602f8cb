"""tf.test (TestCase, gradient checks), the session option records and tf.compat's string helpers."""
import numpy as np
import pytest

import tinyflow as tf


class _Case(tf.test.TestCase):
    def test_session_and_asserts(self):
        x = tf.constant([1.0, 2.0])
        with self.cached_session() as sess:
            self.assertAllClose(sess.run(x * 2), [2.0, 4.0])
            self.assertAllEqual(self.evaluate(tf.shape(x)), [2])
        self.assertAllInRange([1, 2], 1, 2)
        with self.assertRaises(AssertionError):
            self.assertAllEqual([1, 2], [1, 3])
        with self.assertRaises(AssertionError):
            self.assertAllInSet([1, 5], {1, 2})

    def test_fresh_graph_per_test(self):
        self.assertEqual(len(tf.get_default_graph().get_operations()), 0)


def test_test_case_runs_under_unittest():
    import unittest
    result = unittest.TextTestRunner(stream=open("/dev/null", "w")).run(
        unittest.defaultTestLoader.loadTestsFromTestCase(_Case))
    assert result.wasSuccessful() and result.testsRun == 3 and len(result.skipped) == 1   # test_session skips


def test_compute_gradient_matches_numeric_and_error_sees_a_wrong_gradient():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float64, [2, 3])
        y = tf.reduce_sum(tf.sin(x) * x, axis=1)
        with tf.Session(graph=g).as_default():
            theory, numeric = tf.test.compute_gradient(x, [2, 3], y, [2])
            assert theory.shape == numeric.shape == (6, 2)
            np.testing.assert_allclose(theory, numeric, atol=1e-6)
            assert tf.test.compute_gradient_error(x, [2, 3], y, [2]) < 1e-6

            z = x * tf.stop_gradient(x)   # its symbolic gradient (x) is half the numeric one (2x)
            assert tf.test.compute_gradient_error(x, [2, 3], z, [2, 3]) > 0.1


def test_config_records_have_tf_fields_and_defaults():
    c = tf.ConfigProto()
    assert c.gpu_options.allow_growth is False and c.allow_soft_placement is False
    assert c.gpu_options.per_process_gpu_memory_fraction == 0.0 and c.gpu_options.visible_device_list == ""
    c.gpu_options.allow_growth = True
    assert tf.ConfigProto().gpu_options.allow_growth is False   # each record has its own nested record
    with pytest.raises(ValueError, match='Protocol message GPUOptions has no "foo" field.'):
        tf.GPUOptions(foo=1)
    with pytest.raises(AttributeError, match="no field"):
        c.not_a_field = 1
    assert (tf.RunOptions.FULL_TRACE, tf.RunOptions.NO_TRACE, tf.OptimizerOptions.ON_1) == (3, 0, 1)
    config = tf.ConfigProto(gpu_options=tf.GPUOptions(per_process_gpu_memory_fraction=0.4),
                            allow_soft_placement=True, log_device_placement=False)
    with tf.Graph().as_default(), tf.Session(config=config) as sess:
        assert sess.run(tf.constant(3), options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                        run_metadata=tf.RunMetadata()) == 3


def test_compat_strings_as_tf():
    assert tf.compat.as_str(b"ab") == "ab" and tf.compat.as_bytes("x") == b"x" and tf.compat.as_text(b"y") == "y"
    assert tf.compat.as_bytes(bytearray(b"z")) == b"z" and tf.compat.as_str_any(3) == "3"
    with pytest.raises(TypeError, match="Expected binary or unicode string, got 3"):
        tf.compat.as_bytes(3)
    assert isinstance(np.int32(1), tf.compat.integral_types)
