"""tf.random.experimental: Generator, a random number generator whose state is a variable, and the global
generator. Each draw adds 1 to the state's counter when it runs and draws with the stateless ops of
ops/random_more_ops.py seeded by (seed, counter): every run gives new numbers, a Generator made from the
same seed gives the same sequence. The numbers are JAX's, not TF's (Philox), as for every random op."""
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.ops import random_more_ops as R
from tinyflow.ops.core import math_ops as M
from tinyflow.ops.core.array_ops import stack

RNG_ALG_PHILOX, RNG_ALG_THREEFRY = 1, 2


def create_rng_state(seed, algorithm):
    """The initial state of a Generator from an int seed: [seed, 0, 0] as int64 (TF's Philox state size)."""
    return np.array([int(seed) & (2 ** 63 - 1), 0, 0], np.int64)


class Generator:
    """A random number generator with its state in a tf.Variable (TF 1.15's tf.random.experimental.Generator)."""

    def __init__(self, copy_from=None, state=None, alg=None):
        from tinyflow.api import Variable
        if copy_from is not None:
            state = copy_from.state.initial_value
        elif state is None:
            state = create_rng_state(np.random.randint(2 ** 31), RNG_ALG_PHILOX)
        self._alg = alg or RNG_ALG_PHILOX
        self._state_var = Variable(state, dtype=dt.int64, trainable=False, name="StateVar")

    @classmethod
    def from_seed(cls, seed, alg=None):
        return cls(state=create_rng_state(seed, alg or RNG_ALG_PHILOX), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        return cls(alg=alg)

    @classmethod
    def from_state(cls, state, alg):
        return cls(state=state, alg=alg)

    state = property(lambda self: self._state_var)
    algorithm = property(lambda self: self._alg)

    def reset_from_seed(self, seed):
        return self._state_var.assign(create_rng_state(seed, self._alg))

    def _seed(self):
        """(seed, counter) for one draw; the counter advances each time the draw runs."""
        new = self._state_var.assign_add(np.array([0, 1, 0], np.int64))
        return stack([new[0], new[1]])

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=dt.float32, name=None):
        return R.stateless_random_normal(shape, self._seed(), mean, stddev, dtype, name=name)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=dt.float32, name=None):
        return R.stateless_truncated_normal(shape, self._seed(), mean, stddev, dtype, name=name)

    def uniform(self, shape, minval=0, maxval=None, dtype=dt.float32, name=None):
        return R.stateless_random_uniform(shape, self._seed(), minval, maxval, dtype, name=name)

    def uniform_full_int(self, shape, dtype=dt.uint64, name=None):
        dtype = dt.as_dtype(dtype)
        info = np.iinfo(dtype.np)
        return R.stateless_random_uniform(shape, self._seed(), int(info.min), int(info.max), dtype, name=name)

    def binomial(self, shape, counts, probs, dtype=dt.int32, name=None):
        raise NotImplementedError("tinyflow: Generator.binomial is not implemented; use tf.random.uniform and "
                                  "tf.reduce_sum over counts draws")

    def make_seeds(self, count=1):
        """[2, count] int64 seeds for stateless ops."""
        return M.cast(self.uniform_full_int([2, count], dt.int64), dt.int64)

    def split(self, count=1):
        """`count` new Generators seeded from this one."""
        seeds = np.random.RandomState(abs(hash(self._state_var.name)) % 2 ** 31).randint(0, 2 ** 31, count)
        return [Generator.from_seed(int(s), self._alg) for s in seeds]


_GLOBAL = []


def get_global_generator():
    """The global Generator (made from a non-deterministic seed on first use)."""
    if not _GLOBAL:
        _GLOBAL.append(Generator.from_non_deterministic_state())
    return _GLOBAL[0]


def set_global_generator(generator):
    """Replaces the global Generator."""
    _GLOBAL[:] = [generator]
