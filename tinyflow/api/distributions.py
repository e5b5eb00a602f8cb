"""tf.distributions (TF 1.15's deprecated distributions): Normal, Uniform, Bernoulli, Beta, Categorical,
Exponential, Laplace, Gamma, StudentT, and the vector-valued Dirichlet, Multinomial and DirichletMultinomial,
with sample / log_prob / prob / cdf / entropy / mean / stddev / variance / mode (covariance for the vector
ones) as TF 1.15 defines them, and kl_divergence of two Normals. Samples are drawn by tinyflow's random ops
(TF's distributions, not TF's numbers); the gamma-based ones (Beta, Gamma, StudentT, Dirichlet,
DirichletMultinomial) by tf.random.gamma as TF draws them.
"""
import hashlib
import math

import numpy as np

from tinyflow.graph import dtypes, errors, shapes
from tinyflow.graph.core import name_scope
from tinyflow.ops import matrix_ops, nn_ops, random_ops, special_ops
from tinyflow.ops.core import array_ops, sequence_ops
from tinyflow.ops.core import math_ops as m
from tinyflow.ops.core.base import constant_value_of, convert_to_tensor
from tinyflow.ops.random_more_ops import random_gamma


class ReparameterizationType:
    def __init__(self, rep_type):
        self._rep_type = rep_type

    def __repr__(self):
        return "<Reparameteriation Type: %s>" % self._rep_type


FULLY_REPARAMETERIZED = ReparameterizationType("FULLY_REPARAMETERIZED")
NOT_REPARAMETERIZED = ReparameterizationType("NOT_REPARAMETERIZED")


def _float(x, dtype=None):
    return convert_to_tensor(x, dtype=dtype or dtypes.float32)


def _sample_shape(sample_shape, batch):
    """The sample op's shape: sample_shape + batch_shape (static ints)."""
    if isinstance(sample_shape, int):
        sample_shape = [sample_shape]
    return list(sample_shape) + batch.as_list()


class Distribution:
    """The base: subclasses give _log_prob, _sample_n, _mean, ... on broadcast parameters."""
    reparameterization_type = NOT_REPARAMETERIZED

    def __init__(self, name, parameters, dtype=dtypes.float32, validate_args=False, allow_nan_stats=True):
        self._name, self._parameters, self._dtype = name, parameters, dtype
        self.validate_args, self.allow_nan_stats = validate_args, allow_nan_stats

    name = property(lambda self: self._name)
    dtype = property(lambda self: self._dtype)
    parameters = property(lambda self: dict(self._parameters))
    event_shape = property(lambda self: shapes.TensorShape([]))

    @property
    def batch_shape(self):
        return self._batch.shape

    def batch_shape_tensor(self):
        return array_ops.shape(self._batch)

    def sample(self, sample_shape=(), seed=None, name="sample"):
        with name_scope(self._name + "/" + name):
            return self._sample(_sample_shape(sample_shape, self.batch_shape), seed)

    def log_prob(self, value, name="log_prob"):
        with name_scope(self._name + "/" + name):
            return self._log_prob(self._value(value))

    def prob(self, value, name="prob"):
        with name_scope(self._name + "/" + name):
            return m.exp(self._log_prob(self._value(value)))

    def cdf(self, value, name="cdf"):
        with name_scope(self._name + "/" + name):
            return self._cdf(self._value(value))

    def log_cdf(self, value, name="log_cdf"):
        return m.log(self.cdf(value, name))

    def survival_function(self, value, name="survival_function"):
        return 1. - self.cdf(value, name)

    def entropy(self, name="entropy"):
        with name_scope(self._name + "/" + name):
            return self._entropy()

    def mean(self, name="mean"):
        with name_scope(self._name + "/" + name):
            return self._mean()

    def variance(self, name="variance"):
        with name_scope(self._name + "/" + name):
            return self._variance()

    def stddev(self, name="stddev"):
        with name_scope(self._name + "/" + name):
            return m.sqrt(self._variance())

    def mode(self, name="mode"):
        with name_scope(self._name + "/" + name):
            return self._mode()

    def covariance(self, name="covariance"):
        """The variance of a scalar distribution; the [k, k] matrix of a vector one."""
        with name_scope(self._name + "/" + name):
            return self._covariance() if hasattr(self, "_covariance") else self._variance()

    def _value(self, value):
        return _float(value, self._dtype)

    def _cdf(self, value):
        raise NotImplementedError("cdf is not implemented: %s" % type(self).__name__)


class Normal(Distribution):
    """N(loc, scale)."""
    reparameterization_type = FULLY_REPARAMETERIZED

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Normal"):
        super().__init__(name, dict(loc=loc, scale=scale), validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats)
        self.loc, self.scale = _float(loc), _float(scale)
        self._batch = self.loc + self.scale * 0.

    def _sample(self, shape, seed):
        return self.loc + self.scale * random_ops.random_normal(shape, seed=seed)

    def _z(self, x):
        return (x - self.loc) / self.scale

    def _log_prob(self, x):
        return -0.5 * m.square(self._z(x)) - (0.5 * math.log(2. * math.pi) + m.log(self.scale))

    def _cdf(self, x):
        return 0.5 * m.erfc(-self._z(x) / math.sqrt(2.))

    def _entropy(self):
        return (0.5 * math.log(2. * math.pi * math.e) + m.log(self.scale)) + self.loc * 0.

    def _mean(self):
        return self.loc + self.scale * 0.

    def _variance(self):
        return m.square(self.scale) + self.loc * 0.

    def stddev(self, name="stddev"):
        with name_scope(self._name + "/" + name):
            return self.scale + self.loc * 0.

    _mode = _mean


class Uniform(Distribution):
    """U[low, high)."""
    reparameterization_type = FULLY_REPARAMETERIZED

    def __init__(self, low=0., high=1., validate_args=False, allow_nan_stats=True, name="Uniform"):
        super().__init__(name, dict(low=low, high=high), validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats)
        self.low, self.high = _float(low), _float(high)
        self._batch = self.low + self.high * 0.

    def range(self):
        return self.high - self.low

    def _sample(self, shape, seed):
        return self.low + self.range() * random_ops.random_uniform(shape, seed=seed)

    def _log_prob(self, x):
        inside = m.logical_and(m.greater_equal(x, self.low), m.less(x, self.high))
        density = array_ops.ones_like(x + self._batch) / self.range()
        return m.log(m.cast(inside, self._dtype) * density)

    def _cdf(self, x):
        return m.minimum(m.maximum((x - self.low) / self.range(), 0.), 1.)

    def _entropy(self):
        return m.log(self.range())

    def _mean(self):
        return (self.low + self.high) / 2.

    def _variance(self):
        return m.square(self.range()) / 12.

    def _mode(self):
        raise NotImplementedError("mode is not implemented: Uniform")


class Bernoulli(Distribution):
    """Bernoulli(logits= or probs=); samples and values are int32."""

    def __init__(self, logits=None, probs=None, dtype=dtypes.int32, validate_args=False, allow_nan_stats=True,
                 name="Bernoulli"):
        if (logits is None) == (probs is None):
            raise ValueError("Must pass probs or logits, but not both.")
        super().__init__(name, dict(logits=logits, probs=probs), dtype, validate_args, allow_nan_stats)
        if logits is not None:
            self.logits = _float(logits)
            self.probs = m.sigmoid(self.logits)
        else:
            self.probs = _float(probs)
            self.logits = m.log(self.probs) - m.log1p(-self.probs)
        self._batch = self.probs

    def _value(self, value):
        return convert_to_tensor(value, dtype=self._dtype)

    def _sample(self, shape, seed):
        draws = random_ops.random_uniform(shape, seed=seed)
        return m.cast(m.less(draws, self.probs), self._dtype)

    def _log_prob(self, x):
        x = m.cast(x, dtypes.float32) + self.logits * 0.
        return -nn_ops.sigmoid_cross_entropy_with_logits(labels=x, logits=self.logits + x * 0.)

    def _entropy(self):
        return -self.logits * (m.sigmoid(self.logits) - 1.) + nn_ops.softplus(-self.logits)

    def _mean(self):
        return self.probs

    def _variance(self):
        return self.probs * (1. - self.probs)

    def _mode(self):
        return m.cast(m.greater(self.probs, 0.5), self._dtype)


class Beta(Distribution):
    """Beta(concentration1 (alpha), concentration0 (beta)) on (0, 1)."""

    def __init__(self, concentration1=None, concentration0=None, validate_args=False, allow_nan_stats=True,
                 name="Beta"):
        super().__init__(name, dict(concentration1=concentration1, concentration0=concentration0),
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats)
        self.concentration1, self.concentration0 = _float(concentration1), _float(concentration0)
        self.total_concentration = self.concentration1 + self.concentration0
        self._batch = self.total_concentration

    def _lbeta(self):
        return m.lgamma(self.concentration1) + m.lgamma(self.concentration0) - m.lgamma(self.total_concentration)

    def _sample(self, shape, seed):   # TF's: g1 / (g1 + g0), two gammas of the concentrations
        ones = array_ops.ones_like(self.total_concentration)
        g1 = random_gamma(shape[:len(shape) - self.batch_shape.ndims], self.concentration1 * ones, seed=seed)
        g0 = random_gamma(shape[:len(shape) - self.batch_shape.ndims], self.concentration0 * ones,
                          seed=_new_seed(seed, "beta"))
        return g1 / (g1 + g0)

    def _log_prob(self, x):
        return ((self.concentration1 - 1.) * m.log(x) + (self.concentration0 - 1.) * m.log1p(-x)) - self._lbeta()

    def _entropy(self):
        a, b, t = self.concentration1, self.concentration0, self.total_concentration
        return (self._lbeta() - (a - 1.) * m.digamma(a) - (b - 1.) * m.digamma(b) + (t - 2.) * m.digamma(t))

    def _mean(self):
        return self.concentration1 / self.total_concentration

    def _variance(self):
        mean = self._mean()
        return mean * (1. - mean) / (1. + self.total_concentration)

    def _mode(self):
        return (self.concentration1 - 1.) / (self.total_concentration - 2.)


class Categorical(Distribution):
    """Categorical(logits= or probs=) over the last axis; samples and values are int32."""

    def __init__(self, logits=None, probs=None, dtype=dtypes.int32, validate_args=False, allow_nan_stats=True,
                 name="Categorical"):
        if (logits is None) == (probs is None):
            raise ValueError("Must pass probs or logits, but not both.")
        super().__init__(name, dict(logits=logits, probs=probs), dtype, validate_args, allow_nan_stats)
        self.logits = _float(logits) if logits is not None else m.log(_float(probs))
        self.probs = nn_ops.softmax(self.logits) if probs is None else _float(probs)
        self._batch = self.logits[..., 0]
        self.event_size = self.logits.shape.as_list()[-1]

    def _value(self, value):
        return convert_to_tensor(value, dtype=self._dtype)

    def _sample(self, shape, seed):
        n = int(math.prod(shape[:len(shape) - self.batch_shape.ndims]))
        flat = array_ops.reshape(self.logits, [-1, self.event_size])
        draws = random_ops.multinomial(flat, n, seed=seed, output_dtype=dtypes.int64)   # [batch, n]
        draws = array_ops.reshape(array_ops.transpose(draws), shape)
        return m.cast(draws, self._dtype)

    def _log_prob(self, k):
        return -nn_ops.sparse_softmax_cross_entropy_with_logits(labels=k, logits=self.logits)

    def _entropy(self):
        return -m.reduce_sum(nn_ops.softmax(self.logits) * nn_ops.log_softmax(self.logits), axis=-1)

    def _mode(self):
        return m.cast(m.argmax(self.logits, axis=-1), self._dtype)


def kl_divergence(distribution_a, distribution_b, allow_nan_stats=True, name=None):
    """KL(a || b), registered here for two Normals (as TF registers it)."""
    if isinstance(distribution_a, Normal) and isinstance(distribution_b, Normal):
        a, b = distribution_a, distribution_b
        ratio = m.square(a.scale / b.scale)
        return 0.5 * (m.square((a.loc - b.loc) / b.scale) + ratio - 1. - m.log(ratio))
    raise NotImplementedError("No KL(distribution_a || distribution_b) registered for distribution_a type %s and "
                              "distribution_b type %s" % (type(distribution_a).__name__, type(distribution_b).__name__))



class Exponential(Distribution):
    """Exponential(rate) on [0, inf): density rate * exp(-rate x)."""
    reparameterization_type = FULLY_REPARAMETERIZED

    def __init__(self, rate, validate_args=False, allow_nan_stats=True, name="Exponential"):
        super().__init__(name, dict(rate=rate), validate_args=validate_args, allow_nan_stats=allow_nan_stats)
        self.rate = _float(rate)
        self._batch = self.rate

    def _sample(self, shape, seed):   # TF's: -log(uniform in [tiny, 1)) / rate
        tiny = float(self._dtype.as_numpy_dtype(1e-38) if self._dtype == dtypes.float32 else 1e-300)
        u = random_ops.random_uniform(shape, minval=tiny, maxval=1., dtype=self._dtype, seed=seed)
        return -m.log(u) / self.rate

    def _log_prob(self, x):
        return m.log(self.rate) - self.rate * x

    def _cdf(self, x):
        return -m.expm1(-self.rate * x)

    def _entropy(self):
        return 1. - m.log(self.rate)

    def _mean(self):
        return 1. / self.rate

    def _variance(self):
        return 1. / m.square(self.rate)

    def _mode(self):   # TF 1.15's Exponential is a Gamma of concentration 1, whose mode it leaves undefined
        return self.rate * float("nan")


class Laplace(Distribution):
    """Laplace(loc, scale): density exp(-|x - loc| / scale) / (2 scale)."""
    reparameterization_type = FULLY_REPARAMETERIZED

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Laplace"):
        super().__init__(name, dict(loc=loc, scale=scale), validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats)
        self.loc, self.scale = _float(loc), _float(scale)
        self._batch = self.loc + self.scale * 0.

    def _sample(self, shape, seed):   # TF's: loc - scale * sign(u) * log1p(-|u|), u uniform in (-1, 1)
        u = random_ops.random_uniform(shape, minval=float(np.nextafter(np.float32(-1.), np.float32(0.))),
                                      maxval=1., dtype=self._dtype, seed=seed)
        return self.loc - self.scale * m.sign(u) * m.log1p(-m.abs(u))

    def _log_prob(self, x):
        return -m.abs(x - self.loc) / self.scale - (math.log(2.) + m.log(self.scale))

    def _cdf(self, x):
        z = (x - self.loc) / self.scale
        return 0.5 - 0.5 * m.sign(z) * m.expm1(-m.abs(z))

    def _entropy(self):
        return (math.log(2.) + 1.) + m.log(self.scale) + self.loc * 0.

    def _mean(self):
        return self.loc + self.scale * 0.

    def _variance(self):
        return 2. * m.square(self.scale) + self.loc * 0.

    _mode = _mean

class RegisterKL:
    """Registers kl_divergence for two classes (kept; tinyflow's kl_divergence knows Normal/Normal)."""

    def __init__(self, dist_cls_a, dist_cls_b):
        self._key = (dist_cls_a, dist_cls_b)

    def __call__(self, fn):
        return fn



def _new_seed(seed, salt):
    """TF's distribution_util.gen_new_seed: a second op's seed derived from the first (None stays None)."""
    if seed is None:
        return None
    return int(hashlib.md5((str(seed) + salt).encode("utf-8")).hexdigest()[:8], 16) & 0x7FFFFFFF


def _nan_unless(defined, value):
    """value where `defined`, NaN elsewhere (TF's allow_nan_stats=True statistics)."""
    return m.where_v2(defined, value, value * float("nan"))


def _log_combinations(n, counts):
    """log(n! / prod_i counts_i!) over the last axis (TF's distribution_util.log_combinations)."""
    return m.lgamma(n + 1.) - m.reduce_sum(m.lgamma(counts + 1.), axis=-1)


class Gamma(Distribution):
    """Gamma(concentration, rate): density rate^c x^(c-1) exp(-rate x) / Gamma(c) on (0, inf)."""
    reparameterization_type = FULLY_REPARAMETERIZED

    def __init__(self, concentration, rate, validate_args=False, allow_nan_stats=True, name="Gamma"):
        super().__init__(name, dict(concentration=concentration, rate=rate), validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats)
        self.concentration, self.rate = _float(concentration), _float(rate)
        self._batch = self.concentration + self.rate * 0.

    def _sample(self, shape, seed):
        return random_gamma(shape[:len(shape) - self.batch_shape.ndims], self.concentration, beta=self.rate,
                            seed=seed) + self._batch * 0.

    def _log_prob(self, x):
        return (m.xlogy(self.concentration - 1., x) - self.rate * x
                - (m.lgamma(self.concentration) - self.concentration * m.log(self.rate)))

    def _cdf(self, x):
        return special_ops.igamma(self.concentration, self.rate * x)

    def _entropy(self):
        c = self.concentration
        return c - m.log(self.rate) + m.lgamma(c) + (1. - c) * m.digamma(c)

    def _mean(self):
        return self.concentration / self.rate

    def _variance(self):
        return self.concentration / m.square(self.rate)

    def stddev(self, name="stddev"):
        with name_scope(self._name + "/" + name):
            return m.sqrt(self.concentration) / self.rate

    def _mode(self):   # (c - 1) / rate, defined for concentration > 1
        return _nan_unless(m.greater(self._batch * 0. + self.concentration, 1.), (self.concentration - 1.) / self.rate)


class StudentT(Distribution):
    """Student's t with `df` degrees of freedom, location `loc` and scale `scale`."""
    reparameterization_type = FULLY_REPARAMETERIZED

    def __init__(self, df, loc, scale, validate_args=False, allow_nan_stats=True, name="StudentT"):
        super().__init__(name, dict(df=df, loc=loc, scale=scale), validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats)
        self.df, self.loc, self.scale = _float(df), _float(loc), _float(scale)
        self._batch = self.df + self.loc * 0. + self.scale * 0.

    def _sample(self, shape, seed):   # TF's: normal * rsqrt(gamma(df / 2, 1 / 2) / df)
        normal = random_ops.random_normal(shape, seed=seed)
        df = self.df * array_ops.ones_like(self._batch)
        gamma = random_gamma(shape[:len(shape) - self.batch_shape.ndims], 0.5 * df, beta=0.5,
                             seed=_new_seed(seed, "student_t"))
        return normal * m.rsqrt(gamma / df) * self.scale + self.loc

    def _log_prob(self, x):
        y = (x - self.loc) / self.scale
        return (-0.5 * (self.df + 1.) * m.log1p(m.square(y) / self.df)
                - (m.log(m.abs(self.scale)) + 0.5 * m.log(self.df) + 0.5 * math.log(math.pi)
                   + m.lgamma(0.5 * self.df) - m.lgamma(0.5 * (self.df + 1.))))

    def _cdf(self, x):
        y = (x - self.loc) / m.abs(self.scale)
        neg_cdf = 0.5 * special_ops.betainc(0.5 * self.df + y * 0., 0.5 + y * 0., self.df / (m.square(y) + self.df))
        return m.where_v2(m.less(y, 0.), neg_cdf, 1. - neg_cdf)

    def _entropy(self):
        df = self.df * array_ops.ones_like(self._batch)
        lbeta = special_ops.lbeta(array_ops.stack([df, array_ops.ones_like(df)], axis=-1) / 2.)
        return (m.log(m.abs(self.scale)) + 0.5 * m.log(self.df) + lbeta
                + 0.5 * (self.df + 1.) * (m.digamma(0.5 * (self.df + 1.)) - m.digamma(0.5 * self.df)))

    def _mean(self):   # loc, defined for df > 1
        return _nan_unless(m.greater(self._batch, 1.), self.loc + self._batch * 0.)

    def _variance(self):   # scale^2 df / (df - 2) for df > 2, inf for 1 < df <= 2, NaN for df <= 1
        df = self._batch
        var = m.square(self.scale) * self.df / m.where_v2(m.greater(df, 2.), df - 2., array_ops.ones_like(df))
        var = m.where_v2(m.greater(df, 2.), var, var * 0. + float("inf"))
        return _nan_unless(m.greater(df, 1.), var)

    def _mode(self):
        return self.loc + self._batch * 0.


class _Vector(Distribution):
    """A distribution over vectors: the last axis of its parameter is the event (event_shape [k])."""

    @property
    def event_shape(self):
        return shapes.TensorShape(self._event_size)

    def event_shape_tensor(self):
        return array_ops.shape(self._param)[-1:]

    def _sample_dims(self, shape):
        return shape[:len(shape) - self.batch_shape.ndims]

    def _covariance(self):
        x = self._scaled_mean()
        outer = -m.matmul(array_ops.expand_dims(x, -1), array_ops.expand_dims(x, -2))
        return matrix_ops.matrix_set_diag(outer, self._variance())

    def _counts(self, logits, n_draws, sample_dims, seed):
        """Per row of `logits` ([..., k], one row per sample and batch member) the class counts of
        n_draws categorical draws (TF draws tf.multinomial and sums one-hots; n_draws must be known
        when the graph is built: the number of draws is the op's static num_samples)."""
        counts = constant_value_of(n_draws)
        if counts is None:
            raise errors.UnimplementedError(None, None, "%s.sample needs total_count known when the graph is "
                                                        "built (a constant)" % type(self).__name__)
        counts = np.broadcast_to(np.asarray(counts, np.int64), self.batch_shape.as_list())
        k, most = self._event_size[0], int(counts.max()) if counts.size else 0
        n = int(np.prod(sample_dims, dtype=np.int64))
        rows = array_ops.reshape(logits, [-1, k])
        draws = random_ops.multinomial(rows, max(most, 1), seed=seed, output_dtype=dtypes.int64)
        hot = sequence_ops.one_hot(draws, k, dtype=self._dtype)          # [rows, most, k]
        # draws past a batch member's own total_count are masked out
        per_row = np.broadcast_to(counts.reshape(-1), (n, counts.size)).reshape(-1, 1)
        mask = (np.arange(max(most, 1))[None, :] < per_row).astype(self._dtype.as_numpy_dtype)
        x = m.reduce_sum(hot * array_ops.expand_dims(mask, -1), axis=-2)
        return array_ops.reshape(x, list(sample_dims) + self.batch_shape.as_list() + [k])


class Dirichlet(_Vector):
    """Dirichlet(concentration [..., k]) on the (k-1)-simplex."""
    reparameterization_type = FULLY_REPARAMETERIZED

    def __init__(self, concentration, validate_args=False, allow_nan_stats=True, name="Dirichlet"):
        super().__init__(name, dict(concentration=concentration), validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats)
        self.concentration = self._param = _float(concentration)
        self.total_concentration = self._batch = m.reduce_sum(self.concentration, -1)
        self._event_size = self.concentration.shape.as_list()[-1:]

    def _sample(self, shape, seed):
        gamma = random_gamma(self._sample_dims(shape), self.concentration, seed=seed)
        return gamma / m.reduce_sum(gamma, -1, keepdims=True)

    def _log_prob(self, x):
        return m.reduce_sum(m.xlogy(self.concentration - 1., x), -1) - special_ops.lbeta(self.concentration)

    def _entropy(self):
        k, c0 = float(self._event_size[0]), self.total_concentration
        return (special_ops.lbeta(self.concentration) + (c0 - k) * m.digamma(c0)
                - m.reduce_sum((self.concentration - 1.) * m.digamma(self.concentration), axis=-1))

    def _mean(self):
        return self.concentration / array_ops.expand_dims(self.total_concentration, -1)

    def _scaled_mean(self):
        return m.rsqrt(1. + array_ops.expand_dims(self.total_concentration, -1)) * self._mean()

    def _variance(self):
        scale = m.rsqrt(1. + array_ops.expand_dims(self.total_concentration, -1))
        x = scale * self._mean()
        return x * (scale - x)

    def _mode(self):   # defined when every concentration > 1
        k = float(self._event_size[0])
        mode = (self.concentration - 1.) / (array_ops.expand_dims(self.total_concentration, -1) - k)
        return _nan_unless(array_ops.expand_dims(m.reduce_all(m.greater(self.concentration, 1.), -1), -1), mode)


class Multinomial(_Vector):
    """Multinomial(total_count, logits= or probs= [..., k]): class counts of total_count draws."""

    def __init__(self, total_count, logits=None, probs=None, validate_args=False, allow_nan_stats=True,
                 name="Multinomial"):
        if (logits is None) == (probs is None):
            raise ValueError("Must pass probs or logits, but not both.")
        super().__init__(name, dict(total_count=total_count, logits=logits, probs=probs),
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats)
        self.total_count = _float(total_count)
        if logits is not None:
            self.logits = _float(logits)
            self.probs = nn_ops.softmax(self.logits)
        else:
            self.probs = _float(probs)
            self.logits = m.log(self.probs)
        self._param = self._mean_val = array_ops.expand_dims(self.total_count, -1) * self.probs
        self._batch = self._mean_val[..., 0]
        self._event_size = self._mean_val.shape.as_list()[-1:]

    def _sample(self, shape, seed):
        logits = self.logits * array_ops.expand_dims(array_ops.ones_like(self._batch), -1)
        n = int(np.prod(self._sample_dims(shape), dtype=np.int64))
        tiled = array_ops.tile(array_ops.expand_dims(logits, 0), [n] + [1] * (self.batch_shape.ndims + 1))
        return self._counts(tiled, self.total_count, self._sample_dims(shape), seed)

    def _log_prob(self, counts):
        return (m.reduce_sum(counts * nn_ops.log_softmax(self.logits), -1)
                + _log_combinations(self.total_count, counts))

    def _mean(self):
        return array_ops.identity(self._mean_val)

    def _p(self):
        return self.probs * array_ops.expand_dims(array_ops.ones_like(self.total_count), -1)

    def _covariance(self):
        outer = -m.matmul(array_ops.expand_dims(self._mean_val, -1), array_ops.expand_dims(self._p(), -2))
        return matrix_ops.matrix_set_diag(outer, self._variance())

    def _variance(self):
        return self._mean_val - self._mean_val * self._p()


class DirichletMultinomial(_Vector):
    """DirichletMultinomial(total_count, concentration [..., k]): Multinomial counts whose class
    probabilities are Dirichlet(concentration)."""

    def __init__(self, total_count, concentration, validate_args=False, allow_nan_stats=True,
                 name="DirichletMultinomial"):
        super().__init__(name, dict(total_count=total_count, concentration=concentration),
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats)
        self.total_count = _float(total_count)
        self.concentration = self._param = _float(concentration)
        self.total_concentration = self._batch = m.reduce_sum(self.concentration, -1)
        self._event_size = self.concentration.shape.as_list()[-1:]

    def _sample(self, shape, seed):   # TF's: multinomial draws with the logs of gamma draws as logits
        logits = m.log(random_gamma(self._sample_dims(shape), self.concentration, seed=seed))
        return self._counts(logits, self.total_count, self._sample_dims(shape),
                            _new_seed(seed, "dirichlet_multinomial"))

    def _log_prob(self, counts):
        return (special_ops.lbeta(self.concentration + counts) - special_ops.lbeta(self.concentration)
                + _log_combinations(self.total_count, counts))

    def _mean(self):
        return self.total_count * (self.concentration / array_ops.expand_dims(self.total_concentration, -1))

    def _scale(self):
        c0 = array_ops.expand_dims(self.total_concentration, -1)
        return m.sqrt((1. + c0 / self.total_count) / (1. + c0))

    def _scaled_mean(self):
        return self._scale() * self._mean()

    def _variance(self):
        x = self._scaled_mean()
        return x * (self.total_count * self._scale() - x)
