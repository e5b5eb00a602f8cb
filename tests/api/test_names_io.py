"""TF 1.15's names of issue 37 item 3 against TF's recorded behaviour: tf.io's sequence and JSON examples,
tf.data.experimental's optionals, statistics and structures, AdagradDA, the cluster protobufs and resolvers,
and the tf. graph utilities (CriticalSection, IdentityReader, session handles, wrap_function, ...).
The families of tests/fixtures/names_io/cases.py run under tinyflow and are compared with what make.py
recorded under TF 1.15."""
import importlib.util
import os

import numpy as np
import pytest

import tinyflow as tf

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "names_io")
_spec = importlib.util.spec_from_file_location("names_io_cases", os.path.join(HERE, "cases.py"))
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
F = np.load(os.path.join(HERE, "values.npz"), allow_pickle=True)


def _same(key, got, want):
    got = np.asarray(got)
    if want.dtype == object or want.dtype.kind in "SU":
        assert got.shape == want.shape, (key, got.shape, want.shape)
        np.testing.assert_array_equal(got.astype(object), want.astype(object), err_msg=key)
        return
    assert got.dtype == want.dtype, (key, got.dtype, want.dtype)
    assert got.shape == want.shape, (key, got.shape, want.shape)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-7, err_msg=key)
    else:
        np.testing.assert_array_equal(got, want, err_msg=key)


@pytest.mark.parametrize("family", cases.FAMILIES, ids=lambda f: f.__name__[len("family_"):])
def test_family_against_tf115(family):
    name = family.__name__[len("family_"):]
    with tf.Graph().as_default():
        fetches = family(tf, np)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            runner = getattr(cases, family.__name__ + "_run", None)
            got = runner(tf, s, fetches) if runner else s.run(fetches)
    recorded = sorted(k[len(name) + 1:] for k in F.files if k.startswith(name + "/"))
    assert sorted(got) == recorded
    for k, v in got.items():
        _same(name + "/" + k, v, F[name + "/" + k])
