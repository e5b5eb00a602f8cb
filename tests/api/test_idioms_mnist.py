"""tensorflow.examples.tutorials.mnist.input_data: the same arrays and the same batches as TF 1.15's
(tests/fixtures/idioms/mnist.json, written by make_mnist.py with real TF on the same tiny IDX files)."""
import gzip
import json
import os
from paths import TESTS as _TESTS  # the tests/ folder
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(_TESTS, "fixtures", "idioms"))
import make_mnist  # noqa: E402

from tinyflow.api.examples.tutorials.mnist import input_data  # noqa: E402


_HERE = _TESTS
_WANT = json.load(open(os.path.join(_HERE, "fixtures", "idioms", "mnist.json")))


def test_read_data_sets_and_next_batch_match_tf115(capsys):
    got = make_mnist.run(input_data, seed=5)
    for key, want in _WANT.items():
        if key == "validation_first":
            np.testing.assert_allclose(got[key], want, rtol=1e-6)
        elif key == "batches":
            for g, w in zip(got[key], want):
                assert g[:-1] == w[:-1]
                assert abs(g[-1] - w[-1]) < 1e-4
        else:
            assert got[key] == want, key
    assert "Extracting" in capsys.readouterr().out


def test_offline_without_files_names_the_files_and_folder(tmp_path):
    folder = tmp_path / "MNIST_data"
    with pytest.raises(IOError) as e:
        input_data.read_data_sets(str(folder), source_url="http://127.0.0.1:9/")
    msg = str(e.value)
    for name in input_data.FILES:
        assert name in msg
    assert str(folder) in msg
    assert not any(folder.iterdir())  # no partial file left behind


def test_present_files_are_not_downloaded(tmp_path, monkeypatch):
    make_mnist.write_idx(str(tmp_path))
    monkeypatch.setattr(input_data.urllib.request, "urlopen", lambda *a, **k: 1 / 0)
    data = input_data.read_data_sets(str(tmp_path), validation_size=3)
    assert data.train.num_examples == 20 and data.test.images.shape == (7, 6)


def test_bad_files_name_the_file(tmp_path):
    make_mnist.write_idx(str(tmp_path))
    bad = tmp_path / "t10k-labels-idx1-ubyte.gz"
    with gzip.open(str(bad), "wb") as f:
        f.write(b"\x00\x00\x08\x03" + b"\x00\x00\x00\x07")  # an image file's magic, 2051
    with pytest.raises(ValueError, match="Invalid magic number 2051 in MNIST label file: .*t10k-labels"):
        input_data.read_data_sets(str(tmp_path), validation_size=3)
    bad.write_bytes(b"not gzip at all")
    with pytest.raises(ValueError, match="t10k-labels"):
        input_data.read_data_sets(str(tmp_path), validation_size=3)
    with pytest.raises(ValueError, match="Validation size should be between 0 and 23"):
        make_mnist.write_idx(str(tmp_path))
        input_data.read_data_sets(str(tmp_path), validation_size=30)


@pytest.mark.slow
def test_unchanged_tutorial_script_runs_under_the_runner(tmp_path):
    make_mnist.write_idx(str(tmp_path / "MNIST_data"))
    script = tmp_path / "softmax.py"
    script.write_text(
        "from tensorflow.examples.tutorials.mnist import input_data\n"
        "import tensorflow as tf\n"
        "from tensorflow.python.framework import ops\n"
        "mnist = input_data.read_data_sets('MNIST_data/', one_hot=True, validation_size=0)\n"
        "ops.reset_default_graph()\n"
        "x = tf.placeholder('float', [None, 6])\n"
        "y_ = tf.placeholder('float', [None, 10])\n"
        "W = tf.Variable(tf.zeros([6, 10]))\n"
        "y = tf.nn.softmax(tf.matmul(x, W))\n"
        "cost = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y + 1e-9), reduction_indices=[1]))\n"
        "train = tf.train.GradientDescentOptimizer(0.5).minimize(cost)\n"
        "acc = tf.reduce_mean(tf.cast(tf.equal(tf.arg_max(y, 1), tf.argmax(y_, 1)), 'float'))\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    c0 = sess.run(cost, {x: mnist.test.images, y_: mnist.test.labels})\n"
        "    for _ in range(30):\n"
        "        bx, by = mnist.train.next_batch(8)\n"
        "        sess.run(train, {x: bx, y_: by})\n"
        "    c1 = sess.run(cost, {x: mnist.test.images, y_: mnist.test.labels})\n"
        "    print('COST', c0, c1, x.dtype.name)\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(_HERE))
    out = subprocess.run([sys.executable, "-m", "tinyflow", str(script)], cwd=str(tmp_path), env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    line = [s for s in out.stdout.splitlines() if s.startswith("COST")][0].split()
    assert float(line[2]) < float(line[1]) and line[3] == "float32"
