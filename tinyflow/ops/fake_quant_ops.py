"""tf.quantization's fake quantization: float tensors rounded to the 2^num_bits levels of a [min, max] range
"nudged" so that 0 is exact, as TF's kernels (fake_quant_ops_functor.h), and their gradients (the input's
passes where it lies inside the range; min's and max's get the rest), plus quantize_and_dequantize."""
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import get_default_graph
from tinyflow.graph.registry import register_op, same_as_input, shape_of_input
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core import math_ops as M
from tinyflow.ops.core.base import convert_to_tensor, make_op

__all__ = ["fake_quant_with_min_max_args", "fake_quant_with_min_max_args_gradient", "fake_quant_with_min_max_vars",
           "fake_quant_with_min_max_vars_gradient", "fake_quant_with_min_max_vars_per_channel",
           "fake_quant_with_min_max_vars_per_channel_gradient", "quantize_and_dequantize"]


def _nudge(lo, hi, num_bits, narrow_range):
    """TF's Nudge: (nudged_min, nudged_max, scale) with a whole-number zero point, in float32."""
    lo, hi = jnp.asarray(lo, jnp.float32), jnp.asarray(hi, jnp.float32)
    qmin, qmax = (1.0 if narrow_range else 0.0), float(2 ** num_bits - 1)
    scale = (hi - lo) / (qmax - qmin)
    zero = qmin - lo / scale
    rounded = jnp.sign(zero) * jnp.floor(jnp.abs(zero) + 0.5)   # TF's std::round: halves away from 0
    nudged_zero = jnp.where(zero < qmin, qmin, jnp.where(zero > qmax, qmax, rounded))
    return (qmin - nudged_zero) * scale, (qmax - nudged_zero) * scale, scale


def _quantize(x, lo, hi, num_bits, narrow_range):
    nmin, nmax, scale = _nudge(lo, hi, num_bits, narrow_range)
    clamped = jnp.clip(x, nmin, nmax)
    return (jnp.floor((clamped - nmin) / scale + 0.5) * scale + nmin).astype(x.dtype)


def _backprop(g, x, lo, hi, num_bits, narrow_range, axes):
    nmin, nmax, _ = _nudge(lo, hi, num_bits, narrow_range)
    # TF's kernel multiplies g by 0/1 masks: where the mask is 0, g * 0 (NaN for an inf or NaN g, -0.0 for a
    # negative one). Written as a select, since XLA turns g * float(mask) into one with plain zeros.
    mask = lambda m: jnp.where(m, g, g * 0)   # noqa: E731
    return (mask((x >= nmin) & (x <= nmax)), jnp.sum(mask(x < nmin), axis=axes), jnp.sum(mask(x > nmax), axis=axes))


def _bits(a):
    return a["num_bits"], a["narrow_range"]


register_op("FakeQuantWithMinMaxArgs", shape=shape_of_input(0), dtype=same_as_input(0),
            grad=lambda op, g: [make_op("FakeQuantWithMinMaxArgsGradient", [g, op.inputs[0]], dict(op.attrs))],
            lower=lambda a, x: _quantize(x, a["min"], a["max"], *_bits(a)))
register_op("FakeQuantWithMinMaxArgsGradient", shape=shape_of_input(0), dtype=same_as_input(0), grad=None,
            lower=lambda a, g, x: _backprop(g, x, a["min"], a["max"], *_bits(a), None)[0])


def _vars_grad(op_type):
    def grad(op, g):
        outs = make_op(op_type, [g] + list(op.inputs), dict(op.attrs))
        return list(outs)
    return grad


register_op("FakeQuantWithMinMaxVars", shape=shape_of_input(0), dtype=same_as_input(0),
            grad=_vars_grad("FakeQuantWithMinMaxVarsGradient"),
            lower=lambda a, x, lo, hi: _quantize(x, lo, hi, *_bits(a)))
register_op("FakeQuantWithMinMaxVarsGradient", shape=lambda s, a, v: [s[1], TensorShape([]), TensorShape([])],
            dtype=lambda d, a: [d[0]] * 3, grad=None,
            lower=lambda a, g, x, lo, hi: _backprop(g, x, lo, hi, *_bits(a), None))
register_op("FakeQuantWithMinMaxVarsPerChannel", shape=shape_of_input(0), dtype=same_as_input(0),
            grad=_vars_grad("FakeQuantWithMinMaxVarsPerChannelGradient"),
            lower=lambda a, x, lo, hi: _quantize(x, lo, hi, *_bits(a)))
register_op("FakeQuantWithMinMaxVarsPerChannelGradient", shape=lambda s, a, v: [s[1], s[2], s[3]],
            dtype=lambda d, a: [d[0]] * 3, grad=None,
            lower=lambda a, g, x, lo, hi: _backprop(g, x, lo, hi, *_bits(a), tuple(range(x.ndim - 1))))


def _attrs(num_bits, narrow_range, **extra):
    if not 2 <= num_bits <= 16:
        raise ValueError("num_bits is out of range, expected between 2 and 16, was: %d" % num_bits)
    return dict(extra, num_bits=int(num_bits), narrow_range=bool(narrow_range))


def fake_quant_with_min_max_args(inputs, min=-6, max=6, num_bits=8, narrow_range=False, name=None):
    """float32 inputs rounded to the 2^num_bits levels of [min, max] (nudged so 0 is a level)."""
    if min >= max:
        raise ValueError("min has to be smaller than max, was: %s >= %s" % (min, max))
    x = convert_to_tensor(inputs, dt.float32, name="inputs")
    return make_op("FakeQuantWithMinMaxArgs", [x], _attrs(num_bits, narrow_range, min=float(min), max=float(max)),
                   name=name or "FakeQuantWithMinMaxArgs")


def fake_quant_with_min_max_args_gradient(gradients, inputs, min=-6, max=6, num_bits=8, narrow_range=False,
                                          name=None):
    """The gradient of fake_quant_with_min_max_args: `gradients` where inputs lie in the nudged range."""
    g = convert_to_tensor(gradients, dt.float32, name="gradients")
    x = convert_to_tensor(inputs, dt.float32, name="inputs")
    return make_op("FakeQuantWithMinMaxArgsGradient", [g, x],
                   _attrs(num_bits, narrow_range, min=float(min), max=float(max)),
                   name=name or "FakeQuantWithMinMaxArgsGradient")


def _vars(op_type, inputs, lo, hi, num_bits, narrow_range, name, grads=None):
    x = convert_to_tensor(inputs, dt.float32, name="inputs")
    lo = convert_to_tensor(lo, dt.float32, name="min")
    hi = convert_to_tensor(hi, dt.float32, name="max")
    ins = [x, lo, hi] if grads is None else [convert_to_tensor(grads, dt.float32, name="gradients"), x, lo, hi]
    out = make_op(op_type, ins, _attrs(num_bits, narrow_range), name=name or op_type)
    return tuple(out) if isinstance(out, list) else out


def fake_quant_with_min_max_vars(inputs, min, max, num_bits=8, narrow_range=False, name=None):
    """fake_quant_with_min_max_args with min and max as tensors (learned ranges: both get gradients)."""
    return _vars("FakeQuantWithMinMaxVars", inputs, min, max, num_bits, narrow_range, name)


def fake_quant_with_min_max_vars_gradient(gradients, inputs, min, max, num_bits=8, narrow_range=False, name=None):
    """(wrt inputs, wrt min, wrt max) of fake_quant_with_min_max_vars."""
    return _vars("FakeQuantWithMinMaxVarsGradient", inputs, min, max, num_bits, narrow_range, name, gradients)


def fake_quant_with_min_max_vars_per_channel(inputs, min, max, num_bits=8, narrow_range=False, name=None):
    """fake_quant_with_min_max_vars with one [min, max] per channel (the last dimension)."""
    return _vars("FakeQuantWithMinMaxVarsPerChannel", inputs, min, max, num_bits, narrow_range, name)


def fake_quant_with_min_max_vars_per_channel_gradient(gradients, inputs, min, max, num_bits=8, narrow_range=False,
                                                      name=None):
    """(wrt inputs, wrt min, wrt max) of fake_quant_with_min_max_vars_per_channel."""
    return _vars("FakeQuantWithMinMaxVarsPerChannelGradient", inputs, min, max, num_bits, narrow_range, name,
                 gradients)


def quantize_and_dequantize(input, input_min, input_max, signed_input=True, num_bits=8, range_given=False,
                            round_mode="HALF_TO_EVEN", name=None, narrow_range=False):
    """input quantized to num_bits levels of its range and back (TF's QuantizeAndDequantizeV2, symmetric
    scale), the gradient passed straight through (TF 1.15's: everywhere, none to the range)."""
    with get_default_graph().name_scope(name or "quantize_and_dequantize"):
        x = convert_to_tensor(input, name="input")
        if range_given:
            lo, hi = (convert_to_tensor(v, dtype=x.dtype) for v in (input_min, input_max))
        else:
            lo, hi = M.reduce_min(x), M.reduce_max(x)
        if signed_input:
            min_q, max_q = -(2 ** (num_bits - 1)) + (1 if narrow_range else 0), 2 ** (num_bits - 1) - 1
        else:
            min_q, max_q = 0, 2 ** num_bits - 1
        c = lambda v: M.scalar_like(v, x)   # noqa: E731
        factor_lo = M.div_no_nan(c(min_q), lo) if signed_input else c(np.inf)
        scale_from_min = M.where_v2(M.less(lo, c(0)), factor_lo, c(np.inf))
        scale_from_max = M.where_v2(M.greater(hi, c(0)), M.div_no_nan(c(max_q), hi), c(np.inf))
        scale = M.minimum(scale_from_min, scale_from_max)
        scale = M.where_v2(M.is_inf(scale), c(1), scale)
        inv = M.reciprocal(scale)
        lo_q, hi_q = M.multiply(c(min_q), inv), M.multiply(c(max_q), inv)
        clamped = M.maximum(M.minimum(x, hi_q), lo_q)
        rounded = M.round(M.multiply(clamped, scale)) if round_mode == "HALF_TO_EVEN" else \
            M.floor(M.add(M.multiply(clamped, scale), c(0.5)))
        return make_op("StraightThrough", [x, M.stop_gradient(M.multiply(rounded, inv))])


# TF 1.15's gradient of QuantizeAndDequantizeV2 is the identity to the input (none to the range), also
# outside the range: the value of input 1, the gradient of input 0 passed through unchanged.
register_op("StraightThrough", shape=shape_of_input(1), dtype=same_as_input(1), grad=lambda op, g: [g, None],
            lower=lambda a, x, y: y)
