"""Meta graphs: TF 1.15's .meta imports, restores and trains on with TF's losses; tinyflow writes TF's format."""
import os

import numpy as np
import pytest

import tinyflow as tf
from tffiles_model import FIX, convnet, data, expected

PREFIX = os.path.join(FIX, "convnet", "model.ckpt-5")


@pytest.mark.slow
def test_tf_meta_graph_restores_and_resumes_training_with_tfs_losses():
    saver = tf.train.import_meta_graph(PREFIX + ".meta")
    g = tf.get_default_graph()
    assert len(tf.global_variables()) == 23 and len(tf.trainable_variables()) == 6
    assert {v.op.name for v in tf.trainable_variables()} == {"conv/w", "conv/b", "bn/gamma", "bn/beta", "fc/w", "fc/b"}
    train_op = tf.get_collection("train_op")[0]
    loss, = tf.get_collection(tf.GraphKeys.LOSSES)
    assert loss.name == "softmax_cross_entropy_loss/value:0" and len(tf.get_collection("summaries")) == 1
    xs, ys, x_test = data()
    want = expected()
    with tf.Session() as sess:
        saver.restore(sess, tf.train.latest_checkpoint(os.path.dirname(PREFIX)))
        assert sess.run(tf.get_collection("global_step")[0]) == 5
        np.testing.assert_allclose(sess.run("probs:0", {"x:0": x_test}), want["probs"], rtol=1e-4)
        losses = [sess.run([train_op, loss], {"x:0": xs, "y:0": ys})[1] for _ in range(3)]
        np.testing.assert_allclose(losses, want["next_losses"], rtol=1e-4)
        assert sess.run(g.get_tensor_by_name("global_step:0")) == 8
        # the Adam slots moved: a restore brings back step 5 exactly
        saver.restore(sess, PREFIX)
        np.testing.assert_allclose(sess.run([train_op, loss], {"x:0": xs, "y:0": ys})[1], want["next_losses"][0],
                                   rtol=1e-4)


def test_tf_meta_graph_under_an_import_scope():
    tf.train.import_meta_graph(PREFIX + ".meta", import_scope="m")
    _, _, x_test = data()
    with tf.Session() as sess:
        tf.train.Saver({v.op.name[2:]: v for v in tf.global_variables()}).restore(sess, PREFIX)
        np.testing.assert_allclose(sess.run("m/probs:0", {"m/x:0": x_test}), expected()["probs"], rtol=1e-4)


@pytest.mark.slow
def test_saver_writes_a_binary_meta_graph_def(tmp_path):
    x, y, probs, loss, train_op = convnet()
    tf.add_to_collection("train_op", train_op)
    xs, ys, x_test = data()
    with tf.Session() as sess:
        saver = tf.train.Saver()
        saver.restore(sess, PREFIX)
        prefix = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=5)
        want_probs = sess.run(probs, {x: x_test})
        want_losses = [sess.run([train_op, loss], {x: xs, y: ys})[1] for _ in range(2)]
    meta = tf.MetaGraphDef()
    with open(prefix + ".meta", "rb") as f:
        meta.ParseFromString(f.read())
    assert {n.op for n in meta.graph_def.node} >= {"Conv2D", "VariableV2", "ApplyAdam", "Softmax"}
    assert len(meta.collection_def["variables"].bytes_list.value) == 23
    assert set(meta.collection_def["train_op"].node_list.value) == {"train_op"}  # minimize adds it too, as TF
    assert not meta.HasField("saver_def")  # TF's import_meta_graph then builds a Saver of the variables
    for keep_json in (True, False):  # tinyflow's exact JSON graph, or the TF GraphDef alone
        if not keep_json:
            del meta.collection_def["tinyflow_graph_json"]
            with open(prefix + ".meta", "wb") as f:
                f.write(meta.SerializeToString())
        with tf.Graph().as_default() as g:
            saver = tf.train.import_meta_graph(prefix + ".meta")
            with tf.Session(graph=g) as sess:
                saver.restore(sess, prefix)
                np.testing.assert_allclose(sess.run("probs:0", {"x:0": x_test}), want_probs, rtol=1e-5)
                train = tf.get_collection("train_op")[0]
                got = [sess.run([train, g.get_tensor_by_name(loss.name)], {"x:0": xs, "y:0": ys})[1]
                       for _ in range(2)]
                np.testing.assert_allclose(got, want_losses, rtol=1e-5)


def test_json_meta_graph_stays_readable(tmp_path):
    import json
    from tinyflow.graph import serialize
    w = tf.Variable(np.ones(2, np.float32), name="w")
    (tmp_path / "old.meta").write_text(json.dumps(serialize.to_dict(tf.get_default_graph())))
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(str(tmp_path / "old.meta"))
        assert [v.op.name for v in tf.global_variables()] == ["w"] and saver is not None
    assert w is not None
