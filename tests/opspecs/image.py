"""Specs of the image ops (ops/image_ops.py, tinyflow/image.py), with numpy re-implementations of
TF 1.x's resize kernels written the way its C++ kernels compute them (per output pixel, float32),
independently of tinyflow's interpolation matrices. tests/ops/test_more_ops.py reuses them."""
import math

import numpy as np

from opspecs import OpSpec

R = np.random.RandomState(11)
IMG = R.rand(2, 5, 7, 3).astype(np.float32)
F32 = np.float32


def _scale(n_in, n_out, align):
    return F32(n_in - 1) / F32(n_out - 1) if align and n_out > 1 else F32(n_in) / F32(n_out)


def np_resize_bilinear(img, size, align_corners=False, half_pixel_centers=False):
    """TF's ResizeBilinear kernel: compute_interpolation_weights, then top/bottom lerps."""
    n, h, w, c = img.shape
    oh, ow = size

    def interp(n_in, n_out):
        s, out = _scale(n_in, n_out, align_corners), []
        for i in range(n_out):
            x = (F32(i) + F32(0.5)) * s - F32(0.5) if half_pixel_centers else F32(i) * s
            lo_f = math.floor(x)
            out.append((max(lo_f, 0), min(math.ceil(x), n_in - 1), F32(x - F32(lo_f))))
        return out

    ys, xs = interp(h, oh), interp(w, ow)
    img = img.astype(np.float32)
    out = np.zeros((n, oh, ow, c), np.float32)
    for y, (y0, y1, yl) in enumerate(ys):
        for x, (x0, x1, xl) in enumerate(xs):
            top = img[:, y0, x0] + (img[:, y0, x1] - img[:, y0, x0]) * xl
            bottom = img[:, y1, x0] + (img[:, y1, x1] - img[:, y1, x0]) * xl
            out[:, y, x] = top + (bottom - top) * yl
    return out


def np_resize_nearest(img, size, align_corners=False, half_pixel_centers=False):
    """TF's ResizeNearestNeighbor kernel: floorf (roundf with align_corners) of the source coordinate."""
    def index(n_in, n_out):
        s, out = _scale(n_in, n_out, align_corners), []
        for i in range(n_out):
            x = (F32(i) + F32(0.5)) * s if half_pixel_centers else F32(i) * s
            j = int(math.floor(x + 0.5)) if align_corners else int(math.floor(x))  # roundf of x >= 0
            out.append(max(min(j, n_in - 1), 0))
        return out
    return img[:, index(img.shape[1], size[0])][:, :, index(img.shape[2], size[1])]


def _keys(t, a=-0.75):
    t = abs(t)
    if t <= 1:
        return ((a + 2) * t - (a + 3)) * t * t + 1
    if t < 2:
        return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
    return 0.0


def np_resize_bicubic(img, size, align_corners=False):
    """TF's legacy ResizeBicubic (half_pixel_centers=False): Keys' kernel, a = -0.75, at the source
    offset rounded to 1/1024 (its weight table), taps clamped to the border; rows, then columns."""
    def taps(n_in, n_out):
        s, out = _scale(n_in, n_out, align_corners), []
        for i in range(n_out):
            x = F32(i) * s
            base = math.floor(x)
            t = np.rint(F32(x - base) * 1024) / 1024
            w = [F32(_keys(1 + t)), F32(_keys(t)), F32(_keys(1 - t)), F32(_keys(2 - t))]
            out.append([(min(max(base - 1 + k, 0), n_in - 1), w[k]) for k in range(4)])
        return out

    n, h, w, c = img.shape
    ys, xs = taps(h, size[0]), taps(w, size[1])
    img = img.astype(np.float32)
    out = np.zeros((n, size[0], size[1], c), np.float32)
    for y, ty in enumerate(ys):
        for x, tx in enumerate(xs):
            rows = [sum(wx * img[:, yi, xi] for xi, wx in tx) for yi, _ in ty]
            out[:, y, x] = sum(wy * r for (_, wy), r in zip(ty, rows))
    return out


def np_resize_adjoint(np_resize, x_shape, g):
    """The gradient of sum(g * resize(x)) wrt x, from the numpy resize alone: the resize of each unit
    image (one per pixel) gives the matrix of the linear map; its transpose applied to g."""
    n, h, w, c = x_shape
    units = np.eye(h * w, dtype=np.float32).reshape(h * w, h, w, 1)
    m = np_resize(units, g.shape[1:3]).reshape(h * w, -1)  # [input pixel, output pixel]
    return np.einsum("ip,npc->nic", m, g.reshape(n, -1, c)).reshape(x_shape)


def _weighted_grad(tf, resize, x, w):
    """d sum(w * resize(x)) / dx: the gradient op's value (its value is checked against numpy)."""
    return tf.gradients(tf.reduce_sum(resize(x) * w), x)[0]


W_UP = R.rand(2, 8, 10, 3).astype(np.float32)


def np_resize_area(x, size, align_corners=False):
    """Each output pixel: the mean of the input over its cell [i*sh, (i+1)*sh) x [j*sw, (j+1)*sw), each
    input pixel weighted by the area of its overlap (float64, pixel by pixel)."""
    (h, w), (oh, ow) = x.shape[1:3], size
    sh = (h - 1) / (oh - 1) if align_corners and oh > 1 else h / oh
    sw = (w - 1) / (ow - 1) if align_corners and ow > 1 else w / ow
    out = np.zeros((x.shape[0], oh, ow, x.shape[3]))
    for i in range(oh):
        for j in range(ow):
            for a in range(h + 1):
                for b in range(w + 1):
                    area = max(0.0, min(a + 1, (i + 1) * sh) - max(a, i * sh)) * \
                        max(0.0, min(b + 1, (j + 1) * sw) - max(b, j * sw))
                    if area:
                        out[:, i, j] += area * x[:, min(a, h - 1), min(b, w - 1)]
    return out / (sh * sw)

SPECS = [
    OpSpec("resize_bilinear_up", lambda tf, x: tf.image.resize_bilinear(x, [8, 10]), [IMG],
           lambda x: np_resize_bilinear(x, [8, 10])),
    OpSpec("resize_bilinear_down_align", lambda tf, x: tf.image.resize_bilinear(x, [3, 4], align_corners=True),
           [IMG], lambda x: np_resize_bilinear(x, [3, 4], align_corners=True)),
    OpSpec("resize_bilinear_half_pixel", lambda tf, x: tf.image.resize_bilinear(x, [8, 4], half_pixel_centers=True),
           [IMG], lambda x: np_resize_bilinear(x, [8, 4], half_pixel_centers=True)),
    OpSpec("resize_bilinear_grad", lambda tf, x, w: _weighted_grad(tf, lambda t: tf.image.resize_bilinear(
        t, [8, 10]), x, w), [IMG, W_UP], lambda x, w: np_resize_adjoint(np_resize_bilinear, x.shape, w)),
    OpSpec("resize_nearest", lambda tf, x: tf.square(tf.image.resize_nearest_neighbor(x, [8, 4])), [IMG],
           lambda x: np_resize_nearest(x, [8, 4]) ** 2, grad=True, second_order=True),
    OpSpec("resize_nearest_align_int", lambda tf, x: tf.image.resize_nearest_neighbor(x, [3, 9], align_corners=True),
           [(IMG * 255).astype(np.uint8)], lambda x: np_resize_nearest(x, [3, 9], align_corners=True)),
    OpSpec("resize_bicubic", lambda tf, x: tf.image.resize_bicubic(x, [8, 10]), [IMG],
           lambda x: np_resize_bicubic(x, [8, 10]), atol=1e-5),
    OpSpec("resize_bicubic_down_align", lambda tf, x: tf.image.resize_bicubic(x, [3, 4], align_corners=True),
           [IMG], lambda x: np_resize_bicubic(x, [3, 4], align_corners=True), atol=1e-5),
    OpSpec("resize_bicubic_grad", lambda tf, x, w: _weighted_grad(tf, lambda t: tf.image.resize_bicubic(
        t, [8, 10]), x, w), [IMG, W_UP], lambda x, w: np_resize_adjoint(np_resize_bicubic, x.shape, w), atol=1e-5),
    OpSpec("resize_area_down", lambda tf, x: tf.image.resize_area(x, [3, 4]), [IMG],
           lambda x: np_resize_area(x, [3, 4]), atol=1e-5),
    OpSpec("resize_area_up_align", lambda tf, x: tf.image.resize_area(x, [7, 6], align_corners=True), [IMG],
           lambda x: np_resize_area(x, [7, 6], align_corners=True), atol=1e-5),
    OpSpec("flip_left_right", lambda tf, x: tf.image.flip_left_right(x), [IMG], lambda x: x[:, :, ::-1], grad=True),
    OpSpec("flip_up_down_3d", lambda tf, x: tf.image.flip_up_down(x), [IMG[0]], lambda x: x[::-1], grad=True),
    OpSpec("rgb_to_grayscale", lambda tf, x: tf.image.rgb_to_grayscale(x), [IMG],
           lambda x: (x @ np.array([0.2989, 0.5870, 0.1140], np.float32))[..., None]),  # float32 inside: no FD
    OpSpec("per_image_standardization", lambda tf, x: tf.image.per_image_standardization(x), [IMG],
           lambda x: (x - x.mean((1, 2, 3), keepdims=True)) / x.std((1, 2, 3), keepdims=True), rtol=1e-4,
           atol=1e-5),
    OpSpec("crop_to_bounding_box", lambda tf, x: tf.image.crop_to_bounding_box(x, 1, 2, 3, 4), [IMG],
           lambda x: x[:, 1:4, 2:6], grad=True),
    OpSpec("pad_to_bounding_box", lambda tf, x: tf.image.pad_to_bounding_box(x, 1, 0, 7, 9), [IMG[0]],
           lambda x: np.pad(x, [[1, 1], [0, 2], [0, 0]]), grad=True),
    OpSpec("central_crop", lambda tf, x: tf.image.central_crop(x, 0.5), [IMG], lambda x: x[:, 1:4, 1:6], grad=True),
    OpSpec("resize_image_with_crop_or_pad", lambda tf, x: tf.image.resize_image_with_crop_or_pad(x, 3, 10), [IMG],
           lambda x: np.pad(x[:, 1:4], [[0, 0], [0, 0], [1, 2], [0, 0]]), grad=True),
]

# The bilinear and bicubic kernels return float32 whatever the input (TF's rule), too coarse for
# finite differences; the specs above check their gradient ops' values, and tests/ops/test_more_ops.py
# checks both gradients exactly (as the adjoints of the resizes) and to second order.
GRAD_EXEMPT = {
    "ResizeBilinear": "float32 output; gradient checked as an exact adjoint in test_more_ops.py",
    "ResizeBilinearGrad": "float32 input; its gradient (a ResizeBilinear) checked in test_more_ops.py",
    "ResizeBicubic": "float32 output; gradient checked as an exact adjoint in test_more_ops.py",
    "ResizeBicubicGrad": "float32 input; its gradient (a ResizeBicubic) checked in test_more_ops.py",
    "ResizeArea": "TF 1.15 defines no gradient (tf.gradients: LookupError, tests/api/test_image_decode_resize.py)",
}
GRAD_EXEMPT.update({
    "CropAndResize": "float32 output; its gradients (image and boxes) checked against TF 1.15's in "
                     "tests/api/test_image_adjust.py",
})
# Checked against TF 1.15's recorded numbers (crop_and_resize, its gradient ops) or, for the random
# box, by the constraints it must meet, in tests/api/test_image_adjust.py.
EXEMPT = {
    "CropAndResize": "TF 1.15's values in tests/api/test_image_adjust.py",
    "CropAndResizeGradImage": "TF 1.15's image gradient in tests/api/test_image_adjust.py",
    "CropAndResizeGradBoxes": "TF 1.15's boxes gradient in tests/api/test_image_adjust.py",
    "SampleDistortedBoundingBoxV2": "random: its constraints and fallback in tests/api/test_image_adjust.py",
}
EXEMPT["NonMaxSuppressionPadded"] = "TF 1.15's selections in tests/api/test_image_adjust.py"
EXEMPT.update({
    "DrawBoundingBoxesV2": "TF 1.15's drawn images in tests/api/test_image_extra.py",
    "ExtractJpegShape": "host op: TF 1.15's shapes in tests/api/test_image_extra.py",
    "DecodeAndCropJpeg": "host op: tests/api/test_image_extra.py",
})
