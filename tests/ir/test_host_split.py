"""passes/host_split.py: a fetch set holding strings is cut into host ops and the device steps
between them, before anything runs; runtime/host_stage.py runs the steps (checked here too)."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.passes import host_split, prune


def _graph():
    s = tf.placeholder(tf.string, [None], name="s")
    x = tf.placeholder(tf.float32, [], name="x")
    y = x * 2.0
    n = tf.strings.length(s)
    z = tf.strings.join([tf.as_string(y), s[0]])
    m = tf.cast(n, tf.float32) * y
    return s, x, y, z, m


def test_the_split_of_a_fetch_set_with_strings():
    s, x, y, z, m = _graph()
    steps = host_split.split(prune.prune([z, m], [s, x]), [s, x])
    # every op reading or making a string runs on the host, in graph order
    assert [op.type for op in steps.host] == ["StringLength", "AsString", "StridedSlice", "StringJoin"]
    # the numeric y that AsString reads comes from one device step just before it, with the slice's
    # numeric arguments that a later host op needs (nothing is computed twice)
    assert steps.before[0] == [] and steps.before[1][0] is y
    assert {t.op.type for t in steps.before[1][1:]} == {"Const"} and steps.before[2:] == [[], []]
    assert steps.final == [m]      # the numeric fetch, after the host ops
    assert steps.feeds == [s, x]
    with tf.Session() as sess:
        got_z, got_m = sess.run([z, m], {s: ["ab", "cde"], x: 1.5})
    assert got_z == b"3.000000ab"   # TF 1.15 formats a float with %f
    np.testing.assert_allclose(got_m, [6.0, 9.0])


def test_a_numeric_fetch_set_needs_no_host_stage():
    s, x, y, z, m = _graph()
    assert host_split.split(prune.prune([y], [x]), [x]) is None


def test_an_unfed_string_placeholder_is_an_error_before_anything_runs():
    s, x, y, z, m = _graph()
    with pytest.raises(tf.errors.InvalidArgumentError, match="You must feed a value for placeholder tensor 's' "
                                                             "with dtype string and shape \\[\\?\\]"):
        host_split.split(prune.prune([z], [x]), [x])
