"""TF 1.15-style eager training scripts (tests/fixtures/eager/scripts.py) give what TF 1.15 gave
(scripts.npz, written by make.py under real TF), and the closed-form answers where there is one."""
import importlib.util
import os
from paths import TESTS as _TESTS  # the tests/ folder

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.api.eager import eager_mode

pytestmark = pytest.mark.slow  # every test here takes over a second (the fast subset: -m "not slow")


HERE = os.path.join(_TESTS, "fixtures", "eager")
_spec = importlib.util.spec_from_file_location("eager_scripts", os.path.join(HERE, "scripts.py"))
scripts = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scripts)
TF = np.load(os.path.join(HERE, "scripts.npz"))


def _run(fn):
    with eager_mode():
        out = fn(tf)
    for key, value in out.items():
        expected = TF["%s/%s" % (fn.__name__, key)]
        np.testing.assert_allclose(value, expected, rtol=2e-4, atol=2e-5, err_msg="%s/%s" % (fn.__name__, key))
    return out


def test_linear_regression_with_tape():
    out = _run(scripts.linear_regression)
    rng = np.random.RandomState(0)
    X = rng.randn(100, 3)
    y = X.dot([[1.5], [-2.0], [0.5]]) + 2.0 + 0.1 * rng.randn(100, 1)
    sol = np.linalg.lstsq(np.hstack([X, np.ones((100, 1))]), y, rcond=None)[0]
    np.testing.assert_allclose(out["W"], sol[:3], atol=5e-3)  # converged to least squares
    np.testing.assert_allclose(out["b"], sol[3, 0], atol=5e-3)


def test_logistic_regression_with_tape_and_optimizer():
    out = _run(scripts.logistic_regression)
    assert out["losses"][-1] < 0.5 * out["losses"][0] and out["accuracy"] > 0.9


def test_mlp_over_tf_data_with_adam():
    out = _run(scripts.mlp_over_data)
    assert len(out["losses"]) == 12  # 3 batches x 4 epochs, iterated with `for x, y in dataset`


def test_minimize_callable_with_global_step():
    out = _run(scripts.minimize_callable)
    assert int(out["step"]) == 25


def test_second_order_nested_tapes():
    out = _run(scripts.second_order)
    x = np.array([0.5, -1.0, 1.5])
    t, e = np.tanh(x), np.exp(0.5 * x)
    np.testing.assert_allclose(out["g"], (1 - t ** 2) * e + 0.5 * t * e + 3 * x ** 2, rtol=1e-10)
    h = -2 * t * (1 - t ** 2) * e + (1 - t ** 2) * e + 0.25 * t * e + 6 * x
    np.testing.assert_allclose(out["h"], h, rtol=1e-10)


def test_eager_script_under_python_m_tinyflow(tmp_path):
    """A script written for TensorFlow (`import tensorflow.contrib.eager as tfe`) runs as is."""
    import subprocess
    import sys
    script = tmp_path / "eager_script.py"
    script.write_text(
        "import numpy as np\nimport tensorflow as tf\nimport tensorflow.contrib.eager as tfe\n"
        "tf.enable_eager_execution()\n"
        "w = tfe.Variable(2.0)\n"
        "grad = tfe.implicit_gradients(lambda x: w * w * x)\n"
        "for x in tf.data.Dataset.from_tensor_slices(np.array([1.0, 2.0], np.float32)):\n"
        "    (g, v), = grad(x)\n"
        "    v.assign_sub(0.1 * g)\n"
        "print(w.numpy(), tf.executing_eagerly())\n")
    root = os.path.dirname(_TESTS)
    env = dict(os.environ, PYTHONPATH=root)
    p = subprocess.run([sys.executable, "-m", "tinyflow", str(script)], capture_output=True, text=True, env=env,
                       timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    w = 2.0 - 0.1 * 2 * 2.0 * 1.0
    w = w - 0.1 * 2 * w * 2.0
    value, mode = p.stdout.split()
    assert abs(float(value) - w) < 1e-5 and mode == "True"


@pytest.mark.parametrize("make", [
    lambda: tf.train.GradientDescentOptimizer(0.1),
    lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    lambda: tf.train.AdamOptimizer(0.05),
    lambda: tf.train.AdagradOptimizer(0.1),
    lambda: tf.train.RMSPropOptimizer(0.01, momentum=0.5),
    lambda: tf.train.AdadeltaOptimizer(1.0),
    lambda: tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01),
    lambda: tf.train.ProximalGradientDescentOptimizer(0.1, l2_regularization_strength=0.1),
    lambda: tf.train.ProximalAdagradOptimizer(0.1),
], ids=["sgd", "nesterov", "adam", "adagrad", "rmsprop", "adadelta", "ftrl", "proximal_sgd", "proximal_adagrad"])
def test_every_optimizer_steps_as_in_graph_mode(make):
    rng = np.random.RandomState(4)
    X, w0 = rng.randn(16, 3).astype(np.float32), rng.randn(3, 1).astype(np.float32)
    y = X.dot([[1.0], [-1.0], [0.5]]).astype(np.float32)

    def loss(w):
        return tf.reduce_mean(tf.square(tf.matmul(X, w) - y))

    with tf.Graph().as_default():
        w = tf.Variable(w0)
        train = make().minimize(loss(w))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(4):
                sess.run(train)
            graph_w = sess.run(w)
    with eager_mode():
        w = tf.Variable(w0)
        opt = make()
        for _ in range(4):
            opt.minimize(lambda: loss(w))
        eager_w = w.numpy()
    assert not np.allclose(eager_w, w0)
    np.testing.assert_allclose(eager_w, graph_w, rtol=1e-5, atol=1e-6)
