"""tf.image colour spaces, adjustments and augmentations against TF 1.15's numbers
(tests/fixtures/image/make_image_adjust.py wrote them with real TensorFlow)."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "image", "image_adjust.json")) as _f:
    TF = json.load(_f)
IMG = np.array(TF["image"], np.float32)
U8 = np.array(TF["u8"], np.uint8)

CASES = {
    "brightness": lambda x: tf.image.adjust_brightness(x, 0.2),
    "contrast": lambda x: tf.image.adjust_contrast(x, 1.7),
    "saturation": lambda x: tf.image.adjust_saturation(x, 1.6),
    "saturation_low": lambda x: tf.image.adjust_saturation(x, 0.3),
    "hue": lambda x: tf.image.adjust_hue(x, 0.23),
    "hue_neg": lambda x: tf.image.adjust_hue(x, -0.4),
    "gamma": lambda x: tf.image.adjust_gamma(x, 2.2, 0.9),
    "rgb_to_hsv": lambda x: tf.image.rgb_to_hsv(x),
    "hsv_roundtrip": lambda x: tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(x)),
    "hsv_to_rgb": lambda x: tf.image.hsv_to_rgb(x),
    "total_variation": lambda x: tf.image.total_variation(x),
    "image_gradients_dy": lambda x: tf.image.image_gradients(x)[0],
    "image_gradients_dx": lambda x: tf.image.image_gradients(x)[1],
    "rot90_1": lambda x: tf.image.rot90(x, 1),
    "rot90_3": lambda x: tf.image.rot90(x[0], 3),
    "transpose": lambda x: tf.image.transpose_image(x),
    "grayscale_to_rgb": lambda x: tf.image.grayscale_to_rgb(x[..., :1]),
    "rgb_to_yiq": lambda x: tf.image.rgb_to_yiq(x),
    "yiq_to_rgb": lambda x: tf.image.yiq_to_rgb(x),
    "rgb_to_yuv": lambda x: tf.image.rgb_to_yuv(x),
    "yuv_to_rgb": lambda x: tf.image.yuv_to_rgb(x),
}
U8_CASES = {
    "u8_brightness": lambda x: tf.image.adjust_brightness(x, 0.1),
    "u8_contrast": lambda x: tf.image.adjust_contrast(x, 1.5),
    "u8_saturation": lambda x: tf.image.adjust_saturation(x, 1.4),
    "u8_hue": lambda x: tf.image.adjust_hue(x, 0.1),
    "u8_gamma": lambda x: tf.image.adjust_gamma(x, 1.5),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_float_images_match_tf(name):
    tf.reset_default_graph()
    with tf.Session() as sess:
        got = sess.run(CASES[name](tf.constant(IMG)))
    want = np.array(TF[name]["v"], TF[name]["dtype"])
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-6)


@pytest.mark.parametrize("name", sorted(U8_CASES))
def test_uint8_images_match_tf(name):
    tf.reset_default_graph()
    with tf.Session() as sess:
        got = sess.run(U8_CASES[name](tf.constant(U8)))
    want = np.array(TF[name]["v"], TF[name]["dtype"])
    assert got.dtype == np.uint8
    assert np.abs(got.astype(int) - want.astype(int)).max() <= 1   # float32 rounding at a .5 boundary


def test_random_augmentations_check_their_ranges_as_tf():
    calls = {"random_brightness_neg": lambda: tf.image.random_brightness(IMG, -0.1),
             "random_contrast_order": lambda: tf.image.random_contrast(IMG, 0.5, 0.4),
             "random_contrast_neg": lambda: tf.image.random_contrast(IMG, -0.5, 0.4),
             "random_saturation_order": lambda: tf.image.random_saturation(IMG, 0.5, 0.4),
             "random_hue_big": lambda: tf.image.random_hue(IMG, 0.6),
             "random_hue_neg": lambda: tf.image.random_hue(IMG, -0.1)}
    for name, call in calls.items():
        cls, message = TF["errors"][name]
        with pytest.raises(getattr(__builtins__, cls, ValueError), match="^" + message.replace(".", r"\.") + "$"):
            call()


@pytest.mark.slow
def test_random_augmentations_stay_in_their_range():
    tf.reset_default_graph()
    x = tf.constant(IMG[0])
    bright = tf.image.random_brightness(x, 0.3, seed=1) - x
    hue = tf.image.random_hue(x, 0.2, seed=2)
    contrast = tf.image.random_contrast(x, 0.5, 1.5, seed=3)
    sat = tf.image.random_saturation(x, 0.5, 1.5, seed=4)
    with tf.Session() as sess:
        deltas = [sess.run(bright) for _ in range(20)]
        for d in deltas:
            assert np.ptp(d) < 1e-6 and -0.3 <= d.flat[0] < 0.3   # one delta for the whole image
        assert len({round(float(d.flat[0]), 6) for d in deltas}) > 15   # fresh draws each run
        for t in (hue, contrast, sat):
            v = sess.run(t)
            assert v.shape == IMG[0].shape and np.isfinite(v).all()


def test_random_crop_takes_a_window_of_the_value():
    tf.reset_default_graph()
    value = np.arange(4 * 5 * 3, dtype=np.float32).reshape(4, 5, 3)
    crop = tf.random_crop(tf.constant(value), [2, 3, 3], seed=1)
    assert crop.shape.as_list() == TF["random_crop_shape"] == [2, 3, 3]
    assert tf.image.random_crop is tf.random_crop
    seen = set()
    with tf.Session() as sess:
        for _ in range(40):
            c = sess.run(crop)
            y, x = divmod(int(c[0, 0, 0]) // 3, 5)
            np.testing.assert_array_equal(c, value[y:y + 2, x:x + 3])
            seen.add((y, x))
        assert len(seen) > 3
        with pytest.raises(ValueError, match="Need value.shape >= size"):
            tf.random_crop(tf.constant(value), [5, 1, 3])    # known while building
        fed = tf.placeholder(tf.float32, [None, None, 3])
        too_big = tf.random_crop(fed, [5, 1, 3])
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected size\[0\] in \[0, 4\], but got 5"):
            sess.run(too_big, {fed: value})                   # known when run: TF's Slice kernel check


@pytest.mark.slow
def test_sample_distorted_bounding_box_follows_its_constraints():
    tf.reset_default_graph()
    box = tf.constant([[[0.1, 0.2, 0.5, 0.6]]], tf.float32)
    begin, size, bbox = tf.image.sample_distorted_bounding_box(
        [40, 50, 3], box, min_object_covered=0.3, aspect_ratio_range=[0.75, 1.33], area_range=[0.05, 1.0],
        max_attempts=100, seed=3)
    assert [begin.shape.as_list(), size.shape.as_list(), bbox.shape.as_list()] == TF["sdbb_static_shapes"]
    assert [begin.dtype.name, size.dtype.name, bbox.dtype.name] == TF["sdbb_dtypes"]
    image = tf.zeros([40, 50, 3])
    crop = tf.slice(image, begin, size)
    by0, bx0, by1, bx1 = int(0.1 * 40), int(0.2 * 50), int(0.5 * 40), int(0.6 * 50)
    sizes = set()
    with tf.Session() as sess:
        for _ in range(30):
            b, s, bb, c = sess.run([begin, size, bbox, crop])
            y, x, h, w = b[0], b[1], s[0], s[1]
            assert b[2] == 0 and s[2] == -1 and c.shape == (h, w, 3)
            assert 0 <= y and y + h <= 40 and 0 <= x and x + w <= 50
            assert 0.05 * 2000 <= h * w <= 2000 and 0.75 * h - 1 <= w <= 1.33 * h + 1
            inter = max(0, min(x + w, bx1) - max(x, bx0)) * max(0, min(y + h, by1) - max(y, by0))
            assert inter / ((bx1 - bx0) * (by1 - by0)) >= 0.3
            np.testing.assert_allclose(bb[0, 0], [y / 40, x / 50, (y + h) / 40, (x + w) / 50], rtol=1e-6)
            sizes.add((h, w))
    assert len(sizes) > 5


def test_sample_distorted_bounding_box_falls_back_to_the_whole_image():
    tf.reset_default_graph()
    tiny = tf.constant([[[0.0, 0.0, 0.01, 0.01]]], tf.float32)   # no crop of >= 50% area covers it fully
    begin, size, _ = tf.image.sample_distorted_bounding_box([40, 50, 3], tiny, min_object_covered=1.0,
                                                            area_range=[0.5, 0.6], seed=1)
    with tf.Session() as sess:
        b, s = sess.run([begin, size])
    assert list(b) == [0, 0, 0] and list(s) == [40, 50, -1]
    with pytest.raises(ValueError, match="No bounding boxes"):
        tf.image.sample_distorted_bounding_box([40, 50, 3], np.zeros([1, 0, 4], np.float32))


@pytest.mark.slow
def test_hue_and_saturation_gradients_match_finite_differences():
    tf.reset_default_graph()
    x0 = IMG[1, :2, :2]
    x = tf.placeholder(tf.float32, x0.shape)
    y = tf.reduce_sum(tf.image.adjust_saturation(tf.image.adjust_hue(x, 0.1), 0.7) * np.arange(12).reshape(2, 2, 3))
    g = tf.gradients(y, x)[0]
    with tf.Session() as sess:
        grad = sess.run(g, {x: x0})
        eps, num = 1e-3, np.zeros_like(x0)
        for i in np.ndindex(x0.shape):
            hi, lo = x0.copy(), x0.copy()
            hi[i] += eps
            lo[i] -= eps
            num[i] = (sess.run(y, {x: hi}) - sess.run(y, {x: lo})) / (2 * eps)
    np.testing.assert_allclose(grad, num, rtol=2e-2, atol=2e-2)


with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "image", "crop_and_resize.json")) as _f:
    CROP = json.load(_f)


@pytest.mark.slow
@pytest.mark.parametrize("key", ["bilinear_3x4", "bilinear_1x1", "nearest_3x4", "nearest_1x1"])
def test_crop_and_resize_and_its_gradients_match_tf(key):
    tf.reset_default_graph()
    method, crop = key.split("_")
    crop = [int(v) for v in crop.split("x")]
    image = tf.constant(np.array(CROP["image"], np.float32))
    boxes = tf.constant(np.array(CROP["boxes"], np.float32))
    y = tf.image.crop_and_resize(image, boxes, CROP["ind"], crop, method=method, extrapolation_value=-1.0)
    want = CROP[key]
    assert y.shape.as_list() == [5] + crop + [3]
    loss = tf.reduce_sum(y * np.array(want["w"], np.float32))
    gi, gb = tf.gradients(loss, [image, boxes])
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(y), want["y"], rtol=1e-5, atol=1e-6)
        if want["gi"] is not None:
            got_gi, got_gb = sess.run([gi, gb])
            np.testing.assert_allclose(got_gi, want["gi"], rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose(got_gb, want["gb"], rtol=1e-4, atol=1e-4)


with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "image", "nms.json")) as _f:
    NMS = json.load(_f)


@pytest.mark.parametrize("case", ["a", "b", "c", "d"])
def test_non_max_suppression_matches_tf(case):
    tf.reset_default_graph()
    mo, iou, st = NMS[case]["args"]
    st = float("-inf") if st is None else st
    boxes, scores = np.array(NMS["boxes"], np.float32), np.array(NMS["scores"], np.float32)
    idx = tf.image.non_max_suppression(boxes, scores, mo, iou, st)
    padded, valid = tf.image.non_max_suppression_padded(boxes, scores, mo, iou, st, pad_to_max_output_size=True)
    assert padded.shape.as_list() == [mo]
    with tf.Session() as sess:
        got_idx, got_padded, got_valid = sess.run([idx, padded, valid])
    assert got_idx.tolist() == NMS[case]["idx"]
    assert got_padded.tolist() == NMS[case]["padded"] and int(got_valid) == NMS[case]["valid"]


def test_non_max_suppression_at_the_threshold_as_tf():
    # TF 1.15: iou exactly 0.5 at threshold 0.5 drops the box; threshold 0 drops even disjoint boxes
    boxes = np.array([[0, 0, 1, 1], [2, 2, 3, 3], [0, 0, 1, 2]], np.float32)
    scores = np.array([0.9, 0.8, 0.7], np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        assert sess.run(tf.image.non_max_suppression(boxes, scores, 10, 0.5)).tolist() == [0, 1]
        assert sess.run(tf.image.non_max_suppression(boxes, scores, 10, 0.0)).tolist() == [0]
        assert sess.run(tf.image.non_max_suppression(boxes, scores, 10, 0.3, 0.75)).tolist() == [0, 1]
