"""TF 1.15's own premade DNNClassifier and resource variables (tests/fixtures/saved_model/premade, make.py):
its SavedModel (VarHandleOp, ReadVariableOp, AssignVariableOp, VarIsInitializedOp, a zero_fraction summary
under tf.cond) loads and serves TF's numbers, through the loader and tf.contrib.predictor; its training graph
(ResourceApplyAdagrad, partitioned variables under TF's checkpoint keys) resumes from the .meta with TF's losses
and variables; tinyflow's DNNClassifier resumes TF's model_dir; a graph of use_resource=True variables
(ResourceGather, AssignAddVariableOp, ResourceApplyAdam/Momentum/RMSProp) resumes with TF's numbers."""
import json
import os
import shutil

import numpy as np
import pytest

import tinyflow as tf

D = os.path.join(os.path.dirname(__file__), "..", "fixtures", "saved_model", "premade")
TF = json.load(open(os.path.join(D, "premade.json")))


def _examples(rows):
    return [tf.train.Example(features=tf.train.Features(feature={
        "f": tf.train.Feature(float_list=tf.train.FloatList(value=r))})).SerializeToString() for r in rows]


def _same(got, want, rtol=1e-5, atol=1e-6):
    for key, value in want.items():
        if isinstance(value, list) and value and isinstance(np.ravel(value)[0], str):
            assert np.asarray(got[key]).astype(str).tolist() == value, key
        else:
            np.testing.assert_allclose(got[key], value, rtol=rtol, atol=atol, err_msg=key)


def test_tf_premade_dnn_saved_model_serves_tf_numbers():
    with tf.Session(graph=tf.Graph()) as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], os.path.join(D, "dnn_export"))
        assert set(meta.signature_def) == set(TF["signatures"]) == {"serving_default", "classification", "predict"}
        types = {op.type for op in sess.graph.get_operations()}
        assert "VarIsInitializedOp" not in types and "IsVariableInitialized" in types  # resource ops mapped
        for key, sig in meta.signature_def.items():
            (inp,) = [v.name for v in sig.inputs.values()]
            got = sess.run({k: v.name for k, v in sig.outputs.items()}, {inp: _examples(TF["x"])})
            _same(got, TF["signatures"][key])
        assert sess.run(sess.graph.get_tensor_by_name("global_step:0")) == 5   # restored under TF's keys


def test_predictor_serves_tf_premade_dnn():
    predict = tf.contrib.predictor.from_saved_model(os.path.join(D, "dnn_export"))
    _same(predict({"inputs": _examples(TF["x"])}), TF["signatures"]["serving_default"])
    by_key = tf.contrib.predictor.from_saved_model(os.path.join(D, "dnn_export"), signature_def_key="predict")
    _same(by_key({"examples": _examples(TF["x"])}), TF["signatures"]["predict"])


def _checkpoint(prefix):
    return {name: tf.train.load_variable(prefix, name).tolist() for name, _ in tf.train.list_variables(prefix)}


def test_tf_premade_training_meta_resumes_with_tf_losses(tmp_path):
    with tf.Session(graph=tf.Graph()) as sess:
        saver = tf.train.import_meta_graph(os.path.join(D, "dnn_model_dir", "model.ckpt-5.meta"))
        saver.restore(sess, os.path.join(D, "dnn_model_dir", "model.ckpt-5"))
        train_op, loss = tf.get_collection("train_op")[0], tf.get_collection("losses")[-1]
        losses = [sess.run([loss, train_op])[0] for _ in TF["resumed_losses"]]
        np.testing.assert_allclose(losses, TF["resumed_losses"], rtol=1e-5)
        prefix = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=8)
    got = _checkpoint(prefix)   # saved under TF's keys: dnn/hiddenlayer_0/kernel, .../t_0/Adagrad
    assert sorted(got) == sorted(TF["resumed_variables"])
    _same(got, TF["resumed_variables"], rtol=1e-5, atol=1e-6)


def test_tinyflow_dnn_classifier_resumes_tf_premade_model_dir(tmp_path):
    work = str(tmp_path / "m")
    shutil.copytree(os.path.join(D, "dnn_model_dir"), work)
    est = tf.estimator.DNNClassifier([4], [tf.feature_column.numeric_column("f", shape=[3])], n_classes=3,
                                     model_dir=work)
    feats, labels = np.float32(TF["feats"]), np.int32(TF["labels"])
    est.train(lambda: ({"f": tf.constant(feats)}, tf.constant(labels)), steps=len(TF["resumed_losses"]))
    got = _checkpoint(tf.train.latest_checkpoint(work))
    assert sorted(got) == sorted(TF["resumed_variables"])
    _same(got, TF["resumed_variables"], rtol=1e-5, atol=1e-6)


def test_resource_variable_training_graph_resumes_with_tf_numbers():
    want = TF["resource_meta"]
    with tf.Session(graph=tf.Graph()) as sess:
        saver = tf.train.import_meta_graph(os.path.join(D, "resource_meta", "model.ckpt-2.meta"))
        saver.restore(sess, os.path.join(D, "resource_meta", "model.ckpt-2"))
        graph = sess.graph
        train_op, loss = graph.get_operation_by_name("train_op"), tf.get_collection("losses")[0]
        losses = [sess.run([loss, train_op])[0] for _ in want["losses"]]
        np.testing.assert_allclose(losses, want["losses"], rtol=1e-5)
        got = {v.op.name: sess.run(v) for v in tf.global_variables()}
    assert sorted(got) == sorted(want["variables"])
    _same(got, want["variables"], rtol=1e-5, atol=1e-6)


def test_resource_ops_need_a_variable_handle():
    from tinyflow.formats.protos import graph_pb2
    gd = graph_pb2().GraphDef()
    c = gd.node.add(name="c", op="Const")
    c.attr["dtype"].type = 1
    c.attr["value"].tensor.dtype = 1
    c.attr["value"].tensor.float_val.append(1.0)
    r = gd.node.add(name="r", op="ReadVariableOp", input=["c"])
    r.attr["dtype"].type = 1
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.InvalidArgumentError, match="'r'.*must be a variable"):
            tf.import_graph_def(gd, name="")


def test_serving_ops_import_without_the_saved_model_loader():
    """ParseExample, AsString and Size are in the importer's table itself: TF's serving graph imports through
    tf.train.import_meta_graph in a process that never imported tinyflow's SavedModel loader."""
    import subprocess
    import sys
    code = """if True:
        import json, os, sys
        import tinyflow as tf
        from tinyflow.formats import tf_protos
        D = sys.argv[1]
        sm = tf_protos.saved_model_pb2.SavedModel()
        sm.ParseFromString(open(os.path.join(D, "dnn_export", "saved_model.pb"), "rb").read())
        meta = sm.meta_graphs[0]
        with tf.Session() as sess:
            saver = tf.train.import_meta_graph(meta)
            saver.restore(sess, os.path.join(D, "dnn_export", "variables", "variables"))
            sig = meta.signature_def["predict"]
            out = sess.run(sig.outputs["probabilities"].name, {sig.inputs["examples"].name: json.loads(sys.argv[2])})
            types = sorted({op.type for op in sess.graph.get_operations()} & {"ParseExample", "AsString", "Size"})
        print(json.dumps({"probabilities": out.tolist(), "types": types,
                          "loader": "tinyflow.api.saved_model.loader" in sys.modules}))
    """
    rows = [e.decode("latin-1") for e in _examples(TF["x"])]
    code = code.replace('json.loads(sys.argv[2])', '[e.encode("latin-1") for e in json.loads(sys.argv[2])]')
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    run = subprocess.run([sys.executable, "-c", code, D, json.dumps(rows)], capture_output=True, text=True, env=env,
                         timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert got["types"] == ["AsString", "ParseExample", "Size"] and got["loader"] is False
    np.testing.assert_allclose(got["probabilities"], TF["signatures"]["predict"]["probabilities"], rtol=1e-5)
