"""Behaviour of the newer APIs that tests/opspecs cannot show: scatter updates of variables across
runs, segment ops and bincount errors, resize against numpy re-implementations of TF 1.x's kernels
(values, exact adjoint gradients, second order), and the tf.image helpers' edge cases."""
import numpy as np
import pytest

import tinyflow as tf
from opspecs.image import np_resize_adjoint, np_resize_bicubic, np_resize_bilinear, np_resize_nearest

R = np.random.RandomState(3)


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default():
        yield


# ---- scatter updates on variables -----------------------------------------------------------------
def test_scatter_update_and_add_persist_across_runs():
    v = tf.Variable(np.zeros((4, 2), np.float32))
    upd = tf.scatter_update(v, [3, 0], [[1, 2], [3, 4]])
    add = tf.scatter_add(v, [1, 1], tf.ones([2, 2]))
    sub = tf.scatter_sub(v, [3], [[0.5, 0.5]])
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(upd), [[3, 4], [0, 0], [0, 0], [1, 2]])
        np.testing.assert_array_equal(sess.run(add), [[3, 4], [2, 2], [0, 0], [1, 2]])  # duplicates add up
        np.testing.assert_array_equal(sess.run(add)[1], [4, 4])  # the second run sees the first
        np.testing.assert_array_equal(sess.run(sub)[3], [0.5, 1.5])
        np.testing.assert_array_equal(sess.run(v), [[3, 4], [4, 4], [0, 0], [0.5, 1.5]])


def test_scatter_nd_update_and_add():
    v = tf.Variable(np.arange(6, dtype=np.int32).reshape(2, 3))
    nd_upd = tf.scatter_nd_update(v, [[0, 2], [1, 0]], [10, 20])
    nd_add = tf.scatter_nd_add(v, [[1]], [[1, 1, 1]])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(nd_upd), [[0, 1, 10], [20, 4, 5]])
        np.testing.assert_array_equal(sess.run(nd_add), [[0, 1, 10], [21, 5, 6]])
        np.testing.assert_array_equal(sess.run(nd_add), [[0, 1, 10], [22, 6, 7]])


def test_scatter_scalar_update_and_read_after_update():
    v = tf.Variable(np.ones((3, 2), np.float32))
    upd = tf.scatter_update(v, [2], 7.0)  # a scalar goes to every indexed row
    with tf.control_dependencies([upd]):
        read = tf.identity(v) * 2
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(read), [[2, 2], [2, 2], [14, 14]])


def test_scatter_index_out_of_range_keeps_variable():
    v = tf.Variable(np.zeros((3,), np.float32))
    good = tf.scatter_add(v, [0], [1.0])
    bad = tf.scatter_add(v, [1, 3], [1.0, 1.0])
    bad_nd = tf.scatter_nd_update(v, [[5]], [1.0])
    with tf.Session() as sess:
        sess.run(v.initializer)
        sess.run(good)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 3 is not in \[0, 3\)"):
            sess.run(bad)
        with pytest.raises(tf.errors.InvalidArgumentError, match="does not index into shape"):
            sess.run(bad_nd)
        np.testing.assert_array_equal(sess.run(v), [1, 0, 0])


def test_scatter_build_errors():
    v = tf.Variable(np.zeros((3, 2), np.float32))
    with pytest.raises(ValueError):
        tf.scatter_update(v, [0, 1], [[1.0, 2.0]])  # updates must be indices.shape + [2]
    with pytest.raises((TypeError, ValueError)):
        tf.scatter_add(v, [0], tf.constant([[1, 2]], tf.int32))
    with pytest.raises(TypeError):
        tf.scatter_update(tf.constant([1.0]), [0], [2.0])  # not a variable


# ---- segment ops, bincount, confusion_matrix ------------------------------------------------------
def test_segment_ops_need_constant_sorted_ids():
    data = tf.constant(np.arange(6.0).reshape(3, 2))
    # run-time ids: a run-time length (tests/ops/test_dynamic_shapes.py)
    assert tf.segment_sum(data, tf.placeholder(tf.int32, [3])).shape.as_list() == [None, 2]
    with pytest.raises(tf.errors.InvalidArgumentError, match="not increasing"):
        tf.segment_max(data, [1, 0, 1])
    with pytest.raises(tf.errors.InvalidArgumentError, match=">= 0"):
        tf.segment_mean(data, [-1, 0, 0])


@pytest.mark.slow
def test_segment_ops_values_and_empty_segments():
    data = np.array([[1, -2], [3, 4], [5, 6], [-7, 8]], np.int32)
    ids = [0, 0, 2, 2]
    with tf.Session() as sess:
        out = sess.run([tf.segment_sum(data, ids), tf.segment_mean(data, ids), tf.segment_max(data, ids),
                        tf.segment_min(data, ids), tf.segment_prod(data, ids),
                        tf.unsorted_segment_max(data, [3, 3, 0, 0], 4), tf.unsorted_segment_min(data, [3, 3, 0, 0], 4)])
    np.testing.assert_array_equal(out[0], [[4, 2], [0, 0], [-2, 14]])
    np.testing.assert_array_equal(out[1], [[2, 1], [0, 0], [-1, 7]])  # integer mean truncates, as TF's
    np.testing.assert_array_equal(out[2], [[3, 4], [0, 0], [5, 8]])
    np.testing.assert_array_equal(out[3], [[1, -2], [0, 0], [-7, 6]])
    np.testing.assert_array_equal(out[4], [[3, -8], [1, 1], [-35, 48]])
    lo, hi = np.iinfo(np.int32).min, np.iinfo(np.int32).max
    np.testing.assert_array_equal(out[5], [[5, 8], [lo, lo], [lo, lo], [3, 4]])
    np.testing.assert_array_equal(out[6], [[-7, 6], [hi, hi], [hi, hi], [1, -2]])
    assert all(o.dtype == np.int32 for o in out)


@pytest.mark.slow
def test_segment_max_gradient_splits_ties():
    x = tf.constant([2.0, 2.0, 1.0, 5.0])
    y = tf.segment_max(x, [0, 0, 0, 1])
    g = tf.gradients(y, x)[0]
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(g), [0.5, 0.5, 0, 1])


@pytest.mark.slow
def test_unsorted_segment_sum_gradient_drops_negative_ids():
    x = tf.constant([1.0, 2.0, 3.0])
    y = tf.unsorted_segment_sum(x, tf.constant([0, -1, 1]), 2)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(tf.gradients(y * [3.0, 4.0], x)[0]), [3, 0, 4])


@pytest.mark.slow
def test_bincount_lengths_and_errors():
    arr = tf.placeholder(tf.int32, [None])
    assert tf.bincount(arr).shape.as_list() == [None]   # a run-time length: tests/ops/test_dynamic_shapes.py
    counts = tf.bincount(arr, minlength=4, maxlength=4)
    assert counts.shape.as_list() == [4] and counts.dtype == tf.int32
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(counts, {arr: [1, 1, 3, 7]}), [0, 2, 0, 1])  # 7 is dropped
        with pytest.raises(tf.errors.InvalidArgumentError, match="non-negative"):
            sess.run(counts, {arr: [1, -1]})
        np.testing.assert_array_equal(sess.run(tf.bincount([2, 2], minlength=5)), [0, 0, 2, 0, 0])
        np.testing.assert_array_equal(sess.run(tf.math.bincount([], minlength=2)), [0, 0])


def test_confusion_matrix_weights_and_errors():
    cm = tf.math.confusion_matrix([0, 2, 2], [0, 1, 2], weights=[1.0, 2.0, 3.0], dtype=tf.float32)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(cm), [[1, 0, 0], [0, 0, 0], [0, 2, 3]])
    fed = tf.placeholder(tf.int32, [3])   # without num_classes: its size is a run-time value (as TF's)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(tf.confusion_matrix(fed, [0, 1, 2]), {fed: [1, 1, 0]}),
                                      [[0, 0, 1], [1, 1, 0], [0, 0, 0]])


# ---- sort, roll, cumprod --------------------------------------------------------------------------
def test_sort_errors_and_dtypes():
    with pytest.raises(ValueError, match="direction"):
        tf.sort([3, 1], direction="UP")
    x = np.array([[3, 0, 250], [7, 7, 1]], np.uint8)
    with tf.Session() as sess:
        got, idx = sess.run([tf.sort(x), tf.argsort(x, direction="DESCENDING")])
    np.testing.assert_array_equal(got, np.sort(x, axis=-1))
    assert idx.dtype == np.int32
    np.testing.assert_array_equal(idx, [[2, 0, 1], [0, 1, 2]])


def test_roll_with_run_time_shift():
    shift = tf.placeholder(tf.int32, [])
    x = np.arange(10).reshape(2, 5)
    y = tf.roll(x, shift, axis=1)
    with tf.Session() as sess:
        for s in (1, -3, 7):
            np.testing.assert_array_equal(sess.run(y, {shift: s}), np.roll(x, s, axis=1))


def test_cumprod_matches_numpy_and_namespace():
    x = np.array([[1.0, 2.0, 3.0], [4.0, 0.5, 2.0]])
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(tf.math.cumprod(x, axis=1, exclusive=True)),
                                   [[1, 1, 2], [1, 4, 2]])
        np.testing.assert_allclose(sess.run(tf.cumprod(x, reverse=True)), [[4, 1, 6], [4, 0.5, 2]])


def test_linalg_aliases():
    assert tf.linalg.band_part is tf.matrix_band_part
    assert tf.linalg.set_diag is tf.matrix_set_diag
    assert tf.linalg.matrix_transpose is tf.matrix_transpose
    assert tf.space_to_depth is tf.nn.space_to_depth
    with pytest.raises(ValueError, match="rank >= 2"):
        tf.matrix_transpose([1.0, 2.0])
    with pytest.raises(ValueError):
        tf.cross([1.0, 2.0], [3.0, 4.0])  # not 3-vectors


# ---- resize ---------------------------------------------------------------------------------------
IMG = R.rand(2, 6, 9, 2).astype(np.float32)
CASES = [([11, 4], False), ([3, 13], False), ([6, 9], True), ([4, 5], True), ([1, 1], True), ([12, 18], False)]


@pytest.mark.slow
@pytest.mark.parametrize("size,align", CASES)
def test_resize_matches_tf1_formula(size, align):
    x = tf.constant(IMG)
    ops = [tf.image.resize_bilinear(x, size, align_corners=align),
           tf.image.resize_nearest_neighbor(x, size, align_corners=align),
           tf.image.resize_bicubic(x, size, align_corners=align)]
    with tf.Session() as sess:
        bil, nn, bic = sess.run(ops)
    np.testing.assert_allclose(bil, np_resize_bilinear(IMG, size, align), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(nn, np_resize_nearest(IMG, size, align))
    np.testing.assert_allclose(bic, np_resize_bicubic(IMG, size, align), rtol=1e-5, atol=1e-5)


def test_resize_legacy_sampling_is_not_half_pixel():
    """TF 1.x's default: the top-left output pixel is the top-left input pixel, and upsampling 2x
    repeats the last row instead of extrapolating."""
    x = np.arange(4, dtype=np.float32).reshape(1, 2, 2, 1)
    with tf.Session() as sess:
        out = sess.run(tf.image.resize_bilinear(x, [4, 4]))[0, :, :, 0]
        half = sess.run(tf.image.resize_bilinear(x, [4, 4], half_pixel_centers=True))[0, :, :, 0]
    np.testing.assert_allclose(out[0], [0, 0.5, 1, 1])
    np.testing.assert_allclose(out[:, 0], [0, 1, 2, 2])
    np.testing.assert_allclose(half[0], [0, 0.25, 0.75, 1])


@pytest.mark.slow
def test_resize_images_dtypes_and_shapes():
    u8 = (IMG[0] * 255).astype(np.uint8)
    same = tf.image.resize_images(u8, [6, 9])
    assert same.dtype == tf.uint8  # unchanged size: the image itself, as TF returns it
    bil = tf.image.resize_images(u8, [3, 4])
    assert bil.dtype == tf.float32 and bil.shape.as_list() == [3, 4, 2]
    nn = tf.image.resize_images(u8, tf.constant([12, 18]), method=tf.image.ResizeMethod.NEAREST_NEIGHBOR)
    assert nn.dtype == tf.uint8 and nn.shape.as_list() == [12, 18, 2]
    kept = tf.image.resize_images(IMG, [12, 12], preserve_aspect_ratio=True)
    assert kept.shape.as_list() == [2, 8, 12, 2]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(nn), np_resize_nearest(u8[None], [12, 18])[0])
        np.testing.assert_allclose(sess.run(bil), np_resize_bilinear(u8[None], [3, 4])[0], rtol=1e-5)


def test_resize_errors():
    # AREA resizes (its values against TF 1.15: tests/api/test_core_names.py, family image)
    assert tf.image.resize_images(IMG, [3, 3], method=tf.image.ResizeMethod.AREA).shape.as_list()[1:3] == [3, 3]
    with pytest.raises(ValueError, match="2 elements"):
        tf.image.resize_images(IMG, [3, 3, 3])
    with pytest.raises(ValueError, match="3 or 4 dimensions"):
        tf.image.resize_images(IMG[0, 0], [3, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="align_corners must be False"):
        tf.image.resize_bilinear(IMG, [3, 3], align_corners=True, half_pixel_centers=True)


@pytest.mark.parametrize("name,np_resize", [("resize_bilinear", np_resize_bilinear),
                                            ("resize_bicubic", np_resize_bicubic),
                                            ("resize_nearest_neighbor", np_resize_nearest)])
def test_resize_gradient_is_the_adjoint(name, np_resize):
    """The gradient of sum(w * resize(x)) is the transpose of the (linear) resize applied to w,
    computed here from the numpy resize alone; and the gradient op's own gradient is the resize."""
    x = tf.constant(IMG)
    w = R.rand(2, 11, 4, 2).astype(np.float32)
    y = getattr(tf.image, name)(x, [11, 4])
    dx = tf.gradients(tf.reduce_sum(y * w), x)[0]
    v_np = R.rand(*IMG.shape).astype(np.float32)
    v = tf.constant(v_np)
    g = tf.placeholder(tf.float32, w.shape)
    d_g = tf.gradients(tf.reduce_sum(tf.gradients(tf.reduce_sum(y * g), x)[0] * v), g)[0]
    with tf.Session() as sess:
        got_dx, got_dg = sess.run([dx, d_g], {g: w})
    np.testing.assert_allclose(got_dx, np_resize_adjoint(np_resize, IMG.shape, w), rtol=1e-5, atol=1e-5)
    # second order: d/dg <v, resize^T g> = resize(v)
    np.testing.assert_allclose(got_dg, np_resize(v_np, [11, 4]), rtol=1e-5, atol=1e-5)


# ---- the other tf.image helpers -------------------------------------------------------------------
@pytest.mark.slow
def test_random_flip_is_seeded_and_per_image():
    x = tf.constant(np.arange(2 * 1 * 3 * 1, dtype=np.float32).reshape(2, 1, 3, 1))
    y = tf.image.random_flip_left_right(x, seed=5)
    kept = np.arange(6.0).reshape(2, 1, 3, 1)
    flipped = kept[:, :, ::-1]
    with tf.Session() as sess:
        runs = [sess.run(y) for _ in range(12)]
    seen = set()
    for r in runs:
        for b in range(2):
            is_flip = np.array_equal(r[b], flipped[b])
            assert is_flip or np.array_equal(r[b], kept[b])
            seen.add((b, is_flip))
    assert len(seen) == 4  # each image flipped in some run and kept in another
    with tf.Session() as sess:
        np.testing.assert_array_equal([sess.run(y) for _ in range(12)], runs)  # same seed, same sequence


def test_random_flip_up_down_3d():
    img = np.arange(6.0).reshape(3, 2, 1)
    y = tf.image.random_flip_up_down(img, seed=1)
    with tf.Session() as sess:
        outs = {sess.run(y).tobytes() for _ in range(16)}
    assert outs == {img.tobytes(), img[::-1].tobytes()}


def test_convert_image_dtype():
    u8 = np.array([0, 128, 255], np.uint8)
    with tf.Session() as sess:
        f = sess.run(tf.image.convert_image_dtype(u8, tf.float32))
        np.testing.assert_allclose(f, u8 / 255.0, rtol=1e-6)
        back = sess.run(tf.image.convert_image_dtype(f, tf.uint8))
        np.testing.assert_array_equal(back, u8)
        np.testing.assert_array_equal(sess.run(tf.image.convert_image_dtype(np.float32([1.5, -0.5]), tf.uint8,
                                                                            saturate=True)), [255, 0])
        np.testing.assert_array_equal(sess.run(tf.image.convert_image_dtype(u8, tf.int16)), u8.astype(np.int16) * 128)
        np.testing.assert_array_equal(sess.run(tf.image.convert_image_dtype(np.int16([32767, 256]), tf.uint8)),
                                      [255, 2])
    with pytest.raises(AttributeError):
        tf.image.convert_image_dtype(u8, tf.bool)


@pytest.mark.slow
def test_per_image_standardization_uniform_and_uint8():
    flat = np.full((2, 2, 1), 3.0, np.float32)
    u8 = (IMG[0] * 255).astype(np.uint8)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(tf.image.per_image_standardization(flat)), 0)  # no 0/0
        out = tf.image.per_image_standardization(u8)
        assert out.dtype == tf.uint8  # converted back, saturating the negatives to 0
        got = sess.run(out)
    f = u8 / 255.0
    want = np.clip((f - f.mean()) / f.std(), 0, None) * 255.5
    np.testing.assert_allclose(got, np.clip(want, 0, 255).astype(np.uint8), atol=1)


def test_crop_and_pad_errors():
    with pytest.raises(ValueError, match="width must be >= target \\+ offset"):
        tf.image.crop_to_bounding_box(IMG, 0, 5, 2, 5)
    with pytest.raises(ValueError, match="target_height must be > 0"):
        tf.image.crop_to_bounding_box(IMG, 0, 0, 0, 2)
    with pytest.raises(ValueError, match="width must be <= target - offset"):
        tf.image.pad_to_bounding_box(IMG, 0, 2, 6, 10)
    with pytest.raises(ValueError, match="central_fraction"):
        tf.image.central_crop(IMG, 0.0)
    with pytest.raises(ValueError, match="at least three-dimensional"):
        tf.image.flip_left_right(IMG[0, 0])


@pytest.mark.slow
def test_crop_or_pad_with_unknown_size():
    x = tf.placeholder(tf.float32, [None, None, 2])
    y = tf.image.resize_image_with_crop_or_pad(x, 4, 5)
    c = tf.image.central_crop(x, 0.5)
    img = IMG[0]
    with tf.Session() as sess:
        got, cropped = sess.run([y, c], {x: img})
    np.testing.assert_array_equal(got, img[1:5, 2:7])
    np.testing.assert_array_equal(cropped, img[1:5, 2:7])


def test_half_pixel_resizes_keep_a_constant_image():
    """With half_pixel_centers the bicubic taps outside the image are dropped and the rest
    renormalised, so a constant image stays constant (legacy bicubic would too, by clamping)."""
    x = np.full((1, 5, 4, 1), 2.5, np.float32)
    outs = [getattr(tf.image, n)(x, [7, 3], half_pixel_centers=True)
            for n in ("resize_bilinear", "resize_bicubic", "resize_nearest_neighbor")]
    with tf.Session() as sess:
        for o in sess.run(outs):
            np.testing.assert_allclose(o, 2.5, rtol=1e-6)
            assert o.shape == (1, 7, 3, 1)


def test_scatter_div_min_max_edges_as_tf():
    """TF 1.15's CPU kernels (values recorded from TF): a repeated index divides in turn (x / a / b: NaN once
    x / a overflowed to -inf and b is -inf), integers toward zero; scatter_min/max ignore a NaN update and
    keep a NaN already there."""
    v1 = tf.Variable(np.array([-3.0, -3.0, 3.4028234663852886e+38], np.float32))
    v2 = tf.Variable(np.array([1.0, np.nan, 2.0], np.float32))
    v3 = tf.Variable(np.array([1.0, np.nan, 2.0], np.float32))
    v4 = tf.Variable(np.array([8, -7], np.int32))
    ops = [tf.scatter_div(v1, [[2], [2]], [[-0.8729111], [-np.inf]]),
           tf.scatter_min(v2, [0, 1, 0, 2], [np.nan, 0.5, 0.25, np.nan]),
           tf.scatter_max(v3, [0, 1, 0, 2], [np.nan, 0.5, 3.0, np.nan]), tf.scatter_div(v4, [0, 1, 0], [3, 2, -2])]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(ops)
    for g, w in zip(got, [[-3, -3, np.nan], [0.25, np.nan, 2], [3, np.nan, 2], [-1, -3]]):
        np.testing.assert_array_equal(g, w)


def test_scatter_nd_into_an_empty_variable_is_refused_as_tf():
    """TF's shape function: indices and updates for a variable of no elements fail while building."""
    v = tf.Variable(np.zeros([0, 2], np.float32))
    with pytest.raises(ValueError, match="Indices and updates specified for empty output shape"):
        tf.scatter_nd_add(v, [[0]], [[1.0, 2.0]])
    assert tf.scatter_nd_add(v, np.zeros([0, 1], np.int32), np.zeros([0, 2], np.float32)).shape.as_list() == [0, 2]
