"""tf.keras.datasets read fake cache files (TF's names and layouts, written by
tests/fixtures/keras_datasets/make_datasets.py) and return what TF 1.15's loaders returned for them."""
import json
import os
import pickle
import shutil

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.graph import errors

FIX = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "keras_datasets")
WANT = json.load(open(os.path.join(FIX, "datasets.json")))


@pytest.fixture
def home(monkeypatch, tmp_path):
    shutil.copytree(os.path.join(FIX, "cache", ".keras"), str(tmp_path / ".keras"))
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path


def js(v):
    if isinstance(v, np.ndarray):
        return {"dtype": str(v.dtype), "shape": list(v.shape),
                "value": [js(e) for e in v.tolist()] if v.dtype == object else v.tolist()}
    if isinstance(v, (list, tuple)):
        return [js(e) for e in v]
    if isinstance(v, np.integer):
        return int(v)
    return v


def same(got, want):
    if isinstance(want, dict) and "dtype" in want:
        assert got["dtype"] == want["dtype"] and got["shape"] == want["shape"]
        np.testing.assert_equal(got["value"], want["value"])
    elif isinstance(want, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
    else:
        assert got == want


def test_loaders_match_tf(home):
    ds = tf.keras.datasets
    same(js(ds.imdb.load_data()), WANT["imdb"])
    same(js(ds.imdb.load_data(num_words=12, skip_top=2, maxlen=8, seed=5)), WANT["imdb_kw"])
    same(js(ds.imdb.load_data(num_words=15, oov_char=None, start_char=None, index_from=0)), WANT["imdb_nooov"])
    assert ds.imdb.get_word_index() == WANT["imdb_words"] and ds.reuters.get_word_index() == WANT["reuters_words"]
    same(js(ds.reuters.load_data(test_split=0.3, num_words=20)), WANT["reuters"])
    same(js(ds.boston_housing.load_data(test_split=0.3, seed=3)), WANT["boston"])
    same(js(ds.fashion_mnist.load_data()), WANT["fashion"])
    same(js(ds.cifar100.load_data()), WANT["cifar100"])
    same(js(ds.cifar100.load_data("coarse")), WANT["cifar100_coarse"])
    assert np.random.rand() == WANT["after_seed"]   # TF leaves numpy's global generator seeded the same way


def test_cifar10_batches_and_archive(home):
    d = home / ".keras" / "datasets"
    rng = np.random.RandomState(1)
    src = home / "src" / "cifar-10-batches-py"
    os.makedirs(str(src))
    batches = []
    for name in ["data_batch_%d" % i for i in range(1, 6)] + ["test_batch"]:
        data, labels = rng.randint(0, 256, (2, 3072)).astype(np.uint8), [int(v) for v in rng.randint(0, 10, 2)]
        batches.append((data, labels))
        with open(str(src / name), "wb") as f:
            pickle.dump({b"batch_label": b"x", b"data": data, b"labels": labels}, f, protocol=2)
    import tarfile
    with tarfile.open(str(d / "cifar-10-batches-py.tar.gz"), "w:gz") as tar:   # only the archive: extracted
        tar.add(str(src), arcname="cifar-10-batches-py")
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.cifar10.load_data()
    want = np.concatenate([b[0] for b in batches[:5]]).reshape(10, 3, 32, 32).transpose(0, 2, 3, 1)
    np.testing.assert_array_equal(x_train, want)
    assert x_train.dtype == np.uint8 and y_train.shape == (10, 1) and y_train.dtype == np.uint8
    np.testing.assert_array_equal(y_test[:, 0], batches[5][1])
    assert x_test.shape == (2, 32, 32, 3)


def test_missing_and_hostile_files(home, tmp_path):
    d = home / ".keras" / "datasets"
    os.remove(str(d / "imdb.npz"))
    with pytest.raises(errors.NotFoundError, match="imdb.npz.*storage.googleapis.com"):
        tf.keras.datasets.imdb.load_data()
    with pytest.raises(errors.NotFoundError, match="mnist.npz"):
        tf.keras.datasets.mnist.load_data()

    class Evil:
        def __reduce__(self):
            return (os.system, ("echo pwned",))
    bad = np.empty(1, dtype=object)
    bad[0] = Evil()
    np.savez(str(d / "imdb.npz"), x_train=bad, y_train=np.zeros(1), x_test=bad, y_test=np.zeros(1))
    with pytest.raises(errors.DataLossError, match="not allowed"):
        tf.keras.datasets.imdb.load_data()
    (d / "reuters.npz").write_bytes(b"garbage")
    with pytest.raises(errors.DataLossError, match="reuters.npz"):
        tf.keras.datasets.reuters.load_data()
    with pytest.raises(ValueError, match="label_mode"):
        tf.keras.datasets.cifar100.load_data("medium")
    with pytest.raises(TypeError, match="Unrecognized keyword"):
        tf.keras.datasets.reuters.load_data(bogus=1)
