"""TF 1.15's core names that tinyflow added (issue 37) against TF's recorded numbers: each family of
tests/fixtures/core_names/cases.py built and run under tinyflow in one Session, compared with what
make_core_names.py recorded under TF 1.15 (values, dtypes and gradients)."""
import importlib.util
import os
import sys

import numpy as np
import pytest

import tinyflow as tf

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "core_names")
sys.path.insert(0, HERE)
# loaded under a name of its own: another test's fixtures may hold a `cases` module too
_spec = importlib.util.spec_from_file_location('core_names_cases', os.path.join(HERE, "cases.py"))
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)

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


FILES = os.path.join(HERE, "complex_files")


def test_complex_checkpoints_and_graph_defs_with_tf115(tmp_path):
    """A TF 1.15 V2 checkpoint of complex64/complex128 variables restores; a GraphDef with complex Consts
    (scomplex_val) imports and runs to TF's value; tinyflow's own save and GraphDef round-trip them."""
    want = np.load(os.path.join(FILES, "values.npz"))
    reader = tf.train.NewCheckpointReader(os.path.join(FILES, "model.ckpt"))
    assert reader.get_variable_to_dtype_map() == {"a": tf.complex64, "b": tf.complex128}
    np.testing.assert_array_equal(reader.get_tensor("a"), want["a"])
    with tf.Graph().as_default():
        a = tf.Variable(np.zeros((2, 2), np.complex64), name="a")
        b = tf.Variable(np.zeros(3, np.complex128), name="b")
        saver = tf.train.Saver()
        with tf.Session() as s:
            saver.restore(s, os.path.join(FILES, "model.ckpt"))
            np.testing.assert_array_equal(s.run(a), want["a"])
            np.testing.assert_array_equal(s.run(b), want["b"])
            s.run(a.assign(a * (1 + 1j)))
            path = saver.save(s, str(tmp_path / "again"))
        again = tf.train.NewCheckpointReader(path)
        np.testing.assert_array_equal(again.get_tensor("a"), want["a"] * (1 + 1j))
        assert again.get_tensor("b").dtype == np.complex128
    gd = tf.GraphDef()
    gd.ParseFromString(open(os.path.join(FILES, "graph.pb"), "rb").read())
    with tf.Graph().as_default() as g:
        tf.import_graph_def(gd, name="")
        out = g.get_tensor_by_name("out:0")
        with tf.Session() as s:
            got = s.run(out)
        np.testing.assert_allclose(got, want["out"], rtol=1e-6)
        assert got.dtype == np.complex64
        round_trip = g.as_graph_def()
    with tf.Graph().as_default() as g2:
        tf.import_graph_def(round_trip, name="")
        with tf.Session() as s:
            np.testing.assert_allclose(s.run(g2.get_tensor_by_name("out:0")), want["out"], rtol=1e-6)


def test_declared_names_say_they_are_not_implemented():
    """A TF 1.15 name tinyflow declares without implementing raises UnimplementedError naming it."""
    for fn, name in [(tf.load_op_library, "load_op_library"), (tf.raw_ops.MatMul, "raw_ops.MatMul"),
                     (tf.LMDBReader, "LMDBReader")]:
        with pytest.raises(tf.errors.UnimplementedError, match="TF 1.15 has tf.*%s; tinyflow does not implement it"
                           % name):
            fn()


def test_v2_switches_record_what_was_asked():
    assert not tf.control_flow_v2_enabled()
    tf.enable_control_flow_v2()
    assert tf.control_flow_v2_enabled()
    tf.disable_control_flow_v2()
    assert not tf.control_flow_v2_enabled()
    tf.enable_resource_variables()
    assert tf.resource_variables_enabled()
    tf.disable_resource_variables()
    assert not tf.resource_variables_enabled()
