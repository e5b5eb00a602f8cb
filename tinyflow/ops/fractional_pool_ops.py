"""tf.nn.fractional_max_pool / fractional_avg_pool (Graham's fractional pooling, TF 1.15's kernels): each
output row i pools input rows [seq[i], seq[i+1]) ([seq[i], seq[i+1]] when overlapping, cut at the last
row), seq being a random cumulative pooling sequence from 0 to the input size whose steps are
floor(ratio) or ceil(ratio); the same for columns. Given the sequences the values and gradients (the
max's to its position, the average's spread evenly over the window) are TF's. The sequences are drawn
by JAX's generator, not TF's Philox stream, so a seed gives other sequences than TF's (with the same
properties): docs/differences.md."""
import collections

import jax
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import ShapeError
from tinyflow.graph.registry import register_op
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core.base import convert_to_tensor, make_op
from tinyflow.ops.random_ops import _key, _seed_attrs

__all__ = ["fractional_avg_pool", "fractional_max_pool"]

FractionalPool = collections.namedtuple("FractionalPool", ["output", "row_pooling_sequence", "col_pooling_sequence"])
_TYPES = (dt.float32, dt.float64, dt.int32, dt.int64)


def _out_size(n, ratio):
    return None if n is None else int(np.floor(n / ratio))


def _sequence(key, n, m, pseudo_random):
    """A cumulative pooling sequence [m + 1] from 0 to n with steps floor(n/m) or ceil(n/m): TF's
    formula for pseudo-random ones (ceil(alpha (i + u)) - 1, u uniform below TF's bound), a random
    order of the steps otherwise."""
    k = n // m
    if n % m == 0:
        return jnp.arange(m + 1, dtype=np.int64) * k
    if pseudo_random:
        alpha = n / m
        u = jax.random.uniform(key, (), jnp.float64) * min((k + 2) / alpha - 1, (n + 1 - k) / alpha - (m - 1))
        seq = jnp.ceil(alpha * (jnp.arange(m + 1) + u) - 1).astype(np.int64)
        return seq.at[0].set(0).at[m].set(n)
    steps = jax.random.permutation(key, jnp.asarray([k + 1] * (n - k * m) + [k] * (m - n + k * m), np.int64))
    return jnp.concatenate([jnp.zeros(1, np.int64), jnp.cumsum(steps)])


def _windows(seq, n, overlapping):
    """(first, last) input index of each window (last inclusive, cut at n - 1)."""
    last = seq[1:] if overlapping else seq[1:] - 1
    return seq[:-1], jnp.minimum(last, n - 1)


def pool_values(pool, x, rows, cols, overlapping):
    """The fractional pool of x [batch, h, w, c] given its row and column sequences (TF's kernel)."""
    x = jnp.asarray(x)
    reach = []   # per axis: [windows, longest window] input indices, and whether each is inside the window
    for seq, n in ((rows, x.shape[1]), (cols, x.shape[2])):
        first, last = _windows(seq, n, overlapping)
        longest = int(np.ceil(n / (seq.shape[0] - 1))) + 2   # steps are at most ceil(n/m), overlap adds one
        idx = first[:, None] + jnp.arange(longest)
        reach.append((jnp.minimum(idx, last[:, None]), idx <= last[:, None]))
    (ri, rin), (ci, cin) = reach
    patch = x[:, ri][:, :, :, ci]            # [b, oh, kh, ow, kw, c]
    inside = (rin[:, :, None, None] & cin[None, None])[None, ..., None]
    if pool == "max":
        low = jnp.finfo(x.dtype).min if jnp.issubdtype(x.dtype, jnp.floating) else jnp.iinfo(x.dtype).min
        return jnp.max(jnp.where(inside, patch, low), axis=(2, 4))
    total = jnp.sum(jnp.where(inside, patch, 0), axis=(2, 4))
    count = jnp.sum(inside, axis=(2, 4)).astype(x.dtype)
    return total // count if jnp.issubdtype(x.dtype, jnp.integer) else total / count


def _pool_lower(pool):
    def lower(a, key, x):
        # deterministic: the same sequences every run, from the seeds alone
        k = jax.random.fold_in(jax.random.PRNGKey(a["seed"]), a["seed2"]) if a["deterministic"] else _key(a, key)
        kr, kc = jax.random.split(k)
        rows = _sequence(kr, x.shape[1], _out_size(x.shape[1], a["pooling_ratio"][1]), a["pseudo_random"])
        cols = _sequence(kc, x.shape[2], _out_size(x.shape[2], a["pooling_ratio"][2]), a["pseudo_random"])
        return pool_values(pool, x, rows, cols, a["overlapping"]), rows, cols
    return lower


def _grad_lower(pool):
    def lower(a, x, g, rows, cols):
        return jax.vjp(lambda v: pool_values(pool, v, rows, cols, a["overlapping"]), x)[1](g)[0]
    return lower


def _pool_shape(shapes, attrs, values):
    s = shapes[0]
    if s.ndims is not None and s.ndims != 4:
        raise ShapeError("Shape must be rank 4 but is rank %d for 'FractionalPool'" % s.ndims)
    dims = s.as_list() if s.ndims is not None else [None] * 4
    out = [dims[0], _out_size(dims[1], attrs["pooling_ratio"][1]), _out_size(dims[2], attrs["pooling_ratio"][2]),
           dims[3]]
    return [TensorShape(out), TensorShape([None if out[1] is None else out[1] + 1]),
            TensorShape([None if out[2] is None else out[2] + 1])]


def _pool_grad(op, g, *unused):
    """TF's Fractional{Max,Avg}PoolGrad: the output gradient routed through the same windows."""
    x, rows, cols = op.inputs[0], op.outputs[1], op.outputs[2]
    return [make_op(op.type + "Grad", [x, g, rows, cols], {"overlapping": op.attrs["overlapping"]},
                    name=op.name + "_grad")]


for _pool in ("max", "avg"):
    _type = "Fractional%sPool" % _pool.capitalize()
    register_op(_type, shape=_pool_shape, dtype=lambda d, a: [d[0], dt.int64, dt.int64], grad=_pool_grad,
                needs_key=True, lower=_pool_lower(_pool))
    register_op(_type + "Grad", shape=lambda s, a, v: [s[0]], dtype=lambda d, a: [d[0]], grad=None,
                lower=_grad_lower(_pool))


def _fractional(op_type, value, pooling_ratio, pseudo_random, overlapping, deterministic, seed, seed2, name):
    x = convert_to_tensor(value, name="value")
    if x.dtype not in _TYPES:
        raise TypeError("Value passed to parameter 'value' has DataType %s not in list of allowed values: %s"
                        % (x.dtype.name, ", ".join(t.name for t in _TYPES)))
    ratio = [float(r) for r in pooling_ratio]
    if len(ratio) != 4 or ratio[0] != 1.0 or ratio[3] != 1.0:
        raise ValueError("pooling_ratio must be [1.0, rows, cols, 1.0]: TF pools no batch or channel dimension, "
                         "got %s" % (ratio,))
    if min(ratio[1:3]) < 1.0:
        raise ValueError("pooling_ratio must be at least 1.0, got %s" % (ratio,))
    attrs = {"pooling_ratio": ratio, "pseudo_random": bool(pseudo_random), "overlapping": bool(overlapping),
             "deterministic": bool(deterministic)}
    attrs.update(_seed_attrs(None) if not deterministic else {"seed": int(seed), "seed2": int(seed2)})
    return FractionalPool(*make_op(op_type, [x], attrs, name=name or op_type))


def fractional_max_pool(value, pooling_ratio, pseudo_random=False, overlapping=False, deterministic=False,
                        seed=0, seed2=0, name=None):
    """(output, row_pooling_sequence, col_pooling_sequence): the max of each fractional window of value
    [batch, h, w, c] (output h / ratio by w / ratio); deterministic with a seed draws the same sequences
    every run (not TF's: see the module's docstring)."""
    return _fractional("FractionalMaxPool", value, pooling_ratio, pseudo_random, overlapping, deterministic,
                       seed, seed2, name)


def fractional_avg_pool(value, pooling_ratio, pseudo_random=False, overlapping=False, deterministic=False,
                        seed=0, seed2=0, name=None):
    """(output, row_pooling_sequence, col_pooling_sequence): the mean of each fractional window (see
    fractional_max_pool)."""
    return _fractional("FractionalAvgPool", value, pooling_ratio, pseudo_random, overlapping, deterministic,
                       seed, seed2, name)
