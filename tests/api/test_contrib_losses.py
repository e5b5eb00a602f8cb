"""tf.contrib.losses.metric_learning.triplet_semihard_loss (value and gradient) against TF 1.15's recorded
numbers (tests/fixtures/contrib_losses/make_fixture.py), and tf.contrib.losses' old losses."""
import json
import pytest
import os

import numpy as np

import tinyflow as tf

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "contrib_losses", "triplet.json")) as f:
    TF = json.load(f)


@pytest.mark.slow
def test_triplet_semihard_loss_matches_tf():
    emb = np.asarray(TF["embeddings"], np.float32)
    labels = np.asarray(TF["labels"], np.int32)
    with tf.Graph().as_default():
        e = tf.constant(emb)
        loss = tf.contrib.losses.metric_learning.triplet_semihard_loss(tf.constant(labels), e)
        normalized = tf.contrib.losses.metric_learning.triplet_semihard_loss(
            tf.constant(labels), tf.nn.l2_normalize(e, 1), margin=0.3)
        grad = tf.gradients(loss, e)[0]
        with tf.Session() as sess:
            lv, nv, gv = sess.run([loss, normalized, grad])
    np.testing.assert_allclose(lv, TF["margin1"], rtol=1e-5)
    np.testing.assert_allclose(nv, TF["margin03_normalized"], rtol=1e-5)
    np.testing.assert_allclose(gv, TF["grad_margin1"], rtol=1e-4, atol=1e-6)


def test_old_losses_take_predictions_first():
    with tf.Graph().as_default():
        loss = tf.contrib.losses.absolute_difference(tf.constant([1.0, 4.0]), tf.constant([2.0, 2.0]))
        with tf.Session() as sess:
            assert sess.run(loss) == 1.5
        assert tf.contrib.losses.get_losses() == [loss]
