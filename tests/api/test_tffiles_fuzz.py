"""TF's files under random damage (hypothesis, the test extra): errors are TF-style, never another exception."""
import os

import numpy as np
import pytest

import tinyflow as tf
from test_tffiles_untrusted import DATA, _copy
from tffiles_model import FIX
from tinyflow.formats.bundle import BundleReader, bundle_files

pytest.importorskip("hypothesis", reason="the fuzz tests need hypothesis (the test extra)")
from hypothesis import given, settings, strategies as st  # noqa: E402


@pytest.mark.slow
@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10 ** 6), st.integers(0, 255)), min_size=1, max_size=4),
       st.booleans(), st.integers(0, 400))
def test_fuzz_bundle_reader(tmp_path_factory, edits, in_data, cut):
    """Any damage to a checkpoint gives DataLossError / NotFoundError, or (if harmless) the right values."""
    p = _copy(tmp_path_factory.mktemp("fz"))
    path = p + (DATA if in_data else ".index")
    data = bytearray(open(path, "rb").read())
    for pos, val in edits:
        data[pos % len(data)] = val
    if cut % 5 == 0:
        data = data[:cut % len(data)]
    open(path, "wb").write(bytes(data))
    try:
        r = BundleReader(p)
        for name in r.get_variable_to_shape_map():
            r.get_tensor(name)
    except (tf.errors.DataLossError, tf.errors.NotFoundError):
        pass


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=12).filter(lambda s: not s.startswith("\x00")),
                       st.integers(0, 3), min_size=1, max_size=6))
def test_fuzz_bundle_roundtrip(tmp_path_factory, spec):
    """Random names, dtypes and shapes survive a write and a read (a name never starts with a 0 byte:
    in TF's bundle such keys are the slices of partitioned variables)."""
    dtypes = [tf.float32, tf.int64, tf.bool, tf.float64]
    rng = np.random.RandomState(len(spec))
    arrays = {n: (dtypes[k], np.asarray(rng.randn(*([k + 1] * k))).astype(dtypes[k].as_numpy_dtype))
              for n, k in spec.items()}
    index, data = bundle_files(arrays)
    p = str(tmp_path_factory.mktemp("rt") / "ck")
    open(p + ".index", "wb").write(index)
    open(p + DATA, "wb").write(data)
    r = BundleReader(p)
    for n, (d, a) in arrays.items():
        np.testing.assert_array_equal(r.get_tensor(n), a)
        assert r.get_variable_to_dtype_map()[n] == d


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10 ** 6), st.integers(0, 255)), min_size=1, max_size=3))
def test_fuzz_graph_def_import(edits):
    """A damaged frozen graph either parses and imports, or gives a TF-style error; never another exception."""
    from google.protobuf.message import DecodeError
    data = bytearray(open(os.path.join(FIX, "frozen.pb"), "rb").read())
    for pos, val in edits:
        data[pos % len(data)] = val
    gd = tf.GraphDef()
    try:
        gd.ParseFromString(bytes(data))
    except DecodeError:
        return
    with tf.Graph().as_default():
        try:
            tf.import_graph_def(gd)
        except (tf.errors.OpError, ValueError):
            pass
