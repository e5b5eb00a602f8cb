"""tf.signal's real-valued functions against TF 1.15's recorded numbers (tests/fixtures/signal/make_signal.py)."""
import os

import numpy as np

import tinyflow as tf

F = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures", "signal", "signal.npz"))


def run(*fetches):
    with tf.Session() as s:
        return s.run(list(fetches))


def test_windows():
    got = run(tf.signal.hann_window(10), tf.signal.hann_window(9, periodic=False), tf.signal.hamming_window(8),
              tf.contrib.signal.hamming_window(7, periodic=False), tf.signal.hann_window(1))
    for g, k in zip(got, ["hann", "hann_p", "hamming", "hamming_p", "hann1"]):
        np.testing.assert_allclose(g, F[k], rtol=1e-6, atol=1e-7, err_msg=k)
        assert g.dtype == np.float32


def test_frame_and_its_gradient_and_overlap_and_add():
    x = tf.constant(F["sig"])
    frp = tf.signal.frame(x, 16, 6, pad_end=True, pad_value=0.5)
    got = run(tf.signal.frame(x, 16, 6), frp,
              tf.signal.frame(tf.constant(np.arange(20.0).reshape(10, 2).astype(np.float32)), 4, 3, axis=0),
              tf.gradients(tf.reduce_sum(frp * F["w"]), x)[0], tf.signal.overlap_and_add(tf.constant(F["frames"]), 3))
    for g, k in zip(got, ["frame", "frame_pad", "frame_axis0", "frame_grad", "ola"]):
        np.testing.assert_allclose(g, F[k], rtol=1e-5, atol=1e-6, err_msg=k)


def test_mel_matrix_dct_and_mfccs():
    lm = tf.constant(F["logmel"])
    mf = tf.signal.mfccs_from_log_mel_spectrograms(lm)
    got = run(tf.signal.linear_to_mel_weight_matrix(20, 65, 8000, 125.0, 3800.0),
              tf.signal.linear_to_mel_weight_matrix(num_mel_bins=10, num_spectrogram_bins=33, sample_rate=16000,
                                                    dtype=tf.float64),
              mf, tf.gradients(tf.reduce_sum(mf * mf), lm)[0], tf.signal.dct(lm), tf.signal.dct(lm, norm="ortho"),
              tf.signal.dct(lm, n=12))
    for g, k in zip(got, ["mel", "mel2", "mfcc", "mfcc_grad", "dct", "dct_ortho", "dct_n"]):
        np.testing.assert_allclose(g, F[k], rtol=1e-4, atol=2e-5, err_msg=k)
    assert got[1].dtype == np.float64
