"""More of tf.random: gamma (with TF's implicit reparameterization gradient), poisson, and the stateless
ops (tf.random.stateless_*), whose values depend only on their `seed` tensor: the same seed gives the
same values in every run and every Session. As for every random op of tinyflow, the values are drawn by
JAX's generator: TF's distributions, not TF's numbers (docs/DESIGN.md, Randomness)."""
import jax
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import ShapeError, get_default_graph
from tinyflow.graph.registry import from_attr, register_op
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core import math_ops as M
from tinyflow.ops.core.array_ops import fill_shape, shape_tensor, with_shape_of
from tinyflow.ops.core.base import convert_to_tensor, make_op
from tinyflow.ops.random_ops import _dims, _key, _seed_attrs

__all__ = ["random_gamma", "random_poisson"]


def _sample_shape(shapes, attrs, values):
    """shape ++ the parameter's shape (TF's rule for gamma and poisson)."""
    head = fill_shape(shapes[:1], attrs, values[:1])[0]
    return [head.concatenate(shapes[1])]


def _gamma_lower(a, key, shape, alpha):
    dims = _dims(shape)
    return jax.random.gamma(_key(a, key), jnp.broadcast_to(alpha, dims + alpha.shape), dtype=alpha.dtype)


def _gamma_grad(op, g):
    """TF's: d sample / d alpha by implicit differentiation of the CDF, summed over the sample dims."""
    alpha, sample = op.inputs[1], op.outputs[0]
    partial = make_op("RandomGammaGrad", [alpha, sample])
    n = sample.shape.ndims - alpha.shape.ndims
    return [None, M.reduce_sum(M.multiply(g, partial), axis=list(range(n)))]


register_op("RandomGamma", shape=_sample_shape, dtype=lambda d, a: [d[1]], grad=_gamma_grad, needs_key=True,
            lower=_gamma_lower)
register_op("RandomGammaGrad", shape=lambda s, a, v: [s[1]], dtype=lambda d, a: [d[1]], grad=None,
            lower=lambda a, alpha, x: jax.lax.random_gamma_grad(jnp.broadcast_to(alpha, x.shape), x))


def random_gamma(shape, alpha, beta=None, dtype=dt.float32, seed=None, name=None):
    """Gamma(alpha, beta) samples of shape `shape` + broadcast(alpha, beta).shape (beta is the rate);
    differentiable in alpha and beta (implicit reparameterization, as TF)."""
    dtype = dt.as_dtype(dtype)
    if dtype not in (dt.float16, dt.float32, dt.float64):
        raise ValueError("dtype must be one of float16, float32, float64, got %s" % dtype.name)
    with get_default_graph().name_scope(name or "random_gamma"):
        shape_t = shape_tensor(shape, name="shape")
        alpha = convert_to_tensor(alpha, dtype=dtype, name="alpha")
        beta = convert_to_tensor(1.0 if beta is None else beta, dtype=dtype, name="beta")
        alpha_b = M.add(alpha, M.zeros_like(beta))
        sample = make_op("RandomGamma", [shape_t, alpha_b], _seed_attrs(seed))
        return M.maximum(M.realdiv(sample, beta), M.scalar_like(np.finfo(dtype.np).tiny, sample))


def _poisson_lower(a, key, shape, lam):
    dims = _dims(shape)
    lam = jnp.broadcast_to(lam, dims + lam.shape)
    return jax.random.poisson(_key(a, key), lam.astype(np.float64), dtype=np.int64).astype(a["dtype"].np)


register_op("RandomPoissonV2", shape=_sample_shape, dtype=from_attr("dtype"), grad=None, needs_key=True,
            lower=_poisson_lower)


def random_poisson(lam, shape, dtype=dt.float32, seed=None, name=None):
    """Poisson(lam) samples of shape `shape` + lam.shape, as `dtype` (TF 1.15's argument order)."""
    with get_default_graph().name_scope(name or "random_poisson"):
        shape_t = shape_tensor(shape, name="shape")
        lam = convert_to_tensor(lam, name="lam")
        return make_op("RandomPoissonV2", [shape_t, lam], dict(_seed_attrs(seed), dtype=dt.as_dtype(dtype)))


# ---- stateless ops: the key is the seed tensor's two numbers ------------------------------------------
def _seed_key(seed):
    seed = jnp.asarray(seed).astype(jnp.int64)
    return jax.random.fold_in(jax.random.PRNGKey(seed[0].astype(jnp.uint32)), seed[1].astype(jnp.uint32))


def _check_seed(shapes):
    s = shapes[1]
    if s.ndims is not None and (s.ndims != 1 or s[0].value not in (None, 2)):
        raise ShapeError("seed must have shape [2], not %s" % s)


def _stateless_shape(shapes, attrs, values):
    _check_seed(shapes)
    return fill_shape(shapes[:1], attrs, values[:1])


_STATELESS = {
    "StatelessRandomUniform": lambda k, s, d: jax.random.uniform(k, s, d),
    "StatelessRandomNormal": lambda k, s, d: jax.random.normal(k, s, d),
    "StatelessTruncatedNormal": lambda k, s, d: jax.random.truncated_normal(k, -2.0, 2.0, s, d),
}
for _t, _fn in _STATELESS.items():
    register_op(_t, shape=_stateless_shape, dtype=from_attr("dtype"), grad=None,
                lower=lambda a, shape, seed, _fn=_fn: _fn(_seed_key(seed), _dims(shape), a["dtype"].np))
register_op("StatelessRandomUniformInt", shape=_stateless_shape, dtype=from_attr("dtype"), grad=None,
            lower=lambda a, shape, seed, lo, hi: jax.random.randint(_seed_key(seed), _dims(shape), lo, hi,
                                                                    dtype=a["dtype"].np))


def _stateless(op_type, shape, seed, dtype, extra=()):
    shape_t = shape_tensor(shape, name="shape")
    seed_t = convert_to_tensor(seed, name="seed")
    if not seed_t.dtype.is_integer:
        raise TypeError("seed must be an int32 or int64 tensor, got %s" % seed_t.dtype.name)
    return with_shape_of(make_op(op_type, [shape_t, seed_t] + list(extra), {"dtype": dtype}), shape_t)


def stateless_random_uniform(shape, seed, minval=0, maxval=None, dtype=dt.float32, name=None):
    """Uniform samples in [minval, maxval) that depend only on `seed` (a [2] int tensor)."""
    dtype = dt.as_dtype(dtype)
    with get_default_graph().name_scope(name or "stateless_random_uniform"):
        if dtype.is_integer:
            if maxval is None:
                raise ValueError("Must specify maxval for integer dtype %r" % dtype)
            lo, hi = (convert_to_tensor(v, dtype=dtype) for v in (minval, maxval))
            return _stateless("StatelessRandomUniformInt", shape, seed, dtype, [lo, hi])
        rnd = _stateless("StatelessRandomUniform", shape, seed, dtype)
        lo = convert_to_tensor(minval, dtype=dtype, name="min")
        hi = convert_to_tensor(1 if maxval is None else maxval, dtype=dtype, name="max")
        return M.add(M.multiply(rnd, M.subtract(hi, lo)), lo)


def stateless_random_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dt.float32, name=None):
    """Normal samples that depend only on `seed` (a [2] int tensor)."""
    dtype = dt.as_dtype(dtype)
    with get_default_graph().name_scope(name or "stateless_random_normal"):
        rnd = _stateless("StatelessRandomNormal", shape, seed, dtype)
        return M.add(M.multiply(rnd, convert_to_tensor(stddev, dtype=dtype)), convert_to_tensor(mean, dtype=dtype))


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dt.float32, name=None):
    """Normal samples within 2 standard deviations that depend only on `seed`."""
    dtype = dt.as_dtype(dtype)
    with get_default_graph().name_scope(name or "stateless_truncated_normal"):
        rnd = _stateless("StatelessTruncatedNormal", shape, seed, dtype)
        return M.add(M.multiply(rnd, convert_to_tensor(stddev, dtype=dtype)), convert_to_tensor(mean, dtype=dtype))


def _stateless_multinomial_shape(shapes, attrs, values):
    _check_seed([None, shapes[2]])
    logits, n = shapes[0], values[1]
    if logits.ndims not in (None, 2):
        raise ShapeError("Shape must be rank 2 but is rank %d" % logits.ndims)
    return [TensorShape([logits[0].value if logits.ndims else None, None if n is None else int(n)])]


def _stateless_multinomial_lower(a, logits, num_samples, seed):
    n = int(np.asarray(num_samples))
    draws = jax.random.categorical(_seed_key(seed), logits, axis=-1, shape=(n, logits.shape[0]))
    return jnp.transpose(draws).astype(a["output_dtype"].np)


register_op("StatelessMultinomial", shape=_stateless_multinomial_shape, dtype=from_attr("output_dtype"), grad=None,
            lower=_stateless_multinomial_lower)


def stateless_multinomial(logits, num_samples, seed, output_dtype=dt.int64, name=None):
    """Class indices drawn from each row of `logits`, depending only on `seed`: [batch, num_samples]."""
    with get_default_graph().name_scope(name or "stateless_multinomial"):
        logits = convert_to_tensor(logits, name="logits")
        n = convert_to_tensor(num_samples, dtype=dt.int32, name="num_samples")
        return make_op("StatelessMultinomial", [logits, n, convert_to_tensor(seed, name="seed")],
                       {"output_dtype": dt.as_dtype(output_dtype)})


def stateless_categorical(logits, num_samples, seed, dtype=dt.int64, name=None):
    """tf.random.stateless_categorical: stateless_multinomial with TF2's argument names."""
    return stateless_multinomial(logits, num_samples, seed, output_dtype=dtype, name=name or "stateless_categorical")

