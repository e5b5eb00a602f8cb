"""tf.contrib.seq2seq.SampleEmbeddingHelper: seeded samples from softmax(outputs / temperature).
TF's random numbers are not reproduced (DESIGN.md: distributions must match, values need not); a
near-zero temperature must give TF 1.15's greedy decode (tests/fixtures/seq2seq, s2s_greedy)."""
import numpy as np
import pytest

import tinyflow as tf
from tests.api.test_seq2seq_tf115 import EXPECTED, cases


def test_samples_follow_softmax_of_outputs_over_temperature():
    logits = np.log(np.array([[0.2, 0.5, 0.3]], np.float32)) * 2.0   # temperature 2 gives back [.2, .5, .3]
    helper = tf.contrib.seq2seq.SampleEmbeddingHelper(tf.eye(3), tf.zeros([4000], tf.int32), 1,
                                                      softmax_temperature=2.0, seed=7)
    ids = helper.sample(0, tf.constant(np.repeat(logits, 4000, 0)), None)
    assert ids.dtype == tf.int32 and ids.shape.as_list() == [4000]
    with tf.Session() as sess:
        first, second = sess.run(ids), sess.run(ids)
    freq = np.bincount(first, minlength=3) / 4000.0
    np.testing.assert_allclose(freq, [0.2, 0.5, 0.3], atol=0.03)
    assert (first != second).any()        # a new draw each run


def test_a_cold_sample_decode_is_tf115s_greedy_decode():
    with tf.Graph().as_default():
        emb = tf.get_variable("embedding", [6, 3])
        cell = tf.nn.rnn_cell.GRUCell(4)
        helper = tf.contrib.seq2seq.SampleEmbeddingHelper(emb, tf.constant([0, 2], tf.int32), 1,
                                                          softmax_temperature=1e-4, seed=3)
        decoder = tf.contrib.seq2seq.BasicDecoder(cell, helper, cell.zero_state(2, tf.float32),
                                                  output_layer=tf.layers.Dense(6, use_bias=False))
        outputs, _, lengths = tf.contrib.seq2seq.dynamic_decode(decoder, maximum_iterations=5, impute_finished=True)
        with tf.Session() as sess:
            for v, x in cases.values(tf.global_variables()).items():
                v.load(x, sess)
            ids, lens = sess.run([outputs.sample_id, lengths])
    np.testing.assert_array_equal(ids, EXPECTED["s2s_greedy/sample_id"])
    np.testing.assert_array_equal(lens, EXPECTED["s2s_greedy/lengths"])


@pytest.mark.slow
def test_training_through_dynamic_decode_steps_like_sgd():
    """A fed sequence_length makes the decoded length a run-time value (the loop's buffers are cut to
    it between jitted segments); SGD steps still update the variables, each step's loss the one the
    TF-checked gradients predict: loss decreases, and one step moves each variable by -lr * grad."""
    with tf.Graph().as_default():
        feeds, fetches = cases.s2s_training_basic(tf)
        targets = tf.constant(np.random.RandomState(34).randint(0, 5, (2, 3)).astype(np.int32))
        loss = tf.contrib.seq2seq.sequence_loss(fetches["rnn_output"], targets, tf.ones([2, 3]))
        variables = tf.trainable_variables()
        grads = tf.gradients(loss, variables)
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        with tf.Session() as sess:
            for v, x in cases.values(tf.global_variables()).items():
                v.load(x, sess)
            before, g = sess.run([variables, grads], feeds)
            losses = [sess.run([loss, train], feeds)[0] for _ in range(4)]
            sess.run(tf.global_variables_initializer())
            for v, x in cases.values(tf.global_variables()).items():
                v.load(x, sess)
            sess.run(train, feeds)
            after = sess.run(variables)
    np.testing.assert_allclose(losses[0], EXPECTED["s2s_training_gradients/loss"], rtol=1e-5)
    assert losses[-1] < losses[0]
    for b, gv, a in zip(before, g, after):
        np.testing.assert_allclose(a, b - 0.5 * gv, rtol=1e-4, atol=1e-6)


@pytest.mark.slow
def test_scheduled_embedding_samples_about_half_the_inputs():
    """sampling_probability 0.5: about half of the (entry, step) pairs read a sampled id (sample_id >= 0,
    an id of the vocabulary), the rest the true input (-1)."""
    with tf.Graph().as_default():
        x = tf.constant(np.random.RandomState(0).randn(400, 3, 2).astype(np.float32))
        emb = tf.constant(np.random.RandomState(1).randn(5, 2).astype(np.float32))
        cell = tf.nn.rnn_cell.GRUCell(3)
        helper = tf.contrib.seq2seq.ScheduledEmbeddingTrainingHelper(x, tf.fill([400], 3), emb, 0.5, seed=4,
                                                                     scheduling_seed=5)
        decoder = tf.contrib.seq2seq.BasicDecoder(cell, helper, cell.zero_state(400, tf.float32),
                                                  output_layer=tf.layers.Dense(5))
        outputs, _, _ = tf.contrib.seq2seq.dynamic_decode(decoder)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            ids = sess.run(outputs.sample_id)
    assert ids.shape == (400, 3) and set(np.unique(ids)) <= {-1, 0, 1, 2, 3, 4}
    assert abs((ids >= 0).mean() - 0.5) < 0.06
