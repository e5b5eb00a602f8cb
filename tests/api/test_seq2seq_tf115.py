"""Sequence models against TF 1.15: tests/fixtures/seq2seq/cases.py builds each case under tinyflow,
the variables get the fixed values TF's got (by sorted name), and every fetch must equal what TF
1.15 computed (expected.npz, names.json: make_seq2seq.py wrote them)."""
import importlib.util
import json
import os

import numpy as np
import pytest

import tinyflow as tf

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "seq2seq")
_spec = importlib.util.spec_from_file_location("seq2seq_cases", os.path.join(HERE, "cases.py"))
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
EXPECTED = np.load(os.path.join(HERE, "expected.npz"))
with open(os.path.join(HERE, "names.json")) as f:
    NAMES = json.load(f)


def run_case(name):
    with tf.Graph().as_default():
        feeds, fetches = cases.CASES[name](tf)
        variables = tf.global_variables()
        names = sorted([v.op.name, v.shape.as_list()] for v in variables)
        with tf.Session() as sess:
            for v, x in cases.values(variables).items():
                v.load(x, sess)
            return names, sess.run(fetches, feeds)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(NAMES))
def test_case_matches_tf115(name):
    names, out = run_case(name)
    assert names == NAMES[name]
    expected = {k.split("/", 1)[1]: EXPECTED[k] for k in EXPECTED.files if k.split("/", 1)[0] == name}
    assert sorted(out) == sorted(expected)
    for k, v in expected.items():
        np.testing.assert_allclose(out[k], v, rtol=2e-5, atol=2e-6, err_msg="%s/%s" % (name, k))


def test_viterbi_decode_matches_tf115_crf_decode():
    x = np.random.RandomState(40).randn(3, 4, 5).astype(np.float32)      # cases.crf_likelihood_and_decode
    trans = np.random.RandomState(1234).uniform(-0.5, 0.5, [5, 5]).astype(np.float32)   # cases.values
    tags, score = tf.contrib.crf.viterbi_decode(x[0], trans)
    np.testing.assert_array_equal(tags, EXPECTED["crf_likelihood_and_decode/decoded"][0])
    np.testing.assert_allclose(score, EXPECTED["crf_likelihood_and_decode/best_score"][0], rtol=1e-6)


@pytest.mark.parametrize("name", ["legacy_embedding_attention_seq2seq", "s2s_bahdanau",
                                  "s2s_beam_search_penalty_attention"])
def test_a_checkpoint_tf115_wrote_restores(name):
    """The variables TF's Saver wrote (make_seq2seq.py, CHECKPOINTS) restore by TF's names and give TF's numbers."""
    with tf.Graph().as_default():
        feeds, fetches = cases.CASES[name](tf)
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, os.path.join(HERE, "ckpt", name, "model"))
            out = sess.run(fetches, feeds)
    for k, v in out.items():
        np.testing.assert_allclose(v, EXPECTED[name + "/" + k], rtol=2e-5, atol=2e-6, err_msg=k)
