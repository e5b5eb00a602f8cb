"""The harness of the tests that replay TF 1.15-recorded case sets (tests/fixtures/<topic>/: a cases module
whose functions build one graph each, RECORDED and SLOW lists, and values.npz written by make.py under TF
1.15): each case set is one graph run in one session.run, every fetched value compared with TF's."""
import importlib.util
import json
import os

import numpy as np
import pytest

import tinyflow as tf
from paths import TESTS


def load(topic, module):
    """(the cases module of tests/fixtures/<topic>/<module>.py, its recorded values)."""
    here = os.path.join(TESTS, "fixtures", topic)
    spec = importlib.util.spec_from_file_location(topic + "_" + module, os.path.join(here, module + ".py"))
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    return cases, np.load(os.path.join(here, "values.npz"))


def maker(folder, name):
    """(the module of <folder>/make_<name>.py, the JSON it wrote under TF 1.15 as <folder>/<name>.json): the
    tests whose fixture script's `record(tf)` runs under both TF 1.15 and tinyflow."""
    spec = importlib.util.spec_from_file_location("make_" + name, os.path.join(folder, "make_%s.py" % name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with open(os.path.join(folder, name + ".json")) as f:
        return module, json.load(f)


def params(cases):
    """The recorded case sets as pytest params, the slow ones marked."""
    return [pytest.param(n, marks=pytest.mark.slow) if n in cases.SLOW else n for n in cases.RECORDED]


def run(cases, fn_name):
    """{key: value} of one case set built and run in a fresh graph (its own `<name>_run` if it has one)."""
    tf.reset_default_graph()
    tensors = getattr(cases, fn_name)(tf)
    with tf.Session() as sess:
        if hasattr(cases, fn_name + "_run"):
            return getattr(cases, fn_name + "_run")(tf, sess, tensors)
        sess.run(tf.global_variables_initializer())
        sess.run(tf.local_variables_initializer())
        return sess.run(tensors)


def check(cases, values, fn_name, tol=2e-5):
    """Asserts the case set's values equal TF 1.15's (shape, dtype kind, values within tol)."""
    got = run(cases, fn_name)
    want = {k.split("/", 1)[1]: values[k] for k in values.files if k.startswith(fn_name + "/")}
    assert sorted(got) == sorted(want)
    bad = []
    for k in sorted(want):
        g, w = np.asarray(got[k]), want[k]
        if w.dtype.kind == "S":   # strings are recorded as fixed-width bytes (make.py: no pickled objects)
            if g.shape != w.shape or not np.array_equal(g.astype("S"), w):
                bad.append("%s: got %s, want %s" % (k, g, w))
            continue
        if g.shape != w.shape or g.dtype != w.dtype and not (g.dtype.kind == w.dtype.kind == "f") or \
                not np.allclose(g if g.dtype.kind in "bc" else g.astype(np.float64),
                                w if w.dtype.kind in "bc" else w.astype(np.float64), rtol=tol, atol=tol):
            bad.append("%s: got %s %s, want %s %s" % (k, g.dtype, g.shape, w.dtype, w.shape))
    assert not bad, "\n".join(bad)
