"""String hash buckets and vocabulary OOV buckets give TF 1.15's ids (Fingerprint64, FarmHash) when the
optional pyfarmhash is installed (tests/fixtures/feature_column_hash/hash_buckets.json, written by make.py)."""
import json
import os

import pytest

import tinyflow as tf

pytest.importorskip("farmhash", reason="TF's Fingerprint64 needs pyfarmhash (the farmhash extra)")
TF = json.load(open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "feature_column_hash",
                                 "hash_buckets.json"), encoding="utf-8"))


@pytest.mark.parametrize("size", [7, 1000, 2 ** 31 - 1])
def test_hash_bucket_ids_are_tf_ids(size):
    col = tf.feature_column.categorical_column_with_hash_bucket("w", size)
    assert col.host_encode(TF["words"]).tolist() == TF["hash_%d" % size]


def test_vocabulary_oov_bucket_ids_are_tf_ids():
    col = tf.feature_column.categorical_column_with_vocabulary_list("w", ["a", "b"], num_oov_buckets=5)
    assert col.host_encode(TF["words"]).tolist() == TF["vocab_oov_5"]
