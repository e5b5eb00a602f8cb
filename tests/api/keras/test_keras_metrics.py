"""tf.keras.metrics objects and backend.set_learning_phase against TF 1.15's recorded values
(~/.tf1-oracle: Mean 2.8 after [1, 2, 3] and [4] weighted 2; SparseCategoricalAccuracy 2/3; MSE 2.5)."""
import numpy as np
import pytest

import tinyflow as tf

K = tf.keras


def test_mean_and_sparse_categorical_accuracy_objects():
    K.backend.clear_session()
    m = K.metrics.Mean()
    u1, u2 = m.update_state([1.0, 2.0, 3.0]), m.update_state([4.0], sample_weight=[2.0])
    a = K.metrics.SparseCategoricalAccuracy()
    r = a(tf.constant([[1], [2], [0]]), tf.constant([[.1, .8, .1], [.3, .3, .4], [.2, .5, .3]]))
    c = K.metrics.MeanSquaredError()
    rc = c(tf.constant([[1.0, 2.0]]), tf.constant([[2.0, 4.0]]))
    assert a.name == "sparse_categorical_accuracy" and [v.name for v in m.variables] == ["total:0", "count:0"]
    assert not tf.global_variables() and not tf.local_variables()   # TF 1.15: in no collection
    with tf.Session() as s:
        s.run([v.initializer for v in m.variables + a.variables + c.variables])
        s.run(u1)
        s.run(u2)
        assert s.run(m.result()) == pytest.approx(2.8)
        assert s.run(r) == pytest.approx(2 / 3)
        assert s.run(rc) == pytest.approx(2.5)
        s.run([v.initializer for v in m.variables])
        assert s.run(m.result()) == 0.0


def test_metric_object_in_compile_logs_its_name():
    K.backend.clear_session()
    x = K.Input((3,))
    model = K.Model(x, K.layers.Dense(3, activation="softmax")(x))
    model.compile("sgd", "sparse_categorical_crossentropy", metrics=[K.metrics.SparseCategoricalAccuracy()])
    assert model.metrics_names == ["loss", "sparse_categorical_accuracy"]
    data = np.random.RandomState(0).rand(6, 3).astype("float32")
    labels = np.array([0, 1, 2, 0, 1, 2])
    h = model.fit(data, labels, verbose=0)
    pred = model.predict(data).argmax(-1)
    before = h.history["sparse_categorical_accuracy"][0]
    assert 0.0 <= before <= 1.0
    assert model.evaluate(data, labels, verbose=0)[1] == pytest.approx(np.mean(pred == labels))


def test_set_learning_phase_fixes_dropout():
    K.backend.clear_session()
    K.backend.set_learning_phase(1)
    assert K.backend.learning_phase() == 1
    x = tf.placeholder(tf.float32, [None, 1000])
    y = K.layers.Dropout(0.5)(x)
    with tf.Session() as s:
        out = s.run(y, {x: np.ones((1, 1000), "float32")})
    assert 0.3 < np.mean(out == 0) < 0.7   # dropping, without a feed of the phase
    with pytest.raises(ValueError, match="Expected learning phase to be 0 or 1"):
        K.backend.set_learning_phase(2)
    K.backend.clear_session()
