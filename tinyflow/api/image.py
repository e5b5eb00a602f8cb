"""tf.image: TF 1.15's image namespace (NHWC images, 3-D [H, W, C] or 4-D [N, H, W, C]).

The resize kernels are ops (ops/image_ops.py, TF 1.x's legacy sampling by default); everything else
is built from existing graph ops, as TF's image_ops_impl.py builds it, so gradients come for free.
"""
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import Tensor, get_default_graph
from tinyflow.ops.core import math_ops as M
from tinyflow.ops.core.array_ops import expand_dims, pad, reshape, shape, squeeze, stack
from tinyflow.ops.core.base import constant_value_of, convert_to_tensor
from tinyflow.ops.core.indexing_ops import slice as _slice, where as _where
from tinyflow.ops.image_ops import (crop_and_resize, draw_bounding_boxes, non_max_suppression,  # noqa: F401
                                    non_max_suppression_padded,
                                    resize as _resize, sample_distorted_bounding_box)
from tinyflow.ops.matrix_ops import tensordot
from tinyflow.ops.random_ops import random_uniform
from tinyflow.ops.core.sequence_ops import reverse
from tinyflow.api.image_adjust import *  # noqa: F401,F403 (colour spaces, adjustments, random augmentations)
from tinyflow.api.image_adjust import __all__ as _adjust_all, convert_image_dtype  # noqa: F401
from tinyflow.ops.image_codec_ops import (decode_bmp, decode_gif, decode_image, decode_jpeg, decode_png,  # noqa: F401
                                         encode_jpeg, encode_png)
from tinyflow.ops.image_codec_ops import decode_and_crop_jpeg, extract_jpeg_shape  # noqa: F401
from tinyflow.ops.misc_ops import extract_image_patches  # noqa: F401
from tinyflow.api.image_quality import psnr, ssim, ssim_multiscale  # noqa: F401

__all__ = [
    "ResizeMethod", "central_crop", "decode_bmp", "decode_gif", "decode_image", "decode_jpeg", "decode_png",
    "encode_jpeg", "encode_png", "convert_image_dtype", "crop_to_bounding_box", "flip_left_right",
    "flip_up_down", "pad_to_bounding_box", "per_image_standardization", "random_flip_left_right",
    "random_flip_up_down", "resize", "resize_bicubic", "resize_bilinear", "resize_image_with_crop_or_pad",
    "resize_images", "resize_nearest_neighbor", "resize_area", "rgb_to_grayscale", "sample_distorted_bounding_box",
    "crop_and_resize",
    "non_max_suppression", "non_max_suppression_padded", "decode_and_crop_jpeg", "draw_bounding_boxes",
    "extract_image_patches", "extract_jpeg_shape", "psnr", "ssim", "ssim_multiscale",
] + _adjust_all


class ResizeMethod:
    """The `method` of resize_images."""
    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


# ---- resizing -------------------------------------------------------------------------------------
def resize_bilinear(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """Bilinear resize of a 4-D batch to `size` = [new_height, new_width]; float32 result."""
    return _resize("ResizeBilinear", images, size, align_corners, half_pixel_centers, name)


def resize_nearest_neighbor(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """Nearest-neighbour resize of a 4-D batch to `size`; keeps the dtype."""
    return _resize("ResizeNearestNeighbor", images, size, align_corners, half_pixel_centers, name)


def resize_bicubic(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """Bicubic resize of a 4-D batch to `size`; float32 result."""
    return _resize("ResizeBicubic", images, size, align_corners, half_pixel_centers, name)


def resize_area(images, size, align_corners=False, name=None):
    """Area resize of a 4-D batch to `size`: each output pixel averages the input area it covers
    (TF's ResizeArea kernel); float32 result; no gradient, as in TF."""
    return _resize("ResizeArea", images, size, align_corners, False, name)


_RESIZERS = {ResizeMethod.BILINEAR: resize_bilinear, ResizeMethod.NEAREST_NEIGHBOR: resize_nearest_neighbor,
             ResizeMethod.BICUBIC: resize_bicubic, ResizeMethod.AREA: resize_area}


def resize_images(images, size, method=ResizeMethod.BILINEAR, align_corners=False, preserve_aspect_ratio=False,
                  name=None):
    """Resizes a 3-D image or 4-D batch to `size` = [new_height, new_width] with `method`. As in TF,
    an image already of that (static) size comes back unchanged, in its own dtype."""
    if method not in _RESIZERS:
        raise ValueError("Resize method is not implemented.")
    with get_default_graph().name_scope(name or "resize"):
        images = convert_to_tensor(images, name="images")
        rank = images.shape.ndims
        if rank is None:
            raise ValueError("'images' contains no shape.")
        if rank not in (3, 4):
            raise ValueError("'images' must have either 3 or 4 dimensions.")
        x = images if rank == 4 else expand_dims(images, 0)
        try:
            size = convert_to_tensor(size, dt.int32, name="size")
        except (TypeError, ValueError):
            raise ValueError("'size' must be a 1-D int32 Tensor")
        if not size.shape.is_compatible_with([2]):
            raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
        height, width = x.shape.as_list()[1:3]
        new = constant_value_of(size)
        if preserve_aspect_ratio:
            if new is None or height is None or width is None:
                raise NotImplementedError("tinyflow: preserve_aspect_ratio needs static image and target sizes")
            f32 = np.float32
            scale = min(f32(new[0]) / f32(height), f32(new[1]) / f32(width))
            new = [int(np.round(scale * f32(height))), int(np.round(scale * f32(width)))]  # tf.round: half to even
            size = convert_to_tensor(new, dt.int32, name="size")
        # (TF's size of preserve_aspect_ratio is a computed tensor: no shortcut, the resizer's dtype)
        if not preserve_aspect_ratio and new is not None and [height, width] == [int(v) for v in new]:
            return images
        out = _RESIZERS[method](x, size, align_corners=align_corners)
        return out if rank == 4 else squeeze(out, axis=[0])


resize = resize_images


# ---- flips ----------------------------------------------------------------------------------------
def _image(image, what="image"):
    image = convert_to_tensor(image, name=what)
    rank = image.shape.ndims
    if rank is not None and rank < 3:
        raise ValueError("'%s' (shape %s) must be at least three-dimensional." % (what, image.shape))
    return image


def _flip(image, axis, name):
    with get_default_graph().name_scope(name):
        image = _image(image)
        rank = image.shape.ndims
        if rank not in (None, 3, 4):
            raise ValueError("'image' must have either 3 or 4 dimensions.")
        return reverse(image, [axis + (1 if rank == 4 else 0)])


def flip_left_right(image):
    """The image(s) mirrored along the width."""
    return _flip(image, 1, "flip_left_right")


def flip_up_down(image):
    """The image(s) mirrored along the height."""
    return _flip(image, 0, "flip_up_down")


def _random_flip(image, axis, seed, name):
    with get_default_graph().name_scope(name):
        image = _image(image)
        rank = image.shape.ndims
        if rank == 3:  # one coin for the image
            flip = M.less(random_uniform([], 0, 1.0, seed=seed), 0.5)
            return _where(flip, reverse(image, [axis]), image)
        if rank == 4:  # one coin per image of the batch (TF1 Select picks whole rows)
            flip = M.less(random_uniform(shape(image)[:1], 0, 1.0, seed=seed), 0.5)
            return _where(flip, reverse(image, [axis + 1]), image)
        raise ValueError("'image' must have either 3 or 4 dimensions.")


def random_flip_left_right(image, seed=None):
    """Mirrors the image (each image of a batch) along the width with probability 1/2."""
    return _random_flip(image, 1, seed, "random_flip_left_right")


def random_flip_up_down(image, seed=None):
    """Mirrors the image (each image of a batch) along the height with probability 1/2."""
    return _random_flip(image, 0, seed, "random_flip_up_down")


# ---- dtype and colour -----------------------------------------------------------------------------
def rgb_to_grayscale(images, name=None):
    """Luma of RGB images: [..., 3] -> [..., 1] in the same dtype."""
    with get_default_graph().name_scope(name or "rgb_to_grayscale"):
        images = convert_to_tensor(images, name="images")
        flt = convert_image_dtype(images, dt.float32)
        gray = tensordot(flt, convert_to_tensor([0.2989, 0.5870, 0.1140], dt.float32), [[-1], [-1]])
        return convert_image_dtype(expand_dims(gray, -1), images.dtype)


def per_image_standardization(image):
    """(x - mean) / max(stddev, 1/sqrt(N)) over each image's last three dimensions; computed in
    float32 (unless float16) and converted back to the input's dtype, as TF does."""
    with get_default_graph().name_scope("per_image_standardization"):
        image = _image(image)
        orig = image.dtype
        if orig not in (dt.float16, dt.float32):
            image = convert_image_dtype(image, dt.float32)
        n = M.reduce_prod(shape(image)[-3:])
        mean = M.reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
        std = M.reduce_std(image, axis=[-1, -2, -3], keepdims=True)
        std = M.maximum(std, M.rsqrt(M.cast(n, image.dtype)))  # a uniform image: no division by 0
        return convert_image_dtype(M.divide(M.subtract(image, mean), std), orig, saturate=True)


# ---- crops and pads -------------------------------------------------------------------------------
def _batched(image):
    """(image as 4-D, whether it was 4-D); ValueError for other ranks."""
    image = convert_to_tensor(image, name="image")
    rank = image.shape.ndims
    if rank == 3:
        return expand_dims(image, 0), False
    if rank == 4:
        return image, True
    raise ValueError("'image' must have either 3 or 4 dimensions." if rank is not None else
                     "tinyflow: the image needs a known rank")


def _dims(image):
    """[batch, height, width, depth]: Python ints where static, else scalar int32 tensors."""
    static, dynamic = image.shape.as_list(), None
    out = []
    for i, d in enumerate(static):
        if d is None:
            dynamic = shape(image) if dynamic is None else dynamic
            d = dynamic[i]
        out.append(d)
    return out


def _vec(values):
    """A list of Python ints stays a list (a constant: shapes stay static); with tensors, a stack."""
    return stack(values) if any(isinstance(v, Tensor) for v in values) else [int(v) for v in values]


def _check(ok, message):
    """TF's _assert: a condition on Python values raises ValueError now; one on tensors is left to
    the slice/pad op, which fails with its own message when it runs."""
    if not isinstance(ok, Tensor) and not ok:
        raise ValueError(message)


def _unbatch(x, was_batch):
    return x if was_batch else squeeze(x, axis=[0])


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The [target_height, target_width] window at (offset_height, offset_width)."""
    with get_default_graph().name_scope("crop_to_bounding_box"):
        x, is_batch = _batched(image)
        _, height, width, _ = _dims(x)
        _check(offset_width >= 0, "offset_width must be >= 0.")
        _check(offset_height >= 0, "offset_height must be >= 0.")
        _check(target_width > 0, "target_width must be > 0.")
        _check(target_height > 0, "target_height must be > 0.")
        _check(width >= target_width + offset_width, "width must be >= target + offset.")
        _check(height >= target_height + offset_height, "height must be >= target + offset.")
        out = _slice(x, _vec([0, offset_height, offset_width, 0]), _vec([-1, target_height, target_width, -1]))
        return _unbatch(out, is_batch)


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The image placed at (offset_height, offset_width) in zeros of [target_height, target_width]."""
    with get_default_graph().name_scope("pad_to_bounding_box"):
        x, is_batch = _batched(image)
        _, height, width, _ = _dims(x)
        after_w = target_width - offset_width - width
        after_h = target_height - offset_height - height
        _check(offset_height >= 0, "offset_height must be >= 0")
        _check(offset_width >= 0, "offset_width must be >= 0")
        _check(after_w >= 0, "width must be <= target - offset")
        _check(after_h >= 0, "height must be <= target - offset")
        paddings = reshape(_vec([0, 0, offset_height, after_h, offset_width, after_w, 0, 0]), [4, 2])
        return _unbatch(pad(x, paddings), is_batch)


def _max(a, b):
    return M.maximum(a, b) if isinstance(a, Tensor) or isinstance(b, Tensor) else max(a, b)


def _min(a, b):
    return M.minimum(a, b) if isinstance(a, Tensor) or isinstance(b, Tensor) else min(a, b)


def resize_image_with_crop_or_pad(image, target_height, target_width):
    """Centrally crops or zero-pads the image(s) to [target_height, target_width]."""
    with get_default_graph().name_scope("resize_image_with_crop_or_pad"):
        x, is_batch = _batched(image)
        _check(target_width > 0, "target_width must be > 0.")
        _check(target_height > 0, "target_height must be > 0.")
        _, height, width, _ = _dims(x)
        width_diff, height_diff = target_width - width, target_height - height
        cropped = crop_to_bounding_box(x, _max(-height_diff // 2, 0), _max(-width_diff // 2, 0),
                                       _min(target_height, height), _min(target_width, width))
        out = pad_to_bounding_box(cropped, _max(height_diff // 2, 0), _max(width_diff // 2, 0),
                                  target_height, target_width)
        return _unbatch(out, is_batch)


def central_crop(image, central_fraction):
    """The central `central_fraction` (in (0, 1]) of the image(s) along height and width."""
    with get_default_graph().name_scope("central_crop"):
        image = convert_to_tensor(image, name="image")
        if central_fraction <= 0.0 or central_fraction > 1.0:
            raise ValueError("central_fraction must be within (0, 1]")
        if central_fraction == 1.0:
            return image
        x, is_batch = _batched(image)
        _, h, w, _ = _dims(x)

        def start(d):  # truncation, as TF's cast to int32
            if isinstance(d, Tensor):
                df = M.cast(d, dt.float64)
                return M.cast((df - df * central_fraction) / 2, dt.int32)
            return int((float(d) - float(d) * central_fraction) / 2)

        h0, w0 = start(h), start(w)
        out = _slice(x, _vec([0, h0, w0, 0]), _vec([-1, h - h0 * 2, w - w0 * 2, -1]))
        return _unbatch(out, is_batch)


def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold=0.5,
                                 score_threshold=float("-inf"), pad_per_class=False, clip_boxes=True, name=None):
    """Greedy non-max suppression per batch and class (boxes [batch, n, q, 4], q = 1 or classes; scores
    [batch, n, classes]), then the best max_total_size over all classes: (nmsed_boxes, nmsed_scores,
    nmsed_classes, valid_detections), padded with zeros."""
    from tinyflow.ops.core.array_ops import concat, fill, zeros_like
    from tinyflow.ops.core.indexing_ops import gather
    from tinyflow.ops.core.sequence_ops import range as _range, top_k
    with get_default_graph().name_scope(name or "combined_non_max_suppression"):
        boxes, scores = convert_to_tensor(boxes, name="boxes"), convert_to_tensor(scores, name="scores")
        (b, n, q, _), classes = boxes.shape.as_list(), scores.shape.as_list()[2]
        if None in (b, n, q, classes):
            raise ValueError("tinyflow: combined_non_max_suppression needs static batch, box and class counts, got "
                             "boxes %s and scores %s" % (boxes.shape, scores.shape))
        per_class = int(max_output_size_per_class)
        total = int(max_total_size) if not pad_per_class else min(int(max_total_size), per_class * classes)
        outs = []
        for i in range(b):
            cand_boxes, cand_scores, cand_classes = [], [], []
            for c in range(classes):
                bx, sc = boxes[i, :, c if q > 1 else 0], scores[i, :, c]
                idx, count = non_max_suppression_padded(bx, sc, per_class, iou_threshold, score_threshold,
                                                        pad_to_max_output_size=True)
                keep = M.less(_range(per_class), count)
                cand_boxes.append(gather(bx, idx))
                cand_scores.append(_where(keep, gather(sc, idx), fill([per_class], float("-inf"))))
                cand_classes.append(fill([per_class], float(c)))
            all_scores = concat(cand_scores, 0)
            best, order = top_k(all_scores, min(total, per_class * classes))
            valid = M.reduce_sum(M.cast(M.greater(best, float("-inf")), dt.int32))
            kept = M.greater(best, float("-inf"))
            zero = zeros_like(best)
            picked = gather(concat(cand_boxes, 0), order)
            picked = M.clip_by_value(picked, 0.0, 1.0) if clip_boxes else picked
            row = [_where(stack([kept] * 4, axis=1), picked, zeros_like(picked)), _where(kept, best, zero),
                   _where(kept, gather(concat(cand_classes, 0), order), zero), valid]
            if total > per_class * classes:   # fewer candidates than outputs: pad with zeros
                extra = total - per_class * classes
                row[:3] = [pad(t, [[0, extra]] + [[0, 0]] * (t.shape.ndims - 1)) for t in row[:3]]
            outs.append(row)
        return tuple(stack([o[k] for o in outs]) for k in range(4))


__all__ += ["combined_non_max_suppression"]


from tinyflow.api.image_more import (extract_glimpse, extract_patches, is_jpeg,  # noqa: E402,F401
                                     non_max_suppression_overlaps, non_max_suppression_with_scores, sobel_edges)


# ---- issue 37: TF 1.15's newer spellings, resize with padding, JPEG quality ---------------------------------
from tinyflow.api.image_adjust import transpose_image as transpose  # noqa: E402,F401 (TF 1.15's newer spellings)
resize_with_crop_or_pad = resize_image_with_crop_or_pad


def resize_image_with_pad(image, target_height, target_width, method=0, align_corners=False):
    """The image resized to fit target_height x target_width keeping its aspect ratio, then zero-padded
    (centered) to exactly that size, as TF 1.15 computes the sizes."""
    with get_default_graph().name_scope("resize_image_with_pad"):
        x = convert_to_tensor(image, name="image")
        squeeze = x.shape.ndims == 3
        if squeeze:
            x = expand_dims(x, 0)
        h, w = x.shape[1].value, x.shape[2].value
        if h is None or w is None:
            raise ValueError("tinyflow's resize_image_with_pad needs the image size known")
        f = np.float32   # TF computes the sizes in float32
        ratio = max(f(w) / f(target_width), f(h) / f(target_height))
        rh_f, rw_f = f(h) / ratio, f(w) / ratio
        rh, rw = int(np.floor(rh_f)), int(np.floor(rw_f))
        pad_h = max(0, int(np.floor((f(target_height) - rh_f) / f(2))))   # from the unrounded sizes, as TF
        pad_w = max(0, int(np.floor((f(target_width) - rw_f) / f(2))))
        resized = resize_images(x, [rh, rw], method, align_corners)
        out = pad_to_bounding_box(resized, pad_h, pad_w, target_height, target_width)
        return out[0] if squeeze else out


def adjust_jpeg_quality(image, jpeg_quality, name=None):
    """The image encoded as a JPEG of jpeg_quality (0-100) and decoded back, in its own dtype (the codec's
    artifacts are the host's libjpeg's)."""
    from tinyflow.ops.image_codec_ops import decode_jpeg, encode_jpeg
    with get_default_graph().name_scope(name or "adjust_jpeg_quality"):
        x = convert_to_tensor(image, name="image")
        q = constant_value_of(convert_to_tensor(jpeg_quality))
        if q is None:
            raise ValueError("tinyflow's adjust_jpeg_quality needs jpeg_quality known when the graph is built")
        u8 = convert_image_dtype(x, dt.uint8)
        back = decode_jpeg(encode_jpeg(u8, quality=int(q)), channels=x.shape[-1].value or 0)
        back.set_shape(x.shape)
        return convert_image_dtype(back, x.dtype)


def random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed=None):
    """adjust_jpeg_quality with a quality drawn from [min, max) for this graph (TF draws it per run)."""
    rng = np.random.RandomState(seed)
    if not 0 <= min_jpeg_quality < max_jpeg_quality <= 100:
        raise ValueError("jpeg_quality must be in [0, 100] and min < max")
    return adjust_jpeg_quality(image, int(rng.randint(min_jpeg_quality, max_jpeg_quality)))


