"""Math ops: elementwise arithmetic with numpy broadcasting and TF's dtype rules, comparisons,
logical ops, casts, matmul, add_n and reductions. Each op: one register_op with all its rules,
next to its TF-style builder.
"""
import jax
import jax.numpy as jnp
import numpy as np

from ..graph import dtypes as dt
from ..graph.core import ShapeError, get_default_graph
from ..graph.registry import register_op, same_as_input, shape_of_input
from ..graph.shapes import TensorShape
from .base import broadcast_rule, convert_n, convert_to_tensor, make_op, normalize_axis

__all__ = [
    'sub', 'mul', 'neg',
    'abs',
    'accumulate_n',
    'add',
    'add_n',
    'argmax',
    'argmin',
    'cast',
    'ceil',
    'clip_by_value',
    'cos',
    'count_nonzero',
    'div',
    'divide',
    'equal',
    'erf',
    'exp',
    'expm1',
    'floor',
    'floordiv',
    'floormod',
    'greater',
    'greater_equal',
    'is_finite',
    'is_inf',
    'is_nan',
    'less',
    'less_equal',
    'log',
    'log1p',
    'logical_and',
    'logical_not',
    'logical_or',
    'logical_xor',
    'matmul',
    'maximum',
    'minimum',
    'mod',
    'multiply',
    'negative',
    'not_equal',
    'pow',
    'realdiv',
    'reciprocal',
    'reduce_all',
    'reduce_any',
    'reduce_logsumexp',
    'reduce_max',
    'reduce_mean',
    'reduce_min',
    'reduce_prod',
    'reduce_sum',
    'rint',
    'round',
    'rsqrt',
    'saturate_cast',
    'scalar_mul',
    'sigmoid',
    'sign',
    'sin',
    'sqrt',
    'square',
    'squared_difference',
    'subtract',
    'tan',
    'tanh',
    'to_bfloat16',
    'to_double',
    'to_float',
    'to_int32',
    'to_int64',
    'truediv',
    'truncatediv',
    'truncatemod',
]



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


def _binary_dtype(dtypes, attrs):
    if dtypes[0] != dtypes[1]:
        raise TypeError("Input 'y' of '%s' Op has type %s that does not match type %s of argument 'x'."
                        % (attrs.get("_type", "binary"), dtypes[1].name, dtypes[0].name))
    return [dtypes[0]]


def _bool_dtype(dtypes, attrs):
    _binary_dtype(dtypes, attrs)
    return [dt.bool_]


def _binary_inputs(x, y, op_name):
    """TF's binary_op_wrapper: the first tensor's dtype decides how a Python number converts."""
    x, y = convert_n([x, y])
    if x.dtype != y.dtype:
        raise TypeError("Input 'y' of '%s' Op has type %s that does not match type %s of argument 'x'."
                        % (op_name, y.dtype.name, x.dtype.name))
    return x, y


def _binary(op_type, lower, grad, dtype=_binary_dtype, inplace=((0, 0), (1, 0))):
    register_op(op_type, shape=broadcast_rule, dtype=dtype, grad=grad, lower=lower, inplace=inplace)

    def builder(x, y, name=None):
        x, y = _binary_inputs(x, y, op_type)
        return make_op(op_type, [x, y], {"_type": op_type}, name=name or op_type)
    builder.__name__ = op_type.lower()
    builder.__doc__ = "Elementwise %s with numpy broadcasting (TF op %s)." % (op_type, op_type)
    return builder


def _unary(op_type, lower, grad, dtype=same_as_input(0)):
    register_op(op_type, shape=shape_of_input(0), dtype=dtype, grad=grad, lower=lambda a, x: lower(x),
                inplace=((0, 0),))

    def builder(x, name=None):
        return make_op(op_type, [convert_to_tensor(x)], name=name or op_type)
    builder.__name__ = op_type.lower()
    builder.__doc__ = "Elementwise %s (TF op %s)." % (op_type, op_type)
    return builder


def _cast_like(fn):
    """A lowering whose result keeps its input's dtype (jnp may promote, e.g. int // int)."""
    return lambda a, x, y: fn(x, y).astype(x.dtype)


# ---- binary arithmetic ----------------------------------------------------------------------------
def _grad_add(op, g):
    x, y = op.inputs
    return [sum_to(g, x), sum_to(g, y)]


def _grad_sub(op, g):
    x, y = op.inputs
    return [sum_to(g, x), sum_to(negative(g), y)]


def _grad_mul(op, g):
    x, y = op.inputs
    return [sum_to(multiply(g, y), x), sum_to(multiply(x, g), y)]


def _grad_div(op, g):
    x, y = op.inputs
    return [sum_to(realdiv(g, y), x), sum_to(multiply(g, realdiv(realdiv(negative(x), y), y)), y)]


def _grad_pow(op, g):
    x, y = op.inputs
    z = op.outputs[0]
    gx = multiply(multiply(g, y), pow(x, subtract(y, ones_like_scalar(y))))
    safe_log = where_v2(greater(x, zeros_like_scalar(x)), log(x), zeros_like(x))
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


add = _binary("Add", lambda a, x, y: jnp.add(x, y), _grad_add)
subtract = _binary("Sub", lambda a, x, y: jnp.subtract(x, y), _grad_sub)
multiply = _binary("Mul", lambda a, x, y: jnp.multiply(x, y), _grad_mul)
realdiv = _binary("RealDiv", lambda a, x, y: jnp.divide(x, y).astype(x.dtype), _grad_div)
pow = _binary("Pow", lambda a, x, y: jnp.power(x, y), _grad_pow)
maximum = _binary("Maximum", lambda a, x, y: jnp.maximum(x, y), _grad_maximum)
minimum = _binary("Minimum", lambda a, x, y: jnp.minimum(x, y), lambda op, g: _grad_maximum(op, g, False))
squared_difference = _binary("SquaredDifference", lambda a, x, y: jnp.square(x - y), _grad_sqdiff)
floordiv = _binary("FloorDiv", _cast_like(jnp.floor_divide), None)
floormod = _binary("FloorMod", _cast_like(jnp.mod), _grad_floormod)
truncatediv = _binary("TruncateDiv", _cast_like(lambda x, y: jax.lax.div(x, y) if jnp.issubdtype(x.dtype, jnp.integer)
                                                else jnp.trunc(x / y)), None)
truncatemod = _binary("TruncateMod", _cast_like(lambda x, y: jax.lax.rem(x, y)), None)
mod = floormod
sub = subtract
mul = multiply


def divide(x, y, name=None):
    """tf.divide: true division (x / y)."""
    return truediv(x, y, name=name)


def truediv(x, y, name=None):
    """x / y with Python 3 semantics: int8/16 -> float32, int32/64 -> float64 (TF's rule)."""
    x, y = _binary_inputs(x, y, "RealDiv")
    target = {dt.int8: dt.float32, dt.uint8: dt.float32, dt.int16: dt.float32, dt.uint16: dt.float32,
              dt.int32: dt.float64, dt.int64: dt.float64}.get(x.dtype)
    if target is not None:
        x, y = cast(x, target), cast(y, target)
    return realdiv(x, y, name=name or "truediv")


def div(x, y, name=None):
    """tf.div: Python 2 division: floor division for integers, true division for floats."""
    x, y = _binary_inputs(x, y, "Div")
    if x.dtype.is_integer:
        return floordiv(x, y, name=name or "div")
    return realdiv(x, y, name=name or "div")


def scalar_mul(scalar, x, name=None):
    return multiply(scalar, x, name=name)


# ---- comparisons and logic ------------------------------------------------------------------------
def _compare(op_type, fn):
    return _binary(op_type, lambda a, x, y: fn(x, y), None, dtype=_bool_dtype, inplace=())


equal = _compare("Equal", jnp.equal)
not_equal = _compare("NotEqual", jnp.not_equal)
less = _compare("Less", jnp.less)
less_equal = _compare("LessEqual", jnp.less_equal)
greater = _compare("Greater", jnp.greater)
greater_equal = _compare("GreaterEqual", jnp.greater_equal)
logical_and = _binary("LogicalAnd", lambda a, x, y: jnp.logical_and(x, y), None)
logical_or = _binary("LogicalOr", lambda a, x, y: jnp.logical_or(x, y), None)


def logical_xor(x, y, name="LogicalXor"):
    """x XOR y, built as TF does: (x | y) & ~(x & y)."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


# ---- unary math -----------------------------------------------------------------------------------
def scalar_like(value, t):
    """A scalar constant of t's dtype."""
    from .base import constant
    return constant(value, dtype=t.dtype)


def ones_like_scalar(t):
    return scalar_like(1, t)


def zeros_like_scalar(t):
    return scalar_like(0, t)


negative = _unary("Neg", jnp.negative, lambda op, g: [negative(g)])
abs = _unary("Abs", jnp.abs, lambda op, g: [multiply(g, sign(op.inputs[0]))])
sign = _unary("Sign", jnp.sign, lambda op, g: [zeros_like(op.inputs[0])])
exp = _unary("Exp", jnp.exp, lambda op, g: [multiply(g, op.outputs[0])])
expm1 = _unary("Expm1", jnp.expm1, lambda op, g: [multiply(g, exp(op.inputs[0]))])
log = _unary("Log", jnp.log, lambda op, g: [realdiv(g, op.inputs[0])])
log1p = _unary("Log1p", jnp.log1p, lambda op, g: [realdiv(g, add(op.inputs[0], ones_like_scalar(g)))])
sqrt = _unary("Sqrt", jnp.sqrt, lambda op, g: [realdiv(multiply(g, scalar_like(0.5, g)), op.outputs[0])])
rsqrt = _unary("Rsqrt", jax.lax.rsqrt, lambda op, g: [multiply(multiply(g, scalar_like(-0.5, g)),
                                                               multiply(op.outputs[0], square(op.outputs[0])))])
square = _unary("Square", jnp.square, lambda op, g: [multiply(g, multiply(op.inputs[0], scalar_like(2, g)))])
reciprocal = _unary("Reciprocal", jnp.reciprocal, lambda op, g: [negative(multiply(g, square(op.outputs[0])))])
tanh = _unary("Tanh", jnp.tanh, lambda op, g: [multiply(g, subtract(ones_like_scalar(g), square(op.outputs[0])))])
sigmoid = _unary("Sigmoid", jax.nn.sigmoid,
                 lambda op, g: [multiply(g, multiply(op.outputs[0], subtract(ones_like_scalar(g), op.outputs[0])))])
sin = _unary("Sin", jnp.sin, lambda op, g: [multiply(g, cos(op.inputs[0]))])
cos = _unary("Cos", jnp.cos, lambda op, g: [negative(multiply(g, sin(op.inputs[0])))])
tan = _unary("Tan", jnp.tan, lambda op, g: [multiply(g, square(reciprocal(cos(op.inputs[0]))))])
floor = _unary("Floor", jnp.floor, None)
ceil = _unary("Ceil", jnp.ceil, None)
round = _unary("Round", jnp.round, None)
rint = _unary("Rint", jnp.rint, None)
logical_not = _unary("LogicalNot", jnp.logical_not, None)
is_nan = _unary("IsNan", jnp.isnan, None, dtype=lambda d, a: [dt.bool_])
is_inf = _unary("IsInf", jnp.isinf, None, dtype=lambda d, a: [dt.bool_])
is_finite = _unary("IsFinite", jnp.isfinite, None, dtype=lambda d, a: [dt.bool_])
reciprocal_ = reciprocal


def erf(x, name=None):
    return _erf(x, name=name)


_erf = _unary("Erf", jax.scipy.special.erf,
              lambda op, g: [multiply(g, multiply(scalar_like(2 / np.sqrt(np.pi), g),
                                                  exp(negative(square(op.inputs[0])))))])


# ---- cast -----------------------------------------------------------------------------------------
def _grad_cast(op, g):
    src = op.inputs[0].dtype
    if src.is_floating and op.outputs[0].dtype.is_floating:
        return [cast(g, src)]
    return [None]


register_op("Cast", shape=shape_of_input(0), dtype=lambda d, a: [a["DstT"]], grad=_grad_cast,
            lower=lambda a, x: _cast_lower(x, a["DstT"]))


def _cast_lower(x, dst):
    if dst.is_integer and jnp.issubdtype(x.dtype, jnp.floating):
        x = jnp.trunc(x)  # TF truncates toward zero
    return x.astype(dst.np)


def cast(x, dtype, name=None):
    """tf.cast: converts to `dtype` (floats to ints truncate toward zero)."""
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
    dtype = dt.as_dtype(dtype)
    value = convert_to_tensor(value)
    if value.dtype.is_floating or dtype.is_integer:
        value = clip_by_value(value, max(value.dtype.min, dtype.min), min(value.dtype.max, dtype.max))
    return cast(value, dtype, name=name)


# ---- selection, add_n, clip -----------------------------------------------------------------------
def _select_shape(shapes, attrs, values):
    return [broadcast_rule([broadcast_rule(shapes[1:], attrs, values)[0], shapes[0]], attrs, values)[0]]


def _grad_select(op, g):
    c, x, y = op.inputs
    zeros = zeros_like(g)
    return [None, sum_to(where_v2(c, g, zeros), x), sum_to(where_v2(c, zeros, g), y)]


register_op("SelectV2", shape=_select_shape, dtype=lambda d, a: [d[1]], grad=_grad_select,
            lower=lambda a, c, x, y: jnp.where(c, x, y))


def where_v2(condition, x, y, name=None):
    """Elementwise select with numpy broadcasting of all three inputs."""
    x, y = convert_n([x, y])
    return make_op("SelectV2", [convert_to_tensor(condition), x, y], name=name or "SelectV2")


def _addn_shape(shapes, attrs, values):
    out = shapes[0]
    for s in shapes[1:]:
        if not out.is_compatible_with(s):
            raise ShapeError("Shapes must be equal rank, but are %d and %d" % (out.ndims, s.ndims)
                             if out.ndims != s.ndims else "Dimensions must be equal, but are %s and %s" % (out, s))
        out = out.merge_with(s)
    return [out]


def _addn_lower(attrs, *xs):
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


register_op("AddN", shape=_addn_shape, dtype=same_as_input(0), grad=lambda op, g: [g] * len(op.inputs),
            lower=_addn_lower, inplace=((0, 0),))


def add_n(inputs, name=None):
    """Sums a list of tensors of the same shape and dtype."""
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("inputs must be a list of at least one Tensor with the same dtype and shape")
    inputs = convert_n(list(inputs))
    if len(inputs) == 1:
        return inputs[0] if name is None else identity(inputs[0], name=name)
    return make_op("AddN", inputs, name=name or "AddN")


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    return add_n(inputs, name=name)


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Clips values to [min, max] (built from Minimum and Maximum, so gradients pass inside the range)."""
    t = convert_to_tensor(t)
    with get_default_graph().name_scope(name or "clip_by_value"):
        return maximum(minimum(t, clip_value_min), clip_value_max_guard(clip_value_min, t))


def clip_value_max_guard(v, t):
    return convert_to_tensor(v, dtype=t.dtype)


def identity(x, name=None):
    """A new tensor with the same value."""
    from .array_ops import identity as _id
    return _id(x, name=name)


def zeros_like(x, dtype=None, name=None):
    from .array_ops import zeros_like as _z
    return _z(x, dtype=dtype, name=name)


# ---- matmul ---------------------------------------------------------------------------------------
def _matmul_shape(shapes, attrs, values):
    a, b = shapes
    if a.ndims is None or b.ndims is None:
        return [TensorShape(None)]
    if a.ndims < 2 or b.ndims < 2:
        raise ShapeError("Shape must be rank 2 but is rank %d" % min(a.ndims, b.ndims))
    if a.ndims == 2 and b.ndims == 2 and (a.ndims != 2 or b.ndims != 2):
        raise ShapeError("Shape must be rank 2")
    m, k1 = (a[-1], a[-2]) if attrs["transpose_a"] else (a[-2], a[-1])
    k2, n = (b[-1], b[-2]) if attrs["transpose_b"] else (b[-2], b[-1])
    if not k1.is_compatible_with(k2):
        raise ShapeError("Dimensions must be equal, but are %s and %s" % (k1, k2))
    from .base import broadcast_shapes
    batch = broadcast_shapes(a[:-2], b[:-2])
    return [batch.concatenate([m, n])]


def _matmul_lower(attrs, a, b):
    if attrs["transpose_a"]:
        a = jnp.swapaxes(a, -1, -2)
    if attrs["transpose_b"]:
        b = jnp.swapaxes(b, -1, -2)
    return jnp.matmul(a, b, preferred_element_type=a.dtype)


def _matmul_grad(op, g):
    a, b = op.inputs
    ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
    if not ta and not tb:
        ga, gb = matmul(g, b, transpose_b=True), matmul(a, g, transpose_a=True)
    elif not ta and tb:
        ga, gb = matmul(g, b), matmul(g, a, transpose_a=True)
    elif ta and not tb:
        ga, gb = matmul(b, g, transpose_b=True), matmul(a, g)
    else:
        ga, gb = matmul(b, g, transpose_a=True, transpose_b=True), matmul(g, a, transpose_a=True, transpose_b=True)
    if a.shape.ndims == 2 and b.shape.ndims == 2:
        return [ga, gb]
    return [sum_to(ga, a), sum_to(gb, b)]


for _name in ("MatMul", "BatchMatMulV2"):
    register_op(_name, shape=_matmul_shape, dtype=_binary_dtype, grad=_matmul_grad, lower=_matmul_lower)


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, a_is_sparse=False,
           b_is_sparse=False, name=None):
    """a @ b, with optional transposes; rank > 2 is a batched matmul with broadcasting batch dims."""
    a, b = _binary_inputs(a, b, "MatMul")
    attrs = {"transpose_a": bool(transpose_a or adjoint_a), "transpose_b": bool(transpose_b or adjoint_b),
             "_type": "MatMul"}
    batched = (a.shape.ndims or 2) > 2 or (b.shape.ndims or 2) > 2
    if not batched and (a.shape.ndims not in (None, 2) or b.shape.ndims not in (None, 2)):
        raise ValueError("Shape must be rank 2 but is rank %d for 'MatMul'" % min(a.shape.ndims or 2, b.shape.ndims or 2))
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
    if s.ndims is None:
        return [TensorShape(None)]
    axes = _axes(attrs["axis"], s.ndims)
    if attrs["keep_dims"]:
        return [TensorShape([1 if i in axes else d for i, d in enumerate(s.as_list())])]
    return [TensorShape([d for i, d in enumerate(s.as_list()) if i not in axes])]


def _reduce_lower(fn):
    def lower(attrs, x):
        axes = _axes(attrs["axis"], x.ndim)
        return fn(x, axis=axes, keepdims=attrs["keep_dims"]).astype(attrs.get("_out", x.dtype) or x.dtype)
    return lower


def _unreduce_lower(attrs, g, x):
    """g (the reduction's gradient) broadcast back over the reduced axes of x; / count for means."""
    axes = _axes(attrs["axis"], x.ndim)
    if not attrs["keep_dims"]:
        g = jnp.expand_dims(g, axes) if axes else g
    out = jnp.broadcast_to(g, x.shape)
    if attrs["mean"]:
        n = int(np.prod([x.shape[a] for a in axes])) if axes else 1
        out = out / np.asarray(max(n, 1), dtype=out.dtype)
    return out.astype(g.dtype)


def _unreduce_grad(op, dy):
    fn = reduce_mean if op.attrs["mean"] else reduce_sum
    return [fn(dy, axis=list(_axes(op.attrs["axis"], op.inputs[1].shape.ndims) or ()) if op.attrs["axis"] is not None
               else None, keepdims=op.attrs["keep_dims"]), None]


register_op("Unreduce", shape=lambda s, a, v: [s[1]], dtype=same_as_input(0), grad=_unreduce_grad,
            lower=_unreduce_lower)


def _unreduce(g, x, attrs, mean=False):
    return make_op("Unreduce", [g, x], {"axis": attrs["axis"], "keep_dims": attrs["keep_dims"], "mean": mean})


def _grad_sum(op, g):
    return [_unreduce(g, op.inputs[0], op.attrs)]


def _grad_mean(op, g):
    return [_unreduce(g, op.inputs[0], op.attrs, mean=True)]


def _grad_minmax(op, g):
    x, y = op.inputs[0], op.outputs[0]
    keep = {"axis": op.attrs["axis"], "keep_dims": op.attrs["keep_dims"]}
    y_full = _unreduce(y, x, keep)
    ind = cast(equal(x, y_full), g.dtype)
    count = _unreduce(make_op("Sum", [ind], {"axis": op.attrs["axis"], "keep_dims": op.attrs["keep_dims"]}), x, keep)
    return [multiply(realdiv(ind, count), _unreduce(g, x, keep))]


def _grad_prod(op, g):
    # d prod / d x_i = prod_{j != i} x_j: exclusive cumulative products from both sides, zero-safe.
    return [make_op("ProdGrad", [g, op.inputs[0]], {"axis": op.attrs["axis"], "keep_dims": op.attrs["keep_dims"]})]


def _prod_grad_lower(attrs, g, x):
    axes = _axes(attrs["axis"], x.ndim)
    gfull = _unreduce_lower({"axis": attrs["axis"], "keep_dims": attrs["keep_dims"], "mean": False}, g, x)
    # move reduced axes to the end and flatten them
    rest = [i for i in range(x.ndim) if i not in axes]
    perm = rest + list(axes)
    xt = jnp.transpose(x, perm)
    lead = xt.shape[:len(rest)]
    flat = xt.reshape(lead + (-1,))
    ones = jnp.ones(lead + (1,), x.dtype)
    left = jnp.cumprod(jnp.concatenate([ones, flat[..., :-1]], -1), -1)
    right = jnp.flip(jnp.cumprod(jnp.concatenate([ones, jnp.flip(flat, -1)[..., :-1]], -1), -1), -1)
    others = (left * right).reshape(xt.shape)
    inv = np.argsort(perm)
    return (jnp.transpose(others, inv) * gfull).astype(x.dtype)


register_op("ProdGrad", shape=lambda s, a, v: [s[1]], dtype=same_as_input(0), grad=None, lower=_prod_grad_lower)

_REDUCTIONS = {
    "Sum": (jnp.sum, _grad_sum), "Mean": (jnp.mean, _grad_mean), "Max": (jnp.max, _grad_minmax),
    "Min": (jnp.min, _grad_minmax), "Prod": (jnp.prod, _grad_prod), "Any": (jnp.any, None), "All": (jnp.all, None),
}
for _name, (_fn, _grad) in _REDUCTIONS.items():
    register_op(_name, shape=_reduce_shape, dtype=same_as_input(0), grad=_grad, lower=_reduce_lower(_fn))


def _reduce_axis(axis, reduction_indices):
    if reduction_indices is not None:
        if axis is not None:
            raise ValueError("Can not specify both 'axis' and 'reduction_indices'.")
        axis = reduction_indices
    if axis is None:
        return None
    from .base import constant_value_of
    value = constant_value_of(axis)
    if value is None:
        raise ValueError("tinyflow needs a constant reduction axis, got %s" % axis)
    return tuple(int(a) for a in np.asarray(value).reshape(-1)) if np.ndim(value) else int(value)


def _reducer(op_type, default_name, check=None):
    def reduce(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
        x = convert_to_tensor(input_tensor)
        if check:
            x = check(x)
        axis = _reduce_axis(axis, reduction_indices)
        keep = bool(keepdims if keepdims is not None else keep_dims)
        if x.shape.ndims is not None and axis is not None:
            _axes(axis, x.shape.ndims)  # range check at build time
        return make_op(op_type, [x], {"axis": axis, "keep_dims": keep}, name=name or default_name)
    reduce.__name__ = "reduce_" + op_type.lower()
    reduce.__doc__ = "tf.reduce_%s over `axis` (all axes when None); keepdims keeps reduced axes as 1." % (
        op_type.lower())
    return reduce


def _need_bool(x):
    if x.dtype != dt.bool_:
        raise TypeError("Value passed to parameter 'input' has DataType %s not in list of allowed values: bool"
                        % x.dtype.name)
    return x


reduce_sum = _reducer("Sum", "Sum")
reduce_mean = _reducer("Mean", "Mean")
reduce_max = _reducer("Max", "Max")
reduce_min = _reducer("Min", "Min")
reduce_prod = _reducer("Prod", "Prod")
reduce_any = _reducer("Any", "Any", _need_bool)
reduce_all = _reducer("All", "All", _need_bool)


def reduce_logsumexp(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    """log(sum(exp(x))) computed stably: max + log(sum(exp(x - max)))."""
    x = convert_to_tensor(input_tensor)
    keep = bool(keepdims if keepdims is not None else keep_dims)
    axis = _reduce_axis(axis, reduction_indices)
    with get_default_graph().name_scope(name or "ReduceLogSumExp"):
        m = stop_gradient(reduce_max(x, axis=axis, keepdims=True))
        out = add(log(reduce_sum(exp(subtract(x, m)), axis=axis, keepdims=True)), m)
        if not keep:
            from .array_ops import squeeze
            out = squeeze(out, axis=_axes(axis, x.shape.ndims)) if axis is not None or x.shape.ndims else out
            if axis is None:
                from .array_ops import reshape
                out = reshape(out, [])
        return out


def stop_gradient(x, name=None):
    from .array_ops import stop_gradient as _sg
    return _sg(x, name=name)


def count_nonzero(input_tensor, axis=None, keepdims=None, dtype=dt.int64, name=None, reduction_indices=None,
                  keep_dims=None):
    """Counts the nonzero elements along `axis` (int64 by default)."""
    x = convert_to_tensor(input_tensor)
    with get_default_graph().name_scope(name or "count_nonzero"):
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


register_op("ArgMax", shape=_arg_shape, dtype=lambda d, a: [a["output_type"]], grad=None,
            lower=lambda a, x: jnp.argmax(x, axis=a["axis"]).astype(a["output_type"].np))
register_op("ArgMin", shape=_arg_shape, dtype=lambda d, a: [a["output_type"]], grad=None,
            lower=lambda a, x: jnp.argmin(x, axis=a["axis"]).astype(a["output_type"].np))


def _arg(op_type):
    def fn(input, axis=None, name=None, dimension=None, output_type=dt.int64):
        if dimension is not None:
            axis = dimension
        x = convert_to_tensor(input)
        axis = 0 if axis is None else int(_reduce_axis(axis, None))
        return make_op(op_type, [x], {"axis": axis, "output_type": dt.as_dtype(output_type)}, name=name or op_type)
    fn.__name__ = op_type.lower()
    fn.__doc__ = "Index of the %s value along `axis` (int64 unless output_type says)." % op_type[3:].lower()
    return fn


argmax = _arg("ArgMax")
argmin = _arg("ArgMin")

neg = negative
