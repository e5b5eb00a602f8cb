"""tf.keras pieces checked against TF 1.15's recorded behaviour: progress output, callbacks, Keras
layers on placeholders with Session.run, utils and preprocessing."""
import re

import numpy as np
import pytest

import tinyflow as tf

K = tf.keras


def _mlp():
    K.backend.clear_session()
    model = K.Sequential([K.layers.Dense(4, activation="relu", input_shape=(3,)),
                          K.layers.Dense(2, activation="softmax")])
    model.compile("sgd", "categorical_crossentropy", metrics=["accuracy"])
    x = np.random.RandomState(0).rand(10, 3).astype("float32")
    return model, x, np.eye(2, dtype="float32")[np.arange(10) % 2]


def test_verbose_2_prints_tf115_lines(capsys):
    model, x, y = _mlp()
    model.fit(x, y, batch_size=4, epochs=2, verbose=2, validation_split=0.2)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Train on 8 samples, validate on 2 samples"
    assert out[1] == "Epoch 1/2"
    assert out[2].startswith("8/8 - ") and " - loss: " in out[2] and " - acc: " in out[2] and " - val_acc: " in out[2]


def test_history_keys_and_params():
    model, x, y = _mlp()
    h = model.fit(x, y, batch_size=4, epochs=2, verbose=0, validation_data=(x, y))
    assert sorted(h.history) == ["acc", "loss", "val_acc", "val_loss"]
    assert h.epoch == [0, 1] and h.params["samples"] == 10
    assert model.metrics_names == ["loss", "acc"]


def test_train_on_batch_is_the_loss_before_the_step():
    model, x, y = _mlp()
    before = model.test_on_batch(x, y)
    assert np.allclose(model.train_on_batch(x, y), before, rtol=1e-6)
    assert model.test_on_batch(x, y)[0] != before[0]


def test_early_stopping_and_lambda_and_scheduler(tmp_path):
    model, x, y = _mlp()
    seen, lrs = [], []
    stop = K.callbacks.EarlyStopping(monitor="loss", patience=0, min_delta=10.0)
    sched = K.callbacks.LearningRateScheduler(lambda epoch: 0.5 / (epoch + 1))
    log = K.callbacks.LambdaCallback(on_epoch_end=lambda e, logs: (seen.append(e), lrs.append(logs["lr"])))
    csv_path = str(tmp_path / "log.csv")
    h = model.fit(x, y, epochs=5, verbose=0, callbacks=[sched, stop, log, K.callbacks.CSVLogger(csv_path)])
    assert seen == [0, 1] and h.epoch == [0, 1]          # min_delta 10: no epoch improves after the first
    np.testing.assert_allclose(lrs, [0.5, 0.25], rtol=1e-6)
    assert open(csv_path).read().splitlines()[0] == "epoch,acc,loss,lr"


def test_model_checkpoint_save_and_load_weights(tmp_path):
    model, x, y = _mlp()
    path = str(tmp_path / "w-{epoch:02d}")
    model.fit(x, y, epochs=1, verbose=0, callbacks=[K.callbacks.ModelCheckpoint(path, save_weights_only=True)])
    saved = model.get_weights()
    model.fit(x, y, epochs=1, verbose=0)
    model.load_weights(str(tmp_path / "w-01"))
    for a, b in zip(model.get_weights(), saved):
        np.testing.assert_array_equal(a, b)


def test_keras_layers_on_placeholders_with_session_run():
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 3])
    dense = K.layers.Dense(2, kernel_initializer="ones", bias_initializer="zeros")
    y = dense(x)
    assert [w.name for w in dense.weights] == ["dense/kernel:0", "dense/bias:0"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(y, {x: [[1.0, 2.0, 3.0]]}), [[6.0, 6.0]])


def test_wrong_input_shape_is_a_clear_error():
    model, x, y = _mlp()
    with pytest.raises(ValueError, match="expected .* to have shape"):
        model.fit(np.zeros((4, 5), "float32"), y[:4], verbose=0)


def test_to_categorical_and_pad_sequences():
    np.testing.assert_array_equal(K.utils.to_categorical([0, 2, 1], 3), np.eye(3)[[0, 2, 1]])
    seqs = [[1, 2, 3], [4], [5, 6, 7, 8, 9]]
    np.testing.assert_array_equal(K.preprocessing.sequence.pad_sequences(seqs, maxlen=4),
                                  [[0, 1, 2, 3], [0, 0, 0, 4], [6, 7, 8, 9]])
    np.testing.assert_array_equal(K.preprocessing.sequence.pad_sequences(seqs, maxlen=2, padding="post",
                                                                          truncating="post"),
                                  [[1, 2], [4, 0], [5, 6]])


def test_mnist_names_the_missing_file(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(tf.errors.NotFoundError, match="mnist.npz"):
        K.datasets.mnist.load_data()


def test_summary_counts_params():
    model, _, _ = _mlp()
    lines = []
    model.summary(print_fn=lines.append)
    assert lines[0] == 'Model: "sequential"'
    assert "Total params: 26" in lines and "Trainable params: 26" in lines


def test_fit_on_a_dataset_matches_fit_on_arrays():
    model, x, y = _mlp()
    w0 = model.get_weights()
    h_arrays = model.fit(x, y, batch_size=5, epochs=2, shuffle=False, verbose=0)
    model.set_weights(w0)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(5)
    h_dataset = model.fit(ds, epochs=2, verbose=0)
    for k in ("loss", "acc"):
        np.testing.assert_allclose(h_dataset.history[k], h_arrays.history[k], rtol=1e-6)
    np.testing.assert_allclose(model.evaluate(ds, verbose=0), model.evaluate(x, y, verbose=0), rtol=1e-6)
    np.testing.assert_allclose(model.predict(ds), model.predict(x), rtol=1e-6)


def test_fit_on_a_repeated_dataset_with_steps_per_epoch():
    model, x, y = _mlp()
    ds = tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(4)
    h = model.fit(ds, epochs=3, steps_per_epoch=2, verbose=0)
    assert len(h.history["loss"]) == 3 and all(np.isfinite(h.history["loss"]))


def test_verbose_1_progress_bar(capsys):
    model, x, y = _mlp()
    model.fit(x, y, batch_size=4, epochs=1, verbose=1)
    out = capsys.readouterr().out
    assert out.startswith("Train on 10 samples\n")
    last = out.rstrip("\n").split("\r")[-1]   # TF 1.15 redraws the bar after "\b...\r"
    assert re.match(r"^10/10 \[={30}\] - \d+s \d+[mu]?s/sample - loss: \d\.\d{4} - acc: \d\.\d{4} *$", last), last


def test_subclassed_model_build_and_weights():
    K.backend.clear_session()

    class Small(K.Model):
        def __init__(self):
            super().__init__()
            self.hidden = K.layers.Dense(5, activation="tanh")
            self.out = K.layers.Dense(1)

        def call(self, inputs):
            return self.out(self.hidden(inputs))
    model = Small()
    model.build((None, 3))
    assert [w.name for w in model.weights] == ["small/dense/kernel:0", "small/dense/bias:0", "small/dense_1/kernel:0",
                                               "small/dense_1/bias:0"]
    assert model.layers == [model.hidden, model.out] and model.get_layer("dense_1") is model.out
    assert [tuple(w.shape) for w in model.get_weights()] == [(3, 5), (5,), (5, 1), (1,)]


def test_backend_function_and_learning_phase():
    tf.reset_default_graph()
    x = K.backend.placeholder(shape=(None, 2))
    drop = K.layers.Dropout(0.5)(x)
    f = K.backend.function([x, K.backend.learning_phase()], [drop])
    ones = np.ones((200, 2), "float32")
    np.testing.assert_array_equal(f([ones, False])[0], ones)
    trained = f([ones, True])[0]
    assert set(np.unique(trained)) <= {0.0, 2.0} and 0.3 < (trained == 0).mean() < 0.7


def test_conv1d_pooling_and_global_pooling_against_numpy():
    tf.reset_default_graph()
    x = K.Input(shape=(6, 2))
    conv = K.layers.Conv1D(3, 2, kernel_initializer="ones", bias_initializer="ones")
    h = K.layers.MaxPooling1D()(conv(x))
    out = K.layers.GlobalAveragePooling1D()(h)
    model = K.Model(x, out)
    assert [w.name for w in model.weights] == ["conv1d/kernel:0", "conv1d/bias:0"]
    data = np.random.RandomState(0).rand(2, 6, 2).astype("float32")
    windows = data.sum(-1)[:, :-1] + data.sum(-1)[:, 1:] + 1.0          # every filter: the window's sum + 1
    pooled = np.maximum(windows[:, 0:4:2], windows[:, 1:4:2])           # pool 2 over 5 steps -> 2
    np.testing.assert_allclose(model.predict(data), np.repeat(pooled.mean(1, keepdims=True), 3, 1), rtol=1e-5)


def test_constraints_apply_after_each_update():
    K.backend.clear_session()
    model = K.Sequential([K.layers.Dense(4, input_shape=(3,), kernel_constraint=K.constraints.NonNeg()),
                          K.layers.Dense(1, kernel_constraint=K.constraints.MaxNorm(0.5))])
    model.compile(K.optimizers.SGD(0.5), "mse")
    # positive weights and inputs, negative targets: the first kernel is pushed below 0 (whatever the
    # random initial weights of this process would have been)
    model.set_weights([np.full((3, 4), 0.5, "float32"), np.zeros(4, "float32"), np.full((4, 1), 0.2, "float32"),
                       np.zeros(1, "float32")])
    rng = np.random.RandomState(0)
    model.fit(rng.rand(16, 3).astype("float32"), -rng.rand(16, 1).astype("float32") * 10, epochs=3, verbose=0)
    k1, _, k2, _ = model.get_weights()
    assert (k1 >= 0).all() and (k1 == 0).any()            # pushed negative, projected back to 0
    assert np.linalg.norm(k2, axis=0).max() <= 0.5 + 1e-6


def test_layer_subclass_with_add_weight_and_regularizer_in_the_loss():
    K.backend.clear_session()

    class Linear(K.layers.Layer):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def build(self, input_shape):
            self.w = self.add_weight("w", shape=(input_shape[-1], self.units), initializer="ones",
                                     regularizer=K.regularizers.l2(0.1))
            self.b = self.add_weight("b", shape=(self.units,), initializer="zeros")

        def call(self, inputs):
            return tf.matmul(inputs, self.w) + self.b

    x = K.Input(shape=(3,))
    layer = Linear(2)
    model = K.Model(x, layer(x))
    assert [w.name for w in model.weights] == ["linear/w:0", "linear/b:0"]
    model.compile("sgd", "mse")
    data, target = np.ones((4, 3), "float32"), np.zeros((4, 2), "float32")
    # mse of outputs 3.0 (= 9) plus 0.1 * sum(w^2) = 0.1 * 6
    np.testing.assert_allclose(model.evaluate(data, target, verbose=0), 9.0 + 0.6, rtol=1e-6)
    dense = K.layers.Dense(1, kernel_regularizer="l2", kernel_initializer="ones")
    dense(x)
    assert len(dense.losses) == 1


def test_variables_take_the_name_scope_as_tf115():
    # recorded with TF 1.15: Keras variables are named after the tf.name_scope a layer is built in,
    # tf.layers' after the variable scope only
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        with tf.name_scope("foo"):
            y = tf.keras.layers.Dense(3)(x)
            tf.keras.layers.Dense(3)(y)
        with tf.variable_scope("bar"):
            tf.keras.layers.Dense(3)(x)
        with tf.name_scope("baz"):
            tf.layers.Dense(3)(x)
        assert [v.name for v in tf.global_variables()] == [
            "foo/dense/kernel:0", "foo/dense/bias:0", "foo/dense_1/kernel:0", "foo/dense_1/bias:0",
            "bar/dense_2/kernel:0", "bar/dense_2/bias:0", "dense/kernel:0", "dense/bias:0"]
        assert y.name == "foo/dense/BiasAdd:0"
