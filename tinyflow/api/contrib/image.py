"""tf.contrib.image (TF 1.15): transform (ImageProjectiveTransformV2: each output pixel (x, y) reads the
input at ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k), k = c0 x + c1 y + 1, by NEAREST (rounded half
away from zero) or BILINEAR interpolation, zeros outside the image), rotate and translate as transforms.
Images are [batch, height, width, channels] (or one [height, width, channels]) of static height and width."""
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.ops.core import array_ops, math_ops
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.core.indexing_ops import gather
from tinyflow.ops.core.sequence_ops import range as _range

__all__ = ["angles_to_projective_transforms", "rotate", "transform", "translate",
           "translations_to_projective_transforms"]


def _as_batch(images):
    images = convert_to_tensor(images)
    if images.shape.ndims == 3:
        return array_ops.expand_dims(images, 0), True
    if images.shape.ndims != 4:
        raise ValueError("rank of images must be 3 or 4 (images: %s)" % images.shape)
    return images, False


def transform(images, transforms, interpolation="NEAREST", output_shape=None, name=None):
    """Applies projective transforms ([8] or [batch, 8]: output point -> input point) to images."""
    if interpolation not in ("NEAREST", "BILINEAR"):
        raise ValueError("Invalid interpolation %r: NEAREST or BILINEAR" % (interpolation,))
    if output_shape is not None:
        raise NotImplementedError("tinyflow: tf.contrib.image.transform(output_shape=...) is not supported")
    images, single = _as_batch(images)
    _, height, width, channels = images.shape.as_list()
    if height is None or width is None or channels is None:
        raise ValueError("tf.contrib.image needs images of static height, width and channels, got %s" % images.shape)
    dtype = images.dtype
    t = math_ops.cast(convert_to_tensor(transforms), dt.float32)
    if t.shape.ndims == 1:
        t = array_ops.expand_dims(t, 0)
    if t.shape.ndims != 2 or t.shape.as_list()[1] != 8:
        raise ValueError("transforms must have shape [8] or [batch, 8], got %s" % t.shape)
    ys, xs = np.meshgrid(np.arange(height, dtype=np.float32), np.arange(width, dtype=np.float32), indexing="ij")
    xs, ys = convert_to_tensor(xs.reshape(1, -1)), convert_to_tensor(ys.reshape(1, -1))   # [1, H*W]

    def col(i):
        return t[:, i:i + 1]                                                              # [B, 1]
    k = col(6) * xs + col(7) * ys + 1.0
    in_x = (col(0) * xs + col(1) * ys + col(2)) / k
    in_y = (col(3) * xs + col(4) * ys + col(5)) / k                                       # [B, H*W]
    flat = array_ops.reshape(math_ops.cast(images, dt.float32), [-1, channels])         # [B*H*W, C]
    offsets = array_ops.reshape(math_ops.cast(_range(0, array_ops.shape(images)[0]), dt.float32)
                                * float(height * width), [-1, 1])

    def read(y, x):
        """images[b, y, x] (0 outside), y and x whole-number floats [B, H*W] -> [B, H*W, C]."""
        inside = math_ops.logical_and(math_ops.logical_and(math_ops.greater_equal(y, 0.0), math_ops.less(y, height)),
                                      math_ops.logical_and(math_ops.greater_equal(x, 0.0), math_ops.less(x, width)))
        index = offsets + math_ops.minimum(math_ops.maximum(y, 0.0), height - 1.0) * width + \
            math_ops.minimum(math_ops.maximum(x, 0.0), width - 1.0)
        values = gather(flat, math_ops.cast(index, dt.int32))
        return values * array_ops.expand_dims(math_ops.cast(inside, dt.float32), -1)

    if interpolation == "NEAREST":
        def round_half_away(v):
            return math_ops.sign(v) * math_ops.floor(math_ops.abs(v) + 0.5)
        out = read(round_half_away(in_y), round_half_away(in_x))
    else:
        y0, x0 = math_ops.floor(in_y), math_ops.floor(in_x)
        wy, wx = array_ops.expand_dims(in_y - y0, -1), array_ops.expand_dims(in_x - x0, -1)
        top = (1.0 - wx) * read(y0, x0) + wx * read(y0, x0 + 1.0)
        bottom = (1.0 - wx) * read(y0 + 1.0, x0) + wx * read(y0 + 1.0, x0 + 1.0)
        out = (1.0 - wy) * top + wy * bottom
    out = math_ops.cast(array_ops.reshape(out, [-1, height, width, channels]), dtype)
    return out[0] if single else out


def angles_to_projective_transforms(angles, image_height, image_width, name=None):
    """[batch, 8] transforms rotating images counterclockwise by angles (radians) about their centres."""
    angles = math_ops.cast(convert_to_tensor(angles), dt.float32)
    if angles.shape.ndims == 0:
        angles = array_ops.reshape(angles, [1])
    h, w = float(image_height) - 1.0, float(image_width) - 1.0
    cos, sin = math_ops.cos(angles), math_ops.sin(angles)
    x_offset = (w - (cos * w - sin * h)) / 2.0
    y_offset = (h - (sin * w + cos * h)) / 2.0
    zeros = array_ops.zeros_like(angles)
    return array_ops.stack([cos, -sin, x_offset, sin, cos, y_offset, zeros, zeros], axis=1)


def translations_to_projective_transforms(translations, name=None):
    """[batch, 8] transforms translating images by [dx, dy] (or [batch, 2])."""
    t = math_ops.cast(convert_to_tensor(translations), dt.float32)
    if t.shape.ndims == 1:
        t = array_ops.expand_dims(t, 0)
    ones, zeros = array_ops.ones_like(t[:, 0]), array_ops.zeros_like(t[:, 0])
    return array_ops.stack([ones, zeros, -t[:, 0], zeros, ones, -t[:, 1], zeros, zeros], axis=1)


def rotate(images, angles, interpolation="NEAREST", name=None):
    """Rotates images counterclockwise by angles (radians; a scalar or one per image)."""
    batch, _ = _as_batch(images)
    height, width = batch.shape.as_list()[1:3]
    return transform(images, angles_to_projective_transforms(angles, height, width), interpolation)


def translate(images, translations, interpolation="NEAREST", name=None):
    """Translates images by [dx, dy] (or one per image)."""
    return transform(images, translations_to_projective_transforms(translations), interpolation)

