"""model.save_weights / load_weights in TF's object-based checkpoint format (a path without .h5), against
files TF 1.15 wrote (tests/fixtures/keras_ckpt/make_keras_ckpt.py): TF's files load here, and what
tinyflow writes has TF's keys and TF's object graph (TF 1.15 loads it: tf_reads_tinyflow.py)."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.formats import bundle
from tinyflow.formats.tf_protos import TrackableObjectGraph

K = tf.keras
L = K.layers
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fixtures", "keras_ckpt")
with open(os.path.join(FIXTURES, "keras_ckpt.json")) as f:
    TF = json.load(f)


def _sequential():
    return K.Sequential([L.Dense(3, activation="relu", input_shape=(2,)), L.Dropout(0.5), L.Dense(1)])


def _functional():
    a, b = K.Input((4,), name="a"), K.Input((3,), name="b")
    shared = L.Dense(5, name="shared")
    ha, hb = shared(a), shared(L.Dense(4, name="proj")(b))
    main = L.Dense(2, name="main")(L.BatchNormalization(name="bn")(L.concatenate([ha, hb], name="cat")))
    return K.Model([a, b], [main, L.Dense(1, name="aux")(ha)])


def _graph(prefix):
    proto = TrackableObjectGraph()
    proto.ParseFromString(bundle.BundleReader(prefix).object_graph())
    return proto


def _stored(prefix):
    reader = bundle.BundleReader(prefix)
    return {k: reader.get_tensor(k) for k in reader.get_variable_to_shape_map()}


def test_sequential_checkpoint_both_ways(tmp_path):
    tf_prefix = os.path.join(FIXTURES, "seq", "ckpt")
    want = TF["seq"]
    K.backend.clear_session()
    model = _sequential()
    model.compile(K.optimizers.Adam(0.1), "mse")
    x = np.array(want["x"], "float32")
    model.train_on_batch(x, np.zeros((4, 1), "float32"))   # (the optimizer's slots exist, as in TF's model)
    model.load_weights(tf_prefix)
    for w, t in zip(model.get_weights(), want["weights"]):
        np.testing.assert_array_equal(w, np.array(t, "float32"))
    np.testing.assert_allclose(model.predict(x), want["predict"], rtol=1e-6)
    assert K.backend.get_value(model.optimizer.iterations) == want["iterations"]
    tf_values = _stored(tf_prefix)
    # what tinyflow writes: TF's object graph node for node, TF's keys, the model's values
    ours = str(tmp_path / "sub" / "ckpt")
    model.save_weights(ours)
    assert _graph(ours) == _graph(tf_prefix)
    our_values = _stored(ours)
    assert sorted(our_values) == sorted(tf_values)
    for k, v in tf_values.items():
        np.testing.assert_array_equal(our_values[k], v, err_msg=k)
    assert tf.train.latest_checkpoint(str(tmp_path / "sub")) == ours
    # and read back into another model (its directory names the latest checkpoint)
    K.backend.clear_session()
    again = _sequential()
    again.load_weights(str(tmp_path / "sub"))
    for w, t in zip(again.get_weights(), want["weights"]):
        np.testing.assert_array_equal(w, np.array(t, "float32"))


def test_functional_checkpoint_keys_follow_tf115_layer_order(tmp_path):
    tf_prefix = os.path.join(FIXTURES, "functional", "ckpt")
    K.backend.clear_session()
    model = _functional()
    model.load_weights(tf_prefix)
    for w, t in zip(model.get_weights(), TF["functional"]["weights"]):
        np.testing.assert_array_equal(w, np.array(t, "float32"))
    ours = str(tmp_path / "ckpt")
    model.save_weights(ours)
    assert _graph(ours) == _graph(tf_prefix)


def test_tf_train_optimizer_keys_and_errors(tmp_path):
    K.backend.clear_session()
    model = _sequential()
    model.compile(tf.train.AdamOptimizer(0.1), "mse")
    model.train_on_batch(np.zeros((4, 2), "float32"), np.zeros((4, 1), "float32"))
    model.save_weights(str(tmp_path / "ckpt"))
    assert sorted(bundle.BundleReader(str(tmp_path / "ckpt")).get_variable_to_shape_map()) == TF["tfopt_keys"]
    K.backend.clear_session()
    other = K.Sequential([L.Dense(4, input_shape=(2,)), L.Dense(1)])
    with pytest.raises(ValueError, match="layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE has shape"):
        other.load_weights(os.path.join(FIXTURES, "seq", "ckpt"))
    K.backend.clear_session()
    unrelated = K.Sequential([L.Dropout(0.5, input_shape=(2,))])
    with pytest.raises(AssertionError, match="Nothing except the root object matched"):
        unrelated.load_weights(os.path.join(FIXTURES, "seq", "ckpt"))
    with pytest.raises(NotImplementedError, match="by_name"):
        unrelated.load_weights(os.path.join(FIXTURES, "seq", "ckpt"), by_name=True)


def test_string_tensors_round_trip_through_the_bundle(tmp_path):
    prefix = str(tmp_path / "strings")
    values = np.array([[b"a", b""], [b"\x00\xff" * 100, "\u00e9".encode()]], object)
    from tinyflow.api.train.tf_checkpoint import write_bundle
    write_bundle(prefix, {"s": (tf.string, values), "f": (tf.float32, np.arange(3, dtype="float32"))})
    reader = bundle.BundleReader(prefix)
    assert reader.get_tensor("s").tolist() == values.tolist()
    data = bundle.data_filename(prefix)
    raw = bytearray(open(data, "rb").read())
    raw[raw.index(b"\x00\xff")] ^= 1
    open(data, "wb").write(bytes(raw))
    with pytest.raises(tf.errors.DataLossError, match="Checksum does not match"):
        bundle.BundleReader(prefix).get_tensor("s")
