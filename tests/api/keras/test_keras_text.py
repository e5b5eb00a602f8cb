"""tf.keras.preprocessing.text / sequence against TF 1.15's recorded outputs
(tests/fixtures/keras_preprocessing/make_text.py)."""
import json
import os
import random

import numpy as np

import tinyflow as tf
from tinyflow.api.keras.preprocessing import sequence as seqmod
from tinyflow.api.keras.preprocessing import text as T

FIX = json.load(open(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "keras_preprocessing",
                                  "text.json")))
TEXTS = ["The cat sat on the mat.", "The dog ate my homework!", "Cat and dog: friends? Not the cat...",
         "a b c d e f g a b a", "Tab\tseparated\nnew-line text, THE end"]
CONFIGS = [("plain", {}), ("num_words", {"num_words": 5}), ("oov", {"oov_token": "<unk>", "num_words": 6}),
           ("char", {"char_level": True, "num_words": 10}), ("nolower", {"lower": False, "filters": ""})]


def _pairs(d):
    return [list(p) for p in d]


def test_word_sequences_and_md5_hashing():
    assert [T.text_to_word_sequence(t) for t in TEXTS] == FIX["words"]
    assert [T.text_to_word_sequence(t, filters=".", lower=False, split="a") for t in TEXTS] == FIX["words_custom"]
    assert [T.hashing_trick(t, 17, hash_function="md5") for t in TEXTS] == FIX["md5"]
    idx = T.one_hot("the cat the", 5)   # Python's salted hash: only the range and repeats are stable
    assert all(1 <= i < 5 for i in idx) and idx[0] == idx[2]


def test_tokenizer_matches_tf():
    for name, kw in CONFIGS:
        rec = FIX[name]
        tok = tf.keras.preprocessing.text.Tokenizer(**kw)
        tok.fit_on_texts(TEXTS)
        tok.fit_on_texts([["Cat", "zebra"], ["zebra"]])
        assert _pairs(tok.word_index.items()) == rec["word_index"], name    # order included
        assert _pairs(tok.word_counts.items()) == rec["word_counts"], name
        assert _pairs(sorted(tok.word_docs.items())) == rec["word_docs"], name
        assert _pairs(sorted(tok.index_docs.items())) == rec["index_docs"], name
        assert tok.document_count == rec["document_count"]
        probe = TEXTS[:2] + ["unknown cat words zebra", ["the", "ZEBRA", "nope"]]
        seqs = tok.texts_to_sequences(probe)
        assert seqs == rec["seqs"], name
        assert tok.sequences_to_texts(seqs + [[1, 2, 3, 99, 4]]) == rec["texts"], name
        for mode in ("binary", "count", "tfidf", "freq"):
            np.testing.assert_allclose(tok.texts_to_matrix(probe, mode=mode), rec[mode], rtol=1e-12)
        mine, theirs = json.loads(tok.to_json()), json.loads(rec["json"])
        for key in ("word_counts", "word_index", "index_word"):   # ordered as TF orders them
            assert list(json.loads(mine["config"].pop(key)).items()) == \
                list(json.loads(theirs["config"].pop(key)).items()), (name, key)
        for key in ("word_docs", "index_docs"):   # built from set() iteration: order is hash-salted in TF too
            assert json.loads(mine["config"].pop(key)) == json.loads(theirs["config"].pop(key)), (name, key)
        assert mine == theirs, name
        back = T.tokenizer_from_json(rec["json"])   # TF's JSON loads here
        assert back.texts_to_sequences(probe) == rec["seqs"]
        assert back.word_index == tok.word_index and back.index_word == tok.index_word


def test_fit_on_sequences_and_errors():
    tok = T.Tokenizer(num_words=7)
    tok.fit_on_sequences([[1, 2, 2, 3], [3, 4], [6, 5, 1]])
    assert _pairs(sorted(tok.index_docs.items())) == FIX["fit_seq"]["index_docs"]
    np.testing.assert_allclose(tok.sequences_to_matrix([[1, 2, 2], [5, 9]], mode="tfidf"), FIX["fit_seq"]["tfidf"])
    for bad, msg in [(lambda: T.Tokenizer().texts_to_matrix(["a"]), "num_words"),
                     (lambda: tok.sequences_to_matrix([[1]], mode="bogus"), "Unknown vectorization mode"),
                     (lambda: T.Tokenizer(foo=1), "Unrecognized keyword")]:
        try:
            bad()
        except (ValueError, TypeError) as e:
            assert msg in str(e)
        else:
            raise AssertionError(msg)


def test_sequence_helpers_match_tf():
    assert [list(x) for x in seqmod._remove_long_seq(3, [[1], [1, 2, 3], [4, 5], [1, 2, 3, 4]], [0, 1, 2, 3])] == \
        FIX["remove_long"]
    np.testing.assert_allclose(seqmod.make_sampling_table(6), FIX["sampling_table"])
    random.seed(0)
    assert [list(x) for x in seqmod.skipgrams([1, 2, 0, 3, 4, 2], 6, window_size=2, seed=7)] == FIX["skipgrams"]
    assert [list(x) for x in seqmod.skipgrams([3, 1, 4, 1, 5], 8, window_size=1, categorical=True, seed=3)] == \
        FIX["skipgrams_cat"]
    got = tf.keras.preprocessing.sequence.pad_sequences([[1, 2, 3], [4], [5, 6, 7, 8, 9]], maxlen=4, padding="post")
    assert got.tolist() == FIX["pad"]
