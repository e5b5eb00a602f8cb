"""TF 1.15's keras.backend / metrics / losses names against its recorded values (tests/fixtures/keras_names):
each case set is one graph run in one session.run."""
import numpy as np
import os

import pytest
import recorded_cases

import tinyflow as tf

cases, VALUES = recorded_cases.load('keras_names', 'keras_cases')
HERE = os.path.join(recorded_cases.TESTS, "fixtures", "keras_names")


def _run(fn_name):
    return recorded_cases.run(cases, fn_name)


@pytest.mark.parametrize("fn_name", recorded_cases.params(cases))
def test_against_tf115(fn_name):
    recorded_cases.check(cases, VALUES, fn_name)


def test_stateful_metrics_in_compile_log_the_whole_epoch():
    """AUC / Precision in compile(metrics=...): evaluate over 3 batches gives the value over all the data at
    once (not a mean of per-batch values), and a second evaluate starts again from zero."""
    tf.keras.backend.clear_session()
    rs = np.random.RandomState(3)
    x = rs.randn(40, 3).astype("float32")
    y = (x[:, :1] + 0.8 * rs.randn(40, 1) > 0).astype("float32")
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, activation="sigmoid", input_shape=(3,))])
    model.compile("sgd", "binary_crossentropy", metrics=[tf.keras.metrics.AUC(), tf.keras.metrics.Precision(),
                                                         "accuracy"])
    assert model.metrics_names == ["loss", "auc", "precision", "acc"]
    first = model.evaluate(x, y, batch_size=16, verbose=0)
    again = model.evaluate(x, y, batch_size=16, verbose=0)
    probs = model.predict(x)
    auc, prec = tf.keras.metrics.AUC(name="whole"), tf.keras.metrics.Precision(name="whole_p")
    values = [auc(y, probs), prec(y, probs)]
    sess = tf.keras.backend.get_session()
    sess.run([v.initializer for v in auc.variables + prec.variables])
    want = sess.run(values)
    np.testing.assert_allclose(first[1:3], want, rtol=1e-6)
    np.testing.assert_allclose(again, first, rtol=1e-6)
    history = model.fit(x, y, batch_size=16, epochs=2, verbose=0)
    assert 0.0 <= history.history["auc"][-1] <= 1.0


def test_utils_serialization_and_enqueuers(tmp_path):
    K = tf.keras
    tf.keras.backend.clear_session()
    # serialize / deserialize round trips, custom objects by name
    assert K.losses.deserialize(K.losses.serialize(K.losses.Huber(delta=0.5))).get_config()["delta"] == 0.5
    assert K.metrics.deserialize(K.metrics.serialize(K.metrics.Precision(thresholds=0.3))).thresholds == [0.3]
    assert K.regularizers.deserialize(K.regularizers.serialize(K.regularizers.l1(0.5))).l1 == 0.5
    assert K.constraints.deserialize({"class_name": "MaxNorm", "config": {"max_value": 3}}).max_value == 3
    assert K.activations.deserialize("tanh") is K.activations.tanh
    assert K.layers.deserialize(K.layers.serialize(K.layers.Dense(3, name="d"))).units == 3

    def my_loss(y_true, y_pred):
        return y_pred
    with pytest.raises(ValueError, match="Unknown loss function"):
        K.losses.get("my_loss")
    with K.utils.custom_object_scope({"my_loss": my_loss}):
        assert K.losses.get("my_loss") is my_loss
        assert K.utils.get_custom_objects()["my_loss"] is my_loss
    assert "my_loss" not in K.utils.get_custom_objects()
    assert K.utils.serialize_keras_object(my_loss) == "my_loss"
    # the Inputs a tensor comes from
    a, b = K.Input((2,)), K.Input((2,))
    out = K.layers.Dense(1)(K.layers.add([a, K.layers.Dense(2)(b)]))
    assert K.utils.get_source_inputs(out) == [a, b]
    # enqueuers: a Sequence in order, epoch after epoch; a generator until it ends

    class Seq(K.utils.Sequence):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return i * 10
    enq = K.utils.OrderedEnqueuer(Seq())
    enq.start(max_queue_size=2)
    gen = enq.get()
    assert [next(gen) for _ in range(5)] == [0, 10, 20, 0, 10]
    enq.stop()
    enq = K.utils.GeneratorEnqueuer(iter(range(4)))
    enq.start()
    assert list(enq.get()) == [0, 1, 2, 3]
    enq.stop()
    # HDF5Matrix: rows start..end of a dataset, normalized
    import h5py
    path = str(tmp_path / "d.h5")
    with h5py.File(path, "w") as f:
        f["x"] = np.arange(12, dtype="float32").reshape(6, 2)
    m = K.utils.HDF5Matrix(path, "x", start=2, end=5, normalizer=lambda v: v / 2)
    assert m.shape == (3, 2) and len(m) == 3
    np.testing.assert_array_equal(m[1:3], np.array([[3.0, 3.5], [4.0, 4.5]]))
    with pytest.raises(ImportError, match="pydot"):
        K.utils.plot_model(K.Model(a, a))


@pytest.mark.slow   # three models compiled and fitted: ~5 s on a shared CPU
def test_scikit_learn_wrapper_and_schedule_configs():
    KerasClassifier, KerasRegressor = (tf.keras.wrappers.scikit_learn.KerasClassifier,
                                       tf.keras.wrappers.scikit_learn.KerasRegressor)
    K = tf.keras
    K.backend.clear_session()
    rs = np.random.RandomState(0)
    x = rs.randn(60, 2).astype("float32")
    labels = np.where(x[:, 0] > 0, "yes", "no")

    def build(units=4):
        model = K.Sequential([K.layers.Dense(units, activation="relu", input_shape=(2,)),
                              K.layers.Dense(2, activation="softmax")])
        model.compile(K.optimizers.Adam(0.05), "sparse_categorical_crossentropy", metrics=["accuracy"])
        return model
    clf = KerasClassifier(build, units=8, epochs=30, batch_size=20, verbose=0)
    with pytest.raises(ValueError, match="not a legal parameter"):
        KerasClassifier(build, colour=1)
    clf.fit(x, labels)
    assert set(clf.predict(x)) <= {"yes", "no"} and clf.predict_proba(x).shape == (60, 2)
    assert clf.score(x, labels) > 0.8
    assert clf.get_params()["units"] == 8

    def build_reg():
        model = K.Sequential([K.layers.Dense(1, input_shape=(2,))])
        model.compile("sgd", "mse")
        return model
    reg = KerasRegressor(build_reg, epochs=2, verbose=0)
    reg.fit(x, x[:, 0])
    assert reg.predict(x).shape == (60,) and reg.score(x, x[:, 0]) < 0
    schedule = K.optimizers.schedules.PolynomialDecay(0.1, 10, power=2.0)
    again = K.optimizers.schedules.deserialize(K.optimizers.schedules.serialize(schedule))
    assert again.get_config() == schedule.get_config() == {
        "initial_learning_rate": 0.1, "decay_steps": 10, "end_learning_rate": 0.0001, "power": 2.0, "cycle": False,
        "name": None}
    opt = K.optimizers.deserialize(K.optimizers.serialize(K.optimizers.SGD(schedule)))
    assert isinstance(opt._config["learning_rate"], K.optimizers.schedules.PolynomialDecay)


def test_callbacks_and_radial_constraint():
    K = tf.keras
    logger = K.callbacks.BaseLogger(stateful_metrics=["auc"])
    logger.set_params({"metrics": ["loss", "auc"]})
    logger.on_epoch_begin(0)
    logger.on_batch_end(0, {"batch": 0, "size": 3, "loss": 1.0, "auc": 0.5})
    logger.on_batch_end(1, {"batch": 1, "size": 1, "loss": 5.0, "auc": 0.7})
    logs = {}
    logger.on_epoch_end(0, logs)
    assert logs == {"loss": 2.0, "auc": 0.7}
    from tinyflow.api import logging as tf_logging
    messages = []
    handler = type("H", (__import__("logging").Handler,), {"emit": lambda self, r: messages.append(r.getMessage())})()
    tf_logging.get_logger().addHandler(handler)
    try:
        K.callbacks.RemoteMonitor(root="http://127.0.0.1:9").on_epoch_end(0, {"loss": np.float32(1.0)})
    finally:
        tf_logging.get_logger().removeHandler(handler)
    assert any("could not reach RemoteMonitor" in m for m in messages)
    # TF 1.15's RadialConstraint cannot run in graph mode (it makes a variable in a while loop): its formula
    tf.reset_default_graph()
    w = np.arange(32, dtype="float32").reshape(4, 4, 2, 1)
    with tf.Session() as sess:
        got = sess.run(K.constraints.RadialConstraint()(tf.constant(w)))
    k = w[..., 1, 0]
    want = np.full((4, 4), k[3, 3])
    want[1:3, 1:3] = k[1, 1]
    np.testing.assert_array_equal(got[..., 1, 0], want)
    with pytest.raises(ValueError, match="rank 4 with height==width"):
        K.constraints.RadialConstraint()(tf.zeros([3, 2, 1, 1]))


def test_abstract_rnn_cell_runs_in_rnn():
    tf.keras.backend.clear_session()

    class MinimalRNNCell(tf.keras.layers.AbstractRNNCell):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        @property
        def state_size(self):
            return self.units

        @property
        def output_size(self):
            return self.units

        def build(self, input_shape):
            self.kernel = self.add_weight("kernel", shape=[input_shape[-1], self.units], initializer="ones")
            self.built = True

        def call(self, inputs, states):
            h = tf.matmul(inputs, self.kernel) + states[0]
            return h, [h]
    x = tf.keras.Input((3, 2))
    model = tf.keras.Model(x, tf.keras.layers.RNN(MinimalRNNCell(4))(x))
    np.testing.assert_allclose(model.predict(np.ones((1, 3, 2), "float32")), np.full((1, 4), 6.0))
    with pytest.raises(NotImplementedError):
        tf.keras.layers.AbstractRNNCell().state_size


def test_dense_features_names_its_weights_as_tf():
    tf.reset_default_graph()
    fc = tf.feature_column
    layer = tf.keras.layers.DenseFeatures([fc.numeric_column("a"), fc.embedding_column(
        fc.categorical_column_with_identity("c", 5), 3, initializer=tf.ones_initializer())])
    out = layer({"a": tf.constant([[1.0], [2.0]]), "c": tf.constant([[1], [4]], tf.int64)})
    assert [w.name for w in layer.trainable_weights] == ["dense_features/c_embedding/embedding_weights:0"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(out), [[1, 1, 1, 1], [2, 1, 1, 1]])


@pytest.mark.slow   # a 191-layer model built: ~3 s
def test_resnet50_v2_is_tf115s():
    import json
    want = json.load(open(os.path.join(HERE, "resnet_v2.json")))
    tf.keras.backend.clear_session()
    model = tf.keras.applications.ResNet50V2(weights=None, input_shape=(64, 64, 3), include_top=False,
                                             pooling="avg")
    assert [layer.name for layer in model.layers] == want["layers"]
    assert [[w.name, w.shape.as_list()] for w in model.weights] == want["weights"]
    assert model.count_params() == want["params"] and list(model.output_shape) == want["output_shape"]
    image = np.arange(12, dtype="float32").reshape(1, 2, 2, 3) * 20.0
    np.testing.assert_allclose(tf.keras.applications.resnet_v2.preprocess_input(image), want["preprocessed"])
    with pytest.raises(Exception, match="resnet101v2_weights_tf_dim_ordering_tf_kernels_notop.h5"):
        tf.keras.applications.ResNet101V2(include_top=False, input_shape=(64, 64, 3))


def test_export_saved_model_round_trip_and_tf115s(tmp_path):
    import json
    K = tf.keras
    K.backend.clear_session()
    model = K.Sequential([K.layers.Dense(3, activation="relu", input_shape=(2,)), K.layers.Dense(1)])
    x = np.array([[1.0, 2.0], [3.0, -1.0]], "float32")
    want = model.predict(x)
    path = str(tmp_path / "export")
    K.experimental.export_saved_model(model, path)
    K.backend.clear_session()
    np.testing.assert_allclose(K.experimental.load_from_saved_model(path).predict(x), want, rtol=1e-6)
    with tf.Graph().as_default(), tf.Session() as sess:   # the serving signature, as TF's loader reads it
        sig = tf.saved_model.loader.load(sess, ["serve"], path).signature_def["serving_default"]
        out = sess.run(sig.outputs["dense_1"].name, {sig.inputs["dense_input"].name: x})
    np.testing.assert_allclose(out, want, rtol=1e-6)
    recorded = json.load(open(os.path.join(HERE, "tf_export_predictions.json")))   # TF 1.15's export
    K.backend.clear_session()
    theirs = K.experimental.load_from_saved_model(os.path.join(HERE, "tf_export"))
    np.testing.assert_allclose(theirs.predict(np.array(recorded["x"], "float32")), recorded["y"], rtol=1e-6)
