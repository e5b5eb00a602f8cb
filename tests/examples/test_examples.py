"""The examples: mnist_softmax trains to >= 0.85 test accuracy in a few epochs; the data helpers
read MNIST's IDX format (plain and gzipped) and split the digits."""
import gzip
import importlib.util
import os
from paths import TESTS as _TESTS  # the tests/ folder
import re
import struct
import subprocess
import sys

import numpy as np
import pytest


EXAMPLES = os.path.join(os.path.dirname(_TESTS), "examples")
if importlib.util.find_spec("sklearn") is None:   # the examples extra (found, not imported: 1.4 s of CPU)
    pytest.skip("could not import 'sklearn': the examples extra", allow_module_level=True)
_spec = importlib.util.spec_from_file_location("tinyflow_examples_data", os.path.join(EXAMPLES, "data.py"))
data = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(data)


def _run_example(name, *args):
    p = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), *args], capture_output=True, text=True,
                       timeout=300, cwd=EXAMPLES)
    assert p.returncode == 0, p.stderr[-2000:]
    return p.stdout


@pytest.mark.slow
def test_mnist_softmax_reaches_accuracy():
    out = _run_example("mnist_softmax.py", "--epochs", "3")
    assert len(re.findall(r"^epoch +\d+/3 ", out, re.M)) == 3  # a progress line per epoch
    acc = float(re.search(r"^accuracy: ([0-9.]+)$", out, re.M).group(1))
    assert acc >= 0.85, out[-500:]


def _write_idx(path, array, gz):
    header = struct.pack(">HBB", 0, 8, array.ndim) + struct.pack(">" + "I" * array.ndim, *array.shape)
    with (gzip.open if gz else open)(path, "wb") as f:
        f.write(header + array.astype(np.uint8).tobytes())


def test_read_mnist_idx(tmp_path):
    rng = np.random.RandomState(0)
    train_x, test_x = rng.randint(0, 256, (5, 28, 28)), rng.randint(0, 256, (3, 28, 28))
    train_y, test_y = np.array([0, 1, 2, 3, 9]), np.array([4, 5, 6])
    _write_idx(str(tmp_path / "train-images-idx3-ubyte.gz"), train_x, gz=True)
    _write_idx(str(tmp_path / "train-labels-idx1-ubyte.gz"), train_y, gz=True)
    _write_idx(str(tmp_path / "t10k-images-idx3-ubyte"), test_x, gz=False)
    _write_idx(str(tmp_path / "t10k-labels-idx1-ubyte"), test_y, gz=False)
    mnist = data.read_data_sets(str(tmp_path))
    assert mnist.side == 28 and mnist.train.images.shape == (5, 784) and mnist.train.images.dtype == np.float32
    np.testing.assert_allclose(mnist.test.images, test_x.reshape(3, -1) / 255.0, rtol=1e-6)
    np.testing.assert_array_equal(mnist.train.labels.argmax(1), train_y)
    with open(tmp_path / "bad-idx", "wb") as f:
        f.write(struct.pack(">HBB", 0, 8, 1) + struct.pack(">I", 10) + b"\x00" * 4)
    with pytest.raises(ValueError, match="truncated"):
        data.read_idx(str(tmp_path / "bad-idx"))


def test_digits_split_and_batches():
    d = data.read_data_sets(one_hot=False, seed=1)
    assert d.side == 8 and d.train.num_examples + d.test.num_examples == 1797
    assert d.test.num_examples == round(1797 * 0.2) and d.train.images.max() <= 1.0
    seen = np.concatenate([y for _, y in d.train.batches(500)])
    assert sorted(seen.tolist()) == sorted(d.train.labels.tolist()) and d.train.epochs_completed == 1
    x, y = d.train.next_batch(7)
    assert x.shape == (7, 64) and y.shape == (7,)


@pytest.mark.slow
def test_lstm_example_trains_writes_summaries_and_saves(tmp_path):
    out = _run_example("lstm.py", "--epochs", "2", "--logdir", str(tmp_path))
    assert len(re.findall(r"^epoch +\d+/2  loss [0-9.]+  train accuracy [0-9.]+$", out, re.M)) == 2
    assert float(re.search(r"^accuracy: ([0-9.]+)$", out, re.M).group(1)) > 0.4  # chance is 0.1
    names = os.listdir(tmp_path)
    assert any(n.startswith("events.out.tfevents") for n in names) and "checkpoint" in names
