"""Hash buckets give TF 1.15's ids (tests/fixtures/feature_column_hash/hash_buckets.json, written by make.py):
string hash buckets and vocabulary OOV buckets (Fingerprint64 of the string, on the host: the pyfarmhash binding
or tinyflow's pure-Python transcription, which must agree), integer hash buckets (Fingerprint64 of the decimal
string, in the graph) and crossed columns (SparseCross's FingerprintCat64 from the hash key, in the graph)."""
import json
import os
import random

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.api import feature_column as fcm
from tinyflow.api import farmhash as fingerprint

TF = json.load(open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "feature_column_hash",
                                 "hash_buckets.json"), encoding="utf-8"))
fc = tf.feature_column


@pytest.fixture(params=["binding", "pure_python"])
def hash_impl(request, monkeypatch):
    """Both ways to TF's Fingerprint64 on the host: pyfarmhash, and tinyflow's transcription without it."""
    if request.param == "binding":
        pytest.importorskip("farmhash", reason="the pyfarmhash binding (the farmhash extra) is not installed")
    else:
        monkeypatch.setattr(fingerprint, "fingerprint64", lambda data: fingerprint._hash64(bytes(data)))
    return request.param


@pytest.mark.parametrize("size", [7, 1000, 2 ** 31 - 1])
def test_hash_bucket_ids_are_tf_ids(size, hash_impl):
    col = fc.categorical_column_with_hash_bucket("w", size)
    assert col.host_encode(TF["words"]).tolist() == TF["hash_%d" % size]


def test_vocabulary_oov_bucket_ids_are_tf_ids(hash_impl):
    col = fc.categorical_column_with_vocabulary_list("w", ["a", "b"], num_oov_buckets=5)
    assert col.host_encode(TF["words"]).tolist() == TF["vocab_oov_5"]


def test_pure_python_fingerprint64_is_farmhash():
    farmhash = pytest.importorskip("farmhash", reason="the pyfarmhash binding (the farmhash extra) is not installed")
    rng = random.Random(0)
    for n in list(range(0, 200)) + [255, 256, 257, 1000]:   # every branch of Hash64: 0-16, 17-32, 33-64, longer
        data = bytes(rng.getrandbits(8) for _ in range(n))
        assert fingerprint._hash64(data) == farmhash.fingerprint64(data), n


def test_pure_python_fingerprint64_known_values():
    # TF 1.15's tf.strings.to_hash_bucket_fast(s, 2**63 - 1) is Fingerprint64(s) mod 2**63 - 1 (recorded ids)
    assert [fingerprint._hash64(w.encode()) % (2 ** 31 - 1) for w in TF["words"]] == TF["hash_2147483647"]


def _ids(column, features):
    with tf.Session() as sess:   # (fed: XLA would fold the hash of constants slowly)
        feeds = {k: tf.placeholder(tf.as_dtype(v.dtype), v.shape) for k, v in features.items()}
        ids = column.ids(fcm._Cache(dict(feeds)))
        sess.run(tf.tables_initializer())
        got = sess.run(ids, {feeds[k]: v for k, v in features.items()})
        return [[v for v in row if v != -1] for row in got.tolist()]   # -1: no id (TF: no entry)


@pytest.mark.parametrize("size", [7, 1000, 2 ** 31 - 1])
def test_integer_hash_bucket_ids_are_tf_ids(size):
    col = fc.categorical_column_with_hash_bucket("i", size, dtype=tf.int64)
    got = _ids(col, {"i": np.int64(TF["ints"]).reshape(-1, 1)})
    assert [v for row in got for v in row] == TF["int_hash_%d" % size]   # TF drops -1 (no id) as tinyflow does


def test_integer_fingerprint_in_the_graph_is_the_strings_fingerprint():
    rng = np.random.RandomState(0)
    ints = np.concatenate([rng.randint(-2 ** 63, 2 ** 63 - 1, 100, dtype=np.int64), rng.randint(-999, 999, 50),
                           np.int64([-2 ** 63, 2 ** 63 - 1, 0, -1, 9, 10, -10, 99999999, 100000000])])
    x = tf.placeholder(tf.int64, [None, 1])
    with tf.Session() as sess:
        got = sess.run(fingerprint.int_fingerprint64(x), {x: ints.reshape(-1, 1)})
    assert [int(g) for g in got.ravel()] == [fingerprint._hash64(str(int(i)).encode()) for i in ints]


CROSSES = {
    "ab_raw": lambda: fc.crossed_column(["b", "a"], 1000),
    "abc_raw_key": lambda: fc.crossed_column(["c", "a", "b"], 97, hash_key=12345),
    "vocab_b_with_a": lambda: fc.crossed_column(
        [fc.categorical_column_with_vocabulary_list("b", [0, 1, 2, 5], dtype=tf.int64, num_oov_buckets=2), "a"], 50),
    "bucketized_identity": lambda: fc.crossed_column(
        [fc.bucketized_column(fc.numeric_column("x"), [0.0, 2.0]), fc.categorical_column_with_identity("b", 10)], 30),
    "nested": lambda: fc.crossed_column([fc.crossed_column(["a", "b"], 100), "c"], 2 ** 31 - 1),
}


@pytest.mark.parametrize("name", sorted(CROSSES))
def test_crossed_column_ids_are_tf_ids(name):
    f = TF["cross_features"]
    features = {"a": np.int64(f["a"]), "b": np.int64(f["b"]), "c": np.int64(f["c"]), "x": np.float32(f["x"])}
    assert _ids(CROSSES[name](), features) == TF["cross_" + name]   # each row's ids in TF's order


def test_crossing_a_hash_bucket_is_tfs_error():
    with pytest.raises(ValueError, match="categorical_column_with_hash_bucket is not supported for crossing"):
        fc.crossed_column([fc.categorical_column_with_hash_bucket("b", 10, tf.int64), "a"], 50)
