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
    limits grow by 10%), then corrected against the limits themselves, so it is exact."""
    edges = jnp.asarray(_EDGES)
    guess = jnp.floor(jnp.log(jnp.maximum(a, 1e-300) / 1e-12) / np.log(1.1)) + 1
    c = jnp.clip(jnp.nan_to_num(guess, nan=0.0), 0, _M).astype(jnp.int32)
    below = (lambda e: e < a) if strict else (lambda e: e <= a)
    for _ in range(2):   # the estimate is off by at most one; twice for safety
        c = jnp.where((c < _M) & below(edges[jnp.minimum(c, _M - 1)]), c + 1, c)
        c = jnp.where((c > 0) & ~below(edges[jnp.maximum(c - 1, 0)]), c - 1, c)
    return c


def device_bucket_index(v):
    """bucket_index in the step: a binary search (jnp.searchsorted) over 1,549 limits is ~20x slower."""
    a = jnp.abs(v)
    return jnp.minimum(jnp.where(v >= 0, _M + 1 + _count(a, False), _M - _count(a, True)), len(LIMITS) - 1)


def _lower(attrs, x):
    v = jnp.ravel(x).astype(jnp.float64)
    if v.size == 0:
        big = np.finfo(np.float64).max
        return jnp.asarray(np.concatenate([np.zeros(len(LIMITS)), [big, -big, 0, 0, 0, 0]]))
    counts = jnp.zeros(len(LIMITS), jnp.float64).at[device_bucket_index(v)].add(1.0)
    # the six statistics in one reduction: XLA:CPU made six kernels of them (YNNPACK reductions, int64
    # counts as trees of reduce-windows), 19 kernels per histogram in all; this halves the compile
    # (5 histograms of a deep-MNIST step: 2.2 -> 1.2 s). Sums may differ from separate ones in the
    # last bits (another order of addition, as TF's own order differs).
    one, zero = np.float64(1), np.float64(0)
    stats = lax.reduce((v, v, v, v * v, jnp.where(jnp.isnan(v), one, zero), jnp.where(jnp.isinf(v), one, zero)),
                       (np.float64(np.inf), -np.float64(np.inf), zero, zero, zero, zero), _stats, (0,))
    return jnp.concatenate([counts, jnp.stack(stats)])


def _stats(a, b):
    return lax.min(a[0], b[0]), lax.max(a[1], b[1]), a[2] + b[2], a[3] + b[3], a[4] + b[4], a[5] + b[5]


register_op("HistogramBuckets", shape=lambda s, a, v: [TensorShape([len(LIMITS) + STATS])],
            dtype=lambda d, a: [dt.float64], grad=None, lower=_lower)
