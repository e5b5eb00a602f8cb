"""tf.contrib.training: HParams behaves as TF 1.15's (tests/fixtures/contrib/hparams.json, written by
make_hparams.py with real TensorFlow running the same cases), and the checkpoint watchers."""
import json
import os
import sys

import tinyflow as tf

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "contrib")
sys.path.insert(0, HERE)
import hparams_cases  # noqa: E402


def test_hparams_match_tf():
    with open(os.path.join(HERE, "hparams.json")) as f:
        want = json.load(f)
    got = json.loads(json.dumps(hparams_cases.run(tf.contrib.training.HParams), sort_keys=True))
    assert got == want


def test_checkpoints_iterator_yields_new_checkpoints(tmp_path):
    v = tf.Variable(1.0)
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(v.initializer)
        first = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=1)
        it = tf.contrib.training.checkpoints_iterator(str(tmp_path), timeout=0.3)
        assert next(it) == first
        assert list(it) == []   # nothing newer within the timeout
        assert tf.contrib.training.wait_for_new_checkpoint(str(tmp_path), first, timeout=0.2) is None
