"""Programs with unknown batch and time dimensions against TF 1.15 (tests/fixtures/unknown_dims:
cases.py builds each under tinyflow, the variables get TF's values, every fetch of every run must
equal what TF 1.15 computed, a run that raises TF's error). Covers tf.cond as TF runs it (only the taken
branch: contrib.crf's single-sequence case, a squeeze valid only when taken, also in a loop body or
another branch) and the ported seq2seq/CRF/loss code with
placeholders whose batch and time are None."""
import importlib.util
import json
import os

import numpy as np
import pytest

import tinyflow as tf

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "unknown_dims")
_spec = importlib.util.spec_from_file_location("unknown_dims_cases", os.path.join(HERE, "cases.py"))
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
EXPECTED = np.load(os.path.join(HERE, "expected.npz"))
with open(os.path.join(HERE, "names.json")) as f:
    NAMES = json.load(f)


# the others compile seconds of loops and gradients (ported_layers_none_dims: ~2.5 CPU-s)
FAST = {"cond_squeeze", "sequence_loss_none_dims", "conv3d_transpose_none_dims"}


@pytest.mark.parametrize("name", [n if n in FAST else pytest.param(n, marks=pytest.mark.slow) for n in sorted(NAMES)])
def test_case_matches_tf115(name):
    with tf.Graph().as_default():
        runs, fetches = cases.CASES[name](tf)
        variables = tf.global_variables()
        assert sorted([v.op.name, v.shape.as_list()] for v in variables) == NAMES[name]
        got = {"%s/static/%s" % (name, k): np.array(str(v.shape)) for k, v in fetches.items()
               if hasattr(v, "shape") and not hasattr(v, "type")}   # shape inference as TF's
        with tf.Session() as sess:
            for v, x in cases.values(variables).items():
                v.load(x, sess)
            for i, feeds in enumerate(runs):
                try:
                    out = sess.run(fetches, feeds)
                except tf.errors.OpError as e:   # TF's error: its class and first line
                    out = {"error": np.array("%s: %s" % (type(e).__name__, str(e).splitlines()[0]))}
                for k, v in out.items():
                    if v is not None:
                        got["%s/%d/%s" % (name, i, k)] = v
    expected = {k: EXPECTED[k] for k in EXPECTED.files if k.split("/", 1)[0] == name}
    assert sorted(got) == sorted(expected)
    for k, v in expected.items():
        if k.endswith("/error") or "/static/" in k:
            assert str(got[k]) == str(v), k
            continue
        assert got[k].dtype == v.dtype, k
        np.testing.assert_allclose(got[k], v, rtol=2e-5, atol=2e-6, err_msg=k)


def test_untaken_branch_that_cannot_run_raises_tf_error_only_when_taken():
    """A branch that cannot be traced at the run's shapes raises TF's InvalidArgumentError when the fed
    predicate selects it, before any variable changes; the other branch runs."""
    x = tf.placeholder(tf.float32, [None, None])
    p = tf.placeholder(tf.bool, [])
    v = tf.Variable(1.0)
    y = tf.cond(p, lambda: tf.squeeze(x, [1]), lambda: tf.reduce_sum(x, 1))
    k = tf.placeholder(tf.int32, [])
    z = tf.switch_case(k, [lambda: tf.squeeze(x, [1]), lambda: tf.reduce_sum(x, 1)])
    with tf.control_dependencies([y, z]):
        inc = tf.assign_add(v, 1.0)
    with tf.Session() as sess:
        sess.run(v.initializer)
        ones = np.ones((2, 3), np.float32)
        out = sess.run([y, z, inc], {x: ones, p: False, k: 1})
        np.testing.assert_array_equal(out[0], [3, 3])
        for feed in ({p: True, k: 1}, {p: False, k: 0}):
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"Can not squeeze dim\[1\], expected a "
                               r"dimension of 1, got 3"):
                sess.run([y, z, inc], {**feed, x: ones})
        assert sess.run(v) == 2.0
        np.testing.assert_array_equal(sess.run(y, {x: np.ones((2, 1)), p: True}), [1, 1])
