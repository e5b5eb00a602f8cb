"""TF 1.15's core names that tinyflow added (issue 37) against TF's recorded numbers: each family of
tests/fixtures/core_names/cases.py built and run under tinyflow in one Session, compared with what
make_core_names.py recorded under TF 1.15 (values, dtypes and gradients)."""
import os
import sys

import numpy as np
import pytest

import tinyflow as tf

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "core_names")
sys.path.insert(0, HERE)
import cases  # noqa: E402

sys.path.remove(HERE)
F = np.load(os.path.join(HERE, "core_names.npz"), allow_pickle=True)
# keys whose values are random draws or otherwise not TF's bit pattern: compared by their own check
TOLERANCE = {"float16": 2e-3, "float32": 2e-4, "complex64": 2e-4}


def _same(key, got, want):
    got = np.asarray(got)
    if want.dtype == object or want.dtype.kind in "SU":
        np.testing.assert_array_equal(got.astype(object), want.astype(object), err_msg=key)
        return
    assert got.dtype == want.dtype, (key, got.dtype, want.dtype)
    assert got.shape == want.shape, (key, got.shape, want.shape)
    if want.dtype.kind in "fc":
        tol = TOLERANCE.get(want.dtype.name, 1e-7)
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=key)
    else:
        np.testing.assert_array_equal(got, want, err_msg=key)


@pytest.mark.slow   # one Session per family, a few hundred ops each: 1-4 s apiece
@pytest.mark.parametrize("family", cases.FAMILIES, ids=lambda f: f.__name__[len("family_"):])
def test_family_against_tf115(family):
    name = family.__name__[len("family_"):]
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        fetches = family(tf, np)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(tf.tables_initializer())
            got = s.run(fetches)
    recorded = sorted(k[len(name) + 1:] for k in F.files if k.startswith(name + "/"))
    assert sorted(got) == recorded
    for k, v in got.items():
        _same(name + "/" + k, v, F[name + "/" + k])
