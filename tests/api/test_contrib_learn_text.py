"""tf.contrib.learn.preprocessing.VocabularyProcessor and tf.contrib.learn.ModeKeys against TF 1.15
(tests/fixtures/contrib_learn/make_vocab_processor_tf115.py wrote vocab_processor_tf115.{json,pkl})."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "contrib_learn")
DOCS = ["I like apples and apples", "You like NASA's rockets!", "the quick-brown fox", "apples like you",
        "CamelCaseWord HTTPServer"]


@pytest.fixture(scope="module")
def tf115():
    with open(os.path.join(HERE, "vocab_processor_tf115.json")) as f:
        return json.load(f)


def _rows(gen):
    return [r.tolist() for r in gen]


def test_tokenizer_is_tfs(tf115):
    assert list(tf.contrib.learn.preprocessing.tokenizer(DOCS)) == tf115["tok"]


def test_fit_transform_with_min_frequency_is_tfs(tf115):
    vp = tf.contrib.learn.preprocessing.VocabularyProcessor(5, min_frequency=1)
    rows = list(vp.fit_transform(DOCS))
    assert all(r.dtype == np.int64 and r.shape == (5,) for r in rows)
    assert [r.tolist() for r in rows] == tf115["vp_fit"]
    assert len(vp.vocabulary_) == tf115["vp_len"]
    assert sorted(vp.vocabulary_._mapping.items(), key=lambda kv: kv[1]) == [tuple(x) for x in tf115["vp_map"]]
    assert _rows(vp.transform(["apples are like rockets", "zzz"])) == tf115["vp_new"]
    assert list(vp.reverse([[1, 2, 0]])) == tf115["vp_rev"]


def test_fit_transform_keeps_insertion_order_and_cuts_documents(tf115):
    vp = tf.contrib.learn.preprocessing.VocabularyProcessor(4)
    assert _rows(vp.fit_transform(DOCS)) == tf115["vp2"]
    assert sorted(vp.vocabulary_._mapping.items(), key=lambda kv: kv[1]) == [tuple(x) for x in tf115["vp2_map"]]


def test_save_restore_round_trip_and_restore_of_tfs_pickle(tmp_path, tf115):
    vp = tf.contrib.learn.preprocessing.VocabularyProcessor(5, min_frequency=1)
    vp.fit(DOCS)
    path = str(tmp_path / "vocab")
    vp.save(path)
    back = tf.contrib.learn.preprocessing.VocabularyProcessor.restore(path)
    assert _rows(back.transform(["apples are like rockets", "zzz"])) == tf115["vp_new"]
    theirs = tf.contrib.learn.preprocessing.VocabularyProcessor.restore(os.path.join(HERE,
                                                                                     "vocab_processor_tf115.pkl"))
    assert isinstance(theirs, tf.contrib.learn.preprocessing.VocabularyProcessor)
    assert theirs.max_document_length == 5 and len(theirs.vocabulary_) == tf115["vp_len"]
    assert _rows(theirs.transform(["apples are like rockets", "zzz"])) == tf115["vp_new"]


def test_mode_keys_are_tfs_strings():
    keys = tf.contrib.learn.ModeKeys
    assert (keys.TRAIN, keys.EVAL, keys.INFER) == ("train", "eval", "infer")
    keys.validate("infer")
    with pytest.raises(ValueError, match="Invalid mode x."):
        keys.validate("x")
