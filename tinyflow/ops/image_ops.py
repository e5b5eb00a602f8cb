"""Image kernels: ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic and their gradients, ResizeArea;
SampleDistortedBoundingBoxV2, ExtractGlimpse.
Everything else in tf.image (tinyflow/image.py) is built from existing graph ops.

Each resize samples the input at TF's source coordinates: TF 1.x's legacy `in = out * scale`
(half_pixel_centers=False, the default) or `(out + 0.5) * scale - 0.5`, with scale = in / out
((in - 1) / (out - 1) with align_corners), all in float32 as TF's kernels compute them. Every
resize is linear and separable, so it is one interpolation matrix per spatial axis (built with numpy
while tracing; sizes are static): out = Wh . image . Ww^T, and its gradient is the transpose,
Wh^T . grad . Ww. Nearest neighbour is a gather in the forward direction, to keep its dtype exact.
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import ShapeError
from tinyflow.graph.registry import register_op, same_as_input
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core.array_ops import reshape, shape
from tinyflow.ops.core.base import constant_value_of, convert_to_tensor, make_op
from tinyflow.ops.core.indexing_ops import slice as slice_op
from tinyflow.ops.core.util import ints, name_scope
from tinyflow.ops.random_ops import _key, _seed_attrs

_TABLE = 1024  # TF's bicubic kernel reads its weights from a table of 1024 + 1 steps


def _scale(n_in, n_out, align):
    """TF's CalculateResizeScale, in float32."""
    if align and n_out > 1:
        return np.float32(n_in - 1) / np.float32(n_out - 1)
    return np.float32(n_in) / np.float32(n_out)


def _source(n_in, n_out, align, half, nearest=False):
    """The float32 source coordinate of each output index (TF's Legacy / HalfPixel scalers)."""
    x, s = np.arange(n_out, dtype=np.float32), _scale(n_in, n_out, align)
    if not half:
        return x * s
    return (x + np.float32(0.5)) * s if nearest else (x + np.float32(0.5)) * s - np.float32(0.5)


def _bilinear_weights(n_in, n_out, align, half):
    src = _source(n_in, n_out, align, half)
    lo_f = np.floor(src)
    lo = np.maximum(lo_f.astype(np.int64), 0)
    hi = np.minimum(np.ceil(src).astype(np.int64), n_in - 1)
    lerp = (src - lo_f).astype(np.float32)
    w = np.zeros((n_out, n_in), np.float32)
    np.add.at(w, (np.arange(n_out), lo), 1 - lerp)
    np.add.at(w, (np.arange(n_out), hi), lerp)
    return w


def _nearest_index(n_in, n_out, align, half):
    src = _source(n_in, n_out, align, half, nearest=True)
    idx = np.floor(src + np.float32(0.5)) if align else np.floor(src)  # roundf: half away from zero
    idx = np.minimum(idx.astype(np.int64), n_in - 1)
    return np.maximum(idx, 0)


def _cubic_table(a):
    x = np.arange(_TABLE + 1) / _TABLE
    near = ((a + 2) * x - (a + 3)) * x * x + 1          # |t| <= 1
    far = ((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a  # 1 < |t| <= 2
    return near.astype(np.float32), far.astype(np.float32)


def _bicubic_weights(n_in, n_out, align, half):
    """TF's GetWeightsAndIndices: Keys' kernel with a = -0.75 (legacy, taps clamped to the border)
    or a = -0.5 with out-of-image taps dropped and the rest renormalised (half_pixel_centers)."""
    near, far = _cubic_table(-0.5 if half else -0.75)
    src = _source(n_in, n_out, align, half)
    base = np.floor(src).astype(np.int64)
    offset = np.rint((src - base) * _TABLE).astype(np.int64)  # lrintf: the table step
    taps = [far[offset], near[offset], near[_TABLE - offset], far[_TABLE - offset]]
    w = np.zeros((n_out, n_in), np.float32)
    for k, tap in enumerate(taps):
        want = base - 1 + k
        idx = np.clip(want, 0, n_in - 1)
        if half:
            tap = np.where(idx == want, tap, np.float32(0))
        np.add.at(w, (np.arange(n_out), idx), tap)
    if half:
        total = w.sum(1, keepdims=True)
        w = np.where(np.abs(total) >= 1000 * np.finfo(np.float32).tiny, w / total, w).astype(np.float32)
    return w


def _area_weights(n_in, n_out, align, half):
    """TF's ResizeArea: output cell [o * scale, (o + 1) * scale) averages the input cells it covers,
    each weighted by the length it covers (float32, TF's arithmetic; the 1/scale of the mean here)."""
    s = _scale(n_in, n_out, align)
    w = np.zeros((n_out, n_in), np.float32)
    for o in range(n_out):
        lo, hi = np.float32(o) * s, np.float32(o + 1) * s
        for i in range(int(np.floor(lo)), int(np.ceil(hi))):
            if i < lo:
                part = s if i + 1 > hi else np.float32(i + 1) - lo
            else:
                part = hi - np.float32(i) if i + 1 > hi else np.float32(1)
            w[o, min(i, n_in - 1)] += part
    return (w / s).astype(np.float32)


_WEIGHTS = {"ResizeBilinear": _bilinear_weights, "ResizeBicubic": _bicubic_weights, "ResizeArea": _area_weights}


def _matrices(op_type, a, in_hw, out_hw):
    if op_type == "ResizeNearestNeighbor":
        return [np.eye(n_in, dtype=np.float32)[_nearest_index(n_in, n_out, a["align_corners"],
                                                               a["half_pixel_centers"])]
                for n_in, n_out in zip(in_hw, out_hw)]
    return [_WEIGHTS[op_type](n_in, n_out, a["align_corners"], a["half_pixel_centers"])
            for n_in, n_out in zip(in_hw, out_hw)]


def _apply(wh, x, ww, dtype):
    # HIGHEST: a GPU would otherwise run this float32 product in TF32
    out = jnp.einsum("oh,nhwc,pw->nopc", wh.astype(dtype), x.astype(dtype), ww.astype(dtype),
                     precision=lax.Precision.HIGHEST)
    return out.astype(dtype)


def _resize_lower(op_type):
    def lower(a, x, size):
        out_hw = ints(size)
        if op_type == "ResizeNearestNeighbor":
            hi, wi = (_nearest_index(n_in, n_out, a["align_corners"], a["half_pixel_centers"])
                      for n_in, n_out in zip(x.shape[1:3], out_hw))
            return jnp.take(jnp.take(x, hi, axis=1), wi, axis=2)
        wh, ww = _matrices(op_type, a, x.shape[1:3], out_hw)
        return _apply(wh, x, ww, np.float32)
    return lower


def _resize_grad_lower(op_type):
    def lower(a, g, original):
        wh, ww = _matrices(op_type, a, original.shape[1:3], g.shape[1:3])
        return _apply(wh.T, g, ww.T, original.dtype)
    return lower


def _resize_shape(shapes, attrs, values):
    x, size = shapes[0], values[1]
    if x.ndims is not None and x.ndims != 4:
        raise ShapeError("input must be 4-dimensional, got shape %s" % x.as_proto_str())
    if shapes[1].ndims is not None and not shapes[1].is_compatible_with([2]):
        raise ShapeError("size must be 1-dimensional with 2 elements, got shape %s" % shapes[1].as_proto_str())
    hw = [None, None] if size is None else ints(size)
    if any(d is not None and d <= 0 for d in hw):
        raise ShapeError("output dimensions must be positive, got %s" % hw)
    d = x.as_list() if x.ndims is not None else [None] * 4
    return [TensorShape([d[0]] + hw + [d[3]])]


def _resize_dtype(op_type):
    def rule(dtypes, attrs):
        if not (dtypes[0].is_floating or dtypes[0].is_integer):
            raise TypeError("Value passed to parameter 'images' has DataType %s not in list of allowed values"
                            % dtypes[0].name)
        # bilinear and bicubic always give float32 (TF's kernels); nearest keeps the dtype
        return [dtypes[0] if op_type == "ResizeNearestNeighbor" else dt.float32]
    return rule


def _no_gradient(op, g):
    raise LookupError("No gradient defined for operation '%s' (op type: %s)" % (op.name, op.type))


def _register(op_type):
    grad_type = op_type + "Grad"

    def grad(op, g):
        return [make_op(grad_type, [g, op.inputs[0]], op.attrs), None]

    def grad_grad(op, gg):  # the gradient op is linear in its first input: its own gradient is the resize
        return [make_op(op_type, [gg, shape(op.inputs[0])[1:3]], op.attrs), None]

    if op_type == "ResizeArea":   # TF 1.15 defines no gradient for it
        register_op(op_type, shape=_resize_shape, dtype=_resize_dtype(op_type), grad=_no_gradient,
                    lower=_resize_lower(op_type))
        return
    register_op(op_type, shape=_resize_shape, dtype=_resize_dtype(op_type), grad=grad, lower=_resize_lower(op_type))
    register_op(grad_type, shape=lambda s, a, v: [s[1]], dtype=same_as_input(1), grad=grad_grad,
                lower=_resize_grad_lower(op_type))


for _t in ("ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic", "ResizeArea"):
    _register(_t)


def resize(op_type, images, size, align_corners=False, half_pixel_centers=False, name=None):
    """The resize op `op_type` on a 4-D NHWC batch to `size` = [new_height, new_width]."""
    if align_corners and half_pixel_centers:
        from tinyflow.graph.errors import InvalidArgumentError
        raise InvalidArgumentError(None, None, "If half_pixel_centers is True, align_corners must be False.")
    with name_scope(name or op_type) as scope:
        x = convert_to_tensor(images, name="images")
        size = convert_to_tensor(size, dtype=dt.int32, name="size")
        return make_op(op_type, [x, size], {"align_corners": bool(align_corners),
                                            "half_pixel_centers": bool(half_pixel_centers)}, name=scope)


# ---- SampleDistortedBoundingBoxV2: TF's kernel, its max_attempts tries drawn at once --------------------
def _sdbb_lower(attrs, key, image_size, boxes, min_covered):
    """TF's GenerateRandomCrop + SatisfiesOverlapConstraints for every attempt at once; the first
    attempt that gives a crop covering enough of some box wins, else the whole image."""
    n = int(attrs["max_attempts"])
    k_aspect, k_height, k_y, k_x = jax.random.split(_key(attrs, key), 4)
    h_img, w_img = image_size[0].astype(jnp.int32), image_size[1].astype(jnp.int32)
    hf, wf = h_img.astype(jnp.float32), w_img.astype(jnp.float32)
    lo_a, hi_a = (np.float32(v) for v in attrs["aspect_ratio_range"])
    aspect = jax.random.uniform(k_aspect, (n,), jnp.float32) * (hi_a - lo_a) + lo_a
    min_area = np.float32(attrs["area_range"][0]) * wf * hf
    max_area = np.float32(attrs["area_range"][1]) * wf * hf
    rint = lambda v: jnp.round(v).astype(jnp.int32)   # lrintf: round half to even, as jnp.round
    height = rint(jnp.sqrt(min_area / aspect))
    max_h = rint(jnp.sqrt(max_area / aspect))
    max_h = jnp.where(rint(max_h * aspect) > w_img, ((wf + 0.5 - 1e-7) / aspect).astype(jnp.int32), max_h)
    max_h = jnp.minimum(max_h, h_img)
    height = jnp.minimum(height, max_h)
    extra = jnp.floor(jax.random.uniform(k_height, (n,)) * (max_h - height + 1).astype(jnp.float32))
    height = height + jnp.where(height < max_h, extra.astype(jnp.int32), 0)
    width = rint(height * aspect)
    area = (width * height).astype(jnp.float32)
    height = jnp.where(area < min_area, height + 1, height)
    width = rint(height * aspect)
    area2 = (width * height).astype(jnp.float32)
    ok = area2 >= min_area
    over = area2 > max_area
    height = jnp.where(over, height - 1, height)
    width = rint(height * aspect)
    area = (width * height).astype(jnp.float32)
    ok &= (area >= min_area) & (area <= max_area) & (width <= w_img) & (height <= h_img) & (width > 0) & (height > 0)
    y = jnp.where(height < h_img, jnp.floor(jax.random.uniform(k_y, (n,)) * (h_img - height)), 0).astype(jnp.int32)
    x = jnp.where(width < w_img, jnp.floor(jax.random.uniform(k_x, (n,)) * (w_img - width)), 0).astype(jnp.int32)
    b = boxes.reshape(-1, 4).astype(jnp.float32)
    if b.shape[0] == 0:   # no boxes: the whole image (use_image_if_no_bounding_boxes, checked when built)
        b = jnp.array([[0.0, 0.0, 1.0, 1.0]], jnp.float32)
    by0, bx0 = (b[:, 0] * hf).astype(jnp.int32), (b[:, 1] * wf).astype(jnp.int32)
    by1, bx1 = (b[:, 2] * hf).astype(jnp.int32), (b[:, 3] * wf).astype(jnp.int32)
    ix = jnp.maximum(0, jnp.minimum(x[:, None] + width[:, None], bx1) - jnp.maximum(x[:, None], bx0))
    iy = jnp.maximum(0, jnp.minimum(y[:, None] + height[:, None], by1) - jnp.maximum(y[:, None], by0))
    box_area = ((bx1 - bx0) * (by1 - by0)).astype(jnp.float32)
    covered = (box_area > 0) & ((ix * iy).astype(jnp.float32) / jnp.where(box_area > 0, box_area, 1.0)
                                >= min_covered.astype(jnp.float32))
    good = ok & jnp.any(covered, axis=1)
    first = jnp.argmax(good)
    found = jnp.any(good)
    y0, x0 = jnp.where(found, y[first], 0), jnp.where(found, x[first], 0)
    hh, ww = jnp.where(found, height[first], h_img), jnp.where(found, width[first], w_img)
    out_t = image_size.dtype
    begin = jnp.stack([y0, x0, 0]).astype(out_t)
    size = jnp.stack([hh, ww, -1]).astype(out_t)
    bbox = jnp.stack([y0 / hf, x0 / wf, (y0 + hh) / hf, (x0 + ww) / wf]).astype(jnp.float32).reshape(1, 1, 4)
    return begin, size, bbox


register_op("SampleDistortedBoundingBoxV2",
            shape=lambda s, a, v: [TensorShape([3]), TensorShape([3]), TensorShape([1, 1, 4])],
            dtype=lambda d, a: [d[0], d[0], dt.float32], grad=None, needs_key=True, lower=_sdbb_lower)


def sample_distorted_bounding_box(image_size, bounding_boxes, seed=None, seed2=None, min_object_covered=0.1,
                                  aspect_ratio_range=None, area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None, name=None):
    """A random crop of an image of `image_size` ([height, width, channels]) covering at least
    `min_object_covered` of one of `bounding_boxes` ([batch, N, 4] of [y_min, x_min, y_max, x_max]
    in [0, 1]): (begin, size, bboxes) for tf.slice and draw_bounding_boxes."""
    with name_scope(name or "sample_distorted_bounding_box") as scope:
        size = convert_to_tensor(image_size, name="image_size")
        boxes = convert_to_tensor(bounding_boxes, dtype=dt.float32, name="bounding_boxes")
        if boxes.shape.ndims is not None and boxes.shape.ndims != 3 or boxes.shape[-1].value not in (None, 4):
            raise ValueError("bounding_boxes must be 3-dimensional [batch, num_boxes, 4], got %s" % boxes.shape)
        if boxes.shape.num_elements() == 0 and not use_image_if_no_bounding_boxes:
            raise ValueError("No bounding boxes provided as input. One must enable "
                             "use_image_if_no_bounding_boxes if you wish to not provide any bounding boxes.")
        cover = convert_to_tensor(min_object_covered, dtype=dt.float32, name="min_object_covered")
        attrs = dict(_seed_attrs(seed) if seed2 is None else {"seed": seed or 0, "seed2": seed2},
                     aspect_ratio_range=[float(v) for v in (aspect_ratio_range or [0.75, 1.33])],
                     area_range=[float(v) for v in (area_range or [0.05, 1.0])],
                     max_attempts=int(max_attempts or 100),
                     use_image_if_no_bounding_boxes=bool(use_image_if_no_bounding_boxes))
        if attrs["max_attempts"] <= 0:
            raise ValueError("max_attempts must be > 0, got %d" % attrs["max_attempts"])
        return tuple(make_op("SampleDistortedBoundingBoxV2", [size, boxes, cover], attrs, name=scope))


# ---- CropAndResize: TF's kernel (bilinear or nearest samples of boxes), gradients through jax.vjp ----------
def _crop_and_resize(image, boxes, ind, crop, method, extrapolation, ratio_form=False):
    """[num_boxes, crop_h, crop_w, depth] float32 samples, computed as TF's CropAndResize kernel does
    (ratio_form: the step as TF's box-gradient kernel computes it, (hi - lo) * ((size - 1) / (n - 1)),
    which can differ in the last bit and so in which pixels a coordinate falls between)."""
    h, w = image.shape[1], image.shape[2]
    image = image.astype(jnp.float32)[ind]
    boxes = boxes.astype(jnp.float32)

    def coords(lo, hi, n, size):
        if n > 1:
            scale = ((hi - lo) * (np.float32(size - 1) / np.float32(n - 1)) if ratio_form
                     else (hi - lo) * np.float32(size - 1) / np.float32(n - 1))
            at = lo[:, None] * np.float32(size - 1) + jnp.arange(n, dtype=jnp.float32)[None, :] * scale[:, None]
        else:
            at = (np.float32(0.5) * (lo + hi) * np.float32(size - 1))[:, None]
        return at, (at >= 0) & (at <= size - 1)
    in_y, ok_y = coords(boxes[:, 0], boxes[:, 2], crop[0], h)
    in_x, ok_x = coords(boxes[:, 1], boxes[:, 3], crop[1], w)
    rows = jnp.arange(image.shape[0])[:, None, None]

    def at(iy, ix):
        iy = jnp.clip(iy, 0, h - 1).astype(jnp.int32)[:, :, None]
        ix = jnp.clip(ix, 0, w - 1).astype(jnp.int32)[:, None, :]
        return image[rows, iy, ix]
    if method == "nearest":
        out = at(jnp.floor(in_y + 0.5), jnp.floor(in_x + 0.5))   # roundf on coordinates >= 0
    else:
        top, left = jnp.floor(in_y), jnp.floor(in_x)
        y_lerp, x_lerp = (in_y - top)[:, :, None, None], (in_x - left)[:, None, :, None]
        bottom, right = jnp.ceil(in_y), jnp.ceil(in_x)
        upper = at(top, left) + (at(top, right) - at(top, left)) * x_lerp
        lower = at(bottom, left) + (at(bottom, right) - at(bottom, left)) * x_lerp
        out = upper + (lower - upper) * y_lerp
    inside = ok_y[:, :, None, None] & ok_x[:, None, :, None]
    return jnp.where(inside, out, np.float32(extrapolation))


def _crop_attrs(a):
    return a["method"], a["extrapolation_value"]


def _crop_shape(shapes, attrs, values):
    image, boxes, crop = shapes[0], shapes[1], values[3]
    if image.ndims is not None and image.ndims != 4:
        raise ShapeError("input image must be 4-D, got shape %s" % image.as_proto_str())
    if boxes.ndims is not None and not boxes.is_compatible_with([None, 4]):
        raise ShapeError("boxes must be 2-D [num_boxes, 4], got shape %s" % boxes.as_proto_str())
    hw = [None, None] if crop is None else ints(crop)
    if any(d is not None and d <= 0 for d in hw):
        raise ShapeError("crop dimensions must be positive")
    depth = image[3].value if image.ndims is not None else None
    return [TensorShape([boxes[0].value if boxes.ndims else None] + hw + [depth])]


def _crop_lower(a, image, boxes, ind, crop):
    return _crop_and_resize(image, boxes, ind, ints(crop), *_crop_attrs(a))


def _crop_grad(op, g):
    image, boxes, ind, crop = op.inputs
    gi = make_op("CropAndResizeGradImage", [g, boxes, ind, shape(image)],
                 dict(op.attrs, T=image.dtype)) if op.attrs["method"] == "bilinear" else None
    gb = make_op("CropAndResizeGradBoxes", [g, image, boxes, ind], dict(op.attrs))
    return [gi, gb, None, None]


def _grad_image_lower(a, g, boxes, ind, image_size):
    size = ints(image_size)
    zeros = jnp.zeros(size, jnp.float32)
    _, vjp = jax.vjp(lambda im: _crop_and_resize(im, boxes, ind, g.shape[1:3], *_crop_attrs(a)), zeros)
    return vjp(g.astype(jnp.float32))[0].astype(a["T"].np)


def _grad_boxes_lower(a, g, image, boxes, ind):
    _, vjp = jax.vjp(lambda b: _crop_and_resize(image, b, ind, g.shape[1:3], *_crop_attrs(a), ratio_form=True),
                     boxes)
    return vjp(g.astype(jnp.float32))[0].astype(boxes.dtype)


register_op("CropAndResize", shape=_crop_shape, dtype=lambda d, a: [dt.float32], grad=_crop_grad, lower=_crop_lower)
register_op("CropAndResizeGradImage", shape=lambda s, a, v: [TensorShape(None if v[3] is None else ints(v[3]))],
            dtype=lambda d, a: [a["T"]], grad=None, lower=_grad_image_lower)
register_op("CropAndResizeGradBoxes", shape=lambda s, a, v: [s[2]], dtype=same_as_input(2), grad=None,
            lower=_grad_boxes_lower)


def crop_and_resize(image, boxes, box_ind=None, crop_size=None, method="bilinear", extrapolation_value=0.0,
                    name=None, box_indices=None):
    """Crops boxes ([num_boxes, 4] of normalized [y1, x1, y2, x2]; y1 > y2 flips) out of the images
    `box_ind` names and resizes each to `crop_size` = [crop_height, crop_width]: float32
    [num_boxes, crop_height, crop_width, depth]; samples outside the image are extrapolation_value."""
    if method not in ("bilinear", "nearest"):
        raise ValueError("method must be 'bilinear' or 'nearest', got %r" % method)
    with name_scope(name or "CropAndResize") as scope:
        ind = box_ind if box_ind is not None else box_indices
        inputs = [convert_to_tensor(image, name="image"), convert_to_tensor(boxes, dtype=dt.float32, name="boxes"),
                  convert_to_tensor(ind, dtype=dt.int32, name="box_ind"),
                  convert_to_tensor(crop_size, dtype=dt.int32, name="crop_size")]
        return make_op("CropAndResize", inputs, {"method": method, "extrapolation_value": float(extrapolation_value)},
                       name=scope)


# ---- non-max suppression: TF's greedy selection, padded to max_output_size ------------------------------
def _nms_lower(a, boxes, scores, max_output_size, iou_threshold, score_threshold):
    """(indices padded with 0 to max_output_size, number valid): the highest-scoring box left, then every
    box overlapping it by iou_threshold or more dropped (TF 1.15 drops at equality: a threshold of 0
    keeps one box), until max_output_size or no box scores above score_threshold (ties: the lower
    index first, as TF's queue gives them)."""
    n, k = boxes.shape[0], int(np.asarray(max_output_size))
    if not k or not n:   # nothing to select (the loop's body would index an empty array)
        return jnp.zeros([k], jnp.int32), jnp.int32(0)
    b = boxes.astype(jnp.float32)
    y0, x0 = jnp.minimum(b[:, 0], b[:, 2]), jnp.minimum(b[:, 1], b[:, 3])
    y1, x1 = jnp.maximum(b[:, 0], b[:, 2]), jnp.maximum(b[:, 1], b[:, 3])
    area = (y1 - y0) * (x1 - x0)
    ih = jnp.maximum(jnp.minimum(y1[:, None], y1[None]) - jnp.maximum(y0[:, None], y0[None]), 0)
    iw = jnp.maximum(jnp.minimum(x1[:, None], x1[None]) - jnp.maximum(x0[:, None], x0[None]), 0)
    inter = ih * iw
    union = area[:, None] + area[None] - inter
    ok = (area[:, None] > 0) & (area[None] > 0)
    iou = jnp.where(ok, inter / jnp.where(ok, union, 1.0), 0.0)
    s = scores.astype(jnp.float32)
    alive = s > score_threshold.astype(jnp.float32)

    def step(i, state):
        alive, picked, count = state
        best = jnp.argmax(jnp.where(alive, s, -jnp.inf))
        take = alive[best] & (count < k)
        picked = jnp.where(take, picked.at[count].set(best.astype(jnp.int32)), picked)
        alive = jnp.where(take, alive & (iou[best] < iou_threshold.astype(jnp.float32)) & (jnp.arange(n) != best),
                          alive)
        return alive, picked, count + take.astype(jnp.int32)
    _, picked, count = lax.fori_loop(0, min(k, n), step, (alive, jnp.zeros([k], jnp.int32), jnp.int32(0)))
    return picked, count


def _nms_shape(shapes, attrs, values):
    k = values[2]
    if shapes[0].ndims is not None and not shapes[0].is_compatible_with([None, 4]):
        raise ShapeError("boxes must be 2-D [num_boxes, 4], got shape %s" % shapes[0].as_proto_str())
    return [TensorShape([None if k is None else int(np.asarray(k))]), TensorShape([])]


register_op("NonMaxSuppressionPadded", shape=_nms_shape, dtype=lambda d, a: [dt.int32, dt.int32], grad=None,
            lower=_nms_lower)


def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                               pad_to_max_output_size=False, name=None):
    """(selected_indices, valid_outputs): TF's greedy non-max suppression, the indices padded with 0 to
    max_output_size when pad_to_max_output_size (else cut to the valid ones)."""
    with name_scope(name or "non_max_suppression_padded"):
        inputs = [convert_to_tensor(boxes, dtype=dt.float32, name="boxes"),
                  convert_to_tensor(scores, dtype=dt.float32, name="scores"),
                  convert_to_tensor(max_output_size, dtype=dt.int32, name="max_output_size"),
                  convert_to_tensor(iou_threshold, dtype=dt.float32, name="iou_threshold"),
                  convert_to_tensor(score_threshold, dtype=dt.float32, name="score_threshold")]
        if constant_value_of(inputs[2]) is None:
            raise ValueError("tinyflow: non_max_suppression needs max_output_size known when the graph is built "
                             "(XLA compiles its output's size)")
        picked, valid = make_op("NonMaxSuppressionPadded", inputs)
        if not pad_to_max_output_size:
            picked = slice_op(picked, [0], reshape(valid, [1]))
        return picked, valid


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                        name=None):
    """The indices of the boxes TF's greedy non-max suppression keeps, best score first."""
    return non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold, score_threshold,
                                      name=name or "non_max_suppression")[0]


# ---- DrawBoundingBoxes(V2): TF's kernel, each box's four edges painted in its colour, later boxes on top --------
_BOX_COLORS = np.array([[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1], [0.5, 0, 0.5, 1], [0.5, 0.5, 0, 1],
                        [0.5, 0, 0, 1], [0, 0, 0.5, 1], [0, 1, 1, 1], [1, 0, 1, 1]], np.float32)


def _draw_boxes_lower(a, images, boxes, colors):
    h, w, depth = images.shape[1:]
    if boxes.shape[1] == 0:   # no boxes: the images as they are
        return images
    if colors.shape[0] == 0:
        colors = jnp.asarray(_BOX_COLORS)
    if depth == 1:   # TF paints grey images' boxes white
        colors = colors.at[:, 0].set(1.0)
    # TF truncates box * (size - 1) toward zero (a static_cast), in float32
    edges = jnp.trunc(boxes.astype(jnp.float32) * jnp.array([h - 1, w - 1, h - 1, w - 1], jnp.float32))
    r0, c0, r1, c1 = [edges[..., k, None, None].astype(jnp.int32) for k in range(4)]   # [batch, boxes, 1, 1]
    rows, cols = jnp.arange(h)[:, None], jnp.arange(w)[None, :]
    in_rows = (rows >= r0) & (rows <= r1)
    in_cols = (cols >= c0) & (cols <= c1)
    on = (((rows == r0) | (rows == r1)) & in_cols) | (((cols == c0) | (cols == c1)) & in_rows)
    on = on & (r0 <= r1) & (c0 <= c1)   # inverted boxes are not drawn            [batch, boxes, h, w]
    n = boxes.shape[1]
    last = n - 1 - jnp.argmax(on[:, ::-1], axis=1)                                 # the last box on each pixel
    color = colors[last % colors.shape[0]][..., :depth]                           # [batch, h, w, 4]
    return jnp.where(jnp.any(on, axis=1)[..., None], color.astype(images.dtype), images)


def _draw_boxes_shape(shapes, attrs, values):
    if shapes[0].ndims not in (None, 4):
        raise ShapeError("Shape must be rank 4 but is rank %d for 'DrawBoundingBoxes'" % shapes[0].ndims)
    if shapes[1].ndims not in (None, 3):
        raise ShapeError("Shape must be rank 3 but is rank %d for 'DrawBoundingBoxes'" % shapes[1].ndims)
    return [shapes[0]]


register_op("DrawBoundingBoxesV2", shape=_draw_boxes_shape, dtype=same_as_input(0), grad=None, lower=_draw_boxes_lower)


def draw_bounding_boxes(images, boxes, name=None, colors=None):
    """tf.image.draw_bounding_boxes: float images [batch, height, width, depth] with the edges of boxes
    [batch, num_boxes, 4] (ymin, xmin, ymax, xmax in [0, 1]) drawn in TF's colour table (or `colors`)."""
    with name_scope(name or "draw_bounding_boxes"):
        images = convert_to_tensor(images, name="images")
        if images.dtype not in (dt.float32, dt.float16):
            raise TypeError("Value passed to parameter 'images' has DataType %s not in list of allowed values: "
                            "float32, half" % images.dtype.name)
        if images.shape.ndims == 4 and images.shape[3].value not in (None, 1, 3, 4):
            raise ValueError("Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA), got %s for %s"
                             % (images.shape[3].value, images.name))
        boxes = convert_to_tensor(boxes, dt.float32, name="boxes")
        colors = convert_to_tensor(np.zeros((0, 4), np.float32) if colors is None else colors, dt.float32,
                                   name="colors")
        return make_op("DrawBoundingBoxesV2", [images, boxes, colors], name="DrawBoundingBoxesV2")


# ---- ExtractGlimpse: a [height, width] window of each image at its offset, noise where it leaves the image ----
def _glimpse_lower(a, key, images, offsets):
    """Eigen's ExtractGlimpses as TF 1.15 calls it: offsets (y, x) un-normalized (times the image size),
    un-centered (halved, plus half the image), then half the window taken off, truncated toward zero to
    the window's first pixel. A window partly outside the image gets the image where they overlap and
    noise elsewhere: uniform over [min, max] of that image, or (uniform_noise=False) normal with each
    channel's mean and standard deviation."""
    gh, gw = a["size"]
    _, h, w, c = images.shape
    corner = []
    for axis, (size, window) in enumerate(((h, gh), (w, gw))):
        v = offsets[:, axis].astype(np.float32)
        if a["normalized"]:
            v = v * np.float32(size)
        if a["centered"]:
            v = v / np.float32(2) + np.float32(size / 2)
        corner.append(jnp.trunc(v - np.float32(window / 2)).astype(np.int32))
    rows = corner[0][:, None] + jnp.arange(gh)   # [batch, gh]
    cols = corner[1][:, None] + jnp.arange(gw)
    inside = ((rows >= 0) & (rows < h))[:, :, None] & ((cols >= 0) & (cols < w))[:, None, :]
    picked = jax.vmap(lambda im, r, q: im[jnp.clip(r, 0, h - 1)][:, jnp.clip(q, 0, w - 1)])(images, rows, cols)
    noise_shape = (images.shape[0], gh, gw, c)
    if a["uniform_noise"]:
        lo, hi = images.min(axis=(1, 2, 3), keepdims=True), images.max(axis=(1, 2, 3), keepdims=True)
        noise = lo + jax.random.uniform(_key(a, key), noise_shape, images.dtype) * (hi - lo)
    else:
        mean, std = images.mean(axis=(1, 2), keepdims=True), images.std(axis=(1, 2), keepdims=True)
        noise = mean + std * jax.random.normal(_key(a, key), noise_shape, images.dtype)
    return jnp.where(inside[..., None], picked, noise)


register_op("ExtractGlimpse", grad=None, needs_key=True, dtype=lambda d, a: [dt.float32], lower=_glimpse_lower,
            shape=lambda s, a, v: [TensorShape([s[0][0].value if s[0].ndims else None] + list(a["size"]) +
                                               [s[0][3].value if s[0].ndims else None])])


def extract_glimpse(input, size, offsets, centered=True, normalized=True, uniform_noise=True, name=None):
    """[batch, size[0], size[1], channels]: the window of each float32 image at offsets [batch, (y, x)]:
    centered (relative to the image centre, in [-1, 1] when normalized) or from the top-left corner,
    normalized (fractions of the image) or in pixels. Where the window leaves the image it holds
    noise; its values are random and not TF's (docs/differences.md)."""
    images = convert_to_tensor(input, name="input")
    if images.dtype != dt.float32:
        raise TypeError("Input 'input' of 'ExtractGlimpse' Op has type %s that does not match expected type of "
                        "float32." % images.dtype.name)
    if images.shape.ndims not in (None, 4):
        raise ValueError("Shape must be rank 4 but is rank %d for 'ExtractGlimpse'" % images.shape.ndims)
    dims = constant_value_of(size)
    if dims is None or np.size(dims) != 2:
        raise ValueError("extract_glimpse needs a constant size [height, width], got %s" % (size,))
    attrs = dict(_seed_attrs(None), size=[int(d) for d in np.reshape(dims, -1)], centered=bool(centered),
                 normalized=bool(normalized), uniform_noise=bool(uniform_noise))
    return make_op("ExtractGlimpse", [images, convert_to_tensor(offsets, dt.float32, name="offsets")], attrs,
                   name=name or "ExtractGlimpse")
