"""TF 1.15's hashes of feature columns: Fingerprint64 (FarmHash's farmhashna::Hash64) and SparseCross's
FingerprintCat64.

- `fingerprint64(data)`: of bytes, on the host. The pyfarmhash binding when it is installed (the `farmhash`
  extra: a kept library), else this module's pure-Python transcription of the same function (checked against
  the binding on every length up to 300 bytes in tests/api/test_feature_column_hash.py).
- `int_fingerprint64(x)`: in the graph, Fingerprint64 of the decimal string of each int64 of x (TF hashes an
  integer hash bucket's value as its string), as uint64: the branches of Hash64 for 1 to 20 bytes.
- `fingerprint_cat64(a, b)`: in the graph, TF's FingerprintCat64 of two uint64 tensors (SparseCross).
"""
import types
import weakref

import numpy as np

_M = (1 << 64) - 1
K0, K1, K2 = 0xc3a5c85c97cb3127, 0xb492b66fbe98f273, 0x9ae16a3b2f90404f
K_MUL = 0xc6a4a7935bd1e995   # FingerprintCat64's multiplier
DEFAULT_HASH_KEY = 0xDECAFCAFFE   # sparse_ops._DEFAULT_HASH_KEY: where SparseCross starts without a hash_key


def fingerprint64(data):
    """TF's Fingerprint64 of `data` (bytes) as a Python int in [0, 2**64)."""
    try:
        import farmhash
    except ImportError:
        return _hash64(bytes(data))
    return farmhash.fingerprint64(bytes(data))


# ---- the pure-Python transcription of farmhashna::Hash64 (all arithmetic mod 2**64) ----------------------
def _fetch(s, i, n=8):
    return int.from_bytes(s[i:i + n], "little")


def _rot(v, r):
    return ((v >> r) | (v << (64 - r))) & _M if r else v


def _shift_mix(v):
    return v ^ (v >> 47)


def _len16(u, v, mul):
    a = ((u ^ v) * mul) & _M
    a ^= a >> 47
    b = ((v ^ a) * mul) & _M
    b ^= b >> 47
    return (b * mul) & _M


def _len0to16(s):
    n = len(s)
    if n >= 8:
        mul = K2 + n * 2
        a = (_fetch(s, 0) + K2) & _M
        b = _fetch(s, n - 8)
        c = (_rot(b, 37) * mul + a) & _M
        d = ((_rot(a, 25) + b) * mul) & _M
        return _len16(c, d, mul)
    if n >= 4:
        mul = K2 + n * 2
        return _len16(n + (_fetch(s, 0, 4) << 3), _fetch(s, n - 4, 4), mul)
    if n:
        y = (s[0] + (s[n >> 1] << 8)) & 0xffffffff
        z = (n + (s[n - 1] << 2)) & 0xffffffff
        return (_shift_mix(((y * K2) ^ (z * K0)) & _M) * K2) & _M
    return K2


def _len17to32(s):
    n = len(s)
    mul = K2 + n * 2
    a = (_fetch(s, 0) * K1) & _M
    b = _fetch(s, 8)
    c = (_fetch(s, n - 8) * mul) & _M
    d = (_fetch(s, n - 16) * K2) & _M
    return _len16((_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M, (a + _rot((b + K2) & _M, 18) + c) & _M, mul)


def _len33to64(s):
    n = len(s)
    mul = K2 + n * 2
    a = (_fetch(s, 0) * K2) & _M
    b = _fetch(s, 8)
    c = (_fetch(s, n - 8) * mul) & _M
    d = (_fetch(s, n - 16) * K2) & _M
    y = (_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M
    z = _len16(y, (a + _rot((b + K2) & _M, 18) + c) & _M, mul)
    e = (_fetch(s, 16) * mul) & _M
    f = _fetch(s, 24)
    g = ((y + _fetch(s, n - 32)) * mul) & _M
    h = ((z + _fetch(s, n - 24)) * mul) & _M
    return _len16((_rot((e + f) & _M, 43) + _rot(g, 30) + h) & _M, (e + _rot((f + a) & _M, 18) + g) & _M, mul)


def _weak32(s, i, a, b):
    w, x, y, z = _fetch(s, i), _fetch(s, i + 8), _fetch(s, i + 16), _fetch(s, i + 24)
    a = (a + w) & _M
    b = _rot((b + a + z) & _M, 21)
    c = a
    a = (a + x + y) & _M
    b = (b + _rot(a, 44)) & _M
    return (a + z) & _M, (b + c) & _M


def _hash64(s):
    n = len(s)
    if n <= 16:
        return _len0to16(s)
    if n <= 32:
        return _len17to32(s)
    if n <= 64:
        return _len33to64(s)
    seed = 81
    x = seed
    y = (seed * K1 + 113) & _M
    z = (_shift_mix((y * K2 + 113) & _M) * K2) & _M
    v, w = (0, 0), (0, 0)
    x = (x * K2 + _fetch(s, 0)) & _M
    end = ((n - 1) // 64) * 64
    last64 = n - 64
    i = 0
    while True:
        x = (_rot((x + y + v[0] + _fetch(s, i + 8)) & _M, 37) * K1) & _M
        y = (_rot((y + v[1] + _fetch(s, i + 48)) & _M, 42) * K1) & _M
        x ^= w[1]
        y = (y + v[0] + _fetch(s, i + 40)) & _M
        z = (_rot((z + w[0]) & _M, 33) * K1) & _M
        v = _weak32(s, i, (v[1] * K1) & _M, (x + w[0]) & _M)
        w = _weak32(s, i + 32, (z + w[1]) & _M, (y + _fetch(s, i + 16)) & _M)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = K1 + ((z & 0xff) << 1)
    i = last64
    w = ((w[0] + ((n - 1) & 63)) & _M, w[1])
    v = ((v[0] + w[0]) & _M, v[1])
    w = ((w[0] + v[0]) & _M, w[1])
    x = (_rot((x + y + v[0] + _fetch(s, i + 8)) & _M, 37) * mul) & _M
    y = (_rot((y + v[1] + _fetch(s, i + 48)) & _M, 42) * mul) & _M
    x ^= (w[1] * 9) & _M
    y = (y + v[0] * 9 + _fetch(s, i + 40)) & _M
    z = (_rot((z + w[0]) & _M, 33) * mul) & _M
    v = _weak32(s, i, (v[1] * mul) & _M, (x + w[0]) & _M)
    w = _weak32(s, i + 32, (z + w[1]) & _M, (y + _fetch(s, i + 16)) & _M)
    z, x = x, z
    return _len16((_len16(v[0], w[0], mul) + _shift_mix(y) * K0 + z) & _M, (_len16(v[1], w[1], mul) + x) & _M, mul)


# ---- in the graph: uint64 tensors (XLA's unsigned arithmetic wraps mod 2**64 as C++'s does) ------------
def _ops():
    from tinyflow.graph import dtypes
    from tinyflow.ops import bitwise_ops
    from tinyflow.ops.core import array_ops, base, math_ops, sequence_ops
    names = {n: getattr(math_ops, n) for n in ("add_n", "cast", "clip_by_value", "equal", "floordiv", "floormod",
                                               "greater_equal", "less", "logical_and", "reduce_sum", "where_v2")}
    return types.SimpleNamespace(bitwise=bitwise_ops, stack=array_ops.stack, zeros_like=array_ops.zeros_like,
                                 expand_dims=array_ops.expand_dims,
                                 one_hot=sequence_ops.one_hot, constant=base.constant, uint64=dtypes.uint64,
                                 int64=dtypes.int64, **names)


_tf = types.SimpleNamespace()   # filled on first use (the op modules load lazily)


def _u(value):
    if not vars(_tf):
        vars(_tf).update(vars(_ops()))
    from tinyflow.graph.core import get_default_graph
    consts = _CONSTS.setdefault(get_default_graph(), {})  # one Const a value in a graph
    if value not in consts:
        consts[value] = _tf.constant(np.uint64(value), _tf.uint64)
    return consts[value]


_CONSTS = weakref.WeakKeyDictionary()


def _g_rot(v, r):
    return _tf.bitwise.bitwise_or(_tf.bitwise.right_shift(v, _u(r)), _tf.bitwise.left_shift(v, _u(64 - r)))


def _g_shift_mix(v):
    return _tf.bitwise.bitwise_xor(v, _tf.bitwise.right_shift(v, _u(47)))


def _g_len16(u, v, mul):
    a = _g_shift_mix(_tf.bitwise.bitwise_xor(u, v) * mul)
    b = _g_shift_mix(_tf.bitwise.bitwise_xor(v, a) * mul)
    return b * mul


def fingerprint_cat64(a, b):
    """TF's FingerprintCat64(a, b) of uint64 tensors (how SparseCross folds each id into the hash)."""
    mul = _u(K_MUL)
    out = _tf.bitwise.bitwise_xor(a, mul)
    out = _tf.bitwise.bitwise_xor(out, _g_shift_mix(b * mul) * mul) * mul
    return _g_shift_mix(_g_shift_mix(out) * mul)


def cross_hash(hashed, ids):
    """One step of SparseCross: FingerprintCat64(hashed, id) for int64 ids (hashed: an int or uint64 tensor)."""
    _u(0)
    return fingerprint_cat64(_u(hashed) if isinstance(hashed, int) else hashed, _tf.cast(ids, _tf.uint64))


def uint64_mod(hashed, size):
    """A uint64 hash mod size (C++'s unsigned %), as int64 ids."""
    return _tf.cast(_tf.floormod(hashed, _u(size)), _tf.int64)


def int_fingerprint64(x):
    """Fingerprint64 of the decimal string of each value of the int64 tensor x, as a uint64 tensor (1 to 20
    bytes: Hash64's branches for 1-3, 4-7, 8-16 and 17-32 bytes, each element taking its own)."""
    _u(0)
    tf = _tf
    neg = tf.less(x, 0)
    u = tf.cast(x, tf.uint64)
    mag = tf.where_v2(neg, _u(0) - u, u)              # |x| (also of the smallest int64)
    powers = np.array([10 ** k for k in range(20)], np.uint64)
    scaled = tf.floordiv(tf.expand_dims(mag, -1), tf.constant(powers))
    digits = tf.floormod(scaled, _u(10))              # [..., 20], least significant first
    n_digits = 1 + tf.reduce_sum(tf.cast(tf.greater_equal(scaled[..., 1:], _u(1)), tf.int64), -1)
    length = n_digits + tf.cast(neg, tf.int64)        # bytes of the string
    # the string's 32 bytes (zeros after its end): position p holds digit length-1-p, or '-' at 0
    pos = tf.constant(np.arange(32, dtype=np.int64))
    last = tf.expand_dims(length, -1) - 1
    pick = tf.cast(tf.one_hot(tf.clip_by_value(last - pos, 0, 19), 20, dtype=tf.int64), tf.uint64)
    digit = tf.reduce_sum(tf.expand_dims(digits, -2) * pick, -1) + _u(ord("0"))
    minus = tf.logical_and(tf.expand_dims(neg, -1), tf.equal(pos, 0))
    text = tf.where_v2(tf.less(pos, last + 1), tf.where_v2(minus, _u(ord("-")), digit), _u(0))
    words = {n: tf.add_n([tf.bitwise.left_shift(text[..., j:j + 33 - n], _u(8 * j)) for j in range(n)])
             for n in (4, 8)}                         # the little-endian n-byte word at every offset

    def fetch(offset, n=8):
        hot = tf.one_hot(tf.clip_by_value(offset, 0, 32 - n), 33 - n, dtype=tf.int64)
        return tf.reduce_sum(words[n] * tf.cast(hot, tf.uint64), -1)

    def byte(offset):
        return tf.bitwise.bitwise_and(fetch(offset, 4), _u(0xff))

    ulen = tf.cast(length, tf.uint64)
    mul = _u(K2) + ulen * _u(2)
    zero = tf.zeros_like(length)
    # 1 to 3 bytes
    y = byte(zero) + tf.bitwise.left_shift(byte(length // 2), _u(8))
    z = ulen + tf.bitwise.left_shift(byte(length - 1), _u(2))
    h1 = _g_shift_mix(tf.bitwise.bitwise_xor(y * _u(K2), z * _u(K0))) * _u(K2)
    # 4 to 7 bytes
    h4 = _g_len16(ulen + tf.bitwise.left_shift(fetch(zero, 4), _u(3)), fetch(length - 4, 4), mul)
    # 8 to 16 bytes
    a = fetch(zero) + _u(K2)
    b = fetch(length - 8)
    h8 = _g_len16(_g_rot(b, 37) * mul + a, (_g_rot(a, 25) + b) * mul, mul)
    # 17 to 20 bytes
    a = fetch(zero) * _u(K1)
    b = fetch(zero + 8)
    c = fetch(length - 8) * mul
    d = fetch(length - 16) * _u(K2)
    h17 = _g_len16(_g_rot(a + b, 43) + _g_rot(c, 30) + d, a + _g_rot(b + _u(K2), 18) + c, mul)
    return tf.where_v2(tf.less(length, 4), h1, tf.where_v2(tf.less(length, 8), h4,
                                                            tf.where_v2(tf.less(length, 17), h8, h17)))
