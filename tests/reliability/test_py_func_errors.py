"""A py_func / numpy_function that raises: Session.run raises the tf.errors error TF 1.15 raises
(class by exception type, "<Type>: <message>", the op's name), which script_ops.pending_error()
builds from what the host side recorded."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.ops import script_ops

# (exception, TF 1.15's error class): from the TF 1.15 oracle
CASES = [(ValueError("boom value"), tf.errors.InvalidArgumentError),
         (TypeError("boom type"), tf.errors.InvalidArgumentError),
         (RuntimeError("boom runtime"), tf.errors.UnknownError),
         (StopIteration("stop"), tf.errors.OutOfRangeError),
         (KeyError("k"), tf.errors.UnknownError),
         (NotImplementedError("ni"), tf.errors.UnimplementedError),
         (IndexError("ix"), tf.errors.UnknownError),
         (ZeroDivisionError("zd"), tf.errors.UnknownError),
         (MemoryError("mem"), tf.errors.ResourceExhaustedError),
         (AssertionError("as"), tf.errors.UnknownError),
         (tf.errors.InvalidArgumentError(None, None, "tf err"), tf.errors.UnknownError)]


@pytest.mark.parametrize("make", [tf.py_func, tf.numpy_function])
@pytest.mark.parametrize("k", range(len(CASES)))
def test_error_class_and_message(make, k):
    exc, cls = CASES[k]

    def bad(a):
        raise exc
    with tf.Graph().as_default():
        x = tf.constant(np.ones(2, np.float32))
        y = make(bad, [x], tf.float32, name="myop")
        y.set_shape([2])
        script_ops.pending_error()  # forget failures other tests left
        with tf.Session() as sess:
            with pytest.raises(tf.errors.OpError) as e:
                sess.run(y)
    err = e.value
    assert type(err) is cls
    assert err.op is y.op and "[[node myop ]]" in err.message
    head = "%s: %s" % (type(exc).__name__, exc)
    assert err.message.startswith(head), err.message
    assert "Traceback" in err.message and "in bad" in err.message
    assert script_ops.pending_error() is None  # consumed by the Session


def test_pending_error_directly():
    """What the Session calls after a failed dispatch: the first recorded failure, then nothing."""
    with tf.Graph().as_default():
        op = tf.py_func(lambda a: a, [tf.constant(1.0)], tf.float32, name="direct").op
    script_ops.pending_error()
    script_ops._record_failure(op, TypeError("first"))
    script_ops._record_failure(op, ValueError("second"))
    err = script_ops.pending_error()
    assert isinstance(err, tf.errors.InvalidArgumentError) and err.message.startswith("TypeError: first")
    assert "[[node direct ]]" in err.message and script_ops.pending_error() is None


def test_wrong_number_of_results_is_invalid_argument():
    with tf.Graph().as_default():
        x = tf.constant(np.ones(2, np.float32))
        y, z = tf.py_func(lambda a: a, [x], [tf.float32, tf.float32], name="two")
        y.set_shape([2])
        z.set_shape([2])
        script_ops.pending_error()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                sess.run(y)
    err = e.value
    assert isinstance(err, tf.errors.InvalidArgumentError) and "returned 1 values, expected 2" in err.message


def test_a_working_py_func_records_nothing():
    with tf.Graph().as_default():
        x = tf.constant(np.ones(2, np.float32))
        y = tf.py_func(lambda a: a * 2, [x], tf.float32)
        y.set_shape([2])
        script_ops.pending_error()
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(y), [2, 2])
    assert script_ops.pending_error() is None
