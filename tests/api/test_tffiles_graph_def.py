"""GraphDef: TF 1.15's frozen graph (.pb, .pbtxt) imports and runs with TF's numbers; export, freeze, prune."""
import os

import numpy as np
import pytest

import tinyflow as tf
from tffiles_model import FIX, convnet, data, expected
from tinyflow.api.tf_files.graph_util import read_graph_def

from google.protobuf import text_format


def _frozen(kind):
    gd = tf.GraphDef()
    if kind == "pb":
        with open(os.path.join(FIX, "frozen.pb"), "rb") as f:
            gd.ParseFromString(f.read())
    else:
        with open(os.path.join(FIX, "frozen.pbtxt")) as f:
            text_format.Merge(f.read(), gd)
    return gd


@pytest.mark.parametrize("kind", ["pb", "pbtxt"])
def test_frozen_tf_graph_runs_with_tfs_numbers(kind):
    gd = _frozen(kind)
    assert sorted({n.op for n in gd.node}) == expected()["frozen_ops"]  # FusedBatchNormV3, Conv2D, ...
    probs, x_op = tf.import_graph_def(gd, return_elements=["probs:0", "x"])
    assert probs.name == "import/probs:0" and x_op.name == "import/x" and probs.shape.as_list() == [None, 3]
    _, _, x_test = data()
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(probs, {x_op.outputs[0]: x_test}), expected()["probs"], rtol=1e-4)
        np.testing.assert_allclose(sess.run("import/probs:0", {"import/x:0": x_test}), expected()["probs"], rtol=1e-4)


def test_input_map_and_name():
    x = tf.placeholder(tf.float32, [2, 8, 8, 1], name="images")
    probs, = tf.import_graph_def(_frozen("pb"), input_map={"x:0": x * 1.0}, return_elements=["probs:0"], name="net")
    assert probs.name == "net/probs:0" and probs.shape.as_list() == [2, 3]
    _, _, x_test = data()
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(probs, {x: x_test[:2]}), expected()["probs"][:2], rtol=1e-4)
    with pytest.raises(ValueError, match="nope"):
        tf.import_graph_def(_frozen("pb"), return_elements=["nope:0"], name="again")


def test_read_graph_def_detects_text_or_binary(tmp_path):
    assert len(read_graph_def(os.path.join(FIX, "frozen.pbtxt")).node) == len(_frozen("pb").node)
    bad = tmp_path / "bad.pb"
    bad.write_bytes(b"\xff\xfe garbage")
    with pytest.raises(tf.errors.DataLossError, match="bad.pb"):
        read_graph_def(str(bad))


@pytest.mark.slow
def test_tinyflow_graph_roundtrip_through_graph_def_and_freeze(tmp_path):
    x, y, probs, loss, train_op = convnet()
    xs, ys, x_test = data()
    with tf.Session() as sess:
        tf.train.Saver().restore(sess, os.path.join(FIX, "convnet", "model.ckpt-5"))
        gd = tf.get_default_graph().as_graph_def()
        assert isinstance(gd, tf.GraphDef) and any(n.op == "VariableV2" for n in gd.node)
        frozen = tf.graph_util.convert_variables_to_constants(sess, gd, ["probs"])
        want = sess.run(probs, {x: x_test})
    assert not any(n.op == "VariableV2" for n in frozen.node)
    assert {n.op for n in frozen.node} >= {"Conv2D", "Const", "MaxPool", "Softmax"}
    path = tf.io.write_graph(frozen, str(tmp_path), "f.pb", as_text=False)
    text_path = tf.train.write_graph(frozen, str(tmp_path), "f.pbtxt")
    for p in (path, text_path):
        with tf.Graph().as_default():
            out, = tf.import_graph_def(read_graph_def(p), return_elements=["probs:0"], name="")
            with tf.Session() as sess:
                np.testing.assert_allclose(sess.run(out, {"x:0": x_test}), want, rtol=1e-5)
    np.testing.assert_allclose(want, expected()["probs"], rtol=1e-4)


def test_extract_sub_graph_and_remove_training_nodes():
    gd = _frozen("pb")
    sub = tf.graph_util.extract_sub_graph(gd, ["MaxPool"])
    names = {n.name for n in sub.node}
    assert "MaxPool" in names and "probs" not in names and "x" in names
    with pytest.raises(AssertionError):
        tf.graph_util.extract_sub_graph(gd, ["nope"])
    n_identity = sum(n.op == "Identity" for n in gd.node)
    pruned = tf.graph_util.remove_training_nodes(gd)
    assert n_identity > 0 and not any(n.op == "Identity" for n in pruned.node)
    probs, = tf.import_graph_def(pruned, return_elements=["probs:0"])
    _, _, x_test = data()
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(probs, {"import/x:0": x_test}), expected()["probs"], rtol=1e-4)


def test_take_item_exports_as_tf_ops():
    """TensorListSetItem's gradient (TensorListTakeItem: the slot read and zeroed) exports as TF's
    GatherV2 and TensorScatterUpdate and imports back: d/dx is 2x with row 1 zeroed, d/dy 8y (what TF 1.15
    computes from this GraphDef too, checked by hand with the oracle)."""
    from tinyflow.ops.functional_ops import set_item
    x, y = tf.placeholder(tf.float32, [3, 2], name="x"), tf.placeholder(tf.float32, [2], name="y")
    gx, gy = tf.gradients(tf.reduce_sum(tf.square(set_item(x, 1, y * 2.0))), [x, y])
    gd = tf.get_default_graph().as_graph_def()
    assert not [n.op for n in gd.node if n.op.startswith("TensorList")]
    feed = {"x:0": np.arange(6, dtype=np.float32).reshape(3, 2), "y:0": np.array([1.0, -2.0], np.float32)}
    with tf.Graph().as_default():
        outs = tf.import_graph_def(gd, return_elements=[gx.name, gy.name], name="")
        with tf.Session() as sess:
            got = sess.run(outs, feed)
    np.testing.assert_array_equal(got[0], [[0, 2], [0, 0], [8, 10]])
    np.testing.assert_array_equal(got[1], [8, -16])
