"""Specs of the math ops (ops/core/math_ops.py, ops/linalg_ops.py): every op against numpy; every
differentiable op against finite differences, with broadcasting inputs, and to second order for the
elementwise ones."""
import math

import numpy as np

from opspecs import OpSpec
from tinyflow.ops.core import math_ops as M

R = np.random.RandomState(42)
A = R.randn(3, 4).astype(np.float32)
B = R.randn(3, 4).astype(np.float32)
ROW = R.randn(4).astype(np.float32)
COL = R.randn(3, 1).astype(np.float32)
POS = (np.abs(A) + 0.5).astype(np.float32)
POS2 = (np.abs(B) + 0.5).astype(np.float32)
UNIT = np.tanh(A).astype(np.float32) * 0.8  # in (-0.8, 0.8): asin, acos, atanh
HALVES = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49, 2.51], np.float32)
SPECIAL = np.array([1.0, np.nan, np.inf, -np.inf, 0.0, -2.0], np.float32)
I = np.array([[7, -7, 6], [-6, 5, 0]], np.int32)
J = np.array([[2, 2, -4], [4, -3, 3]], np.int32)
SQ = (R.randn(3, 3) + 3 * np.eye(3)).astype(np.float32)  # well conditioned
SQ3 = (R.randn(2, 3, 3) + 3 * np.eye(3)).astype(np.float32)
MASK1 = np.array([[True, False], [True, True]])
MASK2 = np.array([[False, False], [True, False]])


def elementwise(name, build, inputs, ref, grad=True, **kw):
    """An elementwise op: value, gradient and second-order gradient."""
    return OpSpec(name, build, inputs, ref, grad=grad, second_order=grad, **kw)


# References for the special functions without scipy (not a dependency): the standard library's
# erf and lgamma; digamma by a central difference of lgamma; polygamma(n >= 1) by its series
# (-1)**(n+1) n! sum_k 1/(x+k)**(n+1) plus the integral of the tail.
_erf = np.vectorize(math.erf)
_lgamma = np.vectorize(math.lgamma)


def _digamma(x):
    h = 1e-5
    return (_lgamma(x.astype(np.float64) + h) - _lgamma(x.astype(np.float64) - h)) / (2 * h)


def _polygamma(n, x):
    n, x = np.broadcast_arrays(n.astype(np.float64), x.astype(np.float64))
    k = np.arange(20000.0)
    out = np.empty(x.shape)
    for i in np.ndindex(x.shape):
        if n[i] == 0:
            out[i] = _digamma(np.array(x[i]))
            continue
        m = int(n[i])
        tail = 1.0 / (m * (x[i] + k[-1] + 0.5) ** m)
        out[i] = (-1) ** (m + 1) * math.factorial(m) * ((1.0 / (x[i] + k) ** (m + 1)).sum() + tail)
    return out


def _logsumexp(x, axis=None, keepdims=False):
    m = x.max(axis=axis, keepdims=True)
    out = np.log(np.exp(x - m).sum(axis=axis, keepdims=True)) + m
    return out if keepdims else (np.squeeze(out, axis=axis) if axis is not None else out.reshape(()))


def _prod_int(x):
    return np.prod(x, axis=1)


SPECS = [
    # ---- binary arithmetic, with broadcasting --------------------------------------------------
    elementwise("add_broadcast", lambda tf, x, y: x + y, [A, ROW], np.add),
    elementwise("add_fn_col", lambda tf, x, y: tf.add(x, y), [A, COL], np.add),  # Add; x + y is AddV2
    elementwise("sub_broadcast", lambda tf, x, y: tf.subtract(x, y), [A, COL], np.subtract),
    elementwise("rsub_scalar", lambda tf, x: 2.0 - x, [A], lambda x: 2.0 - x),
    elementwise("mul", lambda tf, x, y: x * y, [A, B], np.multiply),
    elementwise("mul_broadcast_both", lambda tf, x, y: x * y, [COL, ROW], np.multiply),
    elementwise("realdiv", lambda tf, x, y: x / y, [A, POS2], np.divide),
    elementwise("realdiv_broadcast", lambda tf, x, y: tf.realdiv(x, y), [A, POS2[0]], np.divide),
    elementwise("rdiv_scalar", lambda tf, x: 3.0 / x, [POS], lambda x: 3.0 / x),
    OpSpec("div_no_nan_zeros", lambda tf, x, y: tf.div_no_nan(x, y), [A[:2], np.array([0, 2, 0, -1], np.float32)],
           lambda x, y: np.where(y == 0, 0.0, x / np.where(y == 0, 1, y))),
    elementwise("div_no_nan", lambda tf, x, y: tf.div_no_nan(x, y), [A, POS2], np.divide),
    elementwise("pow", lambda tf, x, y: tf.pow(x, y), [POS, B], np.power, rtol=1e-4),
    elementwise("pow_operator_scalar", lambda tf, x: x ** 3.0, [A], lambda x: x ** 3, rtol=1e-4),
    elementwise("rpow", lambda tf, x: 2.0 ** x, [A], lambda x: 2.0 ** x, rtol=1e-4),
    elementwise("maximum", lambda tf, x, y: tf.maximum(x, y), [A, B], np.maximum),
    elementwise("minimum_broadcast", lambda tf, x, y: tf.minimum(x, y), [A, ROW], np.minimum),
    elementwise("squared_difference", lambda tf, x, y: tf.squared_difference(x, y), [A, ROW],
                lambda x, y: (x - y) ** 2, rtol=1e-4),
    elementwise("floormod_float", lambda tf, x, y: x % y, [A * 3, POS2], np.mod, rtol=1e-4, atol=1e-5),
    OpSpec("floordiv_float", lambda tf, x, y: x // y, [A * 3, B], np.floor_divide),
    OpSpec("floordiv_int", lambda tf, x, y: tf.floordiv(x, y), [I, J], np.floor_divide),
    OpSpec("floormod_int", lambda tf, x, y: tf.floormod(x, y), [I, J], np.mod),
    OpSpec("truncatediv_int", lambda tf, x, y: tf.truncatediv(x, y), [I, J],
           lambda x, y: np.trunc(x / y).astype(np.int32)),
    OpSpec("truncatediv_float", lambda tf, x, y: tf.truncatediv(x, y), [A * 3, B], lambda x, y: np.trunc(x / y)),
    OpSpec("truncatemod_int", lambda tf, x, y: tf.truncatemod(x, y), [I, J], np.fmod),
    OpSpec("truediv_int", lambda tf, x, y: x / y, [I, J], np.true_divide),
    elementwise("xlogy", lambda tf, x, y: tf.math.xlogy(x, y), [A, POS2], lambda x, y: x * np.log(y)),
    OpSpec("xlogy_zero_x", lambda tf, x, y: tf.math.xlogy(x * 0, y), [A, B * 0], lambda x, y: x * 0),
    elementwise("xdivy", lambda tf, x, y: tf.math.xdivy(x, y), [A, POS2], np.divide),
    OpSpec("xdivy_zero_x", lambda tf, x, y: tf.math.xdivy(x * 0, y), [A, B * 0], lambda x, y: x * 0),
    elementwise("reciprocal_no_nan", lambda tf, x: tf.math.reciprocal_no_nan(x), [POS], np.reciprocal),
    elementwise("atan2", lambda tf, y, x: tf.atan2(y, x), [A, B], np.arctan2),
    OpSpec("polygamma", lambda tf, a, x: tf.polygamma(a, x), [np.array([[0.0], [1.0], [2.0]], np.float32), POS],
           _polygamma, grad=True, grad_inputs=[1], second_order=True,
           rtol=1e-4),
    # ---- comparisons and logic -----------------------------------------------------------------
    OpSpec("equal", lambda tf, x, y: tf.equal(x, y), [I, J * 0 + 6], np.equal),
    OpSpec("not_equal", lambda tf, x, y: tf.not_equal(x, y), [I, J * 0 + 6], np.not_equal),
    OpSpec("less", lambda tf, x, y: x < y, [A, B], np.less),
    OpSpec("less_equal", lambda tf, x, y: x <= y, [I, J], np.less_equal),
    OpSpec("greater", lambda tf, x, y: x > y, [A, ROW], np.greater),
    OpSpec("greater_equal", lambda tf, x, y: x >= y, [I, J], np.greater_equal),
    OpSpec("logical_and", lambda tf, x, y: x & y, [MASK1, MASK2], np.logical_and),
    OpSpec("logical_or", lambda tf, x, y: tf.logical_or(x, y), [MASK1, MASK2], np.logical_or),
    OpSpec("logical_xor", lambda tf, x, y: x ^ y, [MASK1, MASK2], np.logical_xor),
    OpSpec("logical_not", lambda tf, x: ~x, [MASK1], np.logical_not),
    # ---- unary ---------------------------------------------------------------------------------
    elementwise("neg", lambda tf, x: -x, [A], np.negative),
    elementwise("abs", lambda tf, x: abs(x), [A], np.abs),
    OpSpec("abs_int", lambda tf, x: tf.abs(x), [I], np.abs),
    elementwise("sign", lambda tf, x: tf.sign(x) * x, [A], lambda x: np.sign(x) * x),
    elementwise("exp", lambda tf, x: tf.exp(x), [A], np.exp),
    elementwise("expm1", lambda tf, x: tf.expm1(x), [A], np.expm1),
    elementwise("log", lambda tf, x: tf.log(x), [POS], np.log),
    elementwise("log1p", lambda tf, x: tf.log1p(x), [POS], np.log1p),
    elementwise("sqrt", lambda tf, x: tf.sqrt(x), [POS], np.sqrt),
    elementwise("rsqrt", lambda tf, x: tf.rsqrt(x), [POS], lambda x: 1 / np.sqrt(x), rtol=1e-4),
    elementwise("square", lambda tf, x: tf.square(x), [A], np.square),
    elementwise("reciprocal", lambda tf, x: tf.reciprocal(x), [POS], np.reciprocal),
    elementwise("tanh", lambda tf, x: tf.tanh(x), [A], np.tanh),
    elementwise("sigmoid", lambda tf, x: tf.sigmoid(x), [A], lambda x: 1 / (1 + np.exp(-x))),
    elementwise("log_sigmoid", lambda tf, x: tf.log_sigmoid(x * 10), [A], lambda x: -np.logaddexp(0, -10 * x),
                rtol=1e-4),
    elementwise("sin", lambda tf, x: tf.sin(x), [A], np.sin),
    elementwise("cos", lambda tf, x: tf.cos(x), [A], np.cos),
    elementwise("tan", lambda tf, x: tf.tan(x), [UNIT], np.tan),
    elementwise("asin", lambda tf, x: tf.asin(x), [UNIT], np.arcsin),
    elementwise("acos", lambda tf, x: tf.acos(x), [UNIT], np.arccos),
    elementwise("atan", lambda tf, x: tf.atan(x), [A], np.arctan),
    elementwise("sinh", lambda tf, x: tf.sinh(x), [A], np.sinh),
    elementwise("cosh", lambda tf, x: tf.cosh(x), [A], np.cosh),
    elementwise("asinh", lambda tf, x: tf.asinh(x), [A], np.arcsinh),
    elementwise("acosh", lambda tf, x: tf.acosh(x), [POS + 1], np.arccosh),
    elementwise("atanh", lambda tf, x: tf.atanh(x), [UNIT], np.arctanh),
    elementwise("erf", lambda tf, x: tf.erf(x), [A], _erf),
    elementwise("erfc", lambda tf, x: tf.math.erfc(x), [A], lambda x: 1 - _erf(x)),
    elementwise("lgamma", lambda tf, x: tf.lgamma(x), [POS], _lgamma, rtol=1e-4),
    elementwise("digamma", lambda tf, x: tf.digamma(x), [POS], _digamma, rtol=1e-4),
    OpSpec("floor", lambda tf, x: tf.floor(x), [HALVES], np.floor),
    OpSpec("ceil", lambda tf, x: tf.ceil(x), [HALVES], np.ceil),
    OpSpec("round_half_even", lambda tf, x: tf.round(x), [HALVES], np.round),
    OpSpec("rint", lambda tf, x: tf.rint(x), [HALVES], np.rint),
    OpSpec("floor_has_zero_grad", lambda tf, x: tf.floor(x) + x, [A + 0.25], lambda x: np.floor(x) + x, grad=True),
    OpSpec("is_nan", lambda tf, x: tf.is_nan(x), [SPECIAL], np.isnan),
    OpSpec("is_inf", lambda tf, x: tf.is_inf(x), [SPECIAL], np.isinf),
    OpSpec("is_finite", lambda tf, x: tf.is_finite(x), [SPECIAL], np.isfinite),
    # ---- casts ---------------------------------------------------------------------------------
    OpSpec("cast_float_to_int_truncates", lambda tf, x: tf.cast(x, tf.int32), [HALVES * 3],
           lambda x: np.trunc(x).astype(np.int32)),
    OpSpec("cast_int_to_float", lambda tf, x: tf.to_float(x), [I], lambda x: x.astype(np.float32)),
    OpSpec("cast_bool", lambda tf, x: tf.cast(x, tf.float32), [MASK1], lambda x: x.astype(np.float32)),
    OpSpec("cast_to_bool", lambda tf, x: tf.cast(x, tf.bool), [I], lambda x: x != 0),
    OpSpec("cast_in_grad_path", lambda tf, i, x: tf.cast(i, x.dtype) * x, [I[:, :2], A[:2, :2]],
           lambda i, x: i * x, grad=True, second_order=True),
    OpSpec("saturate_cast", lambda tf, x: tf.saturate_cast(x * 100, tf.int8), [A],
           lambda x: np.trunc(np.clip(x * 100, -128, 127)).astype(np.int8)),
    # ---- select, add_n, clip -------------------------------------------------------------------
    elementwise("where_v2_broadcast", lambda tf, x, y: M.where_v2(x > 0, x, y), [A, ROW],
                lambda x, y: np.where(x > 0, x, y)),
    elementwise("add_n", lambda tf, x, y: tf.add_n([x, y, x]), [A, B], lambda x, y: 2 * x + y),
    elementwise("accumulate_n", lambda tf, x, y: tf.accumulate_n([x, y]), [A, B], np.add),
    elementwise("clip_by_value", lambda tf, x: tf.clip_by_value(x, -0.5, 0.7), [A], lambda x: np.clip(x, -0.5, 0.7)),
    # ---- matmul --------------------------------------------------------------------------------
    OpSpec("matmul", lambda tf, x, y: tf.matmul(x, y), [A, B.T.copy()], lambda x, y: x @ y, grad=True),
    OpSpec("matmul_transpose_a", lambda tf, x, y: tf.matmul(x, y, transpose_a=True), [A, B],
           lambda x, y: x.T @ y, grad=True),
    OpSpec("matmul_transpose_b", lambda tf, x, y: tf.matmul(x, y, transpose_b=True), [A, B],
           lambda x, y: x @ y.T, grad=True),
    OpSpec("matmul_adjoint_both", lambda tf, x, y: tf.matmul(x, y, adjoint_a=True, adjoint_b=True),
           [A, B.T.copy()], lambda x, y: x.T @ y.T, grad=True),
    OpSpec("matmul_operator", lambda tf, x, y: x @ y, [A, B.T.copy()], lambda x, y: x @ y, grad=True,
           static_shape=False),
    OpSpec("matmul_int", lambda tf, x, y: tf.matmul(x, y, transpose_b=True), [I, J], lambda x, y: x @ y.T),
    OpSpec("batch_matmul_broadcast", lambda tf, x, y: tf.matmul(x, y),
           [R.randn(2, 3, 4).astype(np.float32), R.randn(4, 2).astype(np.float32)], np.matmul, grad=True),
    OpSpec("batch_matmul_transpose", lambda tf, x, y: tf.matmul(x, y, transpose_a=True, transpose_b=True),
           [R.randn(2, 1, 4, 3).astype(np.float32), R.randn(3, 2, 4).astype(np.float32)],
           lambda x, y: np.matmul(np.swapaxes(x, -1, -2), np.swapaxes(y, -1, -2)), grad=True),
    # ---- square matrices and norms -------------------------------------------------------------
    OpSpec("matrix_inverse", lambda tf, x: tf.matrix_inverse(x), [SQ], np.linalg.inv, grad=True, rtol=1e-4),
    OpSpec("matrix_inverse_adjoint_batch", lambda tf, x: tf.matrix_inverse(x, adjoint=True), [SQ3],
           lambda x: np.linalg.inv(np.swapaxes(x, -1, -2)), grad=True, rtol=1e-4),
    OpSpec("matrix_determinant_batch", lambda tf, x: tf.linalg.det(x), [SQ3], np.linalg.det, grad=True, rtol=1e-4),
    OpSpec("trace", lambda tf, x: tf.trace(x), [SQ3], lambda x: np.trace(x, axis1=-2, axis2=-1), grad=True),
    OpSpec("norm_euclidean", lambda tf, x: tf.norm(x), [A], np.linalg.norm, grad=True, rtol=1e-4),
    OpSpec("norm_vector_1_axis", lambda tf, x: tf.norm(x, ord=1, axis=1), [A], lambda x: np.abs(x).sum(1), grad=True),
    OpSpec("norm_vector_3", lambda tf, x: tf.norm(x, ord=3, axis=0, keepdims=True), [A],
           lambda x: (np.abs(x) ** 3).sum(0, keepdims=True) ** (1 / 3), grad=True, rtol=1e-4),
    OpSpec("norm_vector_inf", lambda tf, x: tf.norm(x, ord=np.inf, axis=-1), [A], lambda x: np.abs(x).max(-1),
           grad=True),
    OpSpec("norm_matrix_1", lambda tf, x: tf.norm(x, ord=1, axis=[0, 1]), [A], lambda x: np.linalg.norm(x, 1),
           grad=True),
    OpSpec("norm_matrix_inf", lambda tf, x: tf.norm(x, ord=np.inf, axis=(0, 1)), [A],
           lambda x: np.linalg.norm(x, np.inf), grad=True),
    # ---- reductions ----------------------------------------------------------------------------
    OpSpec("reduce_sum_all", lambda tf, x: tf.reduce_sum(x), [A], np.sum, grad=True, second_order=True),
    OpSpec("reduce_sum_axis_keepdims", lambda tf, x: tf.reduce_sum(x, axis=1, keepdims=True) * x, [A],
           lambda x: x.sum(1, keepdims=True) * x, grad=True, second_order=True),
    OpSpec("reduce_sum_negative_axis", lambda tf, x: tf.reduce_sum(x, reduction_indices=[-1]), [A],
           lambda x: x.sum(-1), grad=True, static_shape=False),
    OpSpec("reduce_sum_int", lambda tf, x: tf.reduce_sum(x, 0), [I], lambda x: x.sum(0).astype(np.int32)),
    OpSpec("reduce_mean_axis", lambda tf, x: tf.reduce_mean(x, axis=1), [A], lambda x: x.mean(1), grad=True,
           second_order=True),
    OpSpec("reduce_mean_keep_dims", lambda tf, x: tf.reduce_mean(x, axis=[0, 1], keep_dims=True) * x, [A],
           lambda x: x.mean(keepdims=True) * x, grad=True, second_order=True, static_shape=False),
    OpSpec("reduce_max", lambda tf, x: tf.reduce_max(x, axis=0), [A], lambda x: x.max(0), grad=True),
    OpSpec("reduce_max_keepdims_all", lambda tf, x: tf.reduce_max(x, keepdims=True), [A],
           lambda x: x.max(keepdims=True), grad=True),
    OpSpec("reduce_min", lambda tf, x: tf.reduce_min(x, axis=1), [A], lambda x: x.min(1), grad=True),
    OpSpec("reduce_prod", lambda tf, x: tf.reduce_prod(x, axis=1), [A], lambda x: x.prod(1), grad=True),
    OpSpec("reduce_prod_with_zero", lambda tf, x: tf.reduce_prod(x, axis=0),
           [np.array([[0.0, 2.0], [3.0, -1.0], [0.5, 0.0]], np.float32)], lambda x: x.prod(0), grad=True),
    OpSpec("reduce_prod_int", lambda tf, x: tf.reduce_prod(x, axis=1), [J], _prod_int),
    OpSpec("reduce_any", lambda tf, x: tf.reduce_any(x, axis=1), [MASK2], lambda x: x.any(1)),
    OpSpec("reduce_all", lambda tf, x: tf.reduce_all(x), [MASK1], np.all),
    OpSpec("reduce_logsumexp", lambda tf, x: tf.reduce_logsumexp(x * 20, axis=1), [A],
           lambda x: _logsumexp(x * 20, axis=1), grad=True, second_order=True, rtol=1e-4),
    OpSpec("reduce_logsumexp_all_keepdims", lambda tf, x: tf.reduce_logsumexp(x, keepdims=True), [A],
           lambda x: _logsumexp(x, keepdims=True), grad=True, rtol=1e-4),
    OpSpec("reduce_variance", lambda tf, x: tf.math.reduce_variance(x, axis=0), [A], lambda x: x.var(0), grad=True,
           rtol=1e-4),
    OpSpec("reduce_std", lambda tf, x: tf.math.reduce_std(x, axis=1), [A], lambda x: x.std(1), grad=True,
           rtol=1e-4),
    OpSpec("reduce_euclidean_norm", lambda tf, x: tf.math.reduce_euclidean_norm(x, axis=1), [A],
           lambda x: np.sqrt((x ** 2).sum(1)), grad=True, rtol=1e-4),
    OpSpec("argmax", lambda tf, x: tf.argmax(x, axis=1), [A], lambda x: x.argmax(1)),
    OpSpec("argmin_int32", lambda tf, x: tf.argmin(x, 0, output_type=tf.int32), [A], lambda x: x.argmin(0)),
    OpSpec("count_nonzero", lambda tf, x: tf.count_nonzero(x, axis=1), [I], lambda x: (x != 0).sum(1)),
    # ---- the gradient helpers, used forward so their own gradients are checked -----------------
    elementwise("sum_to_shape", lambda tf, g, x: M.sum_to(g, x) * x, [A, ROW], lambda g, x: g.sum(0) * x),
    elementwise("broadcast_like", lambda tf, x, like: M.make_op("BroadcastLike", [x, like]) * like, [ROW, A],
                lambda x, like: x * like),
    OpSpec("unreduce", lambda tf, g, x: M.make_op("Unreduce", [g, x], {"axis": 1, "keep_dims": False, "mean": True})
           * x, [ROW[:3], A], lambda g, x: g[:, None] / 4 * x, grad=True, second_order=True),
]

# Differentiable op types whose gradient is not checked by finite differences, with the reason.
GRAD_EXEMPT = {
    "ProdGrad": "the gradient of reduce_prod's gradient is not supported (raises LookupError)",
}
