"""Special functions of tf.math: Bessel I0/I1 (scaled), incomplete gamma and beta, Hurwitz zeta,
nextafter, mul_no_nan, and the functions TF builds from them (bessel_i0, lbeta, polyval, ...).
Gradients are TF's (math_grad.py): betainc and zeta differentiate only in x and q, as TF's do."""
import jax
import jax.numpy as jnp

from tinyflow.graph.core import get_default_graph
from tinyflow.graph.registry import register_op
from tinyflow.ops.core import math_ops as M
from tinyflow.graph import dtypes as dt
from tinyflow.ops.core.base import broadcast_rule, convert_to_tensor, make_op
from tinyflow.ops.core.math_ops import FLOAT, _binary, _unary, convert_like, dtype_rule, sum_to
from tinyflow.ops.core.sequence_ops import cumulative_logsumexp  # noqa: F401  (exported here too)

__all__ = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "betainc", "cumulative_logsumexp", "igamma",
           "igammac", "lbeta", "multiply_no_nan", "nextafter", "polyval", "zeta"]

_X64 = (dt.float32, dt.float64)


def _i1e_grad(op, g):
    x, y = op.inputs[0], op.outputs[0]
    tiny = M.greater(M.abs(x), M.scalar_like(1e-30 if x.dtype == dt.float64 else 1e-20, x))
    safe_x = M.where_v2(tiny, x, M.scalar_like(1e-6, x))
    d = M.subtract(bessel_i0e(safe_x), M.multiply(y, M.add(M.sign(safe_x), M.reciprocal(safe_x))))
    return [M.multiply(g, M.where_v2(tiny, d, M.scalar_like(0.5, x) + M.zeros_like(x)))]


bessel_i0e = _unary("BesselI0e", jax.scipy.special.i0e,
                    lambda op, g: [M.multiply(g, M.subtract(bessel_i1e(op.inputs[0]),
                                                            M.multiply(M.sign(op.inputs[0]), op.outputs[0])))])
bessel_i1e = _unary("BesselI1e", jax.scipy.special.i1e, _i1e_grad)


def bessel_i0(x, name=None):
    """The modified Bessel function I0: exp(|x|) * bessel_i0e(x), as TF builds it."""
    with get_default_graph().name_scope(name or "bessel_i0"):
        x = convert_to_tensor(x, name="x")
        return M.multiply(M.exp(M.abs(x)), bessel_i0e(x))


def bessel_i1(x, name=None):
    """The modified Bessel function I1: exp(|x|) * bessel_i1e(x), as TF builds it."""
    with get_default_graph().name_scope(name or "bessel_i1"):
        x = convert_to_tensor(x, name="x")
        return M.multiply(M.exp(M.abs(x)), bessel_i1e(x))


def _igamma_dx(a, x):
    # d/dx P(a, x) = exp(-x) x^(a-1) / Gamma(a)
    return M.exp(M.subtract(M.subtract(M.multiply(M.subtract(a, M.ones_like_scalar(a)), M.log(x)), x), M.lgamma(a)))


def _igamma_grad(sign):
    def grad(op, g):
        a, x = op.inputs
        da = make_op("IgammaGradA", [a, x])
        dx = _igamma_dx(a, x)
        if sign < 0:
            da, dx = M.negative(da), M.negative(dx)
        return [sum_to(M.multiply(g, da), a), sum_to(M.multiply(g, dx), x)]
    return grad


def _eigen_domain(fn, at_x0=None):
    """fn(a, x) with Eigen's edges, as TF: P(a, 0) is 0 (checked first: even for a <= 0); a <= 0 or
    x < 0 give NaN (XLA's P(0, x) is 1, Q(0, x) 0)."""
    def lower(attrs, a, x):
        a, x = jnp.broadcast_arrays(a, x)
        out = jnp.where((x < 0) | (a <= 0), jnp.nan, fn(a, x)).astype(x.dtype)
        return out if at_x0 is None else jnp.where(x == 0, at_x0, out).astype(x.dtype)
    return lower


igamma = _binary("Igamma", _eigen_domain(jax.lax.igamma, 0), _igamma_grad(1), allowed=_X64, names=("a", "x"))
igammac = _binary("Igammac", _eigen_domain(jax.lax.igammac), _igamma_grad(-1), allowed=_X64, names=("a", "x"))
igamma.__doc__ = "The regularized lower incomplete gamma function P(a, x)."
igammac.__doc__ = "The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."
register_op("IgammaGradA", shape=broadcast_rule, dtype=dtype_rule("IgammaGradA", _X64, names=("a", "x")),
            grad=None, lower=_eigen_domain(lambda a, x: jnp.where(   # P(a, inf) is 1 for every a: 0, as TF
                jnp.isposinf(x), 0, jax.lax.igamma_grad_a(a, x)), 0))


def _zeta_grad(op, g):
    x, q = op.inputs
    return [None, sum_to(M.multiply(g, M.negative(M.multiply(x, zeta(M.add(x, M.ones_like_scalar(x)), q)))), q)]


zeta = _binary("Zeta", lambda a, x, q: jax.scipy.special.zeta(x, q), _zeta_grad, allowed=_X64, names=("x", "q"))
zeta.__doc__ = "The Hurwitz zeta function: sum over n >= 0 of (n + q)^-x."
nextafter = _binary("NextAfter", lambda a, x, y: jnp.nextafter(x, y), None, allowed=_X64, names=("x1", "x2"))
nextafter.__doc__ = "The next representable value of x1 in the direction of x2."


def _mul_no_nan_grad(op, g):
    x, y = op.inputs
    return [sum_to(multiply_no_nan(g, y), x), sum_to(multiply_no_nan(x, g), y)]


_mul_no_nan = _binary("MulNoNan", lambda a, x, y: jnp.where(y == 0, jnp.zeros_like(x * y), x * y),
                      _mul_no_nan_grad, allowed=FLOAT + M.COMPLEX)


def multiply_no_nan(x, y, name=None):
    """x * y, with 0 where y is 0 (even when x is inf or nan)."""
    return _mul_no_nan(x, y, name=name or "MulNoNan")


def _betainc_grad(op, g):
    a, b, x = op.inputs
    log_beta = M.subtract(M.add(M.lgamma(a), M.lgamma(b)), M.lgamma(M.add(a, b)))
    one = M.ones_like_scalar(x)
    dx = M.exp(M.subtract(M.add(M.multiply(M.subtract(b, one), M.log1p(M.negative(x))),
                                M.multiply(M.subtract(a, one), M.log(x))), log_beta))
    return [None, None, sum_to(M.multiply(g, dx), x)]


register_op("Betainc", shape=broadcast_rule, dtype=dtype_rule("Betainc", _X64, names=("a", "b", "x")),
            grad=_betainc_grad, lower=lambda at, a, b, x: jnp.where(   # Eigen's domain checks come first, as TF's
                (a <= 0) | (b <= 0) | (x < 0) | (x > 1), jnp.nan, jax.scipy.special.betainc(a, b, x)).astype(x.dtype))


def betainc(a, b, x, name=None):
    """The regularized incomplete beta function I_x(a, b)."""
    a, b, x = convert_like([a, b, x])
    return make_op("Betainc", [a, b, x], name=name or "Betainc")


def lbeta(x, name=None):
    """log |Beta(x)| over the last axis: sum(lgamma(x)) - lgamma(sum(x)) (an empty last axis gives 0)."""
    with get_default_graph().name_scope(name or "lbeta"):
        x = convert_to_tensor(x, name="x")
        return M.subtract(M.reduce_sum(M.lgamma(x), axis=-1), M.lgamma(M.reduce_sum(x, axis=-1)))


def polyval(coeffs, x, name=None):
    """coeffs[0] * x^(n-1) + ... + coeffs[n-1], by Horner's rule (TF's; no coefficients give 0)."""
    if not isinstance(coeffs, (list, tuple)):
        raise ValueError("Argument coeffs must be list type found %s." % type(coeffs))
    with get_default_graph().name_scope(name or "polyval"):
        x = convert_to_tensor(x, name="x")
        if not coeffs:
            return M.zeros_like(x)
        # as TF: each coefficient converted by itself (Python floats are float32, then must match x)
        coeffs = [convert_to_tensor(c, name="coeff_%d" % i) for i, c in enumerate(coeffs)]
        p = coeffs[0]
        for c in coeffs[1:]:
            p = M.add(c, M.multiply(p, x))
        return p



