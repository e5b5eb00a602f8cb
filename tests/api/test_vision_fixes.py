"""Regressions found by the vision batch of the differential corpus (spec_vision.py): TF 1.15's numbers,
recorded with the oracle (x = RandomState(0).randn(3, 2, 3), float32)."""
import numpy as np
import pytest

import tinyflow as tf


def _ctc(idx, vals, shape, lens, **kw):
    x = np.random.RandomState(0).randn(3, 2, 3).astype(np.float32)
    lab = tf.SparseTensor(np.array(idx, np.int64).reshape(-1, 2), np.array(vals, np.int32), shape)
    return tf.nn.ctc_loss(lab, x, tf.constant(lens), **kw)


@pytest.mark.slow   # five CTC programs compiled (several seconds on CI's cores)
def test_ctc_loss_options_and_run_time_checks_as_tf():
    rep = ([[0, 0], [0, 1], [0, 2], [1, 0]], [1, 1, 1, 1], [2, 3])
    col = ([[0, 0], [0, 1], [0, 2], [1, 0]], [1, 1, 0, 1], [2, 3])
    two = ([[0, 0], [0, 1], [1, 0]], [1, 1, 1], [2, 2])
    one = ([[0, 0], [1, 0]], [1, 1], [2, 1])
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run([_ctc(*rep, [3, 3], ctc_merge_repeated=False),
                        _ctc(*col, [3, 3], preprocess_collapse_repeated=True, ctc_merge_repeated=False),
                        _ctc(*two, [2, 3]),                                      # no path: an infinite loss
                        _ctc(*one, [0, 3], ignore_longer_outputs_than_inputs=True)])
        want = [[4.9751654, 3.218359], [2.7216501, 3.218359], [np.inf, 2.354245], [0.0, 2.354245]]
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-5)
        for args, lens in [(([[1, 0]], [1], [2, 1]), [3, 3]),                  # labels length is zero in batch 0
                           (([[0, 0], [0, 1], [0, 2], [1, 0]], [0, 1, 0, 1], [2, 3]), [2, 3])]:   # too long
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(_ctc(*args, lens))


def test_image_edges_as_tf():
    with tf.Graph().as_default(), tf.Session() as sess:
        img = tf.constant(np.arange(6, dtype=np.float32).reshape(1, 2, 3, 1))
        nms = tf.image.non_max_suppression(tf.constant([[0.0, 0.0, 1.0, 1.0]]), tf.constant([0.5]), 0)
        drawn = tf.image.draw_bounding_boxes(img, tf.zeros([1, 0, 4]))
        png = tf.image.encode_png(tf.constant(np.array([[[0], [255]]], np.uint8)))
        dec = tf.image.decode_image(png, dtype=tf.float32)
        same = tf.image.resize_images(tf.constant(np.ones([4, 2, 1], np.uint8)), [4, 6], method=3,
                                      preserve_aspect_ratio=True)
        assert same.dtype == tf.float32   # TF's computed size: no shortcut back to the uint8 image
        n, d, v, s = sess.run([nms, drawn, dec, same])
        assert n.shape == (0,)
        np.testing.assert_array_equal(d, np.arange(6).reshape(1, 2, 3, 1))
        np.testing.assert_array_equal(v, [[[0.0], [1.0]]])
        np.testing.assert_array_equal(s, np.ones([4, 2, 1]))
