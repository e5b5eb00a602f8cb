"""SavedModel directories under random damage (hypothesis, the test extra): loading gives a TF-style
error (OpError, GraphFileError/ValueError, IOError, RuntimeError for tags) or, when the damage is harmless,
a model that runs; never another exception."""
import os
import shutil

import pytest

import tinyflow as tf

pytest.importorskip("hypothesis", reason="the fuzz tests need hypothesis (the test extra)")
from hypothesis import given, settings, strategies as st  # noqa: E402

D = os.path.join(os.path.dirname(__file__), "..", "fixtures", "saved_model")


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10 ** 6), st.integers(0, 255)), min_size=1, max_size=4),
       st.integers(0, 2), st.integers(0, 400))
def test_fuzz_saved_model_load(tmp_path_factory, edits, which, cut):
    export_dir = str(tmp_path_factory.mktemp("sm") / "m")
    shutil.copytree(os.path.join(D, "tf_simple"), export_dir)
    path = os.path.join(export_dir, ["saved_model.pb", "variables/variables.index",
                                     "variables/variables.data-00000-of-00001"][which])
    data = bytearray(open(path, "rb").read())
    for pos, val in edits:
        data[pos % len(data)] = val
    if cut % 5 == 0:
        data = data[:cut % len(data)]
    open(path, "wb").write(bytes(data))
    try:
        with tf.Session(graph=tf.Graph()) as sess:
            meta = tf.saved_model.loader.load(sess, ["serve"], export_dir)
            sig = meta.signature_def["serving_default"]
            sess.run([v.name for v in sig.outputs.values()], {v.name: [[1.0, 2.0, 3.0]] for v in sig.inputs.values()})
    except (tf.errors.OpError, ValueError, KeyError, IOError, RuntimeError):
        pass
