"""tf.image.extract_jpeg_shape, decode_and_crop_jpeg, draw_bounding_boxes, psnr, ssim and ssim_multiscale
against TF 1.15's recorded outputs (tests/fixtures/image_extra/make_image_extra.py)."""
import os

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.graph.errors import InvalidArgumentError

F = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures", "image_extra", "image_extra.npz"))


def run(*fetches):
    with tf.Session() as s:
        return s.run(list(fetches))


def test_extract_jpeg_shape_reads_the_header():
    jpg, gray, prog = (F[k].tobytes() for k in ("jpg", "jpg_gray", "jpg_prog"))
    got = run(tf.image.extract_jpeg_shape(jpg), tf.io.extract_jpeg_shape(gray),
              tf.image.extract_jpeg_shape(tf.constant(prog), output_type=tf.int64))
    np.testing.assert_array_equal(got[0], F["shape"])
    np.testing.assert_array_equal(got[1], F["shape_gray"])
    assert got[2].dtype == np.int64 and list(got[2]) == list(F["shape_prog"])
    with pytest.raises(InvalidArgumentError, match="Invalid JPEG data, size 5"):
        run(tf.image.extract_jpeg_shape(b"\x89PNG!"))


def test_decode_and_crop_jpeg_is_the_window_of_the_decoded_image():
    pytest.importorskip("PIL", reason="decoding JPEG needs Pillow")
    jpg = F["jpg"].tobytes()
    full, crop = run(tf.image.decode_jpeg(jpg), tf.image.decode_and_crop_jpeg(jpg, [2, 3, 7, 9]))
    np.testing.assert_array_equal(crop, full[2:9, 3:12])
    assert crop.shape == F["crop"].shape
    assert np.abs(crop.astype(int) - F["crop"]).mean() < 2   # Pillow's and TF's libjpeg decode alike
    with pytest.raises(InvalidArgumentError, match="crop window"):
        run(tf.image.decode_and_crop_jpeg(jpg, [10, 3, 7, 9]))


@pytest.mark.slow
def test_draw_bounding_boxes_matches_tf():
    images, boxes = F["images"], F["boxes"]
    got = run(tf.image.draw_bounding_boxes(images, boxes), tf.image.draw_bounding_boxes(images[..., :1], boxes),
              tf.image.draw_bounding_boxes(np.concatenate([images, images[..., :1]], -1), boxes))
    np.testing.assert_array_equal(got[0], F["drawn"])
    np.testing.assert_array_equal(got[1], F["drawn_gray"])
    np.testing.assert_array_equal(got[2], F["drawn_rgba"])
    custom = run(tf.image.draw_bounding_boxes(images, boxes, colors=[[0.25, 0.5, 0.75, 1.0]]))[0]
    assert np.all(custom[0, 1, 1:9] == [0.25, 0.5, 0.75])   # box 0: row trunc(0.1 * 11), columns 1 to 8


def test_psnr_ssim_and_multiscale():
    a, b = F["a"], F["b"]
    u8a, u8b = (a * 255).astype(np.uint8), (b * 255).astype(np.uint8)
    got = run(tf.image.psnr(a, b, max_val=1.0), tf.image.ssim(a, b, max_val=1.0), tf.image.psnr(u8a, u8b, 255),
              tf.image.ssim(tf.constant(u8a), tf.constant(u8b), 255),
              tf.image.ssim_multiscale(F["big_a"], F["big_b"], max_val=1.0))
    for g, k in zip(got, ["psnr", "ssim", "psnr_u8", "ssim_u8", "ms_ssim"]):
        np.testing.assert_allclose(g, F[k], rtol=2e-5, err_msg=k)
    with pytest.raises(ValueError, match="smaller than the filter size"):
        tf.image.ssim(tf.zeros([5, 5, 1]), tf.zeros([5, 5, 1]), 1.0)


@pytest.mark.slow
def test_combined_non_max_suppression_matches_tf():
    C = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures", "image_extra", "combined_nms.npz"))
    cases = {"a": (C["boxes"], dict(max_output_size_per_class=4, max_total_size=7, iou_threshold=0.4,
                                    score_threshold=0.2)),
             "b": (C["boxes_q"], dict(max_output_size_per_class=3, max_total_size=12, iou_threshold=0.5)),
             "c": (C["boxes"], dict(max_output_size_per_class=2, max_total_size=10, clip_boxes=False,
                                    score_threshold=0.5))}
    for tag, (boxes, kw) in cases.items():
        got = run(*tf.image.combined_non_max_suppression(tf.constant(boxes), tf.constant(C["scores"]), **kw))
        for g, k in zip(got, ["boxes", "scores", "classes", "valid"]):
            np.testing.assert_array_equal(g, C["%s_%s" % (tag, k)], err_msg=tag + k)
            assert g.dtype == C["%s_%s" % (tag, k)].dtype
