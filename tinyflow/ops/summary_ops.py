"""HistogramBuckets: the numbers of a tf.summary.histogram computed inside the jitted step.

TF's HistogramSummary kernel buckets the values on its device; tinyflow's summary ops run on the
host (they make strings). So tf.summary.histogram adds this op beside its summary: it reduces the
tensor in the step to one float64 vector, the count in each of TF's default buckets then min, max,
sum, sum of squares and the numbers of NaNs and infinities, and only that vector comes back to
the host, which encodes the HistogramProto (api/summary.py).
"""
import jax.numpy as jnp
import numpy as np
from jax import lax

from tinyflow.graph import dtypes as dt
from tinyflow.graph.registry import register_op
from tinyflow.graph.shapes import TensorShape

STATS = 6   # after the counts: min, max, sum, sum of squares, NaNs, infinities


def _limits():
    """TF's default bucket limits: -DBL_MAX, ..., -1e-12, 0, 1e-12, ..., DBL_MAX (the edges grow by 10%
    from 1e-12 while below 1e20)."""
    edges, e = [], 1e-12
    while e < 1e20:
        edges.append(e)
        e *= 1.1
    edges.append(np.finfo(np.float64).max)
    return np.array([-x for x in reversed(edges)] + [0.0] + edges)


LIMITS = _limits()


def bucket_index(v, xp=np):
    """The bucket of each value: the first limit above it (TF's Histogram::Add), the last for DBL_MAX."""
    return xp.minimum(xp.searchsorted(LIMITS, v, side="right"), len(LIMITS) - 1)


_EDGES = LIMITS[len(LIMITS) // 2 + 1:]   # 1e-12, ..., DBL_MAX: the positive limits
_M = len(_EDGES)


def _count(a, strict):
    """How many positive limits are <= a (< a when strict), for a >= 0: estimated from log(a) (the
    limits grow by 10%), then corrected against the limits themselves, so it is exact. In lax: jnp's
    functions (each a jit of its own) made tracing the five histograms of a step 0.1 s."""
    f64, i32 = np.float64, np.int32

    def full(value, dtype=f64):
        return lax.full(a.shape, value, dtype)
    log = lax.log(lax.div(lax.max(a, full(1e-300)), full(1e-12)))
    guess = lax.add(lax.floor(lax.div(log, full(np.log(1.1)))), full(1))
    c = lax.convert_element_type(lax.clamp(f64(0), lax.select(lax.ne(guess, guess), full(0), guess), f64(_M)), i32)
    edges = lax.convert_element_type(_EDGES, f64)

    def below(i):   # whether the limit at index i (kept in 0.._M-1) is below a
        e = lax.gather(edges, lax.expand_dims(lax.clamp(i32(0), i, i32(_M - 1)), (1,)),
                       lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,)),
                       (1,), mode=lax.GatherScatterMode.PROMISE_IN_BOUNDS)
        return lax.lt(e, a) if strict else lax.le(e, a)
    one, zero, top = full(1, i32), full(0, i32), full(_M, i32)
    for _ in range(2):   # the estimate is off by at most one; twice for safety
        c = lax.select(lax.bitwise_and(lax.lt(c, top), below(c)), lax.add(c, one), c)
        c = lax.select(lax.bitwise_and(lax.gt(c, zero), lax.bitwise_not(below(lax.sub(c, one)))), lax.sub(c, one), c)
    return c


def device_bucket_index(v):
    """bucket_index in the step: a binary search (jnp.searchsorted) over 1,549 limits is ~20x slower."""
    a = lax.abs(v)
    i32 = np.int32
    index = lax.select(lax.ge(v, lax.full_like(v, 0)), lax.add(lax.full(v.shape, i32(_M + 1)), _count(a, False)),
                       lax.sub(lax.full(v.shape, i32(_M)), _count(a, True)))
    return lax.min(index, lax.full(v.shape, i32(len(LIMITS) - 1)))


def _lower(attrs, x):
    size = int(np.prod(np.shape(x)))
    if size == 0:
        big = np.finfo(np.float64).max
        return jnp.asarray(np.concatenate([np.zeros(len(LIMITS)), [big, -big, 0, 0, 0, 0]]))
    v = lax.convert_element_type(lax.reshape(x, (size,)), np.float64)
    one, zero = np.float64(1), np.float64(0)
    counts = lax.scatter_add(lax.full((len(LIMITS),), zero), lax.expand_dims(device_bucket_index(v), (1,)),
                             lax.full((size,), one),
                             lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                                         scatter_dims_to_operand_dims=(0,)),
                             mode=lax.GatherScatterMode.FILL_OR_DROP)
    # the six statistics in one reduction: XLA:CPU made six kernels of them (YNNPACK reductions, int64
    # counts as trees of reduce-windows), 19 kernels per histogram in all; this halves the compile
    # (5 histograms of a deep-MNIST step: 2.2 -> 1.2 s). Sums may differ from separate ones in the
    # last bits (another order of addition, as TF's own order differs).
    ones, zeros = lax.full((size,), one), lax.full((size,), zero)
    stats = lax.reduce((v, v, v, lax.mul(v, v), lax.select(lax.ne(v, v), ones, zeros),
                        lax.select(lax.eq(lax.abs(v), lax.full((size,), np.float64(np.inf))), ones, zeros)),
                       (np.float64(np.inf), -np.float64(np.inf), zero, zero, zero, zero), _stats, (0,))
    return lax.concatenate([counts] + [lax.reshape(s, (1,)) for s in stats], 0)


def _stats(a, b):
    return lax.min(a[0], b[0]), lax.max(a[1], b[1]), a[2] + b[2], a[3] + b[3], a[4] + b[4], a[5] + b[5]


register_op("HistogramBuckets", shape=lambda s, a, v: [TensorShape([len(LIMITS) + STATS])],
            dtype=lambda d, a: [dt.float64], grad=None, lower=_lower)
