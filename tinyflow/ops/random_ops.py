"""Random ops: random_normal, truncated_normal, random_uniform, random_shuffle, multinomial, and
set_random_seed.

Seeds follow TF1's rule (`get_seed`): the graph seed (tf.set_random_seed) and the op seed make a
pair; an op with no seed in a seeded graph takes the graph's op count as its seed, so two ops
differ and a rebuilt graph repeats. A seeded RandomUniform, RandomUniformInt, RandomStandardNormal
TruncatedNormal or RandomShuffle draws TF 1.15's own values (ops/philox.py: its Philox stream and kernels): the
Session counts each such op's executions and hands the counts in the key, so the k-th run of the op
gives TF's k-th numbers (docs/random.md says where they still differ). Other seeded ops
(multinomial) fold the session's run counter into PRNGKey(seed pair): every run
draws new numbers and a new Session on the same graph replays the same sequence; their values are
not TensorFlow's, their distributions are. With neither seed set the pair is drawn at random once
per process (so, unlike TF, a second Session on the same graph repeats the first one's numbers).

Unseeded ops keep TF's attrs (seed=0, seed2=0) and get a private `_stream`: (the graph's number in
this process, the op's number in its graph), the same in every process that builds the same graph.
The per-process random pair (SALT) is not in the program: the run key is the array
[run counter, SALT[0], SALT[1]] (`run_key`), an argument of the jitted function, so two processes
lower the same program text and JAX's persistent compilation cache hits in the second one.
"""
import itertools
import types

import jax
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import ShapeError, get_default_graph
from tinyflow.graph.registry import from_attr, register_op, same_as_input
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core import math_ops
from tinyflow.ops.core.array_ops import dims_at_run_time, fill_shape, shape_tensor, with_shape_of
from tinyflow.ops.core.base import convert_to_tensor, make_op
from tinyflow.ops import philox

__all__ = [
    'get_seed',
    'multinomial',
    'random',
    'random_normal',
    'random_shuffle',
    'random_uniform',
    'set_random_seed',
    'truncated_normal',
]

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2 ** 31 - 1


def set_random_seed(seed):
    """Sets the graph-level seed of the default graph (ops created afterwards use it)."""
    get_default_graph().seed = seed


def get_seed(op_seed):
    """TF1's (graph seed, op seed) pair for an op created now; (None, None) when neither is set.
    Seeds are taken modulo 2^31 - 1, as TF truncates them."""
    g = get_default_graph()
    if g.seed is not None:
        if op_seed is None:
            # TF's graph._last_id, the number of ops so far (with those only TF makes: a variable's /read)
            op_seed = g.version + getattr(g, "tf_only_ops", 0)
        seeds = (int(g.seed) % _MAXINT32, int(op_seed) % _MAXINT32)
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32)
    else:
        seeds = (None, None)
    return (0, _MAXINT32) if seeds == (0, 0) else seeds


# drawn once per process: the random part of every unseeded op's stream (an argument, never a constant)
SALT = tuple(int(s) for s in np.random.SeedSequence().generate_state(2) % 2 ** 31)
_GRAPHS = itertools.count(1)


def run_key(counter, runs=()):
    """The key argument of a run: [run counter, SALT[0], SALT[1], *runs] (uint32); `runs` holds the
    number of earlier executions of each of the function's Philox ops (Program.philox_ops)."""
    return np.array((int(counter) % 2 ** 32,) + SALT + tuple(int(r) % 2 ** 32 for r in runs), np.uint32)


def run_keys(counters):
    """run_key of each counter, stacked: [n, 3] (a vmapped function's keys)."""
    out = np.empty((len(counters), 3), np.uint32)
    out[:, 0], out[:, 1:] = np.asarray(counters, np.uint32), SALT
    return out


def _seed_attrs(seed):
    seed1, seed2 = get_seed(seed)
    if seed1 is None:  # no seed anywhere: TF's zeros, and a stream told apart from other ops' by _key
        g = get_default_graph()
        if getattr(g, "_fresh_number", None) is None:
            g._fresh_number = next(_GRAPHS)
        return {"seed": 0, "seed2": 0, "_stream": (g._fresh_number, g.version)}
    return {"seed": seed1, "seed2": seed2}


def _key(attrs, key):
    """The PRNG key of one op in one run: (seed pair) then the run counter folded in. key is
    run_key's array (a scalar counter is accepted too: no SALT, for callers of the rule alone).
    An unseeded op's pair is SALT, read from the key, then its `_stream` folded in."""
    key = jnp.asarray(key, jnp.uint32)
    counter = key if key.ndim == 0 else key[0]
    stream = attrs.get("_stream")
    if stream is None:
        k = jax.random.fold_in(jax.random.PRNGKey(attrs["seed"]), attrs["seed2"])
    else:
        salt = (0, 0) if key.ndim == 0 else (key[1], key[2])
        k = jax.random.fold_in(jax.random.PRNGKey(salt[0]), salt[1])
        k = jax.random.fold_in(jax.random.fold_in(k, stream[0]), stream[1])
    return jax.random.fold_in(k, counter)


def _dims(shape):
    return tuple(int(d) for d in np.asarray(shape).reshape(-1))


_FLOATS = ("float16", "float32", "float64")
# the ops, and their dtypes, that draw TF's values when seeded (None: any dtype)
PHILOX_TYPES = {"RandomUniform": _FLOATS, "RandomStandardNormal": _FLOATS, "TruncatedNormal": _FLOATS,
                "RandomUniformInt": ("int32", "int64"), "RandomShuffle": None}


def philox_op(op):
    """Whether `op` draws TF's Philox values: a seeded op of PHILOX_TYPES and a dtype TF's are known for."""
    dtypes = PHILOX_TYPES.get(op.type)
    dtype = op.attrs.get("dtype") or op.outputs[0].dtype
    return op.type in PHILOX_TYPES and "_stream" not in op.attrs and (dtypes is None or dtype.name in dtypes)


def _philox_spec(op):
    """(type, dims, seed, seed2) of a float32 Philox op of static shape (drawn in a block), else None."""
    shape = op.outputs[0].shape
    if op.type not in BLOCK_TYPES or op.attrs.get("dtype") != dt.float32 or not shape.is_fully_defined():
        return None
    return (op.type, tuple(shape.as_list()), op.attrs["seed"], op.attrs["seed2"])


def _philox_runs(key):
    """The execution count of the next Philox op: from the RandomBlock (the Session's count), else the
    run counter (or a loop iteration's key) less one, which tells runs and iterations apart."""
    if isinstance(key, RandomBlock):
        return key.philox_runs()
    key = jnp.asarray(key, jnp.uint32)
    return (key if key.ndim == 0 else key[0]) - np.uint32(1)


def _random(op_type, sample):
    """Registers a random op `op_type(shape)` whose values are sample(key, dims, np_dtype); its key
    may be a RandomBlock (lower/program.py's `rand`), which holds its values already. A seeded op
    draws TF's values (ops/philox.py)."""
    def lower(a, key, shape):
        if "_stream" not in a and a["dtype"].name in PHILOX_TYPES[op_type]:
            if isinstance(key, RandomBlock):
                return key.take_philox(op_type, a, _dims(shape))
            return philox.sample(op_type, a["seed"], a["seed2"], _philox_runs(key), _dims(shape), a["dtype"].np)
        if isinstance(key, RandomBlock):
            return key.take(op_type, a, _dims(shape), sample)
        return sample(_key(a, key), _dims(shape), a["dtype"].np)
    register_op(op_type, shape=fill_shape, dtype=from_attr("dtype"), grad=None, needs_key=True, lower=lower,
                dynamic_shape=dims_at_run_time)


# ---- the random values of a whole fetch set at once ---------------------------------------------------
# XLA compiles each jax.random draw as a threefry kernel of its own: 0.2-0.5 s of CPU per random op,
# most of an initializer's compile (a text CNN's 5 random initializers: 2.0 s at optimization level 1).
# A fetch set of several such ops (lower/program.py decides) draws their bits in ONE threefry over
# the concatenation of their counters, each element with its op's key: the same bits as each op's
# own jax.random draw (threefry's counter mode, JAX's partitionable layout: element i of a shape
# draws counter i), so the same values, in one kernel (1.0 s for those 5).
BLOCK_TYPES = frozenset({"RandomUniform", "TruncatedNormal", "RandomStandardNormal"})
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


def threefry2x32(k1, k2, x1, x2):
    """Threefry-2x32 (20 rounds, Salmon et al. 2011), element-wise, unrolled: the function JAX's
    threefry2x32 computes (on the CPU JAX emits it as a loop, which per-element keys make slow).
    Traced values go through lax (jnp's operators are a jit each: ~300 of them per initializer)."""
    if any(isinstance(v, jax.core.Tracer) for v in (k1, k2, x1, x2)):
        return _threefry_lax(k1, k2, x1, x2)
    u = np.uint32
    ks = (k1, k2, k1 ^ k2 ^ u(0x1BD11BDA))
    x1, x2 = x1 + ks[0], x2 + ks[1]
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            x1 = x1 + x2
            x2 = ((x2 << u(r)) | (x2 >> u(32 - r))) ^ x1
        x1, x2 = x1 + ks[(i + 1) % 3], x2 + ks[(i + 2) % 3] + u(i + 1)
    return x1, x2


def _threefry_lax(k1, k2, x1, x2):
    """threefry2x32 in lax primitives: the same operations, on operands broadcast to one shape."""
    lax = jax.lax
    shape = np.broadcast_shapes(*(np.shape(v) for v in (k1, k2, x1, x2)))
    k1, k2, x1, x2 = (jnp.broadcast_to(jnp.asarray(v, np.uint32), shape) for v in (k1, k2, x1, x2))

    def c(value):
        return lax.full(shape, value, np.uint32)
    ks = (k1, k2, lax.bitwise_xor(lax.bitwise_xor(k1, k2), c(0x1BD11BDA)))
    x1, x2 = lax.add(x1, ks[0]), lax.add(x2, ks[1])
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            x1 = lax.add(x1, x2)
            x2 = lax.bitwise_xor(lax.bitwise_or(lax.shift_left(x2, c(r)), lax.shift_right_logical(x2, c(32 - r))), x1)
        x1, x2 = lax.add(x1, ks[(i + 1) % 3]), lax.add(lax.add(x2, ks[(i + 2) % 3]), c(i + 1))
    return x1, x2


def _from_bits(op_type, bits, dims, dtype):
    """jax.random's uniform / normal / truncated normal (float32) from their 32 random bits each (lax
    primitives: the operations jnp's operators and jnp.clip emit, without a jit each)."""
    f32, lax = np.float32, jax.lax

    def uniform(lo, hi):   # jax.random.uniform's mantissa trick
        mantissa = lax.bitwise_or(lax.shift_right_logical(bits, np.uint32(9)), np.uint32(0x3F800000))
        floats = lax.sub(lax.bitcast_convert_type(mantissa, f32), f32(1))
        return lax.max(lo, lax.reshape(lax.add(lax.mul(floats, hi - lo), lo), dims))
    sqrt2 = np.array(np.sqrt(2), np.float32)
    if op_type == "RandomUniform":
        return uniform(f32(0), f32(1))
    if op_type == "RandomStandardNormal":
        return lax.mul(sqrt2, lax.erf_inv(uniform(np.nextafter(f32(-1), f32(0)), f32(1))))
    lower, upper = f32(-2.0), f32(2.0)   # TruncatedNormal: jax.random.truncated_normal(k, -2, 2)
    u = uniform(lax.erf(lower / sqrt2), lax.erf(upper / sqrt2))
    values = lax.mul(sqrt2, lax.erf_inv(u))   # clipped as jnp.clip does: max with the lower, min with the upper
    return lax.min(lax.nextafter(upper, f32(-np.inf)), lax.max(lax.nextafter(lower, f32(np.inf)), values))


def block_spec(op):
    """What a random op draws, when it can be drawn in a block (float32, static shape): (type, dims,
    seed, seed2, stream); else None."""
    shape = op.outputs[0].shape
    if op.type not in BLOCK_TYPES or op.attrs["dtype"] != dt.float32 or not shape.is_fully_defined() \
            or "_stream" not in op.attrs:   # seeded: TF's Philox values instead
        return None
    return (op.type, tuple(shape.as_list()), op.attrs["seed"], op.attrs["seed2"], op.attrs.get("_stream"))


def _fold_in(k, data):
    """jax.random.fold_in of threefry keys, element-wise: threefry2x32(key, (0, data))."""
    return threefry2x32(k[0], k[1], data * np.uint32(0), data)


def _block_keys(specs, key):
    """`_key` of every spec at once, as two uint32 vectors. PRNGKey(s) is the pair (0, s) and fold_in
    one threefry call, so every op's chain is a few element-wise threefry calls over vectors: one
    fold_in per op and step made a threefry kernel each (100 initializers: 10 s of XLA compile)."""
    u = np.uint32
    key = jnp.asarray(key, u)
    counter, salt = (key, (u(0), u(0))) if key.ndim == 0 else (key[0], (key[1], key[2]))
    seeded = [i for i, spec in enumerate(specs) if spec[4] is None]
    fresh = [i for i, spec in enumerate(specs) if spec[4] is not None]
    parts = []
    if seeded:   # (0, seed), then seed2
        start = (np.zeros(len(seeded), u), np.array([specs[i][2] for i in seeded], u))
        parts.append(_fold_in(start, np.array([specs[i][3] for i in seeded], u)))
    if fresh:    # (0, SALT[0]), then SALT[1] and the op's stream (graph, op)
        # the steps every op shares are folded once, on scalars: XLA's simplifier loops (and logs to
        # stderr) on a threefry of a vector key and a constant vector of equal elements (graph numbers)
        k = _fold_in((jnp.uint32(0), jnp.asarray(salt[0], u)), jnp.asarray(salt[1], u))
        graphs = sorted({specs[i][4][0] for i in fresh})
        if len(graphs) == 1:
            k = _fold_in(k, u(graphs[0]))
        k = tuple(jnp.broadcast_to(part, (len(fresh),)) for part in k)
        if len(graphs) > 1:
            k = _fold_in(k, np.array([specs[i][4][0] for i in fresh], u))
        parts.append(_fold_in(k, np.array([specs[i][4][1] for i in fresh], u)))
    k1, k2 = (jnp.concatenate([jnp.asarray(p[j]) for p in parts]) for j in (0, 1))
    k1, k2 = _fold_in((k1, k2), jnp.broadcast_to(counter, k1.shape))   # then the run counter
    back = np.argsort(seeded + fresh)
    return k1[back], k2[back]


class RandomBlock:
    """The values of a fetch set's random ops (`specs`: their block_spec, in program order), drawn
    together from the run key; each op takes its own in turn (take). The Philox ops read their
    execution counts from the key in turn (philox_runs)."""

    def __init__(self, specs, key, philox_ops=()):
        self.key, self.specs, self.next, self.next_philox = key, list(specs), 0, 0
        # the float32 Philox ops of static shape: drawn together (philox.sample_block), in order
        self.philox = [_philox_spec(op) for op in philox_ops]
        picked = [i for i, spec in enumerate(self.philox) if spec is not None]
        self.philox_values = [None] * len(self.philox)
        if picked:
            drawn = philox.sample_block([self.philox[i] for i in picked], [self._runs(i) for i in picked])
            for i, v in zip(picked, drawn):
                self.philox_values[i] = v
        if not self.specs:
            return
        sizes = [int(np.prod(dims)) for _, dims, _, _, _ in self.specs]
        keys = _block_keys(self.specs, key)
        k1 = jnp.concatenate([jnp.broadcast_to(keys[0][i], (n,)) for i, n in enumerate(sizes)])
        k2 = jnp.concatenate([jnp.broadcast_to(keys[1][i], (n,)) for i, n in enumerate(sizes)])
        counts = jnp.concatenate([jax.lax.iota(jnp.uint32, n) for n in sizes])
        b1, b2 = threefry2x32(k1, k2, jnp.zeros_like(counts), counts)
        bits, self.offsets = b1 ^ b2, np.cumsum([0] + sizes)
        self.values = [_from_bits(t, bits[a:b], dims, np.float32)
                       for (t, dims, _, _, _), a, b in zip(self.specs, self.offsets[:-1], self.offsets[1:])]

    def _runs(self, i):
        """The number of earlier executions of the function's i-th Philox op (run_key's `runs`)."""
        return self.key[3 + i] if self.key.shape[0] > 3 + i else self.key[0] - np.uint32(1)

    def philox_runs(self):
        """The execution count of the next Philox op."""
        self.next_philox += 1
        return self._runs(self.next_philox - 1)

    def take_philox(self, op_type, attrs, dims):
        """The next Philox op's values: drawn with the others when it was blockable."""
        i = self.next_philox
        if i < len(self.philox) and self.philox[i] == (op_type, dims, attrs["seed"], attrs["seed2"]) \
                and attrs["dtype"] == dt.float32:
            self.next_philox += 1
            return self.philox_values[i]
        return philox.sample(op_type, attrs["seed"], attrs["seed2"], self.philox_runs(), dims, attrs["dtype"].np)

    def take(self, op_type, attrs, dims, sample):
        """The next op's values: that op's own draw (sample(key, dims, dtype)) if it is not the next spec."""
        i = self.next
        if i < len(self.specs) and self.specs[i] == (op_type, dims, attrs["seed"], attrs["seed2"],
                                                     attrs.get("_stream")) and attrs["dtype"] == dt.float32:
            self.next += 1
            return self.values[i]
        return sample(_key(attrs, self.key), dims, attrs["dtype"].np)


_random("RandomStandardNormal", lambda k, s, d: jax.random.normal(k, s, d))
_random("TruncatedNormal", lambda k, s, d: jax.random.truncated_normal(k, -2.0, 2.0, s, d))
_random("RandomUniform", lambda k, s, d: jax.random.uniform(k, s, d))


def _uniform_int_lower(a, key, shape, lo, hi):
    if "_stream" not in a and lo.dtype.name in PHILOX_TYPES["RandomUniformInt"]:
        return philox.sample("RandomUniformInt", a["seed"], a["seed2"], _philox_runs(key), _dims(shape), lo.dtype,
                             lo, hi)
    if isinstance(key, RandomBlock):
        key = key.key
    return jax.random.randint(_key(a, key), _dims(shape), lo, hi, dtype=lo.dtype)


def _uniform_int_shape(shapes, attrs, values):
    for s in shapes[1:]:
        if s.ndims not in (None, 0):
            raise ShapeError("Shape must be rank 0 but is rank %d" % s.ndims)
    lo, hi = values[1], values[2]
    if lo is not None and hi is not None and not lo < hi:
        raise ShapeError("Need minval < maxval: %s >= %s" % (lo, hi))
    return fill_shape(shapes, attrs, values)


register_op("RandomUniformInt", shape=_uniform_int_shape, dtype=same_as_input(1), grad=None, needs_key=True,
            dynamic_shape=dims_at_run_time,
            lower=_uniform_int_lower)


def _normal_like(op_type, default_name, shape, mean, stddev, dtype, seed, name):
    dtype = dt.as_dtype(dtype)
    g = get_default_graph()
    with g.name_scope(name or default_name) as scope:
        shape_t = shape_tensor(shape, name="shape")
        mean_t = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev_t = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        attrs = dict(_seed_attrs(seed), dtype=dtype)
        rnd = with_shape_of(make_op(op_type, [shape_t], attrs, name=op_type), shape_t)
        return math_ops.add(_rounded(math_ops.multiply(rnd, stddev_t, name="mul")), mean_t, name=scope)


def _rounded(product):
    """`product`, marked to be rounded before the add that follows (math_ops' Mul `_rounded`): TF's
    kernels multiply, then add; XLA would fuse them into one FMA, which rounds once."""
    product.op.attrs["_rounded"] = True
    return product


def random_normal(shape, mean=0.0, stddev=1.0, dtype=dt.float32, seed=None, name=None):
    """Samples of a normal distribution of `shape` (a list or a 1-D int tensor)."""
    return _normal_like("RandomStandardNormal", "random_normal", shape, mean, stddev, dtype, seed, name)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dt.float32, seed=None, name=None):
    """Normal samples redrawn when more than 2 standard deviations from the mean."""
    return _normal_like("TruncatedNormal", "truncated_normal", shape, mean, stddev, dtype, seed, name)


def random_uniform(shape, minval=0, maxval=None, dtype=dt.float32, seed=None, name=None):
    """Uniform samples in [minval, maxval); integer dtypes need `maxval`."""
    dtype = dt.as_dtype(dtype)
    if dtype not in (dt.float16, dt.bfloat16, dt.float32, dt.float64, dt.int32, dt.int64):
        raise ValueError("Invalid dtype %r" % dtype)
    if maxval is None:
        if dtype.is_integer:
            raise ValueError("Must specify maxval for integer dtype %r" % dtype)
        maxval = 1
    g = get_default_graph()
    with g.name_scope(name or "random_uniform") as scope:
        shape_t = shape_tensor(shape, name="shape")
        lo = convert_to_tensor(minval, dtype=dtype, name="min")
        hi = convert_to_tensor(maxval, dtype=dtype, name="max")
        attrs = _seed_attrs(seed)
        if dtype.is_integer:
            return with_shape_of(make_op("RandomUniformInt", [shape_t, lo, hi], attrs, name=scope), shape_t)
        rnd = with_shape_of(make_op("RandomUniform", [shape_t], dict(attrs, dtype=dtype), name="RandomUniform"),
                            shape_t)
        return math_ops.add(_rounded(math_ops.multiply(rnd, math_ops.subtract(hi, lo, name="sub"), name="mul")), lo,
                            name=scope)


# ---- shuffle and multinomial ----------------------------------------------------------------------
def _shuffle_lower(a, key, x):
    if x.ndim == 0 or x.shape[0] <= 1:
        return x
    if "_stream" not in a:   # seeded: TF's own order (ops/philox.py)
        order = philox.shuffle_permutation(a["seed"], a["seed2"], _philox_runs(key), x.shape[0])
        return jnp.take(jnp.asarray(x), order, 0)
    return jax.random.permutation(_key(a, key), x, axis=0, independent=False)


register_op("RandomShuffle", shape=lambda s, a, v: [s[0]], dtype=same_as_input(0), grad=None, needs_key=True,
            lower=_shuffle_lower)


def random_shuffle(value, seed=None, name=None):
    """`value` with its first dimension randomly permuted."""
    x = convert_to_tensor(value)
    return make_op("RandomShuffle", [x], _seed_attrs(seed), name=name or "RandomShuffle")


def _multinomial_shape(shapes, attrs, values):
    logits = shapes[0]
    if logits.ndims not in (None, 2):
        raise ShapeError("Shape must be rank 2 but is rank %d" % logits.ndims)
    n = values[1]
    batch = logits[0].value if logits.ndims == 2 else None
    return [TensorShape([batch, None if n is None else int(n)])]


def _multinomial_lower(a, key, logits, num_samples):
    n = int(np.asarray(num_samples))  # a static input: concrete while tracing
    draws = jax.random.categorical(_key(a, key), logits, axis=-1, shape=(n, logits.shape[0]))
    return jnp.transpose(draws).astype(a["output_dtype"].np)


register_op("Multinomial", shape=_multinomial_shape, dtype=from_attr("output_dtype"), grad=None, needs_key=True,
            lower=_multinomial_lower)


def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None):
    """Draws `num_samples` class indices per row of `logits` [batch, classes]: [batch, num_samples]."""
    g = get_default_graph()
    with g.name_scope(name or "multinomial"):
        x = convert_to_tensor(logits, name="logits")
        n = convert_to_tensor(num_samples, dtype=dt.int32, name="num_samples")
        attrs = dict(_seed_attrs(seed), output_dtype=dt.as_dtype(output_dtype or dt.int64))
        return make_op("Multinomial", [x, n], attrs, name="Multinomial")


def _categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """tf.random.categorical: multinomial with TF2's argument names."""
    return multinomial(logits, num_samples, seed=seed, name=name or "categorical", output_dtype=dtype)


# tf.random.*: TF 1.15's aliases of the functions above.
random = types.SimpleNamespace(
    normal=random_normal, truncated_normal=truncated_normal, uniform=random_uniform, shuffle=random_shuffle,
    multinomial=multinomial, categorical=_categorical, set_random_seed=set_random_seed, get_seed=get_seed)
