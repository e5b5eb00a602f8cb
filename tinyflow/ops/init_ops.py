"""Initializers (TF1's init_ops): objects called with (shape, dtype, partition_info) that build the
graph ops giving a variable its first value. get_variable calls them under "<var>/Initializer".
"""
import math
import types

import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops import random_ops
from tinyflow.ops.core import array_ops, math_ops
from tinyflow.ops.core.base import constant
from tinyflow.ops.linalg_decomp import qr

# The tf.* names (TF 1.15's top level); the classes are reached as tf.initializers.* or this module.
__all__ = [
    "constant_initializer", "glorot_normal_initializer", "glorot_uniform_initializer", "initializers",
    "ones_initializer", "orthogonal_initializer", "random_normal_initializer", "random_uniform_initializer",
    "truncated_normal_initializer", "variance_scaling_initializer", "zeros_initializer",
]


def _float_dtype(dtype):
    dtype = dt.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError("Expected floating point type, got %s." % dtype)
    return dtype


class Initializer:
    """Base class: `init(shape, dtype=None, partition_info=None)` returns a Tensor of that shape."""

    def __call__(self, shape, dtype=None, partition_info=None):
        raise NotImplementedError

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config.pop("dtype", None)
        return cls(**config)


class Zeros(Initializer):
    """All zeros."""

    def __init__(self, dtype=dt.float32):
        self.dtype = dt.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return array_ops.zeros(_dims(shape), dtype or self.dtype)

    def get_config(self):
        return {"dtype": self.dtype.name}


class Ones(Zeros):
    """All ones."""

    def __call__(self, shape, dtype=None, partition_info=None):
        return array_ops.ones(_dims(shape), dtype or self.dtype)


class Constant(Initializer):
    """`value` (a scalar, or a list/array with as many elements as the shape) as a Const op."""

    def __init__(self, value=0, dtype=dt.float32, verify_shape=False):
        if not np.isscalar(value) and not isinstance(value, (list, tuple, np.ndarray)):
            raise TypeError("Invalid type for initial value: %s (expected Python scalar, list or tuple of values, "
                            "or numpy.ndarray)." % type(value))
        self.value = value
        self.dtype = dt.as_dtype(dtype)
        self._verify_shape = verify_shape

    def __call__(self, shape, dtype=None, partition_info=None, verify_shape=None):
        verify = self._verify_shape if verify_shape is None else verify_shape
        return constant(self.value, dtype=dtype or self.dtype, shape=_dims(shape), verify_shape=verify)

    def get_config(self):
        return {"value": self.value, "dtype": self.dtype.name}


class RandomUniform(Initializer):
    """Uniform in [minval, maxval) (maxval defaults to 1 for floats)."""

    def __init__(self, minval=0, maxval=None, seed=None, dtype=dt.float32):
        self.minval, self.maxval, self.seed, self.dtype = minval, maxval, seed, dt.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.random_uniform(_dims(shape), self.minval, self.maxval, dtype or self.dtype, seed=self.seed)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed, "dtype": self.dtype.name}


class RandomNormal(Initializer):
    """Normal with `mean` and `stddev`."""

    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dt.float32):
        self.mean, self.stddev, self.seed, self.dtype = mean, stddev, seed, _float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.random_normal(_dims(shape), self.mean, self.stddev, dtype or self.dtype, seed=self.seed)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed, "dtype": self.dtype.name}


class TruncatedNormal(RandomNormal):
    """Normal with `mean` and `stddev`, redrawn beyond two standard deviations."""

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.truncated_normal(_dims(shape), self.mean, self.stddev, dtype or self.dtype,
                                           seed=self.seed)


def _compute_fans(shape):
    """(fan_in, fan_out): a conv kernel [h, w, in, out] counts its receptive field h*w."""
    if len(shape) < 1:
        fan_in = fan_out = 1
    elif len(shape) == 1:
        fan_in = fan_out = shape[0]
    elif len(shape) == 2:
        fan_in, fan_out = shape
    else:
        receptive = 1.0
        for d in shape[:-2]:
            receptive *= d
        fan_in, fan_out = shape[-2] * receptive, shape[-1] * receptive
    return int(fan_in), int(fan_out)


class VarianceScaling(Initializer):
    """Variance `scale / n`, n being fan_in, fan_out or their mean (`mode`); `distribution` is
    "truncated_normal" (std corrected for the truncation), "untruncated_normal" or "uniform"."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None, dtype=dt.float32):
        if scale <= 0.:
            raise ValueError("`scale` must be positive float.")
        if mode not in {"fan_in", "fan_out", "fan_avg"}:
            raise ValueError("Invalid `mode` argument:", mode)
        distribution = distribution.lower()
        if distribution not in {"normal", "uniform", "truncated_normal", "untruncated_normal"}:
            raise ValueError("Invalid `distribution` argument:", distribution)
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed
        self.dtype = _float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dims = _dims(shape)
        dtype = dtype or self.dtype
        fan_in, fan_out = _compute_fans(dims)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        if self.distribution in ("normal", "truncated_normal"):
            # 0.8796... is the std of a unit normal truncated to [-2, 2] (scipy.stats.truncnorm.std(-2, 2)).
            stddev = math.sqrt(scale) / .87962566103423978
            return random_ops.truncated_normal(dims, 0.0, stddev, dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_ops.random_normal(dims, 0.0, math.sqrt(scale), dtype, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return random_ops.random_uniform(dims, -limit, limit, dtype, seed=self.seed)

    def get_config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution, "seed": self.seed,
                "dtype": self.dtype.name}


class GlorotUniform(VarianceScaling):
    """Uniform in [-l, l], l = sqrt(6 / (fan_in + fan_out)) (Xavier)."""

    def __init__(self, seed=None, dtype=dt.float32):
        super().__init__(1.0, "fan_avg", "uniform", seed, dtype)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype.name}


class GlorotNormal(VarianceScaling):
    """Truncated normal with std sqrt(2 / (fan_in + fan_out)) (Xavier)."""

    def __init__(self, seed=None, dtype=dt.float32):
        super().__init__(1.0, "fan_avg", "truncated_normal", seed, dtype)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype.name}


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times `gain`, from the QR decomposition of a normal matrix; a
    higher-rank shape is the flattened [prod(shape[:-1]), shape[-1]] matrix reshaped."""

    def __init__(self, gain=1.0, seed=None, dtype=dt.float32):
        self.gain, self.seed, self.dtype = gain, seed, _float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dims = _dims(shape)
        dtype = dtype or self.dtype
        if len(dims) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional")
        rows = int(np.prod(dims[:-1]))
        cols = dims[-1]
        flat = (cols, rows) if rows < cols else (rows, cols)
        a = random_ops.random_normal(list(flat), dtype=dtype, seed=self.seed)
        q, r = qr(a)
        # Multiplying by the signs of diag(r) makes the distribution uniform over orthogonal matrices.
        d = math_ops.reduce_sum(math_ops.multiply(r, constant(np.eye(flat[1]), dtype=dtype)), axis=0)
        q = math_ops.multiply(q, math_ops.sign(d))
        if rows < cols:
            q = array_ops.transpose(q)
        return math_ops.multiply(constant(self.gain, dtype=dtype), array_ops.reshape(q, dims))

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


class Identity(Initializer):
    """The identity matrix times `gain` (2-D shapes only)."""

    def __init__(self, gain=1.0, dtype=dt.float32):
        self.gain, self.dtype = gain, _float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dims = _dims(shape)
        if len(dims) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices.")
        dtype = dt.as_dtype(dtype or self.dtype)
        return constant(self.gain * np.eye(*dims), dtype=dtype)

    def get_config(self):
        return {"gain": self.gain, "dtype": self.dtype.name}


def _dims(shape):
    """A shape argument (list, tuple, TensorShape) as a list of ints."""
    if isinstance(shape, TensorShape):
        return shape.as_list()
    return [int(d) for d in shape]


def _he_lecun(scale, mode, distribution):
    return lambda seed=None: VarianceScaling(scale, mode, distribution, seed)


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
variance_scaling_initializer = VarianceScaling
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal
orthogonal_initializer = Orthogonal


def _variables_initializer(var_list, name="init"):
    from tinyflow.ops.state_ops import variables_initializer
    return variables_initializer(var_list, name)


def _global_init():
    from tinyflow.ops.state_ops import global_variables_initializer
    return global_variables_initializer()


def _local_init():
    from tinyflow.ops.state_ops import local_variables_initializer
    return local_variables_initializer()


def tables_initializer(name="init_all_tables"):
    """The op that fills every lookup table of the graph (TF's TABLE_INITIALIZERS collection; a no-op
    without tables)."""
    from tinyflow.graph.core import GraphKeys, get_collection
    from tinyflow.ops.core import array_ops
    from tinyflow.ops.state_ops import group
    inits = get_collection(GraphKeys.TABLE_INITIALIZERS)
    return group(*inits, name=name) if inits else array_ops.no_op(name=name)


# tf.initializers: the same classes under their short names, plus he_*/lecun_* and the init ops.
initializers = types.SimpleNamespace(
    Initializer=Initializer, zeros=Zeros, ones=Ones, constant=Constant, random_uniform=RandomUniform,
    random_normal=RandomNormal, truncated_normal=TruncatedNormal, variance_scaling=VarianceScaling,
    glorot_uniform=GlorotUniform, glorot_normal=GlorotNormal, orthogonal=Orthogonal, identity=Identity,
    he_normal=_he_lecun(2.0, "fan_in", "truncated_normal"), he_uniform=_he_lecun(2.0, "fan_in", "uniform"),
    lecun_normal=_he_lecun(1.0, "fan_in", "truncated_normal"), lecun_uniform=_he_lecun(1.0, "fan_in", "uniform"),
    variables=_variables_initializer, global_variables=_global_init, local_variables=_local_init,
    tables_initializer=tables_initializer)
