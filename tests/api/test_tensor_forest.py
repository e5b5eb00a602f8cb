"""tf.contrib.tensor_forest (the random-forest tutorial's API) against TF 1.15's recorded accuracy on the same
separable data (tests/fixtures/tensor_forest/make_forest.py made forest.json; its script is the tutorial's
pattern and runs here unchanged under the runner)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tinyflow as tf

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "tensor_forest")
FIX = json.load(open(os.path.join(HERE, "forest.json")))


def _data():
    src = open(os.path.join(HERE, "make_forest.py")).read()
    namespace = {"np": np}
    exec(src[src.index("def data():"):src.index("if __name__")], namespace)
    return namespace["data"]()


def _forest(**kw):
    from tinyflow.api.contrib.tensor_forest import ForestHParams, RandomForestGraphs
    hp = ForestHParams(num_classes=3, num_features=4, num_trees=10, max_nodes=1000, split_after_samples=50,
                       **kw).fill()
    return hp, RandomForestGraphs(hp)


def test_hparams_fill_matches_tf():
    hp, _ = _forest()
    values = hp.values()
    for key, want in FIX["hparams"].items():
        assert values[key] == want, key
    with pytest.raises(AttributeError, match="num_classes"):
        tf.contrib.tensor_forest.python.tensor_forest.ForestHParams(num_features=3).fill()


def test_forest_learns_a_separable_set_as_well_as_tf():
    xtr, ytr, xte, yte = _data()
    tf.reset_default_graph()
    hp, forest = _forest(base_random_seed=3)
    X, Y = tf.placeholder(tf.float32, [None, 4]), tf.placeholder(tf.int32, [None])
    train_op, loss_op = forest.training_graph(X, Y), forest.training_loss(X, Y)
    probs, paths, variance = forest.inference_graph(X)
    acc = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(probs, 1), tf.cast(Y, tf.int64)), tf.float32))
    with tf.Session() as sess:
        assert sess.run(loss_op) == -1.0   # ten one-node trees
        for _ in range(3):
            for i in range(0, 600, 100):
                sess.run([train_op, loss_op], {X: xtr[i:i + 100], Y: ytr[i:i + 100]})
        test_acc, p, v = sess.run([acc, probs, variance], {X: xte, Y: yte})
        loss = sess.run(loss_op)
    assert list(p[:5].shape) == FIX["probabilities_shape"] and v.shape == p.shape
    np.testing.assert_allclose(p.sum(1), 1.0, rtol=1e-5)
    assert test_acc >= FIX["test_accuracy"] - 0.03, (test_acc, FIX["test_accuracy"])
    assert loss < -5   # the trees grew (TF's forest: FIX["loss"])


def test_bad_labels_name_the_forest():
    tf.reset_default_graph()
    _, forest = _forest()
    X, Y = tf.placeholder(tf.float32, [None, 4]), tf.placeholder(tf.int32, [None])
    train_op = forest.training_graph(X, Y)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="labels must be in"):
        sess.run(train_op, {X: np.zeros((2, 4), np.float32), Y: [0, 7]})


def test_resources_module_under_the_runner_path():
    from tinyflow.api import internals
    tf.reset_default_graph()
    assert internals.shared_resources() == []
    with tf.Session() as sess:
        sess.run(internals.initialize_resources(internals.shared_resources()))
        assert sess.run(internals.report_uninitialized_resources()).shape == (0,)


@pytest.mark.slow
def test_tutorial_script_runs_under_the_runner(tmp_path):
    script = tmp_path / "forest.py"
    src = open(os.path.join(HERE, "make_forest.py")).read()
    script.write_text(src.replace('os.path.dirname(os.path.abspath(__file__))', repr(str(tmp_path))))
    out = subprocess.run([sys.executable, "-m", "tinyflow", str(script)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.load(open(tmp_path / "forest.json"))
    assert got["test_accuracy"] >= FIX["test_accuracy"] - 0.03
    assert got["probabilities_shape"] == FIX["probabilities_shape"]


@pytest.mark.slow
def test_tensor_forest_estimator_script_runs_under_the_runner(tmp_path):
    """make_estimator.py (TF's TensorForestEstimator on numpy input_fns) unchanged under the runner: the same
    keys from evaluate and predict, TF's step count, and an accuracy as good as TF's on the same data."""
    for name in ("make_forest.py", "make_estimator.py"):
        src = open(os.path.join(HERE, name)).read()
        (tmp_path / name).write_text(src.replace('os.path.dirname(os.path.abspath(__file__))', repr(str(tmp_path))))
    out = subprocess.run([sys.executable, "-m", "tinyflow", str(tmp_path / "make_estimator.py")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.load(open(tmp_path / "estimator.json"))
    want = json.load(open(os.path.join(HERE, "estimator.json")))
    for key in ("evaluate_keys", "predict_keys", "num_predictions", "global_step"):
        assert got[key] == want[key], key
    assert got["accuracy"] >= want["accuracy"] - 0.03 and got["predict_accuracy"] >= want["predict_accuracy"] - 0.03
