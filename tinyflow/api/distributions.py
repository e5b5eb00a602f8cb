"""tf.distributions (TF 1.15's deprecated distributions): Normal, Uniform, Bernoulli, Beta, Categorical,
with sample / log_prob / prob / cdf / entropy / mean / stddev / variance / mode, and kl_divergence of two
Normals. Beta has no sampler here (tinyflow has no gamma sampler): Beta.sample raises UnimplementedError.
"""
import math

import numpy as np

from tinyflow.graph import dtypes, errors, shapes
from tinyflow.graph.core import name_scope
from tinyflow.ops import nn_ops, random_ops
from tinyflow.ops.core import array_ops
from tinyflow.ops.core import math_ops as m
from tinyflow.ops.core.base import convert_to_tensor


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

    def _sample(self, shape, seed):
        raise errors.UnimplementedError(None, None, "tf.distributions.Beta.sample needs gamma sampling, which "
                                                    "tinyflow does not have (log_prob, entropy, mean, ... work)")

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

