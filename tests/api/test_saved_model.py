"""tf.saved_model in TF 1.15's format, both ways: SavedModels TF 1.15 wrote (tests/fixtures/saved_model,
make_tf_saved_models.py) load here and serve TF's numbers; SavedModels tinyflow wrote
(make_tinyflow_saved_models.py) were loaded and served by TF 1.15 (serve_with_tf.py, tf_served.json) and serve
the same numbers here; the loader treats the directory as untrusted data."""
import json
import os
import shutil

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.graph.serialize import GraphFileError

D = os.path.join(os.path.dirname(__file__), "..", "fixtures", "saved_model")
TF = json.load(open(os.path.join(D, "tf_numbers.json")))
SERVED = json.load(open(os.path.join(D, "tf_served.json")))


def _examples(rows):
    return [tf.train.Example(features=tf.train.Features(feature={
        "f": tf.train.Feature(float_list=tf.train.FloatList(value=r))})).SerializeToString() for r in rows]


def _serve(export_dir, tags, rows):
    """{signature key: {output key: value}} of every signature, for rows (raw or as tf.Examples)."""
    with tf.Session(graph=tf.Graph()) as sess:
        meta = tf.saved_model.loader.load(sess, tags, export_dir)
        out = {}
        for key, sig in meta.signature_def.items():
            feed = {v.name: _examples(rows) if v.dtype == tf.string.as_datatype_enum else rows
                    for v in sig.inputs.values()}
            out[key] = sess.run({k: v.name for k, v in sig.outputs.items()}, feed)
        return out


def _same(got, want):
    for key, value in want.items():
        if isinstance(value, list) and value and isinstance(np.ravel(value)[0], str):
            assert np.asarray(got[key]).astype(str).tolist() == value, key
        else:
            np.testing.assert_allclose(got[key], value, rtol=1e-5, atol=1e-6, err_msg=key)


def test_tf_simple_save_serves_tf_numbers():
    out = _serve(os.path.join(D, "tf_simple"), ["serve"], TF["tf_simple"]["x"])
    _same(out["serving_default"], {k: TF["tf_simple"][k] for k in ("logits", "probs")})


def test_tf_builder_two_tag_sets_and_main_op():
    serve = _serve(os.path.join(D, "tf_two_tags"), [tf.saved_model.tag_constants.SERVING], TF["tf_two_tags"]["x"])
    _same(serve["serving_default"], {"y": TF["tf_two_tags"]["y"]})  # y holds the counter the main op set (10)
    train = _serve(os.path.join(D, "tf_two_tags"), ["train", "gpu"], TF["tf_two_tags"]["x"])
    _same(train["doubled"], {"z": TF["tf_two_tags"]["z"]})
    with pytest.raises(RuntimeError, match="could not be found in SavedModel"):
        _serve(os.path.join(D, "tf_two_tags"), ["train"], TF["tf_two_tags"]["x"])


def test_tf_estimator_export_with_parsing_receiver():
    out = _serve(os.path.join(D, "tf_custom"), ["serve"], TF["tf_custom"]["x"])
    assert set(out) == set(TF["tf_custom"]["signatures"]) == {"serving_default", "predict"}
    for key, want in TF["tf_custom"]["signatures"].items():
        _same(out[key], want)


@pytest.mark.parametrize("name", ["tinyflow_simple", "tinyflow_dnn", "tinyflow_two_tags",
                                  "tinyflow_two_tags:train,gpu"])
def test_tinyflow_exports_serve_what_tf_served(name):
    directory, _, tags = name.partition(":")
    out = _serve(os.path.join(D, directory), tags.split(",") if tags else ["serve"], SERVED["x"])
    assert set(out) == set(SERVED[name])
    for key, want in SERVED[name].items():
        _same(out[key], want)


def test_predictor_from_saved_model():
    predict = tf.contrib.predictor.from_saved_model(os.path.join(D, "tf_custom"), signature_def_key="predict")
    _same(predict({"examples": _examples(TF["tf_custom"]["x"])}), TF["tf_custom"]["signatures"]["predict"])
    with pytest.raises(ValueError, match="unexpected keys"):
        predict({"x": [1.0]})
    with pytest.raises(ValueError, match="Could not find signature"):
        tf.contrib.predictor.from_saved_model(os.path.join(D, "tf_custom"), signature_def_key="nope")


def _small_model(sess):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable([[1.0, -2.0], [0.5, 3.0]], name="w")
    y = tf.matmul(x, w, name="y")
    sess.run(tf.global_variables_initializer())
    return x, w, y


def test_builder_round_trip_assets_main_op_and_tags(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\nb\n")
    export_dir = str(tmp_path / "model")
    with tf.Graph().as_default(), tf.Session() as sess:
        x, w, y = _small_model(sess)
        counter = tf.Variable(0.0, name="counter", trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES])
        out = tf.add(y, counter, name="out")
        asset = tf.constant(str(vocab), name="vocab_path")
        main_op = tf.group(tf.assign(counter, 5.0))
        sess.run(w.assign([[2.0, 0.0], [0.0, 2.0]]))
        b = tf.saved_model.builder.SavedModelBuilder(export_dir)
        sig = tf.saved_model.signature_def_utils.predict_signature_def({"x": x}, {"out": out})
        b.add_meta_graph_and_variables(sess, ["serve"], {"serving_default": sig}, assets_collection=[asset],
                                       main_op=main_op)
        b.add_meta_graph(["train"], {"y": tf.saved_model.predict_signature_def({"x": x}, {"y": y})})
        path = b.save()
    assert path == os.path.join(export_dir, "saved_model.pb").encode()
    assert open(os.path.join(export_dir, "assets", "vocab.txt")).read() == "a\nb\n"
    assert tf.saved_model.contains_saved_model(export_dir)
    got = _serve(export_dir, ["serve"], [[1.0, 1.0]])
    np.testing.assert_allclose(got["serving_default"]["out"], [[7.0, 7.0]])  # restored w, main op's counter
    np.testing.assert_allclose(_serve(export_dir, ["train"], [[1.0, 1.0]])["y"]["y"], [[2.0, 2.0]])
    with pytest.raises(AssertionError, match="already exists, and isn't empty"):
        tf.saved_model.builder.SavedModelBuilder(export_dir)


def test_signature_def_utils_as_tf():
    with tf.Graph().as_default():
        ex = tf.placeholder(tf.string, [None])
        scores = tf.placeholder(tf.float32, [None, 3])
        ids = tf.placeholder(tf.int64, [None])
        sig = tf.saved_model.classification_signature_def(ex, None, scores)
        assert sig.method_name == "tensorflow/serving/classify" and set(sig.outputs) == {"scores"}
        assert tf.saved_model.is_valid_signature(sig)
        assert tf.saved_model.is_valid_signature(tf.saved_model.regression_signature_def(ex, scores))
        assert not tf.saved_model.is_valid_signature(tf.saved_model.build_signature_def({}, {}, "x"))
        with pytest.raises(ValueError, match="Classification examples must be a string Tensor"):
            tf.saved_model.classification_signature_def(scores, None, scores)
        with pytest.raises(ValueError, match="Regression output must be a float Tensor"):
            tf.saved_model.regression_signature_def(ex, ids)
        with pytest.raises(ValueError, match="Prediction inputs cannot be None or empty"):
            tf.saved_model.predict_signature_def({}, {"s": scores})
        info = tf.saved_model.utils.build_tensor_info(scores)
        assert info.dtype == 1 and [d.size for d in info.tensor_shape.dim] == [-1, 3]
        assert tf.saved_model.utils.get_tensor_from_tensor_info(info) is scores
        assert tf.saved_model.main_op.main_op().type == "NoOp"  # a group of the local and table initializers
    assert tf.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY == "serving_default"
    assert (tf.saved_model.tag_constants.SERVING, tf.saved_model.TRAINING, tf.saved_model.GPU) == (
        "serve", "train", "gpu")
    assert tf.saved_model.load is tf.saved_model.loader.load and tf.saved_model.Builder is \
        tf.saved_model.builder.SavedModelBuilder


def _copy(tmp_path, name="tf_simple"):
    target = str(tmp_path / name)
    shutil.copytree(os.path.join(D, name), target)
    return target


def test_untrusted_directories(tmp_path):
    with pytest.raises(IOError, match="SavedModel file does not exist at"):
        _serve(str(tmp_path), ["serve"], [[0.0, 0.0, 0.0]])
    bad = _copy(tmp_path, "tf_simple")
    with open(os.path.join(bad, "saved_model.pb"), "wb") as f:
        f.write(b"\xff\x00 not a protobuf")
    with pytest.raises(tf.errors.DataLossError, match="saved_model.pb"):
        _serve(bad, ["serve"], [[0.0, 0.0, 0.0]])
    novars = _copy(tmp_path / "b", "tf_simple")
    os.remove(os.path.join(novars, "variables", "variables.index"))
    with pytest.raises(tf.errors.NotFoundError, match="variables.index"):
        _serve(novars, ["serve"], [[0.0, 0.0, 0.0]])


def test_asset_names_stay_inside_assets(tmp_path):
    from tinyflow.formats import tf_protos
    export_dir = _copy(tmp_path, "tf_two_tags")
    path = os.path.join(export_dir, "saved_model.pb")
    sm = tf_protos.saved_model_pb2.SavedModel()
    sm.ParseFromString(open(path, "rb").read())
    meta = [m for m in sm.meta_graphs if list(m.meta_info_def.tags) == ["serve"]][0]
    asset = tf_protos.meta_graph_pb2.AssetFileDef()
    meta.collection_def["saved_model_assets"].any_list.value[0].Unpack(asset)
    asset.filename = "../../etc/passwd"
    meta.collection_def["saved_model_assets"].any_list.value[0].Pack(asset)
    open(path, "wb").write(sm.SerializeToString())
    with pytest.raises(GraphFileError, match="not a plain file name"):
        _serve(export_dir, ["serve"], [[0.0, 0.0, 0.0]])


def test_estimator_export_raw_receiver_serves_predict(tmp_path):
    cols = [tf.feature_column.numeric_column("f", shape=[3])]
    est = tf.estimator.DNNClassifier([4], cols, n_classes=3, model_dir=str(tmp_path / "m"),
                                     config=tf.estimator.RunConfig(tf_random_seed=3))
    feats = np.array([[0.1, 0.2, 0.3], [1.0, -1.0, 0.5]], np.float32)
    est.train(tf.estimator.inputs.numpy_input_fn({"f": feats}, np.array([0, 2], np.int32), batch_size=2,
                                                 num_epochs=None, shuffle=False), steps=2)
    raw = tf.estimator.export.build_raw_serving_input_receiver_fn({"f": tf.placeholder(tf.float32, [None, 3])})
    path = est.export_savedmodel(str(tmp_path / "export"), raw).decode()
    out = _serve(path, ["serve"], feats.tolist())
    assert set(out) == {"predict"}  # a Classify signature needs one string input: TF leaves it out too
    want = list(est.predict(tf.estimator.inputs.numpy_input_fn({"f": feats}, shuffle=False)))
    np.testing.assert_allclose(out["predict"]["probabilities"], [p["probabilities"] for p in want], rtol=1e-6)
    assert out["predict"]["classes"].ravel().tolist() == [p["classes"][0] for p in want]


@pytest.mark.slow
def test_train_and_evaluate_exporters(tmp_path):
    cols = [tf.feature_column.numeric_column("f", shape=[3])]
    est = tf.estimator.DNNClassifier([3], cols, model_dir=str(tmp_path / "m"),
                                     config=tf.estimator.RunConfig(tf_random_seed=1, save_checkpoints_steps=2))
    feats = np.array([[0.1, 0.2, 0.3], [1.0, -1.0, 0.5]], np.float32)
    input_fn = tf.estimator.inputs.numpy_input_fn({"f": feats}, np.array([0, 1], np.int32), batch_size=2,
                                                  num_epochs=None, shuffle=False)
    receiver = tf.estimator.export.build_raw_serving_input_receiver_fn({"f": tf.placeholder(tf.float32, [None, 3])})
    exporters = [tf.estimator.LatestExporter("latest", receiver, exports_to_keep=1),
                 tf.estimator.FinalExporter("final", receiver)]
    _, results = tf.estimator.train_and_evaluate(
        est, tf.estimator.TrainSpec(input_fn, max_steps=4),
        tf.estimator.EvalSpec(input_fn, steps=1, exporters=exporters, throttle_secs=0))
    assert len(results) == 2 and all(r is not None for r in results)
    assert [os.path.dirname(r.decode()) for r in results] == [str(tmp_path / "m" / "export" / n)
                                                              for n in ("latest", "final")]
    assert len(os.listdir(tmp_path / "m" / "export" / "latest")) == 1  # exports_to_keep
    with pytest.raises(ValueError, match="unique names"):
        tf.estimator.EvalSpec(input_fn, exporters=[exporters[0], exporters[0]])
    with pytest.raises(TypeError, match="must be an Exporter"):
        tf.estimator.EvalSpec(input_fn, exporters=[receiver])
