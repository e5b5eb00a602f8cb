"""Pooling (max, average; 1-D, 2-D and 3-D), local response normalization and space_to_depth /
depth_to_space (tf.nn), with their gradient ops as ops of their own.

Windows follow conv_ops.py's arithmetic: SAME pads (total // 2) before and the rest after, and the
padding never counts (max ignores it, average divides by the real elements only). Pooling gradients
are TF 1.15's CPU kernels bit for bit (ties, summation order), without scatters (see below).
"""
import functools
import itertools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from tinyflow.graph.core import ShapeError
from tinyflow.graph.registry import register_op, same_as_input
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core import math_ops as M
from tinyflow.ops.core.array_ops import shape as _shape
from tinyflow.ops.core.base import convert_to_tensor, make_op
from tinyflow.ops.conv_ops import EIGEN_CONVOLUTIONS
from tinyflow.ops.window import (channel_axis, check_padding, get_sequence, int_sizes, one_d, one_d_seq,
                                 pool_geometry, pool_padding, pooled_shape, sizes_shape, spatial_axes)

__all__ = ["max_pool", "avg_pool", "max_pool1d", "avg_pool1d", "max_pool2d", "avg_pool2d", "max_pool_v2",
           "avg_pool_v2", "max_pool3d", "avg_pool3d",
           "local_response_normalization", "lrn", "space_to_depth", "depth_to_space"]


# ---- pooling ---------------------------------------------------------------------------------------
# 2-D pools are rank 4 (NHWC/NCHW), 3-D pools rank 5 (NDHWC/NCDHW); their window arithmetic is window.py's.
def _pool_shape(shapes, attrs, values):
    return [pooled_shape(shapes[0], attrs)]


def _reduce_window(x, init, fn, attrs):
    return lax.reduce_window(x, init, fn, tuple(attrs["ksize"]), tuple(attrs["strides"]), pool_padding(x.shape, attrs))


def _lowest(dtype):
    return np.array(-np.inf if jnp.issubdtype(dtype, jnp.floating) else jnp.iinfo(dtype).min, dtype)


def _max_pool_fn(attrs):
    return lambda x: _reduce_window(x, _lowest(x.dtype), lax.max, attrs)


def _max_pool_lower(attrs, x):
    """MaxPool as the greatest of its window's strided views (up to 16, channels last): 2-9x faster than
    XLA:CPU's reduce-window, the same values (the jvp keeps it: maxima split a tie's tangent).
    As TF's CPU kernel (Eigen's MaxReducer from the lowest finite value, compared with >), a NaN is
    skipped and a window of NaN or -inf only gives the lowest finite value (MaxPool3D's Eigen reducer starts
    from -inf: -inf there)."""
    if jnp.issubdtype(x.dtype, jnp.floating):
        low = jnp.asarray(np.finfo(x.dtype).min if x.ndim == 4 else -np.inf, x.dtype)
        return jnp.maximum(_max_pool_any(attrs, jnp.where(jnp.isnan(x), low, x)), low)
    return _max_pool_any(attrs, x)


def _max_pool_any(attrs, x):
    if attrs["data_format"].startswith("NC"):
        return _max_pool_fn(attrs)(x)
    geo = pool_geometry(x.shape, attrs)
    offsets = _offsets(geo)
    if len(offsets) > 16 or _materialized(geo):
        return _max_pool_fn(attrs)(x)
    view = _views(_pad_last(x, geo, _lowest(x.dtype)), geo)
    return functools.reduce(jnp.maximum, [view(d) for d in offsets])


def _materialized(geo):
    """Whether a MaxPool of windows that tile the input (stride = window) is XLA's reduce-window: in a
    convolution training step on the CPU (EIGEN_CONVOLUTIONS), where XLA fuses the strided views into
    each reader and so recomputes the pool in the transposed copy of it that the next convolution's
    filter gradient reads; the reduce-window (YNNPACK's, there) is a buffer the copy reads. The anchor
    CNN's step (`benchmarks/maxpool_in_step.py` re-checks it): 106.8 -> 98.9 ms CPU on one core, 111.9
    -> 104.5 on two (docs/speed.md section 8). Overlapping windows keep the views (section 7: 2-9x faster)."""
    return EIGEN_CONVOLUTIONS.get() and all(k == s for _, k, s, _, _ in geo)


def _avg_counts(shape, attrs):
    """How many real (unpadded) elements each output window covers, broadcastable to the output (numpy)."""
    out = np.ones([1] * len(shape))
    for ax, (n, k, s, lo, m) in zip(spatial_axes(attrs["data_format"]), pool_geometry(shape, attrs)):
        start = np.arange(m) * s - lo
        view = [1] * len(shape)
        view[ax] = m
        out = out * (np.minimum(start + k, n) - np.maximum(start, 0)).reshape(view)
    return out


def _avg_pool_fn(attrs):
    def pool(x):
        total = _reduce_window(x, np.array(0, x.dtype), lax.add, attrs)
        return (total / _avg_counts(x.shape, attrs).astype(x.dtype)).astype(x.dtype)
    return pool


# ---- pooling gradients, bit for bit as TF 1.15's CPU kernels -----------------------------------------
# Computed channels-last, without scatters (JAX's select_and_scatter_add was 2-10x slower). Disjoint
# windows (stride >= window) give each input at most one output: the output's value is spread over its
# stride block and masked, one fused element-wise pass. Overlapping windows: each window offset d
# (row-major over the window) gives an output-shaped term, what each output passes to its input at d;
# an input adds the terms that reach it in TF's order (outputs in row-major order for 2-D, with the
# last spatial axis outermost for 3-D), gathered by stride phase (input p = q * stride + phase).
def _last_attrs(attrs):
    """attrs for the channels-last layout of the same pool."""
    fmt = attrs["data_format"]
    moved = {k: attrs[k][:1] + attrs[k][2:] + attrs[k][1:2] if fmt.startswith("NC") else attrs[k]
             for k in ("ksize", "strides")}
    return dict(attrs, data_format="N" + "H" * (len(fmt) - 2) + "C", **moved)


def _to_last(x, fmt):
    return jnp.moveaxis(x, 1, -1) if fmt.startswith("NC") else x


def _from_last(x, fmt):
    return jnp.moveaxis(x, -1, 1) if fmt.startswith("NC") else x


def _views(xp, geo):
    """Offset -> the strided view of padded channels-last xp that the offset reads, per output."""
    def view(d):
        start = (0,) + tuple(d) + (0,)
        limit = (xp.shape[0],) + tuple(dd + s * (m - 1) + 1 for dd, (_, _, s, _, m) in zip(d, geo)) + (xp.shape[-1],)
        return lax.slice(xp, start, limit, (1,) + tuple(s for _, _, s, _, _ in geo) + (1,))
    return view


def _pad_last(x, geo, value):
    pad = [(0, 0)] + [(lo, max((m - 1) * s + k - n - lo, 0)) for n, k, s, lo, m in geo] + [(0, 0)]
    return jnp.pad(x, pad, constant_values=value) if any(p != (0, 0) for p in pad) else x


def _offsets(geo):
    return list(itertools.product(*(range(k) for _, k, _, _, _ in geo)))


def _first_max(x, geo):
    """Index (into _offsets) of each window's first maximum: TF's scan, where a later element wins only
    when strictly greater (a NaN never wins after the first element) and padding never takes part."""
    if all(s == k and lo == 0 and m * k <= n for n, k, s, lo, m in geo) and len(_offsets(geo)) > 8:
        return _block_first_max(x, geo)
    return _scan_first_max(x, geo)


def _scan_first_max(x, geo):
    """_first_max as TF's scan: one compare and select per window offset."""
    view, rank = _views(_pad_last(x, geo, _lowest(x.dtype)), geo), len(geo) + 2
    offsets = _offsets(geo)
    idx = np.int8 if len(offsets) < 128 else np.int32
    seen = np.zeros([1] * rank, bool)
    best = arg = None
    for i, d in enumerate(offsets):
        valid = np.ones([1] * rank, bool)        # static: outputs whose window holds offset d inside x
        for j, (dd, (n, _, s, lo, m)) in enumerate(zip(d, geo)):
            pos = np.arange(m) * s + dd - lo
            valid = valid & ((pos >= 0) & (pos < n)).reshape([m if a == j + 1 else 1 for a in range(rank)])
        v = view(d)
        if best is None:
            best, arg = v, jnp.zeros(v.shape, idx)
        else:
            take = best < v
            take = take if valid.all() else take & valid
            take = take | (valid & ~seen) if (valid & ~seen).any() else take
            best, arg = jnp.where(take, v, best), jnp.where(take, idx(i), arg)
        seen = seen | valid
    if not _disjoint(geo) or len(offsets) > 8:
        # Each arg is read by several inputs; XLA would fuse (and so repeat) the scan into every read.
        # A reduction is never fused into its consumers: this one (or with 0) stores arg once. Not a max:
        # YNNPACK takes those, and ran the whole scan as its fused producer (3x slower; docs/speed.md 7).
        arg = lax.reduce(jnp.stack([arg, jnp.zeros_like(arg)]), idx(0), lax.bitwise_or, (0,))
    return arg


def _block_first_max(x, geo):
    """_first_max of windows that tile x from its start (stride = window, no padding; a text CNN's max
    over time is one such window) as two reductions over the window axes, instead of a scan of one
    compare per offset (54 offsets: 0.26 s of XLA compile per pool, 0.17 s now). The scan's result
    is the first index of the greatest element, NaNs left out, or 0 when the window starts with a NaN."""
    nd, ks = len(geo), [k for _, k, _, _, _ in geo]
    x = x[(slice(None),) + tuple(slice(0, m * k) for _, k, _, _, m in geo) + (slice(None),)]
    x = x.reshape((x.shape[0],) + tuple(v for _, k, _, _, m in geo for v in (m, k)) + (x.shape[-1],))
    window = tuple(2 + 2 * i for i in range(nd))
    idx = np.int8 if np.prod(ks) < 128 else np.int32
    # each window position's index into _offsets (row-major over the window), laid out as x
    where = np.arange(np.prod(ks), dtype=idx).reshape([v for k in ks for v in (1, k)])[None, ..., None]
    floating = jnp.issubdtype(x.dtype, jnp.floating)
    xs = jnp.where(jnp.isnan(x), _lowest(x.dtype), x) if floating else x
    hit = xs == jnp.max(xs, axis=window, keepdims=True)
    arg = jnp.min(jnp.where(hit, where, idx(np.prod(ks) - 1)), axis=window)
    if floating:   # a window starting with a NaN keeps it
        arg = jnp.where(jnp.isnan(x[(slice(None),) + tuple(slice(None) if a % 2 else 0 for a in range(1, 2 * nd + 1))]),
                        idx(0), arg)
    return arg


def _window_sum(term, g, geo, order):
    """dx[p] = the sum of term(d)[o] over outputs o and offsets d with o * stride + d - pad == p, added in
    order of the outputs taken lexicographically along the spatial axes `order` (as TF's loops run)."""
    nd, n, c = len(geo), g.shape[0], g.shape[-1]
    q = [-(-(m * s + k) // s) for _, k, s, _, m in geo]        # phase lengths: every window fits
    zero = np.array(0, g.dtype)
    phases = []
    for r in itertools.product(*(range(s) for _, _, s, _, _ in geo)):
        shifts = [range(-(-(k - rr) // s)) if rr < k else range(0) for rr, (_, k, s, _, _) in zip(r, geo)]
        acc = None
        # output o = q - j: outputs ascending is shifts j descending
        for j in sorted(itertools.product(*shifts), key=lambda j: [j[a] for a in order], reverse=True):
            d = tuple(rr + jj * s for rr, jj, (_, _, s, _, _) in zip(r, j, geo))
            t = lax.pad(term(d), zero, [(0, 0, 0)] + [(jj, qq - m - jj, 0) for jj, qq, (_, _, _, _, m)
                                                         in zip(j, q, geo)] + [(0, 0, 0)])
            acc = t if acc is None else acc + t
        phases.append(jnp.zeros((n,) + tuple(q) + (c,), g.dtype) if acc is None else acc)
    full = jnp.stack(phases, -1).reshape((n,) + tuple(q) + (c,) + tuple(s for _, _, s, _, _ in geo))
    full = full.transpose([0] + [a for i in range(nd) for a in (1 + i, nd + 2 + i)] + [nd + 1])
    full = full.reshape((n,) + tuple(qq * s for qq, (_, _, s, _, _) in zip(q, geo)) + (c,))
    return full[(slice(None),) + tuple(slice(lo, lo + size) for size, _, _, lo, _ in geo) + (slice(None),)]


def _order(geo):
    return tuple(range(len(geo))) if len(geo) == 2 else tuple(reversed(range(len(geo))))


def _disjoint(geo):
    return all(s >= k for _, k, s, _, _ in geo)


def _spread(t, geo):
    """Disjoint windows: each output's value over its whole stride block, [N, m1 * s1, ..., C]."""
    n, c = t.shape[0], t.shape[-1]
    t = t.reshape((n,) + tuple(v for _, _, _, _, m in geo for v in (m, 1)) + (c,))
    t = jnp.broadcast_to(t, (n,) + tuple(v for _, _, s, _, m in geo for v in (m, s)) + (c,))
    return t.reshape((n,) + tuple(m * s for _, _, s, _, m in geo) + (c,))


def _block_offsets(geo):
    """Static, broadcastable to _spread's result: the window offset (index into _offsets) of each
    position of a stride block; -1 past the window (stride > window)."""
    block = np.full([s for _, _, s, _, _ in geo], -1)
    for i, d in enumerate(_offsets(geo)):
        block[d] = i
    return np.tile(block, [m for _, _, _, _, m in geo]).reshape((1,) + tuple(
        m * s for _, _, s, _, m in geo) + (1,))


def _unspread(t, geo):
    """The input's part of a spread layout: positions pad..pad + n, zeros past the last window."""
    zero = np.array(0, t.dtype)
    return lax.pad(t, zero, [(0, 0, 0)] + [(-lo, lo + n - m * s, 0) for n, _, s, lo, m in geo] + [(0, 0, 0)])


def _mpg_lower(attrs, x, y, g):
    fmt = attrs["data_format"]
    x, y, g = _to_last(x, fmt), _to_last(y, fmt), _to_last(g, fmt)
    geo = pool_geometry(x.shape, _last_attrs(attrs))
    zero = np.array(0, g.dtype)
    if x.ndim == 5 and x.dtype != jnp.float16:
        # MaxPool3DGrad: every element within 1e-5 of the window's max (orig_output) takes the gradient
        eps = np.array(1e-5, x.dtype)
        if _disjoint(geo):
            pad = [(0, 0, 0)] + [(lo, m * s - n - lo, 0) for n, _, s, lo, m in geo] + [(0, 0, 0)]
            near = jnp.abs(lax.pad(x, _lowest(x.dtype), pad) - _spread(y, geo)) < eps
            return _from_last(_unspread(jnp.where(near & (_block_offsets(geo) >= 0), _spread(g, geo), zero), geo),
                              fmt)
        view = _views(_pad_last(x, geo, _lowest(x.dtype)), geo)
        term = lambda d: jnp.where(jnp.abs(view(d) - y) < eps, g, zero)  # noqa: E731
    else:
        arg, offsets = _first_max(x, geo), _offsets(geo)
        if _disjoint(geo):
            picked = _spread(arg, geo) == _block_offsets(geo).astype(arg.dtype)
            return _from_last(_unspread(jnp.where(picked, _spread(g, geo), zero), geo), fmt)
        term = lambda d: jnp.where(arg == offsets.index(d), g, zero)  # noqa: E731
    return _from_last(_window_sum(term, g, geo, _order(geo)), fmt)


def _apg_lower(attrs, sizes, g):
    fmt = attrs["data_format"]
    shape, last_attrs = int_sizes(sizes), _last_attrs(attrs)
    g = _to_last(g, fmt)
    last = (shape[0],) + shape[2:] + shape[1:2] if fmt.startswith("NC") else shape
    geo = pool_geometry(last, last_attrs)
    # TF multiplies by T(1.0 / count), the count of real elements in the window
    gc = g * (1.0 / _avg_counts(last, last_attrs)).astype(g.dtype)
    if _disjoint(geo):
        inside = _block_offsets(geo) >= 0
        return _from_last(_unspread(jnp.where(inside, _spread(gc, geo), np.array(0, g.dtype)), geo), fmt)
    return _from_last(_window_sum(lambda d: gc, g, geo, _order(geo)), fmt)


def _max_pool_grad(op, g):
    x, y = op.inputs[0], op.outputs[0]
    return [make_op(op.type + "Grad", [x, y, g], op.attrs, name=op.type + "Grad")]


def _max_pool_grad_grad(op, g):
    x, y = op.inputs[:2]
    kind = op.type[:-len("Grad")] + "GradGrad"
    return [M.zeros_like(x), M.zeros_like(y), make_op(kind, [x, y, g], op.attrs, name=kind)]


def _max_pool_grad_grad_grad(op, g):
    x, y = op.inputs[:2]
    kind = op.type[:-len("GradGrad")] + "Grad"
    return [M.zeros_like(x), M.zeros_like(y), make_op(kind, [x, y, g], op.attrs, name=kind)]


def _mpgg_lower(attrs, x, y, g):
    """MaxPoolGradGrad / MaxPool3DGradGrad as TF's CPU kernels: each output takes g at the first element
    (row-major over its window) equal to its max y; none equal (a window of NaN or -inf) gives 0."""
    fmt = attrs["data_format"]
    x, y, g = _to_last(x, fmt), _to_last(y, fmt), _to_last(g, fmt)
    geo = pool_geometry(x.shape, _last_attrs(attrs))
    xv, gv = _views(_pad_last(x, geo, np.array(0, x.dtype)), geo), _views(_pad_last(g, geo, np.array(0, g.dtype)), geo)
    rank = len(geo) + 2
    out, found = jnp.zeros_like(y), jnp.zeros(y.shape, bool)
    for d in _offsets(geo):
        inside = np.ones([1] * rank, bool)       # static: outputs whose window holds offset d inside x
        for j, (dd, (n, _, s, lo, m)) in enumerate(zip(d, geo)):
            pos = np.arange(m) * s + dd - lo
            inside = inside & ((pos >= 0) & (pos < n)).reshape([m if a == j + 1 else 1 for a in range(rank)])
        hit = (xv(d) == y) & inside & ~found
        out, found = jnp.where(hit, gv(d), out), found | hit
    return _from_last(out, fmt)


def _avg_pool_grad(op, g):
    x = op.inputs[0]
    kind = op.type + "Grad"
    return [make_op(kind, [_shape(x), g], dict(op.attrs, _shape=x.shape), name=kind)]


def _avg_pool_grad_grad(op, g):
    attrs = {k: v for k, v in op.attrs.items() if k != "_shape"}
    kind = op.type[:-len("Grad")]
    return [None, make_op(kind, [g], attrs, name=kind)]


for _d in ("", "3D"):
    register_op("MaxPool" + _d, shape=_pool_shape, dtype=same_as_input(0), grad=_max_pool_grad,
                lower=_max_pool_lower)
    register_op("MaxPool%sGrad" % _d, shape=lambda s, a, v: [s[0]], dtype=same_as_input(0),
                grad=_max_pool_grad_grad, lower=_mpg_lower)
    register_op("MaxPool%sGradGrad" % _d, shape=lambda s, a, v: [s[1]], dtype=same_as_input(0),
                grad=_max_pool_grad_grad_grad, lower=_mpgg_lower)
    register_op("AvgPool" + _d, shape=_pool_shape, dtype=same_as_input(0), grad=_avg_pool_grad,
                lower=lambda a, x: _avg_pool_fn(a)(x))
    register_op("AvgPool%sGrad" % _d, shape=sizes_shape(0), dtype=same_as_input(1), grad=_avg_pool_grad_grad,
                lower=_apg_lower)


def _pool(op_type, value, ksize, strides, padding, data_format, name, input, nd=2):
    value = input if value is None else value
    x = convert_to_tensor(value, name="input")
    data_format = data_format or ("NHWC" if nd == 2 else "NDHWC")
    if nd == 3 and data_format not in ("NDHWC", "NCDHW"):
        raise ValueError("data_format must be NDHWC or NCDHW, got %r" % data_format)
    ch = 1 if data_format.startswith("NC") else nd + 1
    padding, explicit = check_padding(padding, data_format if nd == 2 else "NHWC")
    if explicit:
        raise ValueError("%s does not support explicit padding" % op_type)
    attrs = {"ksize": get_sequence(ksize, nd, ch, "ksize"), "strides": get_sequence(strides, nd, ch, "strides"),
             "padding": padding, "data_format": data_format, "dilations": [1] * (nd + 2)}
    if 0 in attrs["ksize"]:
        raise ValueError("ksize cannot be zero.")
    for key in ("ksize", "strides"):
        if attrs[key][0] != 1 or attrs[key][ch] != 1:
            raise ValueError("Pooling is not yet supported on the batch or depth dimension (%s=%s)."
                             % (key, attrs[key]))
    return make_op(op_type, [x], attrs, name=name or op_type)


def max_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):
    """Max over ksize windows (padding never wins: SAME pads with -inf)."""
    return _pool("MaxPool", value, ksize, strides, padding, data_format, name, input)


def avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):
    """Mean over ksize windows; with SAME padding each mean counts only the real elements."""
    return _pool("AvgPool", value, ksize, strides, padding, data_format, name, input)


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    """Max over ksize windows of a 5-D [batch, depth, height, width, channels] input."""
    return _pool("MaxPool3D", input, ksize, strides, padding, data_format, name, None, nd=3)


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    """Mean over ksize windows of a 5-D input; with SAME padding each mean counts only the real elements."""
    return _pool("AvgPool3D", input, ksize, strides, padding, data_format, name, None, nd=3)


# ---- other entry points ----------------------------------------------------------------------------
def _pool1d(pool, input, ksize, strides, padding, data_format, name, default):
    def body(x, fmt, spatial):
        nchw = fmt == "NCHW"
        return pool(x, one_d_seq(ksize, nchw, "ksize"), one_d_seq(strides, nchw, "strides"), padding,
                    data_format=fmt)
    return one_d(input, data_format, name, default, body)


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """Max pooling over the width of [batch, width, channels]."""
    return _pool1d(max_pool, input, ksize, strides, padding, data_format, name, "MaxPool1d")


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """Average pooling over the width of [batch, width, channels]."""
    return _pool1d(avg_pool, input, ksize, strides, padding, data_format, name, "AvgPool1D")


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """tf.nn.max_pool2d: max_pool with the TF2 argument names."""
    return max_pool(input, ksize, strides, padding, data_format=data_format, name=name)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """tf.nn.avg_pool2d: avg_pool with the TF2 argument names."""
    return avg_pool(input, ksize, strides, padding, data_format=data_format, name=name)


def _pool_v2(pools, input, ksize, strides, padding, data_format, name):
    """TF's max_pool_v2 / avg_pool_v2: the pool of the input's rank (3, 4 or 5: 1-D, 2-D or 3-D)."""
    x = convert_to_tensor(input, name="input")
    if x.shape.ndims is not None:
        n = x.shape.ndims - 2
    elif data_format is not None:
        n = len(data_format) - 2
    else:
        raise ValueError("The input must have a rank or a data format must be given.")
    if not 1 <= n <= 3:
        raise ValueError("Input tensor must be of rank 3, 4 or 5 but was {}.".format(n + 2))
    channel = 1 if data_format is not None and data_format.startswith("NC") else n + 1
    ksize, strides = get_sequence(ksize, n, channel, "ksize"), get_sequence(strides, n, channel, "strides")
    if n == 1:   # [1, k, 1] (NWC) or [1, 1, k] (NCW): the 1-D pool's own lists
        return pools[0](x, ksize, strides, padding, data_format=data_format or "NWC", name=name)
    return pools[n - 1](x, ksize, strides, padding, data_format=data_format or ("NHWC", "NDHWC")[n - 2], name=name)


def max_pool_v2(input, ksize, strides, padding, data_format=None, name=None):
    """tf.nn.max_pool_v2: max_pool1d, max_pool or max_pool3d by the input's rank."""
    return _pool_v2((max_pool1d, max_pool, max_pool3d), input, ksize, strides, padding, data_format, name)


def avg_pool_v2(input, ksize, strides, padding, data_format=None, name=None):
    """tf.nn.avg_pool_v2: avg_pool1d, avg_pool or avg_pool3d by the input's rank."""
    return _pool_v2((avg_pool1d, avg_pool, avg_pool3d), input, ksize, strides, padding, data_format, name)


# ---- local response normalization ------------------------------------------------------------------
def _lrn_fn(attrs):
    r = attrs["depth_radius"]

    def lrn(x):
        sq = lax.reduce_window(jnp.square(x), np.array(0, x.dtype), lax.add, (1, 1, 1, 2 * r + 1), (1, 1, 1, 1),
                               [(0, 0), (0, 0), (0, 0), (r, r)])
        # d ** -beta as exp(-beta * log d): XLA:CPU's pow is 3x slower; within 2 ulps of TF's values
        d = attrs["bias"] + attrs["alpha"] * sq
        return (x * jnp.exp(-attrs["beta"] * jnp.log(d))).astype(x.dtype)
    return lrn


def _lrn_shape(shapes, attrs, values):
    if shapes[0].ndims not in (None, 4):
        raise ShapeError("Shape must be rank 4 but is rank %d" % shapes[0].ndims)
    return [shapes[0]]


register_op("LRN", shape=_lrn_shape, dtype=same_as_input(0), lower=lambda a, x: _lrn_fn(a)(x),
            grad=lambda op, g: [make_op("LRNGrad", [g, op.inputs[0], op.outputs[0]], op.attrs, name="LRNGrad")])
register_op("LRNGrad", shape=lambda s, a, v: [s[1]], dtype=same_as_input(0), grad=None,
            lower=lambda a, g, x, y: jax.vjp(_lrn_fn(a), x)[1](g)[0])


def local_response_normalization(input, depth_radius=5, bias=1, alpha=1, beta=0.5, name=None):
    """input / (bias + alpha * sum of squares over 2 * depth_radius + 1 neighbouring channels) ** beta."""
    x = convert_to_tensor(input, name="input")
    attrs = {"depth_radius": int(depth_radius), "bias": float(bias), "alpha": float(alpha), "beta": float(beta)}
    return make_op("LRN", [x], attrs, name=name or "LRN")


lrn = local_response_normalization


# ---- space_to_depth / depth_to_space ---------------------------------------------------------------
def _s2d(x, b, nchw):
    if nchw:
        x = jnp.transpose(x, (0, 2, 3, 1))
    n, h, w, c = x.shape
    y = x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5).reshape(n, h // b, w // b, b * b * c)
    return jnp.transpose(y, (0, 3, 1, 2)) if nchw else y


def _d2s(x, b, nchw):
    if nchw:
        x = jnp.transpose(x, (0, 2, 3, 1))
    n, h, w, c = x.shape
    y = x.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5).reshape(n, h * b, w * b, c // (b * b))
    return jnp.transpose(y, (0, 3, 1, 2)) if nchw else y


def _divisible(d, k):
    if d is not None and d % k:
        raise ShapeError("Dimension size must be evenly divisible by %d but is %d" % (k, d))
    return None if d is None else d // k


def _block_shape(to_depth):
    def rule(shapes, attrs, values):
        x = shapes[0]
        if x.ndims is None:
            return [x]
        if x.ndims != 4:
            raise ShapeError("Shape must be rank 4 but is rank %d" % x.ndims)
        b, fmt = attrs["block_size"], attrs["data_format"]
        dims = x.as_list()
        (h, w), c = spatial_axes(fmt), channel_axis(fmt)
        if to_depth:
            dims[h], dims[w] = _divisible(dims[h], b), _divisible(dims[w], b)
            dims[c] = None if dims[c] is None else dims[c] * b * b
        else:
            dims[c] = _divisible(dims[c], b * b)
            dims[h] = None if dims[h] is None else dims[h] * b
            dims[w] = None if dims[w] is None else dims[w] * b
        return [TensorShape(dims)]
    return rule


register_op("SpaceToDepth", shape=_block_shape(True), dtype=same_as_input(0),
            grad=lambda op, g: [make_op("DepthToSpace", [g], op.attrs)],
            lower=lambda a, x: _s2d(x, a["block_size"], a["data_format"] == "NCHW"))
register_op("DepthToSpace", shape=_block_shape(False), dtype=same_as_input(0),
            grad=lambda op, g: [make_op("SpaceToDepth", [g], op.attrs)],
            lower=lambda a, x: _d2s(x, a["block_size"], a["data_format"] == "NCHW"))


def _block_op(op_type, input, block_size, name, data_format):
    if int(block_size) < 2:
        raise ValueError("Value for attr 'block_size' of %d must be at least minimum 2" % int(block_size))
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError("data_format must be NHWC or NCHW, got %r" % data_format)
    x = convert_to_tensor(input, name="input")
    return make_op(op_type, [x], {"block_size": int(block_size), "data_format": data_format}, name=name or op_type)


def space_to_depth(input, block_size, name=None, data_format="NHWC"):
    """Moves each block_size x block_size spatial block into the depth dimension."""
    return _block_op("SpaceToDepth", input, block_size, name, data_format)


def depth_to_space(input, block_size, name=None, data_format="NHWC"):
    """The inverse of space_to_depth: depth becomes block_size x block_size spatial blocks."""
    return _block_op("DepthToSpace", input, block_size, name, data_format)
