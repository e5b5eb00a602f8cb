"""slim.tfexample_decoder against TF 1.15 (tests/fixtures/slim/make_tfexample_fixture.py wrote two
serialized Examples, a PNG and a raw image, and TF's decoded items)."""
import base64
import json
import os

import numpy as np
import pytest

import tinyflow as tf
import tinyflow.api.contrib.slim as slim

FIX = json.load(open(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "slim", "tfexample.json")))
dec = slim.tfexample_decoder


def decoder():
    keys_to_features = {
        "image/encoded": tf.FixedLenFeature((), tf.string, default_value=""),
        "image/format": tf.FixedLenFeature((), tf.string, default_value="jpeg"),
        "image/class/label": tf.FixedLenFeature([1], tf.int64),
        "image/object/bbox/ymin": tf.VarLenFeature(tf.float32),
        "image/object/bbox/xmin": tf.VarLenFeature(tf.float32),
        "image/object/bbox/ymax": tf.VarLenFeature(tf.float32),
        "image/object/bbox/xmax": tf.VarLenFeature(tf.float32),
        "values": tf.VarLenFeature(tf.int64),
        "dims": tf.VarLenFeature(tf.int64),
    }
    items = {
        "image": dec.Image(shape=[2, 3, 3], channels=3),
        "label": dec.Tensor("image/class/label", shape=[]),
        "boxes": dec.BoundingBox(prefix="image/object/bbox/"),
        "sum": dec.ItemHandlerCallback(["values"], lambda t: tf.reduce_sum(tf.sparse_tensor_to_dense(t["values"]))),
    }
    return dec.TFExampleDecoder(keys_to_features, items)


@pytest.mark.parametrize("which", [0, 1], ids=["png", "raw"])
def test_decode_matches_tf(which):
    pytest.importorskip("PIL", reason="decoding a PNG needs Pillow")
    with tf.Graph().as_default():
        d = decoder()
        # (the fixture's "grid", a Tensor reshaped by shape_keys, needs a shape known only at run time:
        # tinyflow's XLA step cannot reshape to it)
        items = [name for name in FIX["items"] if name != "grid"]
        assert sorted(d.list_items()) == items
        serialized = tf.placeholder(tf.string, [])
        tensors = d.decode(serialized, items)
        with tf.Session() as sess:
            values = sess.run(tensors, {serialized: base64.b64decode(FIX["examples"][which])})
    want_all = [v for name, v in zip(FIX["items"], FIX["decoded"][which]) if name != "grid"]
    for got, want in zip(values, want_all):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def test_handler_errors():
    with pytest.raises(ValueError, match="Cannot specify both shape_keys and shape parameters."):
        dec.Tensor("values", shape_keys="dims", shape=[2])
    with pytest.raises(ValueError, match="BoundingBox expects 4 keys but got 2"):
        dec.BoundingBox(keys=["a", "b"])
