"""TF1's older names, `tensorflow.python.*` imports under the runner, and bidirectional_dynamic_rnn
without sequence_length."""
import os
from paths import TESTS as _TESTS  # the tests/ folder
import subprocess
import sys

import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.slow  # every test here takes over a second (the fast subset: -m "not slow")


_ROOT = os.path.dirname(_TESTS)


def test_arg_max_arg_min_and_small_aliases():
    tf.reset_default_graph()
    x = tf.constant([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
    with tf.device("/cpu:0"), tf.colocate_with(x):
        a, b = tf.arg_max(x, 1), tf.arg_min(x, 0)
    assert a.dtype == tf.int64 and tf.arg_max(x, 1, output_type=tf.int32).dtype == tf.int32
    assert tf.dimension_value(x.shape[1]) == 3 and tf.dimension_value(None) is None
    assert tf.dimension_at_index(x.shape, 0).value == 2
    assert tf.is_tensor(x) and not tf.is_tensor(np.ones(2))
    np.testing.assert_array_equal(tf.get_static_value(tf.shape(x)), [2, 3])
    assert tf.broadcast_static_shape(tf.TensorShape([None, 1]), tf.TensorShape([3])).as_list() == [None, 3]
    i1, i2 = tf.identity_n([x, a])
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
        va, vb, v1 = sess.run([a, b, i1])
    np.testing.assert_array_equal(va, [1, 0])
    np.testing.assert_array_equal(vb, [0, 1, 0])
    np.testing.assert_array_equal(v1, [[1, 5, 2], [7, 0, 3]])


def test_tensorflow_python_imports_under_the_runner(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(
        "from tensorflow.python.framework import ops, dtypes\n"
        "from tensorflow.python.ops import array_ops, math_ops, nn_ops, init_ops, variable_scope\n"
        "from tensorflow.python.ops import control_flow_ops, rnn_cell_impl, rnn\n"
        "import tensorflow.python.ops.nn as nn\n"
        "from tensorflow.python.platform import gfile\n"
        "import tensorflow as tf\n"
        "ops.reset_default_graph()\n"
        "x = array_ops.placeholder(dtypes.float32, [2, 3])\n"
        "with variable_scope.variable_scope('s'):\n"
        "    w = variable_scope.get_variable('w', [3, 2], initializer=init_ops.ones_initializer())\n"
        "y = nn_ops.relu(math_ops.matmul(array_ops.reverse(x, [1]), w))\n"
        "y = control_flow_ops.cond(tf.constant(True), lambda: y, lambda: -y)\n"
        "assert rnn_cell_impl.BasicLSTMCell is tf.nn.rnn_cell.BasicLSTMCell and nn.softmax is tf.nn.softmax\n"
        "with tf.Session() as s:\n"
        "    s.run(tf.global_variables_initializer())\n"
        "    print('OUT', s.run(y, {x: [[1, 2, 3], [-4, -5, -6]]}).tolist())\n")
    env = dict(os.environ, PYTHONPATH=_ROOT)
    out = subprocess.run([sys.executable, "-m", "tinyflow", str(script)], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "OUT [[6.0, 6.0], [0.0, 0.0]]" in out.stdout


def test_bidirectional_dynamic_rnn_without_sequence_length_matches_numpy():
    tf.reset_default_graph()
    rng = np.random.RandomState(0)
    xs = rng.normal(size=(2, 5, 3)).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 5, 3])
    fw, bw = tf.nn.rnn_cell.BasicRNNCell(4), tf.nn.rnn_cell.BasicRNNCell(4)
    (out_fw, out_bw), (st_fw, st_bw) = tf.nn.bidirectional_dynamic_rnn(fw, bw, x, dtype=tf.float32)
    assert out_bw.shape.as_list() == [None, 5, 4]
    kernels = [v for v in tf.trainable_variables() if "kernel" in v.name]
    biases = [v for v in tf.trainable_variables() if "bias" in v.name]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        o_fw, o_bw, s_bw, ks, bs = sess.run([out_fw, out_bw, st_bw, kernels, biases], {x: xs})

    def run(seq, k, b):
        h, outs = np.zeros((2, 4), np.float32), []
        for t in range(seq.shape[1]):
            h = np.tanh(np.concatenate([seq[:, t], h], 1) @ k + b)
            outs.append(h)
        return np.stack(outs, 1), h
    want_fw, _ = run(xs, ks[0], bs[0])
    want_bw, want_state = run(xs[:, ::-1], ks[1], bs[1])
    np.testing.assert_allclose(o_fw, want_fw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(o_bw, want_bw[:, ::-1], rtol=1e-5, atol=1e-6)  # back in time order
    np.testing.assert_allclose(s_bw, want_state, rtol=1e-5, atol=1e-6)
