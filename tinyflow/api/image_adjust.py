"""tf.image's colour spaces, colour adjustments and random augmentations (TF 1.15's image_ops_impl.py).

Each is built from graph ops, so gradients come for free. TF's kernels (RGBToHSV, HSVToRGB,
AdjustHue, AdjustSaturation, AdjustContrastv2) compute in float32; integer images are converted to
float32 first and back with saturation afterwards, as TF does. The random ones draw their factor with
random_uniform (TF's distributions; the numbers are tinyflow's own stream).
"""
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import control_dependencies, get_default_graph
from tinyflow.ops.core import math_ops as M
from tinyflow.ops.core.array_ops import concat, identity, ones_like, pad, shape, stack, transpose, unstack, zeros_like
from tinyflow.ops.core.base import constant_value_of, convert_to_tensor
from tinyflow.ops.core.indexing_ops import slice as _slice, where as _where
from tinyflow.ops.logging_ops import Assert
from tinyflow.ops.matrix_ops import tensordot
from tinyflow.ops.random_ops import random_uniform
from tinyflow.ops.core.sequence_ops import reverse

__all__ = ["convert_image_dtype", "adjust_brightness", "adjust_contrast", "adjust_gamma", "adjust_hue",
           "adjust_saturation", "hsv_to_rgb",
           "rgb_to_hsv", "rgb_to_yiq", "yiq_to_rgb", "rgb_to_yuv", "yuv_to_rgb", "grayscale_to_rgb",
           "random_brightness", "random_contrast", "random_hue", "random_saturation", "random_crop", "rot90",
           "transpose_image", "total_variation", "image_gradients"]


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Converts between image dtypes, rescaling: floats span [0, 1), integers [0, dtype.max]."""
    image = convert_to_tensor(image, name="image")
    dtype = dt.as_dtype(dtype)
    if not dtype.is_floating and not dtype.is_integer:
        raise AttributeError("dtype must be either floating point or integer")
    if dtype == image.dtype:
        return identity(image, name=name)
    cast = M.saturate_cast if saturate else M.cast
    with get_default_graph().name_scope(name or "convert_image"):
        src = image.dtype
        if src.is_integer and dtype.is_integer:
            if src.max > dtype.max:  # scale down first, then cast: in.max lands just below out.max + 1
                return cast(M.div(image, M.scalar_like((src.max + 1) // (dtype.max + 1), image)), dtype)
            up = cast(image, dtype)
            return M.multiply(up, M.scalar_like((dtype.max + 1) // (src.max + 1), up))
        if src.is_floating and dtype.is_floating:
            return M.cast(image, dtype)
        if src.is_integer:  # to float: cast, then scale
            flt = M.cast(image, dtype)
            return M.multiply(flt, M.scalar_like(1.0 / src.max, flt))
        # from float: scale (by max + 0.5, against rounding down in the cast), then cast
        return cast(M.multiply(image, M.scalar_like(dtype.max + 0.5, image)), dtype)


def _in_float(name, image, fn):
    """fn(image as float) for a float16/float32 image; other dtypes go through float32 and back."""
    with get_default_graph().name_scope(name):
        image = convert_to_tensor(image, name="image")
        orig = image.dtype
        flt = image if orig in (dt.float16, dt.float32) else convert_image_dtype(image, dt.float32)
        out = fn(flt)
        return out if orig in (dt.float16, dt.float32) else convert_image_dtype(out, orig, saturate=True)


def _channels(image):
    return unstack(image, 3, axis=-1)


# ---- colour spaces (TF's colorspace_op.h, in graph ops) ------------------------------------------------
def _hsv(r, g, b, pairwise=False):
    """TF's RGB -> HSV. Its RGBToHSV kernel takes V and the minimum as reductions over the channels
    (NaN skipped, as reduce_max); AdjustSaturation's kernel (`pairwise`) as std::max / std::min of the
    three (TF's maximum and minimum: a NaN first kept) and zeroes the hue where the range is <= 0."""
    if pairwise:
        v = M.maximum(r, M.maximum(g, b))
        rng = M.subtract(v, M.minimum(r, M.minimum(g, b)))
    else:
        rgb = stack([r, g, b], axis=-1)
        v = M.reduce_max(rgb, axis=-1)
        rng = M.subtract(v, M.reduce_min(rgb, axis=-1))
    zero = zeros_like(v)
    s = _where(M.greater(v, zero), M.realdiv(rng, v), zero)
    norm = M.realdiv(ones_like(rng), M.multiply(rng, 6.0))
    h = _where(M.equal(r, v), M.multiply(norm, M.subtract(g, b)),
               _where(M.equal(g, v), M.add(M.multiply(norm, M.subtract(b, r)), 2.0 / 6.0),
                      M.add(M.multiply(norm, M.subtract(r, g)), 4.0 / 6.0)))
    h = _where(M.less_equal(rng, zero), zero, h) if pairwise else _where(M.greater(rng, zero), h, zero)
    h = _where(M.less(h, zero), M.add(h, 1.0), h)
    return h, s, v


def _rgb_sextants(h, s, v):
    """AdjustSaturation's HSV -> RGB: the hue's sextant int(6h) picks (c, x, 0) in TF's order, plus
    m = v - c; a hue outside [0, 1) (or NaN) gives (m, m, m), as its switch's default."""
    c = M.multiply(s, v)
    m = M.subtract(v, c)
    dh = M.multiply(h, 6.0)
    cat = M.floor(dh)
    x = M.multiply(c, M.subtract(1.0, M.abs(M.subtract(M.floormod(dh, 2.0), 1.0))))
    zero = zeros_like(c)

    def pick(values):   # values[k]: the channel's value in sextant k
        out = zero
        for k, val in enumerate(values):
            out = _where(M.equal(cat, float(k)), val, out)
        return M.add(out, m)
    return [pick([c, x, zero, zero, x, c]), pick([x, c, c, x, zero, zero]), pick([zero, zero, x, c, c, x])]


def _rgb(h, s, v):
    dh = M.multiply(h, 6.0)

    def ramp(center, sign):
        d = M.abs(M.subtract(dh, center))
        d = M.subtract(d, 1.0) if sign > 0 else M.subtract(2.0, d)
        return M.minimum(M.maximum(d, 0.0), 1.0)
    one_s = M.subtract(1.0, s)
    return [M.multiply(M.add(one_s, M.multiply(s, ramp(c, sign))), v) for c, sign in ((3.0, 1), (2.0, -1),
                                                                                       (4.0, -1))]


def rgb_to_hsv(images, name=None):
    """RGB (float, [0, 1]) to HSV, all three channels in [0, 1]."""
    with get_default_graph().name_scope(name or "rgb_to_hsv"):
        return stack(list(_hsv(*_channels(convert_to_tensor(images, name="images")))), axis=-1)


def hsv_to_rgb(images, name=None):
    """HSV (float, [0, 1]) to RGB."""
    with get_default_graph().name_scope(name or "hsv_to_rgb"):
        return stack(_rgb(*_channels(convert_to_tensor(images, name="images"))), axis=-1)


def _linear(name, images, kernel):
    with get_default_graph().name_scope(name):
        images = convert_to_tensor(images, name="images")
        k = convert_to_tensor(kernel, dtype=images.dtype, name="kernel")
        return tensordot(images, k, [[images.shape.ndims - 1], [0]])


def rgb_to_yiq(images):
    """RGB to YIQ (TF's kernel matrix)."""
    return _linear("rgb_to_yiq", images, [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617],
                                          [0.114, -0.32134392, 0.31119955]])


def yiq_to_rgb(images):
    """YIQ to RGB."""
    return _linear("yiq_to_rgb", images, [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021],
                                          [0.6208248, -0.64720424, 1.70423049]])


def rgb_to_yuv(images):
    """RGB to YUV."""
    return _linear("rgb_to_yuv", images, [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
                                          [0.114, 0.43601035, -0.10001026]])


def yuv_to_rgb(images):
    """YUV to RGB."""
    return _linear("yuv_to_rgb", images, [[1, 1, 1], [0, -0.394642334, 2.03206185],
                                          [1.13988303, -0.58062185, 0]])


def grayscale_to_rgb(images, name=None):
    """[..., 1] -> [..., 3], the one channel repeated."""
    with get_default_graph().name_scope(name or "grayscale_to_rgb"):
        images = convert_to_tensor(images, name="images")
        return concat([images] * 3, axis=-1)


# ---- adjustments ---------------------------------------------------------------------------------------
def adjust_brightness(image, delta):
    """image + delta (integer images through float32, saturated back)."""
    return _in_float("adjust_brightness", image, lambda x: M.add(x, M.cast(delta, x.dtype)))


def adjust_contrast(images, contrast_factor):
    """(x - mean) * contrast_factor + mean, the mean of each channel over height and width."""
    def fn(x):
        mean = M.reduce_mean(x, axis=[-3, -2], keepdims=True)
        return M.add(M.multiply(M.subtract(x, mean), M.cast(contrast_factor, x.dtype)), mean)
    return _in_float("adjust_contrast", images, fn)


def adjust_gamma(image, gamma=1, gain=1):
    """gain * image ** gamma (integer images through float32)."""
    if not hasattr(gamma, "dtype") and gamma < 0:
        raise ValueError("Gamma should be a non-negative real number.")
    return _in_float("adjust_gamma", image,
                     lambda x: M.multiply(M.cast(gain, x.dtype), M.pow(x, M.cast(gamma, x.dtype))))


def adjust_hue(image, delta, name=None):
    """Rotates the hue by `delta` (a fraction of the colour circle, in [-1, 1])."""
    def fn(x):
        h, s, v = _hsv(*_channels(M.cast(x, dt.float32)))
        h = M.floormod(M.add(h, M.cast(delta, dt.float32)), 1.0)
        return M.cast(stack(_rgb(h, s, v), axis=-1), x.dtype)
    return _in_float(name or "adjust_hue", image, fn)


def adjust_saturation(image, saturation_factor, name=None):
    """Multiplies the saturation by `saturation_factor`, clipped to [0, 1]."""
    def fn(x):
        h, s, v = _hsv(*_channels(M.cast(x, dt.float32)), pairwise=True)
        # std::min(1, std::max(0, s * factor)), in that order: a NaN becomes 0
        s = M.minimum(1.0, M.maximum(0.0, M.multiply(s, M.cast(saturation_factor, dt.float32))))
        return M.cast(stack(_rgb_sextants(h, s, v), axis=-1), x.dtype)
    return _in_float(name or "adjust_saturation", image, fn)


# ---- random augmentations ------------------------------------------------------------------------------
def _check_range(lower, upper):
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


def random_brightness(image, max_delta, seed=None):
    """adjust_brightness by a delta drawn uniformly from [-max_delta, max_delta)."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, random_uniform([], -max_delta, max_delta, seed=seed))


def random_contrast(image, lower, upper, seed=None):
    """adjust_contrast by a factor drawn uniformly from [lower, upper)."""
    _check_range(lower, upper)
    return adjust_contrast(image, random_uniform([], lower, upper, seed=seed))


def random_saturation(image, lower, upper, seed=None):
    """adjust_saturation by a factor drawn uniformly from [lower, upper)."""
    _check_range(lower, upper)
    return adjust_saturation(image, random_uniform([], lower, upper, seed=seed))


def random_hue(image, max_delta, seed=None):
    """adjust_hue by a delta drawn uniformly from [-max_delta, max_delta) (max_delta <= 0.5)."""
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_hue(image, random_uniform([], -max_delta, max_delta, seed=seed))


def random_crop(value, size, seed=None, name=None):
    """A window of `size` at a uniformly random offset (tf.random_crop); fails at run time when the
    value is smaller than `size`."""
    with get_default_graph().name_scope(name or "random_crop"):
        value = convert_to_tensor(value, name="value")
        size = convert_to_tensor(size, dtype=dt.int32, name="size")
        want = constant_value_of(size)
        if want is not None and value.shape.is_fully_defined() and any(
                int(w) > d for w, d in zip(want, value.shape.as_list())):
            raise ValueError("Need value.shape >= size, got %s %s" % (value.shape.as_list(), list(want)))
        full = shape(value)
        check = Assert(M.reduce_all(M.greater_equal(full, size)), ["Need value.shape >= size, got ", full, size],
                       summarize=1000)
        with control_dependencies([check]):
            full = identity(full)
        limit = M.add(M.subtract(full, size), 1)
        offset = M.floormod(random_uniform(shape(full), dtype=dt.int32, maxval=dt.int32.max, seed=seed), limit)
        return _slice(value, offset, size)


# ---- geometry and statistics ---------------------------------------------------------------------------
def rot90(image, k=1, name=None):
    """Rotates the image(s) counter-clockwise by k quarter turns (k a Python int)."""
    with get_default_graph().name_scope(name or "rot90"):
        image = convert_to_tensor(image, name="image")
        rank = image.shape.ndims
        if rank not in (3, 4):
            raise ValueError("'image' (shape %s) must have either 3 or 4 dimensions." % image.shape)
        h = 1 if rank == 4 else 0
        perm = [0, 2, 1, 3] if rank == 4 else [1, 0, 2]
        k = int(k) % 4
        if k == 1:
            return transpose(reverse(image, [h + 1]), perm)
        if k == 2:
            return reverse(image, [h, h + 1])
        if k == 3:
            return reverse(transpose(image, perm), [h + 1])
        return image


def transpose_image(image):
    """Swaps height and width."""
    with get_default_graph().name_scope("transpose_image"):
        image = convert_to_tensor(image, name="image")
        if image.shape.ndims not in (3, 4):
            raise ValueError("'image' (shape %s) must have either 3 or 4 dimensions." % image.shape)
        return transpose(image, [0, 2, 1, 3] if image.shape.ndims == 4 else [1, 0, 2])


def total_variation(images, name=None):
    """Sum of absolute differences of neighbouring pixels: a scalar for one image, [N] for a batch."""
    with get_default_graph().name_scope(name or "total_variation"):
        images = convert_to_tensor(images, name="images")
        rank = images.shape.ndims
        if rank not in (3, 4):
            raise ValueError("'images' must be either 3 or 4-dimensional.")
        h = 1 if rank == 4 else 0
        axes = list(range(h, rank))

        def diff(axis):
            hi, lo = [slice(None)] * rank, [slice(None)] * rank
            hi[axis], lo[axis] = slice(1, None), slice(None, -1)
            return M.reduce_sum(M.abs(M.subtract(images[tuple(hi)], images[tuple(lo)])), axis=axes)
        return M.add(diff(h), diff(h + 1))


def image_gradients(image):
    """(dy, dx) of a 4-D batch: forward differences, the last row / column zero."""
    image = convert_to_tensor(image, name="image")
    if image.shape.ndims != 4:
        raise ValueError("image_gradients expects a 4D tensor [batch_size, h, w, d], not %s." % image.shape)
    dy = M.subtract(image[:, 1:, :, :], image[:, :-1, :, :])
    dx = M.subtract(image[:, :, 1:, :], image[:, :, :-1, :])
    return pad(dy, [[0, 0], [0, 1], [0, 0], [0, 0]]), pad(dx, [[0, 0], [0, 0], [0, 1], [0, 0]])
