"""TF 1.15's random numbers, bit for bit: Philox4x32-10 and the distributions of its CPU kernels.

A seeded TF random op (seed, seed2 from `get_seed`) owns a `GuardedPhiloxRandom`: the 4x32 Philox
generator with key (seed low 32 bits, seed high 32 bits) and a 128-bit counter starting at
(0, 0, seed2 low, seed2 high) (tensorflow/core/lib/random/philox_random.h). Each execution of the
kernel reserves `256 * num_elements` counter values (random_op.cc: ReserveRandomOutputs(n, 256)), so
execution k of an op of n elements starts at counter k * n * 256. One counter value gives 4 uint32
(one "block"); the output is cut into groups that each take the next block:

  RandomUniform        float32/half: 4 outputs per block (23/10 low bits as mantissa, minus 1);
                       float64: 2 per block (52 bits from two words)
  RandomUniformInt     int32: 4 per block, lo + word % (hi - lo); int64: 2 per block (two words)
  RandomStandardNormal float32: 4 per block, Box-Muller on the pairs (w0, w1), (w2, w3);
                       float64: 2 per block, Box-Muller on (w0w1, w2w3)
  TruncatedNormal      float32: group g of 4 outputs starts at block g * 256 and draws blocks (4
                       Box-Muller normals each) until 4 have |x| < 2 (a rejection loop); float64: 2
                       per group, block g * 128, 2 normals per block
  RandomShuffle        Fisher-Yates over the first n - 1 words: swap i and i + word_i % (n - i); a run
                       reserves only ceil((n - 1) / 4) counter values (random_shuffle_op.cc)

Box-Muller's float32 log is glibc's logf (what TF's kernel calls), reproduced from its algorithm
(a 16-entry table and a degree-4 polynomial in float64), since XLA's own log differs in the last bit
for one in seven inputs; XLA's float32 sin and cos equal glibc's sincosf on every input Box-Muller
can give (2^23 of them, checked). Everything here is jax on uint32/uint64 arrays, vectorised over
the blocks, so it runs inside the jitted step.
"""
import jax
import jax.numpy as jnp
import numpy as np

__all__ = ['blocks', 'sample', 'shuffle_permutation']

u32, u64, f32, f64 = np.uint32, np.uint64, np.float32, np.float64
_W = (0x9E3779B9, 0xBB67AE85)          # key increments per round
_M = (u64(0xD2511F53), u64(0xCD9E8D57))          # round multipliers
SKIP = 256                                       # counter values reserved per output element per run


def _mulhilo(m, x):
    p = m * x.astype(u64)
    return p.astype(u32), (p >> u64(32)).astype(u32)


def philox(key, counter):
    """Philox4x32-10 of `counter` (4 uint32 arrays) under `key` (2 ints, or 2 uint32 arrays: a key
    per element): 4 uint32 arrays."""
    c0, c1, c2, c3 = counter
    for r in range(10):   # the key of round r: key + r * W (mod 2^32)
        k0, k1 = (u32((int(k) + r * int(w)) % 2 ** 32) if isinstance(k, int) else k + u32(r * w % 2 ** 32)
                  for k, w in zip(key, _W))
        lo0, hi0 = _mulhilo(_M[0], c0)
        lo1, hi1 = _mulhilo(_M[1], c2)
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
    return c0, c1, c2, c3


def stream(seed, seed2):
    """PhiloxRandom(seed, seed2) as (key lo, key hi, counter word 2, counter word 3) (philox_random.h)."""
    seed, seed2 = int(seed) % 2 ** 64, int(seed2) % 2 ** 64
    return seed & 0xFFFFFFFF, seed >> 32, seed2 & 0xFFFFFFFF, seed2 >> 32


def blocks(seed, seed2, start, n):
    """The n blocks from counter `start` (uint64, may be traced) of the generator PhiloxRandom(seed,
    seed2): four uint32 arrays of shape [n]."""
    c = jnp.asarray(start, u64) + jax.lax.iota(u64, n)
    return blocks_at(stream(seed, seed2), c)


def blocks_at(st, c):
    """The blocks at the 64-bit counters `c` of the stream `st` (ints, or uint32 arrays like c)."""
    hi = [jnp.broadcast_to(jnp.asarray(x, u32), c.shape) for x in st[2:]]
    words = philox(st[:2], (c.astype(u32), (c >> u64(32)).astype(u32), hi[0], hi[1]))
    # computed once, then cut into outputs: fused into the interleaving that follows, XLA would run
    # the 10 rounds once per output element (4 times the work)
    return jax.lax.optimization_barrier(words)


# ---- uint32 -> floats (random_distributions.h) ---------------------------------------------------------
def _to_float(w):       # Uint32ToFloat: 23 low bits as the mantissa of [1, 2), minus 1
    return jax.lax.bitcast_convert_type((w & u32(0x7FFFFF)) | u32(127 << 23), f32) - f32(1)


def _to_double(w0, w1):   # Uint64ToDouble: 20 low bits of w0 and all of w1 as the mantissa
    man = ((w0 & u32(0xFFFFF)).astype(u64) << u64(32)) | w1.astype(u64)
    return jax.lax.bitcast_convert_type(man | u64(1023 << 52), f64) - f64(1)


def _to_half(w):          # Uint16ToHalf: 10 low bits
    return jax.lax.bitcast_convert_type(((w & u32(0x3FF)) | u32(15 << 10)).astype(np.uint16), np.float16) - \
        np.float16(1)


# glibc's logf (sysdeps/ieee754/flt-32/e_logf.c, from ARM's optimized-routines): log(x) = log1p(z/c - 1)
# + log(c) + k ln2 for x = 2^k z, c the centre of z's 16th of [0x3f330000, 2 * that)
_LOGF_TAB = np.array([float.fromhex(h) for h in """
    0x1.661ec79f8f3bep+0 -0x1.57bf7808caadep-2 0x1.571ed4aaf883dp+0 -0x1.2bef0a7c06ddbp-2
    0x1.49539f0f010bp+0 -0x1.01eae7f513a67p-2 0x1.3c995b0b80385p+0 -0x1.b31d8a68224e9p-3
    0x1.30d190c8864a5p+0 -0x1.6574f0ac07758p-3 0x1.25e227b0b8eap+0 -0x1.1aa2bc79c81p-3
    0x1.1bb4a4a1a343fp+0 -0x1.a4e76ce8c0e5ep-4 0x1.12358f08ae5bap+0 -0x1.1973c5a611cccp-4
    0x1.0953f419900a7p+0 -0x1.252f438e10c1ep-5 0x1p+0 0x0p+0
    0x1.e608cfd9a47acp-1 0x1.aa5aa5df25984p-5 0x1.ca4b31f026aap-1 0x1.c5e53aa362eb4p-4
    0x1.b2036576afce6p-1 0x1.526e57720db08p-3 0x1.9c2d163a1aa2dp-1 0x1.bc2860d22477p-3
    0x1.886e6037841edp-1 0x1.1058bc8a07ee1p-2 0x1.767dcf5534862p-1 0x1.4043057b6ee09p-2""".split()]).reshape(16, 2)
_LN2 = float.fromhex("0x1.62e42fefa39efp-1")
_LOGF_POLY = [float.fromhex(h) for h in ("-0x1.00ea348b88334p-2", "0x1.5575b0be00b6ap-2", "-0x1.ffffef20a4123p-2")]


def logf(x):
    """glibc's logf of positive normal float32 x, bit for bit."""
    ix = jax.lax.bitcast_convert_type(x, u32)
    tmp = ix - u32(0x3F330000)
    i = (tmp >> u32(19)) % u32(16)
    k = jax.lax.shift_right_arithmetic(jax.lax.bitcast_convert_type(tmp, np.int32), np.int32(23))
    z = jax.lax.bitcast_convert_type(ix - (tmp & u32(0x1FF << 23)), f32).astype(f64)
    invc, logc = jnp.asarray(_LOGF_TAB[:, 0])[i], jnp.asarray(_LOGF_TAB[:, 1])[i]
    r = z * invc - 1
    y0 = logc + k.astype(f64) * _LN2
    a = _LOGF_POLY
    r2 = r * r
    y = a[0] * r2 + (a[1] * r + a[2])
    return (y * r2 + (y0 + r)).astype(f32)


def _box_muller_float(x0, x1):
    u1 = jnp.maximum(_to_float(x0), f32(1e-7))
    v1 = (f64(2 * np.pi) * _to_float(x1).astype(f64)).astype(f32)   # 2.0f * M_PI * float: a double product
    u2 = jnp.sqrt(f32(-2) * logf(u1))
    return jnp.sin(v1) * u2, jnp.cos(v1) * u2


def _box_muller_pairs(w):
    """Box-Muller of a block's pairs (w0, w1) and (w2, w3): its 4 float32 normals, in order. One
    Box-Muller over both pairs at once: half the code for XLA to compile."""
    n = w[0].shape[0]
    f0, f1 = _box_muller_float(jnp.concatenate([w[0], w[2]]), jnp.concatenate([w[1], w[3]]))
    return [f0[:n], f1[:n], f0[n:], f1[n:]]


def _box_muller_double(x0, x1, x2, x3):
    u1 = jnp.maximum(_to_double(x0, x1), f64(1e-7))
    v1 = f64(2 * np.pi) * _to_double(x2, x3)
    u2 = jnp.sqrt(f64(-2) * jnp.log(u1))
    return jnp.sin(v1) * u2, jnp.cos(v1) * u2


# ---- one kernel's output --------------------------------------------------------------------------------
def _interleave(cols, n):
    """Element e of the output is cols[e % k][e // k] (k columns, one value per block each), first n.
    A gather and selects: XLA's minor-axis stack of the columns is five times slower."""
    e = jax.lax.iota(np.int32, n)
    g, lane = e // len(cols), e % len(cols)
    out = cols[-1][g]
    for i in range(len(cols) - 2, -1, -1):
        out = jnp.where(lane == i, cols[i][g], out)
    return out


def _per_block(op_type, dtype, w):
    """The columns (one value per block each) of the fixed-count distributions."""
    if op_type == "RandomStandardNormal":
        if dtype == f64:
            return list(_box_muller_double(*w))
        return _box_muller_pairs(w)
    if dtype == f64:
        return [_to_double(w[0], w[1]), _to_double(w[2], w[3])]
    return list(w)   # uniform float32 / half: converted after interleaving


def _truncated(st, base, dtype):
    """TruncatedNormal's rejection loop for every group at once: group g reads blocks base[g],
    base[g] + 1, ... and keeps the first `per` normals with |x| < 2, in order: `per` columns. A
    lax.while_loop over blocks until every group is full: exact, and 2 or 3 blocks for any size
    but a 1e-10 chance."""
    per = 2 if dtype == f64 else 4
    groups = base.shape[0]

    def body(state):
        j, have, out = state
        w = blocks_at(st, base + j.astype(u64))
        out = list(out)
        for c in (_box_muller_double(*w) if dtype == f64 else _box_muller_pairs(w)):
            ok = jnp.abs(c) < 2
            for slot in range(per):   # a kept candidate fills the group's next free slot
                out[slot] = jnp.where(ok & (have == slot), c, out[slot])
            have = have + ok.astype(np.int32)
        return j + 1, have, tuple(out)

    zero = jnp.zeros(groups, f64 if dtype == f64 else f32)
    state = (jnp.uint32(0), jnp.zeros(groups, np.int32), (zero,) * per)
    return list(jax.lax.while_loop(lambda s: jnp.any(s[1] < per), body, state)[2])


def sample(op_type, seed, seed2, runs, dims, dtype, lo=None, hi=None):
    """The values of execution number `runs` (0 first; may be traced) of TF's kernel `op_type`
    (RandomUniform, RandomStandardNormal, TruncatedNormal, RandomUniformInt with lo, hi) with attrs
    seed, seed2, output shape `dims` and numpy `dtype`. On concrete values (an op whose shape is fed
    runs between jitted segments) it is one jitted call per shape, not hundreds of eager ones."""
    if not any(isinstance(x, jax.core.Tracer) for x in (runs, lo, hi)):
        return _sample_jitted(op_type, int(seed), int(seed2), runs, tuple(int(d) for d in dims), np.dtype(dtype),
                              lo, hi)
    return _draw(op_type, seed, seed2, runs, dims, dtype, lo, hi)


def _draw(op_type, seed, seed2, runs, dims, dtype, lo=None, hi=None):
    n = int(np.prod(dims, dtype=np.int64))
    if n == 0:
        return jnp.zeros(dims, dtype)
    start = jnp.asarray(runs, u64) * u64(n * SKIP)
    dtype = np.dtype(dtype)
    if op_type == "TruncatedNormal":
        per = 2 if dtype == f64 else 4
        base = start + jax.lax.iota(u64, -(-n // per)) * u64(SKIP * per // 4)
        out = _interleave(_truncated(stream(seed, seed2), base, dtype), n)
    elif op_type == "RandomUniformInt":   # lo + bits % (hi - lo), in unsigned arithmetic
        per = 2 if dtype == np.int64 else 4
        w = blocks(seed, seed2, start, -(-n // per))
        if per == 2:
            w = [w[0].astype(u64) | (w[1].astype(u64) << u64(32)), w[2].astype(u64) | (w[3].astype(u64) << u64(32))]
        span = (hi.astype(dtype) - lo.astype(dtype)).astype(u64 if per == 2 else u32)
        out = lo.astype(dtype) + (_interleave(w, n) % span).astype(dtype)
    else:
        per = 2 if dtype == f64 else 4
        out = _interleave(_per_block(op_type, dtype, blocks(seed, seed2, start, -(-n // per))), n)
        if op_type == "RandomUniform" and dtype != f64:
            out = _to_half(out) if dtype == np.float16 else _to_float(out)
    return out.reshape(dims).astype(dtype)


def shuffle_permutation(seed, seed2, runs, size):
    """The order RandomShuffle's execution number `runs` gives `size` rows: row i of the output is
    row perm[i] of the input (swapping rows or their indices is the same Fisher-Yates)."""
    per_run = -(-(size - 1) // 4)
    words = _interleave(list(blocks(seed, seed2, jnp.asarray(runs, u64) * u64(per_run), per_run)), size - 1)

    def swap(i, perm):
        j = i + (words[i] % (size - i).astype(u32)).astype(np.int32)
        return perm.at[i].set(perm[j]).at[j].set(perm[i])
    return jax.lax.fori_loop(0, size - 1, swap, jnp.arange(size, dtype=np.int32))


def sample_block(specs, runs):
    """`sample` of several float32 ops at once, each spec (op type, dims, seed, seed2) with its run
    count: one Philox over all their counters (a key per element) and one Box-Muller or rejection
    loop per op type, so XLA compiles each once (per op, 4 CNN initializers took 4 loops to compile)."""
    out = [None] * len(specs)
    for kind in ("RandomUniform", "RandomStandardNormal", "TruncatedNormal"):
        picked = [i for i, spec in enumerate(specs) if spec[0] == kind]
        if not picked:
            continue
        sizes = [int(np.prod(specs[i][1], dtype=np.int64)) for i in picked]
        groups = [-(-n // 4) for n in sizes]
        skip = SKIP if kind == "TruncatedNormal" else 1   # counters between groups
        base = jnp.concatenate([jnp.asarray(runs[i], u64) * u64(n * SKIP) + jax.lax.iota(u64, g) * u64(skip)
                                for i, n, g in zip(picked, sizes, groups)])
        st = tuple(jnp.concatenate([jnp.full(g, u32(stream(*specs[i][2:4])[w])) for i, g in zip(picked, groups)])
                   for w in range(4))
        if kind == "TruncatedNormal":
            cols = _truncated(st, base, f32)
        else:
            cols = _per_block(kind, f32, blocks_at(st, base))
        offsets = np.cumsum([0] + groups)
        for i, n, a, b in zip(picked, sizes, offsets[:-1], offsets[1:]):
            v = _interleave([c[a:b] for c in cols], n)
            out[i] = (_to_float(v) if kind == "RandomUniform" else v).reshape(specs[i][1])
    return out


_sample_jitted = jax.jit(_draw, static_argnums=(0, 1, 2, 4, 5))
