"""Image resize kernels: ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic and their gradients.
Everything else in tf.image (tinyflow/image.py) is built from existing graph ops.

Each resize samples the input at TF's source coordinates: TF 1.x's legacy `in = out * scale`
(half_pixel_centers=False, the default) or `(out + 0.5) * scale - 0.5`, with scale = in / out
((in - 1) / (out - 1) with align_corners), all in float32 as TF's kernels compute them. Every
resize is linear and separable, so it is one interpolation matrix per spatial axis (built with numpy
while tracing; sizes are static): out = Wh . image . Ww^T, and its gradient is the transpose,
Wh^T . grad . Ww. Nearest neighbour is a gather in the forward direction, to keep its dtype exact.
"""
import jax.numpy as jnp
import numpy as np
from jax import lax

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import ShapeError
from tinyflow.graph.registry import register_op, same_as_input
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core.array_ops import shape
from tinyflow.ops.core.util import ints, name_scope
from tinyflow.ops.core.base import convert_to_tensor, make_op

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


_WEIGHTS = {"ResizeBilinear": _bilinear_weights, "ResizeBicubic": _bicubic_weights}


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


def _register(op_type):
    grad_type = op_type + "Grad"

    def grad(op, g):
        return [make_op(grad_type, [g, op.inputs[0]], op.attrs), None]

    def grad_grad(op, gg):  # the gradient op is linear in its first input: its own gradient is the resize
        return [make_op(op_type, [gg, shape(op.inputs[0])[1:3]], op.attrs), None]

    register_op(op_type, shape=_resize_shape, dtype=_resize_dtype(op_type), grad=grad, lower=_resize_lower(op_type))
    register_op(grad_type, shape=lambda s, a, v: [s[1]], dtype=same_as_input(1), grad=grad_grad,
                lower=_resize_grad_lower(op_type))


for _t in ("ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic"):
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
