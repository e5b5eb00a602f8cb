"""Keras .h5 files between TF 1.15 and tinyflow, both ways (tests/fixtures/keras/keras_saving.json and
tf_*.h5, written by make_saving_fixture.py): tinyflow loads the files TF 1.15 wrote and continues
training with TF's numbers; the files tinyflow writes have the layout TF 1.15 read and gave its numbers
for. Also to_json / model_from_json, save_weights / load_weights in HDF5, and refusing a Lambda's code."""
import importlib.util
import json
import os

import numpy as np
import pytest

import tinyflow as tf

h5py = pytest.importorskip("h5py", reason="Keras .h5 files need h5py (the [keras] extra)")

pytestmark = pytest.mark.slow   # trains and reloads a dozen small models

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "keras")
_spec = importlib.util.spec_from_file_location("make_saving_fixture", os.path.join(FIXTURES, "make_saving_fixture.py"))
fixture = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fixture)
with open(os.path.join(FIXTURES, "keras_saving.json")) as f:
    EXPECTED = json.load(f)
TOL = dict(rtol=2e-5, atol=2e-6)


def _close(got, want):
    if isinstance(want, list) and want and isinstance(want[0], list) and isinstance(got, list):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, **TOL)
    else:
        np.testing.assert_allclose(got, want, **TOL)


@pytest.mark.parametrize("case", fixture.CASES)
def test_loads_tf115_h5_and_continues_training(case):
    want = EXPECTED["tf"][case]
    pred, loss, model = fixture.load_and_continue(tf, case, os.path.join(FIXTURES, "tf_%s.h5" % case))
    _close(pred, want["loaded_predict"])
    # the same loss for the next epoch only if the weights AND the optimizer's state (Adam's m, v, iter) came back
    np.testing.assert_allclose(loss, want["continued_loss"], **TOL)
    assert [w.name for w in model.optimizer.weights] == want["layout"]["optimizer_weight_names"]


@pytest.mark.parametrize("case", fixture.CASES)
def test_writes_the_h5_layout_tf115_reads(case, tmp_path):
    path = str(tmp_path / ("tinyflow_%s.h5" % case))
    model, x, _ = fixture.train_and_save(tf, case, path)
    got, want = fixture.layout(path), EXPECTED["tf_read_tinyflow"][case]["layout"]
    assert got == want   # attributes, model_config, training_config, names, every dataset's shape and dtype
    theirs = EXPECTED["tf"][case]["layout"]   # what TF itself writes for the same model
    assert got["root_attrs"] == theirs["root_attrs"] and got["keras_version"] == theirs["keras_version"]
    assert got["optimizer_weight_names"] == theirs["optimizer_weight_names"]
    assert sorted(got["datasets"].items()) == sorted(theirs["datasets"].items())
    assert got["training_config"] == theirs["training_config"]
    # TF 1.15 loading tinyflow's file predicted this and trained on with these losses
    read = EXPECTED["tf_read_tinyflow"][case]
    _close(fixture._lists(model.predict(x)), read["loaded_predict"])
    pred, loss, _ = fixture.load_and_continue(tf, case, path)
    _close(pred, read["loaded_predict"])
    np.testing.assert_allclose(loss, read["continued_loss"], **TOL)


def test_lambda_bytecode_in_a_file_is_refused_unless_given():
    path = os.path.join(FIXTURES, "tf_multi_output.h5")
    tf.keras.backend.clear_session()
    with pytest.raises(ValueError, match=r"Lambda layer 'lambda' in .*tf_multi_output\.h5 holds Python bytecode"):
        tf.keras.models.load_model(path)
    pred, loss, _ = fixture.load_and_continue(tf, "multi_output", path,
                                              custom_objects={"lambda": lambda t: t * 2.0})
    want = EXPECTED["tf"]["multi_output"]
    _close(pred, want["loaded_predict"])
    np.testing.assert_allclose(loss, want["continued_loss"], **TOL)


def test_load_weights_of_tf115_save_weights_file(tmp_path):
    tf.keras.backend.clear_session()
    model, _ = fixture.fit_fixture.build(tf, "mlp_adam")
    model.load_weights(os.path.join(FIXTURES, "tf_mlp_adam_weights.h5"))
    with h5py.File(os.path.join(FIXTURES, "tf_mlp_adam_weights.h5"), "r") as f:
        want = [np.asarray(f[n][w.decode()]) for n in ("dense", "dense_1") for w in f[n].attrs["weight_names"]]
    for got, w in zip(model.get_weights(), want):
        np.testing.assert_array_equal(got, w)
    # our own file round-trips, by position and by name
    path = str(tmp_path / "w.h5")
    model.save_weights(path)
    with h5py.File(path, "r") as f:
        assert [n.decode() for n in f.attrs["layer_names"]] == ["dense", "dense_1"]
        assert f.attrs["keras_version"] in ("2.2.4-tf", b"2.2.4-tf") and f.attrs["backend"] in ("tensorflow",
                                                                                               b"tensorflow")
    tf.keras.backend.clear_session()
    other, _ = fixture.fit_fixture.build(tf, "mlp_adam")
    other.load_weights(path, by_name=True)
    for a, b in zip(other.get_weights(), want):
        np.testing.assert_array_equal(a, b)


def test_to_json_round_trip_and_tf_configs():
    tf.keras.backend.clear_session()
    model, _ = fixture.fit_fixture.build(tf, "functional")
    text = model.to_json()
    config = json.loads(text)
    want = EXPECTED["tf"]["functional"]["layout"]["model_config"]
    assert config["class_name"] == want["class_name"] == "Model"
    assert config["config"] == want["config"]   # layers, configs, inbound nodes, input/output layers as TF's
    again = tf.keras.models.model_from_json(text)
    assert [type(x).__name__ for x in again.layers] == [type(x).__name__ for x in model.layers]
    assert [w.shape.as_list() for w in again.weights] == [w.shape.as_list() for w in model.weights]
    assert json.loads(again.to_json())["config"]["layers"][2]["inbound_nodes"] == want["config"]["layers"][2][
        "inbound_nodes"]


def test_subclassed_model_cannot_be_saved_as_h5(tmp_path):
    tf.keras.backend.clear_session()
    model, compile_kwargs = fixture.fit_fixture.build(tf, "subclassed")
    model.predict(np.zeros((1, 3), "float32"))
    with pytest.raises(NotImplementedError, match="subclassed models"):
        model.save(str(tmp_path / "m.h5"))


def test_untrusted_h5_files_give_clear_errors(tmp_path):
    tf.keras.backend.clear_session()
    with pytest.raises(tf.errors.NotFoundError, match="missing.h5"):
        tf.keras.models.load_model(str(tmp_path / "missing.h5"))
    bad = tmp_path / "bad.h5"
    bad.write_bytes(b"not an hdf5 file")
    with pytest.raises(tf.errors.DataLossError, match="bad.h5"):
        tf.keras.models.load_model(str(bad))
    # a weight of the wrong shape is refused before its data is read
    src = os.path.join(FIXTURES, "tf_mlp_adam.h5")
    forged = str(tmp_path / "forged.h5")
    with h5py.File(src, "r") as a, h5py.File(forged, "w") as b:
        for k, v in a.attrs.items():
            b.attrs[k] = v
        a.copy("model_weights", b)
        del b["model_weights/dense/dense/kernel:0"]
        b["model_weights/dense/dense/kernel:0"] = np.zeros((1000, 1000), "float32")
    with pytest.raises(ValueError, match=r"forged\.h5.*dense/kernel:0 has shape \(4, 8\).*\(1000, 1000\)"):
        tf.keras.models.load_model(forged)
    # a class name that is not a Keras layer is not looked up anywhere else
    config = json.loads(h5py.File(src, "r").attrs["model_config"])
    config["config"]["layers"][0]["class_name"] = "os.system"
    with pytest.raises(ValueError, match="Unknown layer: os.system"):
        tf.keras.models.model_from_config(config)
