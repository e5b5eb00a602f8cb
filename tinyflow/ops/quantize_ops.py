"""TF 1.15's ops on quantized dtypes (qint8, quint8, qint16, quint16, qint32: integers with a float range):
quantize (QuantizeV2: MIN_COMBINED, MIN_FIRST, SCALED; both round modes), dequantize, quantized_concat, and
tf.nn's quantized_avg_pool, quantized_max_pool, quantized_relu_x, quantized_conv2d. Every lowering
repeats its TF kernel's float32 / double arithmetic step for step (quantize_op.cc, dequantize_op.cc,
quantization_utils.h), so the integers are TF's bit for bit. None is differentiable (as in TF)."""
import collections

import jax
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import ShapeError
from tinyflow.graph.registry import register_op
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core.base import constant_value_of, convert_to_tensor, make_op
from tinyflow.ops.pooling_ops import _avg_counts, _max_pool_any, _reduce_window
from tinyflow.ops.window import pooled_shape, windowed_shape

__all__ = ["dequantize", "quantize", "quantize_v2", "quantized_concat", "quantized_avg_pool", "quantized_conv2d",
           "quantized_max_pool", "quantized_relu_x"]

F32, F64 = np.float32, np.float64
_MODES = ("MIN_COMBINED", "MIN_FIRST", "SCALED")
QuantizeV2 = collections.namedtuple("QuantizeV2", ["output", "output_min", "output_max"])
QuantizedConcat = collections.namedtuple("QuantizedConcat", ["output", "output_min", "output_max"])
QuantizedPool = collections.namedtuple("QuantizedPool", ["output", "min_output", "max_output"])
QuantizedReluX = collections.namedtuple("QuantizedReluX", ["activations", "min_activations", "max_activations"])


def _limits(t):
    info = np.iinfo(t.np)
    return int(info.min), int(info.max)


def _scalar(v):
    return v.reshape(-1)[0].astype(F32)


def _cast(v, t):
    """float32 -> t's integers as the kernels' casts give them on x86: 2^31 and above become int32's lowest."""
    if t.np.itemsize == 4:
        return jnp.clip(v, -2.0 ** 31, 2.0 ** 31).astype(np.int64).astype(np.int32)
    return v.astype(t.np)


def _to_f32(x):
    """float64 x rounded to the nearest float32 (ties to even) by integer steps on its bits: XLA:CPU
    contracts a float32 product and a following add into one FMA (the product unrounded), and replaces a
    division by a constant with a product by its reciprocal; TF's kernels do neither. A product or
    quotient of float32 values computed in float64 and rounded once is the float32 result (53 >= 2*24+2)."""
    bits = jax.lax.bitcast_convert_type(x, np.int64)
    lsb = (bits >> 29) & 1
    bits = (bits + (1 << 28) - 1 + lsb) & ~np.int64((1 << 29) - 1)
    return jax.lax.bitcast_convert_type(bits, F64).astype(F32)


def _mul(a, b):
    """a * b as TF's float32 kernels round it (_to_f32)."""
    return _to_f32(jnp.asarray(a).astype(F32).astype(F64) * jnp.asarray(b).astype(F32).astype(F64))


def _div(a, b):
    """a / b as TF's float32 kernels round it (_to_f32)."""
    return _to_f32(jnp.asarray(a).astype(F32).astype(F64) / jnp.asarray(b).astype(F32).astype(F64))


def _round_away(x):
    """std::round (halves away from zero), exactly: jnp.round rounds halves to even."""
    whole = jnp.trunc(x)
    return whole + jnp.where(jnp.abs(x - whole) >= 0.5, jnp.sign(x), 0).astype(x.dtype)


# ---- quantization_utils.h: the Eigen forms (float32 scales) and the scalar forms (double) -------------
def _to_quantized(x, lo, hi, t):
    """QUANTIZE_WITH_EIGEN: float32 x in [lo, hi] -> t's integers."""
    low, _ = _limits(t)
    steps = 2.0 ** (8 * t.np.itemsize)
    scale = jnp.where(hi == lo, F32(0), ((steps - 1.0) / (hi - lo).astype(F64)).astype(F32))
    min_scaled = _round_away(_mul(lo, scale))
    bounds = (F32(max(low, -2.147483648e9)), F32(min(_limits(t)[1], 2.147483520e9)))
    q = jnp.clip(_round_away(_mul(x, scale)) - (min_scaled - F32(low)), *bounds)
    return q.astype(np.int64).astype(np.int32).astype(t.np)


def _to_float(q, lo, hi, t):
    """DEQUANTIZE_WITH_EIGEN: t's integers in range [lo, hi] -> float32."""
    steps = 2.0 ** (8 * t.np.itemsize)
    scale = ((hi - lo).astype(F64) / (steps - 1.0)).astype(F32)
    lo_rounded = jnp.where(hi == lo, lo, _mul(_round_away(lo / scale), scale))
    return (lo_rounded - _mul(F32(_limits(t)[0]), scale)) + _mul(q.astype(F32), scale)


def _scalar_to_quantized(value, lo, hi, t, clamp=True):
    """FloatToQuantized(Unclamped): one float in double arithmetic, as the kernels' scalars are."""
    low, high = _limits(t)
    steps = 2.0 ** (8 * t.np.itemsize)
    scale = steps / ((hi - lo).astype(F64) * (steps / (steps - 1.0)))
    q = _round_away(F64(value) * scale) - _round_away(lo.astype(F64) * scale) + low
    q = jnp.where(hi == lo, low, q)
    return jnp.clip(q, low, high) if clamp else q


# ---- QuantizeV2 ------------------------------------------------------------------------------------------
def _quantize_lower(a, x, lo_in, hi_in):
    t, mode = a["T"], a["mode"]
    low, high = _limits(t)
    lo_in, hi_in = _scalar(lo_in), _scalar(hi_in)
    # the kernel nudges the range to hold 0 and be at least 1/100 of its magnitude wide
    lo = jnp.minimum(F32(0), lo_in)
    eps = _div(jnp.maximum(F32(1), jnp.maximum(jnp.abs(lo_in), jnp.abs(hi_in))), 100)
    hi = jnp.maximum(F32(0), jnp.maximum(hi_in, lo + eps))
    if mode == "MIN_FIRST":
        return _to_quantized(x, lo, hi, t), lo, hi
    if mode == "MIN_COMBINED":
        scale = ((F64(high) - F64(low)) / (hi - lo).astype(F64)).astype(F32)
        shifted = _mul(jnp.clip(x, lo, hi) - lo, scale)
        if low < 0:
            return _cast(_round_away(shifted - F32((high - low + 1) / 2)), t), lo, hi
        return _cast(shifted + F32(0.5), t), lo, hi
    from_min = jnp.where(F32(low) * lo > 0, _div(low, lo), np.finfo(F32).max)
    from_max = jnp.where(F32(high) * hi > 0, _div(high, hi), np.finfo(F32).max)
    scale = jnp.minimum(from_min, from_max)
    lo, hi = _div(low, scale), _div(high, scale)
    scaled = _mul(jnp.clip(x, lo, hi), scale)
    rounded = jnp.round(scaled) if a["round_mode"] == "HALF_TO_EVEN" else _round_away(scaled)
    return _cast(rounded, t), lo, hi


register_op("QuantizeV2", shape=lambda s, a, v: [s[0], TensorShape([]), TensorShape([])],
            dtype=lambda d, a: [a["T"], dt.float32, dt.float32], grad=None, lower=_quantize_lower,
            check=lambda a, x, lo, hi: (~(_scalar(hi) < _scalar(lo)),),
            check_message=lambda op: "input_max_range must be larger than input_min_range.")


def _quantized_type(t, op, allowed=None):
    t = dt.as_dtype(t)
    if not t.is_quantized or allowed and t not in allowed:
        raise TypeError("Value passed to parameter 'T' has DataType %s not in list of allowed values for %s: %s"
                        % (t.name, op, ", ".join(d.name for d in allowed or sorted(dt.QUANTIZED_DTYPES, key=str))))
    return t


def _float_input(x, name, op):
    x = convert_to_tensor(x, dt.float32, name=name)
    if x.dtype != dt.float32:
        raise TypeError("Input '%s' of '%s' Op has type %s that does not match expected type of float32."
                        % (name, op, x.dtype.name))
    return x


def quantize_v2(input, min_range, max_range, T, mode="MIN_COMBINED", name=None, round_mode="HALF_AWAY_FROM_ZERO"):
    """(output, output_min, output_max): float32 `input` in [min_range, max_range] as T's integers (QuantizeV2);
    the range is widened to hold 0 (and, for SCALED, to the symmetric range T represents)."""
    T = _quantized_type(T, "QuantizeV2")
    if mode not in _MODES:
        raise ValueError("mode must be one of %s, got %r" % (", ".join(_MODES), mode))
    if round_mode not in ("HALF_AWAY_FROM_ZERO", "HALF_TO_EVEN"):
        raise ValueError("round_mode must be HALF_AWAY_FROM_ZERO or HALF_TO_EVEN, got %r" % (round_mode,))
    if round_mode == "HALF_TO_EVEN" and mode != "SCALED":
        raise ValueError("Round mode 'HALF_TO_EVEN' is only supported for mode 'SCALED', but mode is '%s'." % mode)
    x = _float_input(input, "input", "QuantizeV2")
    inputs = [x, _float_input(min_range, "min_range", "QuantizeV2"),
              _float_input(max_range, "max_range", "QuantizeV2")]
    return QuantizeV2(*make_op("QuantizeV2", inputs, {"T": T, "mode": mode, "round_mode": round_mode},
                               name=name or "QuantizeV2"))


def quantize(input, min_range, max_range, T, mode="MIN_COMBINED", round_mode="HALF_AWAY_FROM_ZERO", name=None):
    """tf.quantization.quantize: quantize_v2 (TF 1.15's only quantize op)."""
    return quantize_v2(input, min_range, max_range, T, mode=mode, name=name or "Quantize", round_mode=round_mode)


# ---- Dequantize ------------------------------------------------------------------------------------------
def _dequantize_lower(a, q, lo, hi):
    t, mode = a["T"], a["mode"]
    low, high = _limits(t)
    lo, hi = _scalar(lo), _scalar(hi)
    if mode == "MIN_FIRST":
        return _to_float(q, lo, hi, t)
    if mode == "MIN_COMBINED":
        half = F32((F32(high) - low + 1) / 2) if low < 0 else F32(0)
        return _mul(q.astype(np.int32).astype(F32) + half, _div(hi - lo, F32(high) - F32(low))) + lo
    scale = _div(hi, high) if low == 0 else jnp.maximum(_div(lo, low), _div(hi, high))
    return _mul(q.astype(np.int32).astype(F32), scale)


register_op("Dequantize", shape=lambda s, a, v: [s[0]], dtype=lambda d, a: [dt.float32], grad=None,
            lower=_dequantize_lower)


def dequantize(input, min_range, max_range, mode="MIN_COMBINED", name=None):
    """float32 values of quantized `input` whose integers span [min_range, max_range] (the inverse of quantize)."""
    if mode not in _MODES:
        raise ValueError("mode must be one of %s, got %r" % (", ".join(_MODES), mode))
    q = convert_to_tensor(input, name="input")
    _quantized_type(q.dtype, "Dequantize")
    return make_op("Dequantize", [q, _float_input(min_range, "min_range", "Dequantize"),
                                  _float_input(max_range, "max_range", "Dequantize")],
                   {"T": q.dtype, "mode": mode}, name=name or "Dequantize")


# ---- QuantizedConcat: the inputs requantized into the union of their ranges (symmetric when signed) ------
def _concat_lower(a, *arrays):
    n, t = a["N"], a["T"]
    values, mins, maxes = arrays[:n], [_scalar(m) for m in arrays[n:2 * n]], [_scalar(m) for m in arrays[2 * n:]]
    lo = jnp.minimum(F32(0), jnp.min(jnp.stack(mins)))
    hi = jnp.max(jnp.stack(maxes))
    if _limits(t)[0] < 0:
        hi = jnp.maximum(jnp.abs(lo), jnp.abs(hi))
        lo = -hi
    parts = [jnp.where((m == lo) & (x == hi), v, _to_quantized(_to_float(v, m, x, t), lo, hi, t))
             for v, m, x in zip(values, mins, maxes)]
    return jnp.concatenate(parts, axis=a["axis"]), lo, hi


def _concat_shape(shapes, attrs, values):
    n, axis = attrs["N"], attrs["axis"]
    known = [s for s in shapes[:n] if s.ndims is not None]
    if not known:
        return [TensorShape(None), TensorShape([]), TensorShape([])]
    dims = known[0].as_list()
    for s in known[1:]:
        if s.ndims != len(dims):
            raise ShapeError("Shape must be rank %d but is rank %d for 'QuantizedConcat'" % (len(dims), s.ndims))
        other = s.as_list()
        for i, d in enumerate(other):
            if i != axis:
                dims[i] = TensorShape([dims[i]]).merge_with(TensorShape([d]))[0].value
    total = [s.as_list()[axis] if s.ndims is not None else None for s in shapes[:n]]
    dims[axis] = None if None in total else sum(total)
    return [TensorShape(dims), TensorShape([]), TensorShape([])]


register_op("QuantizedConcat", shape=_concat_shape, dtype=lambda d, a: [a["T"], dt.float32, dt.float32], grad=None,
            lower=_concat_lower)


def quantized_concat(concat_dim, values, input_mins, input_maxes, name=None):
    """(output, output_min, output_max): quantized `values` joined along concat_dim, each requantized from
    its range into the output's (the union of the ranges and 0; symmetric about 0 for signed types)."""
    values = [convert_to_tensor(v, name="values") for v in values]
    t = _quantized_type(values[0].dtype, "QuantizedConcat", (dt.quint8, dt.qint32))
    if any(v.dtype != t for v in values):
        raise TypeError("Tensors in list passed to 'values' of 'QuantizedConcat' Op have types [%s] that "
                        "don't all match." % ", ".join(v.dtype.name for v in values))
    if not len(values) == len(input_mins) == len(input_maxes):
        raise ValueError("quantized_concat needs one input_min and one input_max per value")
    axis = constant_value_of(concat_dim)
    if axis is None:
        raise ValueError("quantized_concat needs a constant concat_dim")
    rank = values[0].shape.ndims
    axis = int(axis) + (rank if int(axis) < 0 and rank is not None else 0)
    mins = [_float_input(m, "input_mins", "QuantizedConcat") for m in input_mins]
    maxes = [_float_input(m, "input_maxes", "QuantizedConcat") for m in input_maxes]
    return QuantizedConcat(*make_op("QuantizedConcat", values + mins + maxes,
                                    {"N": len(values), "T": t, "axis": axis}, name=name or "QuantizedConcat"))


# ---- tf.nn's quantized ops (TF 1.15's kernels take quint8) ----------------------------------------------
def _quint8_input(x, name, op):
    x = convert_to_tensor(x, name=name)
    if x.dtype != dt.quint8:
        raise TypeError("Value passed to parameter '%s' of '%s' has DataType %s; TF 1.15's kernel takes quint8"
                        % (name, op, x.dtype.name))
    return x


def _pool_attrs(ksize, strides, padding):
    ksize, strides = [int(k) for k in ksize], [int(s) for s in strides]
    if len(ksize) != 4 or len(strides) != 4 or ksize[0] != 1 or ksize[3] != 1 or strides[0] != 1 or strides[3] != 1:
        raise ValueError("ksize and strides must be [1, rows, cols, 1], got %s and %s" % (ksize, strides))
    if padding not in ("SAME", "VALID"):
        raise ValueError("padding must be 'SAME' or 'VALID', got %r" % (padding,))
    return {"ksize": ksize, "strides": strides, "padding": padding, "data_format": "NHWC"}


def _avg_lower(a, x, lo, hi):
    """The kernel's int32 window sums divided (truncating) by the count of real elements."""
    total = _reduce_window(x.astype(np.int32), np.array(0, np.int32), jax.lax.add, a)
    return (total // _avg_counts(x.shape, a).astype(np.int32)).astype(x.dtype), _scalar(lo), _scalar(hi)


for _type, _lower in (("QuantizedAvgPool", _avg_lower),
                      ("QuantizedMaxPool", lambda a, x, lo, hi: (_max_pool_any(a, x), _scalar(lo), _scalar(hi)))):
    register_op(_type, shape=lambda s, a, v: [pooled_shape(s[0], a), TensorShape([]), TensorShape([])],
                dtype=lambda d, a: [d[0], dt.float32, dt.float32], grad=None, lower=_lower)


def _pool(op_type, input, min_input, max_input, ksize, strides, padding, name):
    inputs = [_quint8_input(input, "input", op_type), _float_input(min_input, "min_input", op_type),
              _float_input(max_input, "max_input", op_type)]
    return QuantizedPool(*make_op(op_type, inputs, _pool_attrs(ksize, strides, padding), name=name or op_type))


def quantized_avg_pool(input, min_input, max_input, ksize, strides, padding, name=None):
    """(output, min_output, max_output): the average pool of quint8 `input` in its own range."""
    return _pool("QuantizedAvgPool", input, min_input, max_input, ksize, strides, padding, name)


def quantized_max_pool(input, min_input, max_input, ksize, strides, padding, name=None):
    """(output, min_output, max_output): the max pool of quint8 `input` in its own range."""
    return _pool("QuantizedMaxPool", input, min_input, max_input, ksize, strides, padding, name)


def _relu_lower(a, x, top, lo, hi):
    lo, hi = _scalar(lo), _scalar(hi)
    zero = _scalar_to_quantized(0.0, lo, hi, dt.quint8)
    cap = _scalar_to_quantized(_scalar(top), lo, hi, dt.quint8)
    return jnp.clip(x.astype(np.int64), zero, cap).astype(x.dtype), lo, hi


register_op("QuantizedReluX", shape=lambda s, a, v: [s[0], TensorShape([]), TensorShape([])],
            dtype=lambda d, a: [a["out_type"], dt.float32, dt.float32], grad=None, lower=_relu_lower)


def quantized_relu_x(features, max_value, min_features, max_features, out_type=dt.quint8, name=None):
    """(activations, min, max): quint8 features clamped to [0, max_value] in their own range. TF 1.15
    declares the op but registers no kernel for it: the values are its QuantizedRelu6's with 6 made
    max_value (docs/differences.md)."""
    out_type = _quantized_type(out_type, "QuantizedReluX", (dt.quint8,))
    inputs = [_quint8_input(features, "features", "QuantizedReluX"),
              _float_input(max_value, "max_value", "QuantizedReluX"),
              _float_input(min_features, "min_features", "QuantizedReluX"),
              _float_input(max_features, "max_features", "QuantizedReluX")]
    return QuantizedReluX(*make_op("QuantizedReluX", inputs, {"out_type": out_type}, name=name or "QuantizedReluX"))


def _conv_lower(a, x, f, lo_x, hi_x, lo_f, hi_f):
    """(input - its zero) conv (filter - its zero), exact in int32 (the products summed in float64 first:
    exact below 2^53), zero padding being the input's zero; the output range is one input level times one
    filter level times qint32's limits."""
    lo_x, hi_x, lo_f, hi_f = _scalar(lo_x), _scalar(hi_x), _scalar(lo_f), _scalar(hi_f)
    xs = x.astype(F64) - _scalar_to_quantized(0.0, lo_x, hi_x, dt.quint8, clamp=False)
    fs = f.astype(F64) - _scalar_to_quantized(0.0, lo_f, hi_f, dt.quint8, clamp=False)
    out = jax.lax.conv_general_dilated(xs, fs, a["strides"][1:3], a["padding"],
                                       dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                       precision=jax.lax.Precision.HIGHEST)
    level = _div(hi_x - lo_x, 255) * _div(hi_f - lo_f, 255)
    low, high = _limits(dt.qint32)
    return out.astype(np.int64).astype(np.int32), level * F32(low), level * F32(high)


register_op("QuantizedConv2D", dtype=lambda d, a: [a["out_type"], dt.float32, dt.float32], grad=None,
            shape=lambda s, a, v: [windowed_shape(s[0], s[1].as_list()[:2] if s[1].ndims == 4 else [None, None],
                                                  a, s[1].as_list()[3] if s[1].ndims == 4 else None),
                                   TensorShape([]), TensorShape([])],
            lower=_conv_lower)


def quantized_conv2d(input, filter, min_input, max_input, min_filter, max_filter, strides, padding,
                     out_type=dt.qint32, dilations=(1, 1, 1, 1), name=None):
    """(output, min_output, max_output): the qint32 2-D convolution of quint8 input and filter, each taken
    relative to the integer that stands for its 0.0."""
    out_type = _quantized_type(out_type, "QuantizedConv2D", (dt.qint32,))
    if list(dilations) != [1, 1, 1, 1]:
        raise ValueError("QuantizedConv2D takes no dilations (got %s)" % (list(dilations),))
    attrs = _pool_attrs([1, 1, 1, 1], strides, padding)
    attrs.update(out_type=out_type, dilations=[1, 1, 1, 1])
    del attrs["ksize"]
    inputs = [_quint8_input(input, "input", "QuantizedConv2D"), _quint8_input(filter, "filter", "QuantizedConv2D")]
    inputs += [_float_input(v, n, "QuantizedConv2D") for v, n in ((min_input, "min_input"), (max_input, "max_input"),
                                                                  (min_filter, "min_filter"),
                                                                  (max_filter, "max_filter"))]
    return QuantizedPool(*make_op("QuantizedConv2D", inputs, attrs, name=name or "QuantizedConv2D"))
