"""Math ops: elementwise arithmetic with numpy broadcasting and TF's dtype rules, comparisons,
logical ops, casts, matmul, add_n and reductions. Each op: one register_op with all its rules,
next to its TF-style builder.

TF's dtype rules: two tensors of different dtypes are never promoted (TypeError, as TF's op-def
check); a Python number takes the dtype of the tensor it meets; `/` on integers is true division
into float32 (8/16-bit) or float64 (32/64-bit); `//` floors and `%` has the sign of the divisor.
"""
import builtins

import jax
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import ShapeError, get_default_graph
from tinyflow.graph.registry import register_op, same_as_input, shape_of_input
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops import back_shapes
from tinyflow.ops.core.base import (as_tensor_or_none, broadcast_rule, broadcast_shapes, constant, convert_to_tensor,
                                    make_op, normalize_axis)
from tinyflow.ops.core.util import keep_arg

__all__ = [
    'abs', 'accumulate_n', 'acos', 'acosh', 'add', 'add_n', 'argmax', 'argmin', 'asin', 'asinh', 'atan', 'atan2',
    'atanh', 'cast', 'ceil', 'clip_by_value', 'cos', 'cosh', 'count_nonzero', 'digamma', 'div', 'div_no_nan',
    'divide', 'equal', 'erf', 'exp', 'expm1', 'floor', 'floor_div', 'floordiv', 'floormod', 'greater',
    'greater_equal', 'is_finite', 'is_inf', 'is_nan', 'less', 'less_equal', 'lgamma', 'log', 'log1p',
    'log_sigmoid', 'logical_and', 'logical_not', 'logical_or', 'logical_xor', 'matmul', 'maximum', 'minimum',
    'mod', 'multiply', 'negative', 'not_equal', 'polygamma', 'pow', 'realdiv', 'reciprocal', 'reduce_all',
    'reduce_any', 'reduce_euclidean_norm', 'reduce_logsumexp', 'reduce_max', 'reduce_mean', 'reduce_min',
    'reduce_prod', 'reduce_std', 'reduce_sum', 'reduce_variance', 'rint', 'round', 'rsqrt', 'saturate_cast',
    'scalar_mul', 'sigmoid', 'sign', 'sin', 'sinh', 'sqrt', 'square', 'squared_difference', 'subtract', 'tan',
    'tanh', 'to_bfloat16', 'to_double', 'to_float', 'to_int32', 'to_int64', 'truediv', 'truncatediv',
    'truncatemod', 'where_v2', 'erfc', 'xlogy', 'xdivy', 'reciprocal_no_nan',
]

# ---- dtype classes (TF's op-def type constraints) -------------------------------------------------
FLOAT = (dt.float16, dt.bfloat16, dt.float32, dt.float64)
INTEGER = (dt.int8, dt.int16, dt.int32, dt.int64, dt.uint8, dt.uint16, dt.uint32, dt.uint64)
COMPLEX = (dt.complex64, dt.complex128)
NUMERIC = FLOAT + INTEGER
ALL = NUMERIC + (dt.bool_,)
# TF's op-def lists with the complex types: arithmetic, most unary math, sums, matmul (FLOAT_C, NUMBER)
FLOAT_C = FLOAT + COMPLEX
NUMBER = NUMERIC + COMPLEX
BOOL = (dt.bool_,)


def _check_allowed(dtype, allowed, param="x"):
    if allowed is not None and dtype not in allowed:
        raise TypeError("Value passed to parameter '%s' has DataType %s not in list of allowed values: %s"
                        % (param, dtype.name, ", ".join(d.name for d in allowed)))


def dtype_rule(op_type, allowed, out=None, names=("x", "y")):
    """A dtype rule: all inputs share input 0's dtype, which must be in `allowed`; the output has
    dtype `out` (default: the inputs')."""
    def rule(dtypes, attrs):
        for n, d in zip(names[1:], dtypes[1:]):
            if d != dtypes[0]:
                raise TypeError("Input '%s' of '%s' Op has type %s that does not match type %s of argument '%s'."
                                % (n, op_type, d.name, dtypes[0].name, names[0]))
        _check_allowed(dtypes[0], allowed, names[0])
        return [out or dtypes[0]]
    return rule


# ---- helpers used by gradient rules ---------------------------------------------------------------
def sum_to(g, x):
    """g reduced (summed) to the shape of x: undoes broadcasting in a gradient."""
    if g.shape.is_fully_defined() and g.shape == x.shape:
        return g
    return make_op("SumToShape", [g, x])


def _sum_to_lower(attrs, g, like):
    shape = like.shape
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, d in enumerate(shape) if d == 1 and g.shape[i + lead] != 1)
    return jnp.sum(g, axis=axes).reshape(shape).astype(g.dtype)


register_op("SumToShape", shape=lambda s, a, v: [s[1]], dtype=same_as_input(0),
            grad=lambda op, dy: [make_op("BroadcastLike", [dy, op.inputs[0]]), None], lower=_sum_to_lower)
register_op("BroadcastLike", shape=lambda s, a, v: [s[1]], dtype=same_as_input(0),
            grad=lambda op, dy: [sum_to(dy, op.inputs[0]), None],
            lower=lambda a, x, like: jnp.broadcast_to(x, like.shape))


def scalar_like(value, t):
    """A scalar constant of t's dtype."""
    return constant(value, dtype=t.dtype)


def ones_like_scalar(t):
    return scalar_like(1, t)


def zeros_like_scalar(t):
    return scalar_like(0, t)


def convert_like(values):
    """Converts a list of op inputs as TF's op-def code does: tensors keep their dtype (a mismatch
    is the op's TypeError, never a silent cast); Python and numpy values take the dtype of the
    first tensor among them."""
    tensors = [as_tensor_or_none(v) for v in values]
    dtype = next((t.dtype for t in tensors if t is not None), None)
    return [t if t is not None else convert_to_tensor(v, dtype) for t, v in zip(tensors, values)]


def _binary_inputs(x, y):
    return convert_like([x, y])


def numpy_fold(fn):
    """A fold rule (OpDef.fold) computing an op's integer value with numpy: shape arithmetic such as
    tf.shape(x)[0] * 2 folds without starting JAX."""
    def fold(op, values):
        dtype = op.outputs[0].dtype
        if not (dtype.is_integer or dtype.is_bool) or any(v is None for v in values):
            return None
        with np.errstate(all="ignore"):
            return np.asarray(fn(*values)).astype(dtype.np)
    fold.fn = fn
    return fold


def _binary(op_type, lower, grad, allowed=NUMERIC, out=None, default_name=None, inplace=((0, 0), (1, 0)),
            fold=True, names=("x", "y"), check=None, check_message=None, numpy=None):
    """Registers a broadcasting binary op and returns its builder."""
    fn = getattr(fold, "fn", None)   # its value while tracing by numpy where bit for bit XLA's (OpDef.numpy)
    if numpy is None and fn in (np.add, np.subtract, np.multiply, np.maximum, np.minimum):
        numpy = lambda a, x, y: fn(x, y)   # noqa: E731
    register_op(op_type, shape=broadcast_rule, dtype=dtype_rule(op_type, allowed, out, names), grad=grad, lower=lower,
                inplace=inplace, fold=fold, infer_back=back_shapes.broadcast, check=check, check_message=check_message,
                numpy=numpy)

    def builder(x, y, name=None):
        x, y = _binary_inputs(x, y)
        return make_op(op_type, [x, y], name=name or default_name or op_type)
    builder.__name__ = (default_name or op_type).lower()
    builder.__doc__ = "Elementwise %s of x and y with numpy broadcasting (TF op %s)." % (op_type, op_type)
    return builder


def _unary(op_type, lower, grad, allowed=FLOAT, out=None):
    """Registers an elementwise unary op and returns its builder."""
    register_op(op_type, shape=shape_of_input(0), dtype=dtype_rule(op_type, allowed, out), grad=grad,
                lower=lambda a, x: lower(x), inplace=((0, 0),), fold=True, infer_back=back_shapes.same_shape)

    def builder(x, name=None):
        return make_op(op_type, [convert_to_tensor(x)], name=name or op_type)
    builder.__name__ = op_type.lower()
    builder.__doc__ = "Elementwise %s (TF op %s)." % (op_type, op_type)
    return builder


def _keep_dtype(fn):
    """A binary lowering whose result keeps its input's dtype (jnp may promote, e.g. int // int)."""
    return lambda a, x, y: fn(x, y).astype(x.dtype)


def conj(t):
    """t's complex conjugate (the Conj op, ops/complex_ops.py); t itself for a real dtype. TF's gradient of
    a holomorphic f at z is g * conj(f'(z)), so the rules below read their inputs through conj."""
    return make_op("Conj", [t]) if t.dtype.is_complex else t


# ---- binary arithmetic ----------------------------------------------------------------------------
def _grad_add(op, g):
    x, y = op.inputs
    return [sum_to(g, x), sum_to(g, y)]


def _grad_sub(op, g):
    x, y = op.inputs
    return [sum_to(g, x), sum_to(negative(g), y)]


def _grad_mul(op, g):
    x, y = conj(op.inputs[0]), conj(op.inputs[1])
    return [sum_to(multiply(g, y), x), sum_to(multiply(x, g), y)]


def _grad_div(op, g):
    x, y = conj(op.inputs[0]), conj(op.inputs[1])
    # -(x / y) / y, TF's order: the negation between the divisions keeps XLA from rewriting (a / y) / y
    # as a / (y * y), whose y * y underflows to 0 for tiny y (an infinite gradient where TF's is finite)
    return [sum_to(realdiv(g, y), x), sum_to(multiply(g, realdiv(negative(realdiv(x, y)), y)), y)]


def _grad_div_no_nan(op, g):
    x, y = conj(op.inputs[0]), conj(op.inputs[1])
    return [sum_to(div_no_nan(g, y), x), sum_to(multiply(g, div_no_nan(div_no_nan(negative(x), y), y)), y)]


def _grad_pow(op, g):
    x, y, z = conj(op.inputs[0]), conj(op.inputs[1]), conj(op.outputs[0])
    gx = multiply(multiply(g, y), pow(x, subtract(y, ones_like_scalar(y))))
    # log(x) only where x > 0, as TF: the gradient wrt the exponent is 0 elsewhere
    safe_log = (log(x) if x.dtype.is_complex   # TF: log(x) itself for complex, log(x) where x > 0 for real
                else where_v2(greater(x, zeros_like_scalar(x)), log(x), zeros_like(x)))
    gy = multiply(multiply(g, z), safe_log)
    return [sum_to(gx, x), sum_to(gy, y)]


def _grad_maximum(op, g, is_max=True):
    x, y = op.inputs
    mask = greater_equal(x, y) if is_max else less_equal(x, y)
    zeros = zeros_like(g)
    return [sum_to(where_v2(mask, g, zeros), x), sum_to(where_v2(mask, zeros, g), y)]


def _grad_sqdiff(op, g):
    x, y = op.inputs
    d = multiply(multiply(g, subtract(x, y)), scalar_like(2, g))
    return [sum_to(d, x), sum_to(negative(d), y)]


def _grad_floormod(op, g):
    x, y = op.inputs
    return [sum_to(g, x), sum_to(multiply(negative(g), floor(realdiv(x, y))), y)]


def _grad_atan2(op, g):
    y, x = op.inputs
    r = realdiv(g, add(square(x), square(y)))
    return [sum_to(multiply(r, x), y), sum_to(negative(multiply(r, y)), x)]


def _int_check(bad, message):
    """A run-time check of an integer op (TF's kernel raises InvalidArgumentError): bad(x, y) marks the
    failing elements; float inputs pass without a test."""
    def check(a, x, y):
        if not jnp.issubdtype(x.dtype, jnp.integer):
            return (np.True_,)
        return (~jnp.any(bad(x, y)),)
    return dict(check=check, check_message=lambda op: message)


def _int_fold(fn, bad):
    """numpy_fold(fn), except where the check `bad` would fail: the step raises then, as TF's kernel."""
    fold = numpy_fold(fn)

    def safe(op, values):
        if any(v is None for v in values) or np.any(bad(*[np.asarray(v) for v in values])):
            return None
        return fold(op, values)
    safe.fn = fn
    return safe


def _by_zero(x, y):
    return y == 0


def _tf_floordiv(x, y):
    """TF's FloorDiv: floor(x / y) for floats (numpy's // differs with infinities: 1 // inf is 0 in TF)."""
    if jnp.issubdtype(x.dtype, jnp.integer):
        return jnp.floor_divide(x, jnp.where(y == 0, jnp.ones_like(y), y)).astype(x.dtype)
    return jnp.floor(x / y).astype(x.dtype)


def _tf_floormod(x, y):
    """TF's FloorMod for floats: fmod, moved into y's sign (so -1 mod inf is inf, as TF; numpy's too)."""
    if jnp.issubdtype(x.dtype, jnp.integer):
        return jnp.mod(x, jnp.where(y == 0, jnp.ones_like(y), y)).astype(x.dtype)
    trunc = jnp.fmod(x, y)
    return jnp.where((trunc != 0) & ((y < 0) != (trunc < 0)), trunc + y, trunc).astype(x.dtype)


def _tf_max(np_):
    """TF's CPU Maximum: x < y ? y : x, so a NaN in y is ignored and a NaN in x kept (Eigen's scalar_max)."""
    return lambda x, y: np_.where(x < y, y, x)


def _tf_min(np_):
    return lambda x, y: np_.where(y < x, y, x)


def _truncdiv(x, y):
    x, y = jnp.broadcast_arrays(x, y)
    if jnp.issubdtype(x.dtype, jnp.integer):
        return jax.lax.div(x, jnp.where(y == 0, jnp.ones_like(y), y))  # C division: rounds toward zero
    return jnp.trunc(x / y)


def _truncmod(x, y):
    x, y = jnp.broadcast_arrays(x, y)
    if jnp.issubdtype(x.dtype, jnp.integer):
        return jax.lax.rem(x, jnp.where(y == 0, jnp.ones_like(y), y))
    return jax.lax.rem(x, y)


def _int_pow(x, y):
    """Pow; an integer to a negative power raises (the check), so it is never computed."""
    if jnp.issubdtype(x.dtype, jnp.integer):
        y = jnp.maximum(y, jnp.zeros_like(y))
    return jnp.power(x, y).astype(x.dtype)


def _realdiv_numpy(a, x, y):
    """RealDiv's value by numpy for float32 / float64 (a static step's: tracing compiles no XLA program
    for it), or None: XLA divides as IEEE does, but on the CPU it flushes subnormal inputs and results
    to zero and on a GPU it does not, so values with a subnormal are left to the JAX rule."""
    if x.dtype != y.dtype or x.dtype not in (np.float32, np.float64):
        return None
    with np.errstate(all="ignore"):
        out = np.true_divide(x, y)
    tiny = np.finfo(x.dtype).tiny
    return None if any(np.any((v != 0) & (np.abs(v) < tiny)) for v in (x, y, out)) else out


def _div_no_nan(x, y):
    return jnp.where(y == 0, jnp.zeros_like(x), x / jnp.where(y == 0, jnp.ones_like(y), y)).astype(x.dtype)


def elementwise(primitive, jnp_fn):
    """jnp_fn(x, y), as the lax primitive itself when x and y are arrays of one shape and one dtype (not
    bool): the same operation, where jnp's function is a jit of its own, whose tracing is most of what
    such a rule costs while a step is traced (jnp also broadcasts, promotes, and adds bools as `or`)."""
    def fn(x, y):
        if (getattr(x, "dtype", None) == getattr(y, "dtype", 0) and x.dtype != np.bool_
                and np.shape(x) == np.shape(y)):
            return primitive(x, y)
        return jnp_fn(x, y)
    return fn


_add, _subtract = elementwise(jax.lax.add, jnp.add), elementwise(jax.lax.sub, jnp.subtract)
add = _binary("Add", lambda a, x, y: _add(x, y), _grad_add, NUMBER, fold=numpy_fold(np.add))
add_v2 = _binary("AddV2", lambda a, x, y: _add(x, y), _grad_add, NUMBER, fold=numpy_fold(np.add))  # TF 1.15's x + y
subtract = _binary("Sub", lambda a, x, y: _subtract(x, y), _grad_sub, NUMBER, fold=numpy_fold(np.subtract))
_multiply = elementwise(jax.lax.mul, jnp.multiply)


def _mul(a, x, y):
    """Mul; with `_rounded` (random_ops: rnd * scale + offset, which TF computes in two kernels) its
    product is kept from fusing with the add that follows into an FMA (one rounding, not TF's two):
    a select on its bits (a NaN payload -> the quiet NaN) that no compiler sees through."""
    p = _multiply(x, y)
    if not a.get("_rounded") or not jnp.issubdtype(p.dtype, jnp.floating) or p.dtype.itemsize not in (4, 8):
        return p
    ut, nan = (np.uint32, 0x7FC00000) if p.dtype.itemsize == 4 else (np.uint64, 0x7FF8000000000000)
    bits = jax.lax.bitcast_convert_type(p, ut)
    quiet = jax.lax.full(p.shape, nan, ut)
    return jax.lax.bitcast_convert_type(jax.lax.select(jax.lax.eq(bits, jax.lax.full(p.shape, nan + 1, ut)), quiet,
                                                       bits), p.dtype)


multiply = _binary("Mul", _mul, _grad_mul, NUMBER, fold=numpy_fold(np.multiply))
realdiv = _binary("RealDiv", lambda a, x, y: jnp.divide(x, y).astype(x.dtype), _grad_div, NUMBER, numpy=_realdiv_numpy)
div_no_nan = _binary("DivNoNan", lambda a, x, y: _div_no_nan(x, y), _grad_div_no_nan, allowed=FLOAT_C)
pow = _binary("Pow", lambda a, x, y: _int_pow(x, y), _grad_pow, NUMBER,
              **_int_check(lambda x, y: y < 0, "Integers to negative integer powers are not allowed"))
maximum = _binary("Maximum", lambda a, x, y: _tf_max(jnp)(x, y), _grad_maximum, fold=numpy_fold(_tf_max(np)))
minimum = _binary("Minimum", lambda a, x, y: _tf_min(jnp)(x, y), lambda op, g: _grad_maximum(op, g, False),
                  fold=numpy_fold(_tf_min(np)))
squared_difference = _binary("SquaredDifference", lambda a, x, y: (x - y) * jnp.conj(x - y), _grad_sqdiff, NUMBER)
floordiv = _binary("FloorDiv", lambda a, x, y: _tf_floordiv(x, y), None, default_name="floordiv",
                   fold=_int_fold(np.floor_divide, _by_zero), **_int_check(_by_zero, "Integer division by zero"))
floormod = _binary("FloorMod", lambda a, x, y: _tf_floormod(x, y), _grad_floormod,
                   **_int_check(_by_zero, "Integer division by zero"))
truncatediv = _binary("TruncateDiv", _keep_dtype(_truncdiv), None, **_int_check(_by_zero, "Integer division by zero"))
truncatemod = _binary("TruncateMod", _keep_dtype(_truncmod), None, **_int_check(_by_zero, "Integer division by zero"))
atan2 = _binary("Atan2", lambda a, y, x: jnp.arctan2(y, x), _grad_atan2, allowed=FLOAT)
def _nonzero_x(x):
    return cast(not_equal(x, zeros_like_scalar(x)), x.dtype)


def _grad_xlogy(op, g):
    x, y = op.inputs  # TF's rule: d/dx = log(y) where x != 0, d/dy = x / y
    return [sum_to(multiply(g, xlogy(_nonzero_x(x), y)), x), sum_to(multiply(g, xdivy(x, y)), y)]


def _grad_xdivy(op, g):
    x, y = op.inputs
    return [sum_to(multiply(g, xdivy(_nonzero_x(x), y)), x), sum_to(multiply(g, xdivy(negative(x), square(y))), y)]


xlogy = _binary("Xlogy", lambda a, x, y: jnp.where(x == 0, jnp.zeros_like(x), x * jnp.log(y)), _grad_xlogy,
                allowed=FLOAT)
xdivy = _binary("Xdivy", lambda a, x, y: jnp.where(x == 0, jnp.zeros_like(x), x / y), _grad_xdivy, allowed=FLOAT)
mod = floormod
floor_div = floordiv
sub, mul = subtract, multiply  # pre-1.0 names, kept for old code

_TRUEDIV_TARGET = {dt.int8: dt.float32, dt.uint8: dt.float32, dt.int16: dt.float32, dt.uint16: dt.float32,
                   dt.int32: dt.float64, dt.uint32: dt.float64, dt.int64: dt.float64, dt.uint64: dt.float64}


def truediv(x, y, name=None):
    """x / y with Python 3 semantics: int8/16 -> float32, int32/64 -> float64 (TF's rule)."""
    with get_default_graph().name_scope(name or "truediv") as scope:
        x, y = _binary_inputs(x, y)
        if x.dtype != y.dtype:
            raise TypeError("x and y must have the same dtype, got %r != %r" % (x.dtype, y.dtype))
        target = _TRUEDIV_TARGET.get(x.dtype)
        if target is not None:
            x, y = cast(x, target), cast(y, target)
        return realdiv(x, y, name=scope)


def divide(x, y, name=None):
    """tf.divide: true division (x / y)."""
    return truediv(x, y, name=name)


def div(x, y, name=None):
    """tf.div: Python 2 division: floor division for integers, true division for floats."""
    x, y = _binary_inputs(x, y)
    if x.dtype.is_integer:
        return floordiv(x, y, name=name or "div")
    return realdiv(x, y, name=name or "div")


def scalar_mul(scalar, x, name=None):
    """Multiplies x by a scalar (ValueError if `scalar` is not a scalar)."""
    x = convert_to_tensor(x)
    scalar = convert_to_tensor(scalar, dtype=x.dtype, name="scalar")
    if scalar.shape.ndims != 0:
        raise ValueError("Only scalar multiply works, got shape %s" % scalar.shape)
    return multiply(scalar, x, name=name)


# ---- comparisons and logic ------------------------------------------------------------------------
def _compare(op_type, fn, allowed=NUMERIC):
    return _binary(op_type, lambda a, x, y: fn(x, y), None, allowed=allowed, out=dt.bool_, inplace=())


equal = _compare("Equal", jnp.equal, ALL + COMPLEX + (dt.string,))
not_equal = _compare("NotEqual", jnp.not_equal, ALL + COMPLEX + (dt.string,))
less = _compare("Less", jnp.less)
less_equal = _compare("LessEqual", jnp.less_equal)
greater = _compare("Greater", jnp.greater)
greater_equal = _compare("GreaterEqual", jnp.greater_equal)
logical_and = _binary("LogicalAnd", lambda a, x, y: jnp.logical_and(x, y), None, allowed=BOOL)
logical_or = _binary("LogicalOr", lambda a, x, y: jnp.logical_or(x, y), None, allowed=BOOL)


def logical_xor(x, y, name="LogicalXor"):
    """x XOR y, built as TF does: (x | y) & ~(x & y)."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


# ---- unary math -----------------------------------------------------------------------------------
def _x(op):
    return conj(op.inputs[0])


def _y(op):
    return conj(op.outputs[0])


negative = _unary("Neg", jnp.negative, lambda op, g: [negative(g)], NUMBER)
_abs = _unary("Abs", jnp.abs, lambda op, g: [multiply(g, sign(_x(op)))], NUMERIC)


def abs(x, name=None):
    """|x|; of a complex tensor the modulus, of its real dtype (TF's ComplexAbs)."""
    x = convert_to_tensor(x, name="x")
    if x.dtype.is_complex:
        return make_op("ComplexAbs", [x], {"Tout": x.dtype.real_dtype}, name=name or "ComplexAbs")
    return _abs(x, name=name)
sign = _unary("Sign", lambda x: jnp.where(jnp.isnan(x), jnp.zeros_like(x), jnp.sign(x)) if jnp.issubdtype(
    x.dtype, jnp.floating) else jnp.sign(x), lambda op, g: [zeros_like(_x(op))], NUMBER)   # TF: sign(nan) = 0
exp = _unary("Exp", jnp.exp, lambda op, g: [multiply(g, _y(op))], FLOAT_C)
expm1 = _unary("Expm1", jnp.expm1, lambda op, g: [multiply(g, exp(_x(op)))], FLOAT_C)
log = _unary("Log", jnp.log, lambda op, g: [realdiv(g, _x(op))], FLOAT_C)
log1p = _unary("Log1p", jnp.log1p, lambda op, g: [realdiv(g, add(_x(op), ones_like_scalar(g)))], FLOAT_C)
def _sqrt(x):
    r = jnp.sqrt(x)
    if jnp.iscomplexobj(x):   # the branch cut's side from the sign of a zero imaginary part, as TF (C99)
        r = jax.lax.complex(jnp.real(r), jnp.copysign(jnp.imag(r), jnp.imag(x)))
    return r


def _zero_for_zero(g, grad):
    """TF's SqrtGrad, RsqrtGrad and ReciprocalGrad kernels: 0 where the incoming gradient is 0, even where
    the output is 0 or inf (no 0 / 0 or 0 * inf NaN: a dead branch of a maximum stays dead)."""
    return [where_v2(equal(g, zeros_like_scalar(g)), zeros_like(g), grad)]


sqrt = _unary("Sqrt", _sqrt, lambda op, g: _zero_for_zero(g, realdiv(multiply(g, scalar_like(0.5, g)), _y(op))),
              FLOAT_C)
rsqrt = _unary("Rsqrt", jax.lax.rsqrt, lambda op, g: _zero_for_zero(g, multiply(
    multiply(g, scalar_like(-0.5, g)), multiply(_y(op), square(_y(op))))), FLOAT_C)
square = _unary("Square", jnp.square, lambda op, g: [multiply(g, multiply(_x(op), scalar_like(2, g)))], NUMBER)
reciprocal = _unary("Reciprocal", lambda x: (1 / x).astype(x.dtype),
                    lambda op, g: _zero_for_zero(g, negative(multiply(g, square(_y(op))))), NUMBER)
tanh = _unary("Tanh", jnp.tanh, lambda op, g: [multiply(g, subtract(ones_like_scalar(g), square(_y(op))))], FLOAT_C)
sigmoid = _unary("Sigmoid", jax.nn.sigmoid,
                 lambda op, g: [multiply(g, multiply(_y(op), subtract(ones_like_scalar(g), _y(op))))], FLOAT_C)
sin = _unary("Sin", jnp.sin, lambda op, g: [multiply(g, cos(_x(op)))], FLOAT_C)
cos = _unary("Cos", jnp.cos, lambda op, g: [negative(multiply(g, sin(_x(op))))], FLOAT_C)
tan = _unary("Tan", jnp.tan, lambda op, g: [multiply(g, square(reciprocal(cos(_x(op)))))], FLOAT_C)
asin = _unary("Asin", jnp.arcsin,
              lambda op, g: [multiply(g, rsqrt(subtract(ones_like_scalar(g), square(_x(op)))))], FLOAT_C)
acos = _unary("Acos", jnp.arccos,
              lambda op, g: [negative(multiply(g, rsqrt(subtract(ones_like_scalar(g), square(_x(op))))))], FLOAT_C)
atan = _unary("Atan", jnp.arctan, lambda op, g: [realdiv(g, add(ones_like_scalar(g), square(_x(op))))], FLOAT_C)
sinh = _unary("Sinh", jnp.sinh, lambda op, g: [multiply(g, cosh(_x(op)))], FLOAT_C)
cosh = _unary("Cosh", jnp.cosh, lambda op, g: [multiply(g, sinh(_x(op)))], FLOAT_C)
asinh = _unary("Asinh", jnp.arcsinh, lambda op, g: [realdiv(g, cosh(_y(op)))], FLOAT_C)
acosh = _unary("Acosh", jnp.arccosh, lambda op, g: [realdiv(g, sinh(_y(op)))], FLOAT_C)
atanh = _unary("Atanh", jnp.arctanh,
               lambda op, g: [realdiv(g, subtract(ones_like_scalar(g), square(_x(op))))], FLOAT_C)
lgamma = _unary("Lgamma", jax.scipy.special.gammaln, lambda op, g: [multiply(g, digamma(_x(op)))])
def _digamma(x):
    """TF's digamma: +inf at the poles 0, -1, -2, ... (JAX gives NaN)."""
    pole = (x <= 0) & (jnp.floor(x) == x)
    return jnp.where(pole, jnp.asarray(np.inf, x.dtype), jax.scipy.special.digamma(x))


digamma = _unary("Digamma", _digamma,
                 lambda op, g: [multiply(g, polygamma(ones_like_scalar(_x(op)), _x(op)))])
floor = _unary("Floor", jnp.floor, None)
ceil = _unary("Ceil", jnp.ceil, None)
rint = _unary("Rint", jnp.rint, None)
_round = _unary("Round", jnp.round, None, NUMERIC)
logical_not = _unary("LogicalNot", jnp.logical_not, None, BOOL)
is_nan = _unary("IsNan", jnp.isnan, None, out=dt.bool_)
is_inf = _unary("IsInf", jnp.isinf, None, out=dt.bool_)
is_finite = _unary("IsFinite", jnp.isfinite, None, out=dt.bool_)
erf = _unary("Erf", jax.scipy.special.erf,
             lambda op, g: [multiply(g, multiply(scalar_like(2 / np.sqrt(np.pi), g), exp(negative(square(_x(op))))))])


erfc = _unary("Erfc", jax.scipy.special.erfc,
              lambda op, g: [multiply(g, multiply(scalar_like(-2 / np.sqrt(np.pi), g), exp(negative(square(_x(op))))))])


def reciprocal_no_nan(x, name=None):
    """1 / x, with 0 where x is 0."""
    with get_default_graph().name_scope(name or "reciprocal_no_nan"):
        x = convert_to_tensor(x, name="x")
        return div_no_nan(ones_like_scalar(x), x)


def _polygamma_lower(a, n, x):
    return jax.scipy.special.polygamma(n.astype(np.int32), x).astype(x.dtype)


polygamma = _binary("Polygamma", _polygamma_lower, lambda op, g: [
    None, multiply(g, polygamma(add(_x(op), ones_like_scalar(_x(op))), op.inputs[1]))], allowed=FLOAT)
polygamma.__doc__ = "polygamma(a, x): the a-th derivative of digamma at x (a holds whole numbers)."


def round(x, name=None):
    """Rounds half to even (banker's rounding); integers are returned unchanged."""
    x = convert_to_tensor(x)
    return x if x.dtype.is_integer else _round(x, name=name)


def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x), as TF builds it (its gradient at 0 is sigmoid(0) = 0.5)."""
    with get_default_graph().name_scope(name or "LogSigmoid"):
        x = convert_to_tensor(x, name="x")
        return negative(make_op("Softplus", [negative(x)], name="Softplus"))   # registered in nn_ops.py


# ---- cast -----------------------------------------------------------------------------------------
def _grad_cast(op, g):
    src, dst = op.inputs[0].dtype, op.outputs[0].dtype
    if (src.is_floating or src.is_complex) and (dst.is_floating or dst.is_complex):
        return [cast(g, src)]
    return [None]


def _cast_lower(x, dst):
    if jnp.iscomplexobj(x) and not dst.is_complex:
        x = jnp.real(x)   # TF keeps the real part
    if dst.is_integer and jnp.issubdtype(x.dtype, jnp.floating):
        x = jnp.trunc(x)  # TF truncates toward zero
    return x.astype(dst.np)


def _fold_cast(op, values):
    return None if values[0] is None else np.asarray(values[0]).astype(op.attrs["DstT"].np)


register_op("Cast", fold=_fold_cast, shape=shape_of_input(0), dtype=lambda d, a: [a["DstT"]], grad=_grad_cast,
            lower=lambda a, x: _cast_lower(x, a["DstT"]))


def cast(x, dtype, name=None):
    """tf.cast: converts to `dtype` (floats to ints truncate toward zero); x itself if already `dtype`."""
    dtype = dt.as_dtype(dtype)
    x = convert_to_tensor(x)
    if x.dtype == dtype:
        return x
    return make_op("Cast", [x], {"SrcT": x.dtype, "DstT": dtype}, name=name or "Cast")


def to_float(x, name="ToFloat"):
    return cast(x, dt.float32, name=name)


def to_double(x, name="ToDouble"):
    return cast(x, dt.float64, name=name)


def to_int32(x, name="ToInt32"):
    return cast(x, dt.int32, name=name)


def to_int64(x, name="ToInt64"):
    return cast(x, dt.int64, name=name)


def to_bfloat16(x, name="ToBFloat16"):
    return cast(x, dt.bfloat16, name=name)


def saturate_cast(value, dtype, name=None):
    """Casts, first clipping values to the range of `dtype` (no wrap-around)."""
    dtype = dt.as_dtype(dtype)
    with get_default_graph().name_scope(name or "saturate_cast"):
        value = convert_to_tensor(value, name="value")
        if value.dtype.min < dtype.min:
            value = maximum(value, constant(dtype.min, dtype=value.dtype))
        if value.dtype.max > dtype.max:
            value = minimum(value, constant(dtype.max, dtype=value.dtype))
        return cast(value, dtype)


# ---- selection, add_n, clip -----------------------------------------------------------------------
def _select_shape(shapes, attrs, values):
    return [broadcast_shapes(broadcast_shapes(shapes[1], shapes[2]), shapes[0])]


def _grad_select(op, g):
    c, x, y = op.inputs
    zeros = zeros_like(g)
    return [None, sum_to(where_v2(c, g, zeros), x), sum_to(where_v2(c, zeros, g), y)]


def _select_dtype(dtypes, attrs):
    _check_allowed(dtypes[0], BOOL, "condition")
    return dtype_rule("SelectV2", None, names=("t", "e"))(dtypes[1:], attrs)


register_op("SelectV2", shape=_select_shape, dtype=_select_dtype, grad=_grad_select,
            lower=lambda a, c, x, y: jnp.where(c, x, y))


def where_v2(condition, x=None, y=None, name=None):
    """Elementwise select with numpy broadcasting of all three inputs (tf.where_v2); without x and
    y, the coordinates of the true entries (as tf.where)."""
    if x is None and y is None:
        from tinyflow.ops.core.indexing_ops import where
        return where(condition, name=name)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    x, y = convert_like([x, y])
    return make_op("SelectV2", [convert_to_tensor(condition), x, y], name=name or "SelectV2")


def _addn_shape(shapes, attrs, values):
    out = shapes[0]
    for s in shapes[1:]:
        if not out.is_compatible_with(s):
            raise ShapeError("Shapes must be equal rank, but are %d and %d" % (out.ndims, s.ndims)
                             if out.ndims != s.ndims else "Dimensions must be equal, but are %s and %s" % (out, s))
        out = out.merge_with(s)
    return [out]


def _addn_dtype(dtypes, attrs):
    if any(d != dtypes[0] for d in dtypes):
        raise TypeError("Tensors in list passed to 'inputs' of 'AddN' Op have types [%s] that don't all match."
                        % ", ".join(d.name for d in dtypes))
    _check_allowed(dtypes[0], NUMBER, "inputs")
    return [dtypes[0]]


def _addn_lower(attrs, *xs):
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


register_op("AddN", fold=True, shape=_addn_shape, dtype=_addn_dtype, grad=lambda op, g: [g] * len(op.inputs),
            lower=_addn_lower, inplace=((0, 0),))


def add_n(inputs, name=None):
    """Sums a list of tensors of the same shape and dtype."""
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("inputs must be a list of at least one Tensor with the same dtype and shape")
    inputs = convert_like(list(inputs))
    if len(inputs) == 1:
        return inputs[0] if name is None else identity(inputs[0], name=name)
    return make_op("AddN", inputs, name=name or "AddN")


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """Sums a list of tensors (tf.accumulate_n; here the same graph as add_n)."""
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("inputs must be a list of at least one Tensor with the same dtype and shape")
    inputs = convert_like(list(inputs))
    if tensor_dtype is not None and any(t.dtype != dt.as_dtype(tensor_dtype) for t in inputs):
        raise TypeError("tensor_dtype is {}, but input is of type {}".format(
            dt.as_dtype(tensor_dtype), inputs[0].dtype))
    if shape is not None and not all(t.shape.is_compatible_with(shape) for t in inputs):
        raise ValueError("Input tensor must have compatible shape with %s" % (shape,))
    return add_n(inputs, name=name or "AccumulateNV2")


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Clips values to [min, max], built as TF: Maximum(Minimum(t, max), min), so gradients pass
    inside the range and the result keeps t's shape."""
    with get_default_graph().name_scope(name or "clip_by_value") as scope:
        t = convert_to_tensor(t, name="t")
        t_min = minimum(t, clip_value_max)
        t.shape.merge_with(t_min.shape)  # clip values must not broadcast t to a bigger shape
        t_max = maximum(t_min, clip_value_min, name=scope)
        t.shape.merge_with(t_max.shape)
        return t_max


def identity(x, name=None):
    """A new tensor with the same value."""
    from tinyflow.ops.core.array_ops import identity as _id
    return _id(x, name=name)


def zeros_like(x, dtype=None, name=None):
    from tinyflow.ops.core.array_ops import zeros_like as _z
    return _z(x, dtype=dtype, name=name)


def stop_gradient(x, name=None):
    from tinyflow.ops.core.array_ops import stop_gradient as _sg
    return _sg(x, name=name)


# ---- matmul ---------------------------------------------------------------------------------------
def _matmul_shape(batched):
    def rule(shapes, attrs, values):
        a, b = shapes
        for s in (a, b):
            if s.ndims is not None and (s.ndims < 2 if batched else s.ndims != 2):
                raise ShapeError("Shape must be %s 2 but is rank %d" % ("at least rank" if batched else "rank",
                                                                        s.ndims))
        if a.ndims is None or b.ndims is None:
            return [TensorShape(None if batched else [None, None])]
        m, k1 = (a[-1], a[-2]) if attrs["transpose_a"] else (a[-2], a[-1])
        k2, n = (b[-1], b[-2]) if attrs["transpose_b"] else (b[-2], b[-1])
        if not k1.is_compatible_with(k2):
            raise ShapeError("Dimensions must be equal, but are %s and %s" % (k1, k2))
        return [broadcast_shapes(a[:-2], b[:-2]).concatenate([m, n])]
    return rule


def _matmul_lower(attrs, a, b):
    if np.ndim(a) == np.ndim(b) == 2 and getattr(a, "dtype", None) == getattr(b, "dtype", 0):
        # what jnp.swapaxes and jnp.matmul emit for matrices, as primitives (jnp's are a jit each)
        a = jax.lax.transpose(a, (1, 0)) if attrs["transpose_a"] else a
        b = jax.lax.transpose(b, (1, 0)) if attrs["transpose_b"] else b
        return jax.lax.dot_general(a, b, (((1,), (0,)), ((), ())), preferred_element_type=a.dtype)
    if attrs["transpose_a"]:
        a = jnp.swapaxes(a, -1, -2)
    if attrs["transpose_b"]:
        b = jnp.swapaxes(b, -1, -2)
    return jnp.matmul(a, b, preferred_element_type=a.dtype)


def matmul_sum(attrs, *xs):
    """sum_t op(a_t) op(b_t) of xs = (a_1..a_n, b_1..b_n) (attrs: the MatMuls' shared transposes) as one
    MatMul of the concatenations (lower/program.fuse_matmul_sums): an unrolled LSTM's weight gradient is
    one [384, 640] x [640, 1024] dot, not 20 small ones whose sum XLA fuses into each of Adam's three
    updates. Rounding differs from the chain of adds in the last bits."""
    n = len(xs) // 2
    a = jnp.concatenate(xs[:n], axis=0 if attrs["transpose_a"] else 1)
    b = jnp.concatenate(xs[n:], axis=1 if attrs["transpose_b"] else 0)
    return _matmul_lower(attrs, a, b)


def _matmul_grad(op, g):
    a, b = conj(op.inputs[0]), conj(op.inputs[1])
    ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
    if not ta and not tb:
        ga, gb = matmul(g, b, transpose_b=True), matmul(a, g, transpose_a=True)
    elif not ta and tb:
        ga, gb = matmul(g, b), matmul(g, a, transpose_a=True)
    elif ta and not tb:
        ga, gb = matmul(b, g, transpose_b=True), matmul(a, g)
    else:
        ga, gb = matmul(b, g, transpose_a=True, transpose_b=True), matmul(g, a, transpose_a=True, transpose_b=True)
    if op.type == "MatMul":
        return [ga, gb]
    return [sum_to(ga, op.inputs[0]), sum_to(gb, op.inputs[1])]  # batch dims may have broadcast


_MATMUL_TYPES = FLOAT + (dt.int32, dt.int64) + COMPLEX
register_op("MatMul", shape=_matmul_shape(False), dtype=dtype_rule("MatMul", _MATMUL_TYPES, names=("a", "b")),
            grad=_matmul_grad, lower=_matmul_lower, infer_back=back_shapes.matmul)
register_op("BatchMatMulV2", shape=_matmul_shape(True),
            dtype=dtype_rule("BatchMatMulV2", _MATMUL_TYPES, names=("x", "y")), grad=_matmul_grad,
            lower=_matmul_lower)


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, a_is_sparse=False,
           b_is_sparse=False, name=None):
    """a @ b, with optional transposes (adjoint = transpose for real dtypes). Rank > 2 (or unknown
    rank) is a batched matmul (BatchMatMulV2) whose batch dimensions broadcast."""
    if transpose_a and adjoint_a:
        raise ValueError("Only one of transpose_a and adjoint_a can be True.")
    if transpose_b and adjoint_b:
        raise ValueError("Only one of transpose_b and adjoint_b can be True.")
    a, b = convert_like([a, b])
    a, b = (conj(a) if adjoint_a else a), (conj(b) if adjoint_b else b)   # the adjoint: conjugate, transposed
    attrs = {"transpose_a": bool(transpose_a or adjoint_a), "transpose_b": bool(transpose_b or adjoint_b)}
    ra, rb = a.shape.ndims, b.shape.ndims
    batched = ra is None or rb is None or ra > 2 or rb > 2
    return make_op("BatchMatMulV2" if batched else "MatMul", [a, b], attrs, name=name or "MatMul")


# ---- reductions -----------------------------------------------------------------------------------
def _axes(axis, rank):
    """The reduced axes as a sorted tuple, or None for all."""
    if axis is None:
        return None if rank is None else tuple(range(rank))
    axes = [axis] if np.ndim(axis) == 0 else list(np.asarray(axis).reshape(-1))
    return tuple(sorted({normalize_axis(int(a), rank) if rank is not None else int(a) for a in axes}))


def _reduce_shape(shapes, attrs, values):
    s = shapes[0]
    if s.ndims is None:   # every axis reduced: a scalar whatever the rank (TF's _may_reduce_to_scalar)
        return [TensorShape([] if attrs["axis"] is None and not attrs["keep_dims"] else None)]
    for a in np.asarray(attrs["axis"] if attrs["axis"] is not None else [], dtype=np.int64).reshape(-1):
        if not -s.ndims <= a < s.ndims:
            raise ShapeError("Invalid reduction dimension %d for input with %d dimensions" % (a, s.ndims))
    axes = _axes(attrs["axis"], s.ndims)
    if attrs["keep_dims"]:
        return [TensorShape([1 if i in axes else d for i, d in enumerate(s.as_list())])]
    return [TensorShape([d for i, d in enumerate(s.as_list()) if i not in axes])]


def _reduce_lower(fn):
    def lower(attrs, x):
        axes = _axes(attrs["axis"], x.ndim)
        return fn(x, axis=axes, keepdims=attrs["keep_dims"]).astype(x.dtype)
    return lower


def _unreduce_lower(attrs, g, x):
    """g (the reduction's gradient) broadcast back over the reduced axes of x; / count for means."""
    axes = _axes(attrs["axis"], x.ndim)
    if not attrs["keep_dims"]:
        g = jnp.expand_dims(g, axes) if axes else g
    out = jnp.broadcast_to(g, x.shape)
    if attrs["mean"]:
        n = int(np.prod([x.shape[a] for a in axes])) if axes else 1
        out = out / np.asarray(builtins.max(n, 1), dtype=out.dtype)
    return out.astype(g.dtype)


def _unreduce_grad(op, dy):
    fn = reduce_mean if op.attrs["mean"] else reduce_sum
    axis = op.attrs["axis"]
    if axis is not None:
        axis = list(_axes(axis, op.inputs[1].shape.ndims))
    return [fn(dy, axis=axis, keepdims=op.attrs["keep_dims"]), None]


register_op("Unreduce", shape=lambda s, a, v: [s[1]], dtype=same_as_input(0), grad=_unreduce_grad,
            lower=_unreduce_lower)


def _unreduce(g, x, attrs, mean=False):
    return make_op("Unreduce", [g, x], {"axis": attrs["axis"], "keep_dims": attrs["keep_dims"], "mean": mean})


def _grad_sum(op, g):
    return [_unreduce(g, op.inputs[0], op.attrs)]


def _grad_mean(op, g):
    return [_unreduce(g, op.inputs[0], op.attrs, mean=True)]


def _grad_minmax(op, g):
    # TF's rule: the gradient is split evenly between the elements equal to the extreme value.
    x, y = op.inputs[0], op.outputs[0]
    ind = cast(equal(x, _unreduce(y, x, op.attrs)), g.dtype)
    count = _unreduce(make_op("Sum", [ind], {"axis": op.attrs["axis"], "keep_dims": op.attrs["keep_dims"]}), x,
                      op.attrs)
    return [multiply(realdiv(ind, count), _unreduce(g, x, op.attrs))]


def _grad_prod(op, g):
    # d prod / d x_i = prod_{j != i} x_j: exclusive cumulative products from both sides, zero-safe.
    return [make_op("ProdGrad", [g, op.inputs[0]], {"axis": op.attrs["axis"], "keep_dims": op.attrs["keep_dims"]})]


def _prod_grad_lower(attrs, g, x):
    if not x.size:
        return jnp.zeros(x.shape, g.dtype)
    axes = _axes(attrs["axis"], x.ndim)
    gfull = _unreduce_lower({"axis": attrs["axis"], "keep_dims": attrs["keep_dims"], "mean": False}, g, x)
    rest = [i for i in range(x.ndim) if i not in axes]
    perm = rest + list(axes)  # reduced axes last, flattened into one
    xt = jnp.transpose(x, perm)
    lead = xt.shape[:len(rest)]
    flat = xt.reshape(lead + (-1,))
    ones = jnp.ones(lead + (1,), x.dtype)
    left = jnp.cumprod(jnp.concatenate([ones, flat[..., :-1]], -1), -1)
    right = jnp.flip(jnp.cumprod(jnp.concatenate([ones, jnp.flip(flat, -1)[..., :-1]], -1), -1), -1)
    others = jnp.conj(left * right).reshape(xt.shape)   # TF: the conjugate for complex
    return (jnp.transpose(others, np.argsort(perm)) * gfull).astype(x.dtype)


def _no_second_order(op, g):
    raise LookupError("No gradient defined for operation '%s' (op type: %s): second-order gradients of "
                      "reduce_prod are not supported" % (op.name, op.type))


register_op("ProdGrad", shape=lambda s, a, v: [s[1]], dtype=same_as_input(0), grad=_no_second_order,
            lower=_prod_grad_lower)

def _mean(x, axis, keepdims):
    if jnp.issubdtype(x.dtype, jnp.integer):  # TF: the integer sum divided with C's rounding toward zero
        n = int(np.prod([x.shape[a] for a in axis])) if axis else 1
        return jax.lax.div(jnp.sum(x, axis=axis, keepdims=keepdims).astype(x.dtype), np.asarray(n or 1, x.dtype))
    return jnp.mean(x, axis=axis, keepdims=keepdims)


def _extreme(fn, x, kwargs):
    """max / min; over nothing TF gives the identity (-inf / +inf, an integer type's lowest / highest).
    TF's CPU kernel ignores NaN (Eigen's MaxReducer compares with <): all NaN gives the identity."""
    low = fn is jnp.max
    if kwargs.get("axis") == ():   # over no axis: x itself (a NaN stays)
        return x
    if jnp.issubdtype(x.dtype, jnp.floating):
        x = jnp.where(jnp.isnan(x), jnp.asarray(-np.inf if low else np.inf, x.dtype), x)
    if x.size:
        return fn(x, **kwargs)
    if jnp.issubdtype(x.dtype, jnp.floating):
        start = -np.inf if low else np.inf
    else:
        info = np.iinfo(x.dtype) if x.dtype != np.bool_ else None
        start = (info.min if low else info.max) if info else (not low)
    return fn(x, initial=np.asarray(start, x.dtype), **kwargs)


_REDUCTIONS = {
    "Sum": (jnp.sum, _grad_sum, NUMBER), "Mean": (_mean, _grad_mean, NUMBER),
    "Max": (lambda x, **k: _extreme(jnp.max, x, k), _grad_minmax, NUMERIC),
    "Min": (lambda x, **k: _extreme(jnp.min, x, k), _grad_minmax, NUMERIC),
    "Prod": (jnp.prod, _grad_prod, NUMBER), "Any": (jnp.any, None, BOOL), "All": (jnp.all, None, BOOL),
}
for _name, (_fn, _grad, _allowed) in _REDUCTIONS.items():
    register_op(_name, shape=_reduce_shape, dtype=dtype_rule(_name, _allowed, names=("input",)), grad=_grad,
                lower=_reduce_lower(_fn), fold=True)


def _reduce_axis(axis, reduction_indices):
    if reduction_indices is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'reduction_indices'.")
        axis = reduction_indices
    if axis is None:
        return None
    from tinyflow.ops.core.base import constant_value_of
    value = constant_value_of(axis)
    if value is None:
        raise ValueError("tinyflow needs a constant reduction axis, got %s" % axis)
    return tuple(int(a) for a in np.asarray(value).reshape(-1)) if np.ndim(value) else int(value)




def _reducer(op_type):
    def reduce(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
        x = convert_to_tensor(input_tensor, name="input_tensor")
        axis = _reduce_axis(axis, reduction_indices)
        return make_op(op_type, [x], {"axis": axis, "keep_dims": keep_arg(keepdims, keep_dims)}, name=name or op_type)
    reduce.__name__ = "reduce_" + op_type.lower()
    reduce.__doc__ = ("tf.reduce_%s over `axis` (all axes when None; `reduction_indices` is its old name); "
                      "keepdims keeps the reduced axes with size 1." % op_type.lower())
    return reduce


reduce_sum = _reducer("Sum")
reduce_mean = _reducer("Mean")
reduce_max = _reducer("Max")
reduce_min = _reducer("Min")
reduce_prod = _reducer("Prod")
reduce_any = _reducer("Any")
reduce_all = _reducer("All")


def reduce_logsumexp(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    """log(sum(exp(x))) computed stably: max + log(sum(exp(x - max)))."""
    keep = keep_arg(keepdims, keep_dims)
    axis = _reduce_axis(axis, reduction_indices)
    with get_default_graph().name_scope(name or "ReduceLogSumExp"):
        x = convert_to_tensor(input_tensor, name="input_tensor")
        raw_max = reduce_max(x, axis=axis, keepdims=True)
        m = stop_gradient(where_v2(is_finite(raw_max), raw_max, zeros_like(raw_max)))
        out = log(reduce_sum(exp(subtract(x, m)), axis=axis, keepdims=keep))
        return add(out, reduce_sum(m, axis=axis, keepdims=keep))  # sum over size-1 axes: m in out's shape


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """The variance mean((x - mean(x))**2) over `axis`."""
    with get_default_graph().name_scope(name or "reduce_variance"):
        x = convert_to_tensor(input_tensor, name="input_tensor")
        means = reduce_mean(x, axis=axis, keepdims=True)
        return reduce_mean(squared_difference(x, means), axis=axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """The standard deviation sqrt(reduce_variance(x)) over `axis`."""
    with get_default_graph().name_scope(name or "reduce_std"):
        return sqrt(reduce_variance(input_tensor, axis=axis, keepdims=keepdims))


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(sum(x**2)) over `axis`."""
    with get_default_graph().name_scope(name or "EuclideanNorm"):
        return sqrt(reduce_sum(square(convert_to_tensor(input_tensor)), axis=axis, keepdims=keepdims))


def count_nonzero(input_tensor, axis=None, keepdims=None, dtype=dt.int64, name=None, reduction_indices=None,
                  keep_dims=None):
    """Counts the nonzero elements along `axis` (int64 by default)."""
    with get_default_graph().name_scope(name or "count_nonzero"):
        x = convert_to_tensor(input_tensor, name="input_tensor")
        nz = cast(not_equal(x, zeros_like_scalar(x) if x.dtype != dt.bool_ else False), dt.int64)
        return cast(reduce_sum(nz, axis=axis, keepdims=keepdims, reduction_indices=reduction_indices,
                               keep_dims=keep_dims), dtype)


# ---- argmax / argmin ------------------------------------------------------------------------------
def _arg_shape(shapes, attrs, values):
    s = shapes[0]
    if s.ndims is None:
        return [TensorShape(None)]
    ax = normalize_axis(attrs["axis"], s.ndims)
    return [TensorShape([d for i, d in enumerate(s.as_list()) if i != ax])]


def _arg_dtype(dtypes, attrs):
    _check_allowed(dtypes[0], NUMERIC, "input")
    _check_allowed(attrs["output_type"], (dt.int32, dt.int64), "output_type")
    return [attrs["output_type"]]


def _no_nan(x, fill):
    """x with NaN replaced by `fill`: TF's CPU argmax/argmin skip NaN (Eigen's reducers compare with >)."""
    if jnp.issubdtype(x.dtype, jnp.floating):
        return jnp.where(jnp.isnan(x), jnp.asarray(fill, x.dtype), x)
    return x


register_op("ArgMax", fold=True, shape=_arg_shape, dtype=_arg_dtype, grad=None,
            lower=lambda a, x: jnp.argmax(_no_nan(x, -np.inf), axis=a["axis"]).astype(a["output_type"].np))
register_op("ArgMin", fold=True, shape=_arg_shape, dtype=_arg_dtype, grad=None,
            lower=lambda a, x: jnp.argmin(_no_nan(x, np.inf), axis=a["axis"]).astype(a["output_type"].np))


def _arg(op_type):
    def fn(input, axis=None, name=None, dimension=None, output_type=dt.int64):
        if dimension is not None:
            if axis is not None:
                raise ValueError("Cannot specify both 'axis' and 'dimension'")
            axis = dimension
        x = convert_to_tensor(input, name="input")
        axis = 0 if axis is None else int(_reduce_axis(axis, None))
        return make_op(op_type, [x], {"axis": axis, "output_type": dt.as_dtype(output_type)}, name=name or op_type)
    fn.__name__ = op_type.lower()
    fn.__doc__ = "Index of the %s value along `axis` (int64 unless output_type says)." % op_type[3:].lower()
    return fn


argmax = _arg("ArgMax")
argmin = _arg("ArgMin")

neg = negative
