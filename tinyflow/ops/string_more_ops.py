"""More of tf.strings, on the host: TF's string hashes (to_hash_bucket: TF's Hash64, a MurmurHash64A with
seed 0xDECAFCAFFE; to_hash_bucket_strong: SipHash-2-4 keyed; tf.fingerprint: FarmHash Fingerprint64), unicode
decoding / encoding / transcoding / splitting of 1-D string tensors, bytes_split, ngrams, unsorted_segment_join,
sparse_cross (TF's SparseCrossOp) and unicode_script (on the device: TF's recorded ICU table).
The builders of the ragged results (RaggedTensors) are api/strings_unicode.py's."""
import codecs
import functools

import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph import errors
from tinyflow.graph.shapes import TensorShape
from tinyflow.graph.registry import register_op
from tinyflow.ops.core.base import convert_to_tensor, make_op
from tinyflow.ops.host_ops import make_host_op, register_host_op, string_array
from tinyflow.ops.string_ops import as_strings

__all__ = ["fingerprint", "string_format", "string_to_hash_bucket", "string_to_hash_bucket_strong",
           "sparse_cross", "unicode_script", "unicode_transcode",
           "unsorted_segment_join"]   # (the ragged results' builders: api/strings_unicode.py)

_M64 = (1 << 64) - 1


def hash64(data, seed=0xDECAFCAFFE):
    """TF's Hash64 (tensorflow/core/lib/hash/hash.cc): MurmurHash64A."""
    m, r = 0xc6a4a7935bd1e995, 47
    n = len(data)
    h = (seed ^ (n * m)) & _M64
    full = n - n % 8
    for i in range(0, full, 8):
        k = int.from_bytes(data[i:i + 8], "little")
        k = (k * m) & _M64
        k ^= k >> r
        k = (k * m) & _M64
        h = ((h ^ k) * m) & _M64
    rest = data[full:]
    if rest:
        for i in range(len(rest) - 1, -1, -1):
            h ^= rest[i] << (8 * i)
        h = (h * m) & _M64
    h ^= h >> r
    h = (h * m) & _M64
    return h ^ (h >> r)


def _rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & _M64


def siphash24(k0, k1, data):
    """SipHash-2-4 of `data` with the 128-bit key (k0, k1)."""
    v = [k0 ^ 0x736f6d6570736575, k1 ^ 0x646f72616e646f6d, k0 ^ 0x6c7967656e657261, k1 ^ 0x7465646279746573]

    def rounds(n):
        for _ in range(n):
            v[0] = (v[0] + v[1]) & _M64
            v[1] = _rotl(v[1], 13) ^ v[0]
            v[0] = _rotl(v[0], 32)
            v[2] = (v[2] + v[3]) & _M64
            v[3] = _rotl(v[3], 16) ^ v[2]
            v[0] = (v[0] + v[3]) & _M64
            v[3] = _rotl(v[3], 21) ^ v[0]
            v[2] = (v[2] + v[1]) & _M64
            v[1] = _rotl(v[1], 17) ^ v[2]
            v[2] = _rotl(v[2], 32)
    n = len(data)
    full = n - n % 8
    for i in range(0, full, 8):
        m = int.from_bytes(data[i:i + 8], "little")
        v[3] ^= m
        rounds(2)
        v[0] ^= m
    last = ((n & 0xff) << 56) | int.from_bytes(data[full:] + b"\0" * (8 - n % 8), "little") if n % 8 else \
        (n & 0xff) << 56
    v[3] ^= last
    rounds(2)
    v[0] ^= last
    v[2] ^= 0xff
    rounds(4)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def _hash_rule(fn):
    def rule(session, op, inputs):
        a, n = inputs[0], op.attrs["num_buckets"]
        flat = [fn(op, bytes(s)) % n for s in a.reshape(-1)]
        return [np.array(flat, np.int64).reshape(a.shape)]
    return rule


register_host_op("StringToHashBucket", lambda s, a, v: [s[0]], lambda d, a: [dt.int64],
                 _hash_rule(lambda op, s: hash64(s)))
register_host_op("StringToHashBucketStrong", lambda s, a, v: [s[0]], lambda d, a: [dt.int64],
                 _hash_rule(lambda op, s: siphash24(op.attrs["key"][0], op.attrs["key"][1], s)))


def string_to_hash_bucket(string_tensor, num_buckets, name=None, input=None):
    """Hash64(s) % num_buckets for each string (TF's older, slower hash; to_hash_bucket_fast is FarmHash)."""
    s = as_strings(string_tensor if input is None else input)
    return make_host_op("StringToHashBucket", [s], {"num_buckets": int(num_buckets)},
                        name=name or "StringToHashBucket").outputs[0]


def string_to_hash_bucket_strong(input, num_buckets, key, name=None):
    """SipHash-2-4(key, s) % num_buckets for each string: a keyed hash an adversary cannot aim at a bucket."""
    key = [int(k) & _M64 for k in key]
    if len(key) != 2:
        raise ValueError("key must have size 2, got %d" % len(key))
    return make_host_op("StringToHashBucketStrong", [as_strings(input)], {"num_buckets": int(num_buckets),
                                                                          "key": tuple(key)},
                        name=name or "StringToHashBucketStrong").outputs[0]


def _fingerprint(session, op, inputs):
    from tinyflow.ops.string_ops import _fingerprint64
    fingerprint64 = _fingerprint64()
    a = inputs[0]
    if a.dtype == object:   # TF: a row of one string, its Fingerprint64; of several, that of their fingerprints
        rows = [bytes(row[0]) if len(row) == 1 else b"".join(fingerprint64(bytes(x)).to_bytes(8, "little") for x in row)
                for row in a.reshape(len(a), -1)] if len(a) else []
    else:
        rows = [row.astype(row.dtype.newbyteorder("<")).tobytes() for row in a.reshape(len(a), -1)] if len(a) else []
    out = np.zeros((len(rows), 8), np.uint8)
    for i, r in enumerate(rows):
        out[i] = np.frombuffer(fingerprint64(r).to_bytes(8, "little"), np.uint8)
    return [out]


register_host_op("Fingerprint", lambda s, a, v: [TensorShape([s[0][0].value if s[0].ndims else None, 8])],
                 lambda d, a: [dt.uint8], _fingerprint)


def fingerprint(data, method="farmhash64", name=None):
    """[N, 8] uint8: the Fingerprint64 (FarmHash) of each row of data (its bytes), little-endian."""
    if method != "farmhash64":
        raise errors.InvalidArgumentError(None, None, "Unsupported fingerprint method: %s" % method)
    d = convert_to_tensor(data, name="data")
    return make_host_op("Fingerprint", [d], name=name or "Fingerprint").outputs[0]


# ---- unicode ------------------------------------------------------------------------------------------
_CODECS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be", "US-ASCII": "ascii",
           "ISO-8859-1": "latin-1"}


def _codec(name):
    c = _CODECS.get(str(name).upper())
    if c is None:
        raise errors.InvalidArgumentError(None, None, "Could not create converter for input encoding: %s" % name)
    return c


def _mark_error(e):
    """A decoding error as one lone surrogate U+DC01.. whose offset from U+DC00 is its byte count (no valid
    decoding yields a lone surrogate): the bad bytes stay countable for the offsets."""
    return chr(0xDC00 + e.end - e.start), e.end


codecs.register_error("tinyflow_mark", _mark_error)


def _decode_chars(op, s, transcode=False):
    """(code points, byte offsets) of one string. A bad sequence (its maximal valid prefix, as ICU's and
    Python's decoders take it) becomes one replacement_char, is dropped (errors="ignore") or raises; with
    replace_control_characters, C0 controls (U+0000..U+001F) are replacement_char too."""
    codec, err = _codec(op.attrs["input_encoding"]), op.attrs["errors"]
    sub, control = op.attrs["replacement_char"], op.attrs["replace_control_characters"]
    points, offsets, pos = [], [], 0
    for ch in bytes(s).decode(codec, "tinyflow_mark"):
        cp = ord(ch)
        if 0xDC00 < cp <= 0xDCFF:
            if err == "strict":
                raise errors.InvalidArgumentError(op.node_def, op, "Invalid formatting on input string")
            if err == "replace":
                points.append(sub)
                offsets.append(pos)
            pos += cp - 0xDC00
            continue
        if control and cp < 0x20:     # a C0 control: replaced as a bad sequence is (dropped with "ignore")
            if err == "strict" and transcode:   # (TF's transcoding then fails; its decoding replaces it)
                raise errors.InvalidArgumentError(op.node_def, op, "Invalid formatting on input string")
            cp = None if err == "ignore" else sub
        if cp is not None:
            points.append(cp)
            offsets.append(pos)
        pos += len(ch.encode(codec))
    return points, offsets


def _unicode_decode(session, op, inputs):
    a = inputs[0].reshape(-1)
    values, offsets, splits = [], [], [0]
    for s in a:
        p, o = _decode_chars(op, s)
        if op.attrs["split"]:   # each character re-encoded (a bad byte becomes the replacement character's)
            codec = _codec(op.attrs["input_encoding"])
            values.extend(chr(c).encode(codec) for c in p)
        else:
            values.extend(p)
        offsets.extend(o)
        splits.append(len(offsets))
    vals = np.array(values, dtype=object) if op.attrs["split"] else np.array(values, np.int32)
    return [vals.reshape(-1), np.array(splits, np.int64), np.array(offsets, np.int64)]


register_host_op("UnicodeDecodeWithOffsets", lambda s, a, v: [TensorShape([None]), TensorShape([None]),
                                                              TensorShape([None])],
                 lambda d, a: [dt.string if a["split"] else dt.int32, dt.int64, dt.int64], _unicode_decode)


def _encode_str(op, points):
    codec = _codec(op.attrs["output_encoding"])
    out = []
    for cp in points:
        cp = int(cp)
        ch = chr(cp) if 0 <= cp <= 0x10FFFF else None
        if ch is not None and 0xD800 <= cp <= 0xDFFF and codec == "utf-8":
            ch = "\ufffd"     # TF (ICU): a surrogate is U+FFFD in UTF-8, its own code unit in UTF-16/32
        if ch is None:
            if op.attrs["errors"] == "strict":
                raise errors.InvalidArgumentError(op.node_def, op, "Code point value out of valid Unicode range.")
            if op.attrs["errors"] == "ignore":
                continue
            ch = chr(op.attrs["replacement_char"])
        out.append(ch)
    return "".join(out).encode(codec, "surrogatepass")


def _unicode_encode(session, op, inputs):
    values, splits = inputs
    out = [_encode_str(op, values[splits[i]:splits[i + 1]]) for i in range(len(splits) - 1)]
    return [np.array(out, dtype=object).reshape(-1)]


register_host_op("UnicodeEncode", lambda s, a, v: [TensorShape([None])], lambda d, a: [dt.string], _unicode_encode)


def _transcode(session, op, inputs):
    a = inputs[0]
    out = [_encode_str(op, _decode_chars(op, s, transcode=True)[0]) for s in a.reshape(-1)]
    return [np.array(out, dtype=object).reshape(a.shape)]


register_host_op("UnicodeTranscode", lambda s, a, v: [s[0]], lambda d, a: [dt.string], _transcode)


def unicode_transcode(input, input_encoding, output_encoding, errors="replace", replacement_char=65533,
                      replace_control_characters=False, name=None):
    """Each string decoded from input_encoding and encoded in output_encoding."""
    _codec(input_encoding)
    _codec(output_encoding)
    return make_host_op("UnicodeTranscode", [as_strings(input)], {
        "input_encoding": input_encoding, "output_encoding": output_encoding, "errors": errors,
        "replacement_char": int(replacement_char), "replace_control_characters": bool(replace_control_characters)},
        name=name or "UnicodeTranscode").outputs[0]


# ---- bytes_split, ngrams, unsorted_segment_join ------------------------------------------------------------
def _bytes_split(session, op, inputs):
    a = inputs[0].reshape(-1)
    values, splits = [], [0]
    for s in a:
        values.extend(bytes([c]) for c in bytes(s))
        splits.append(len(values))
    return [np.array(values, dtype=object).reshape(-1), np.array(splits, np.int64)]


register_host_op("BytesSplit", lambda s, a, v: [TensorShape([None]), TensorShape([None])],
                 lambda d, a: [dt.string, dt.int64], _bytes_split)


def _ngrams(session, op, inputs):
    values, splits = inputs
    widths, sep = op.attrs["widths"], op.attrs["separator"]
    lpad, rpad, pw, short = op.attrs["left_pad"], op.attrs["right_pad"], op.attrs["padding_width"], op.attrs["short"]
    out, out_splits = [], [0]
    for i in range(len(splits) - 1):
        row = [bytes(v) for v in values[splits[i]:splits[i + 1]]]
        row_out = []
        for w in widths:
            p = (w - 1 if pw < 0 else min(pw, w - 1)) if lpad is not None else 0
            padded = [lpad] * p + row + [rpad] * p if p else row
            row_out.extend(sep.join(padded[j:j + w]) for j in range(len(padded) - w + 1))
        if not row_out and short and row:
            row_out.append(sep.join(row))
        out.extend(row_out)
        out_splits.append(len(out))
    return [np.array(out, dtype=object).reshape(-1), np.array(out_splits, np.int64)]


register_host_op("StringNGrams", lambda s, a, v: [TensorShape([None]), TensorShape([None])],
                 lambda d, a: [dt.string, dt.int64], _ngrams)


def _segment_join(session, op, inputs):
    data, ids, n = inputs
    n = int(n)
    sep = op.attrs["separator"]
    rows = [[] for _ in range(n)]
    lead = ids.shape
    flat = data.reshape((-1,) + data.shape[len(lead):])
    for k, i in enumerate(ids.reshape(-1)):
        if not 0 <= i < n:
            raise errors.InvalidArgumentError(op.node_def, op, "segment_ids are not allowed to exceed num_segments "
                                              "or to have negative values.")
        rows[i].append(flat[k])
    inner = data.shape[len(lead):]
    out = np.empty((n,) + inner, dtype=object)
    for i in range(n):
        for idx in np.ndindex(*inner):
            joined = b""
            for r in rows[i]:   # TF's kernel: the separator only after a non-empty result so far
                joined = joined + sep + bytes(r[idx] if inner else r) if joined else bytes(r[idx] if inner else r)
            out[(i,) + idx] = joined
    return [out]


register_host_op("UnsortedSegmentJoin", lambda s, a, v: [TensorShape([None if v[2] is None else int(v[2])])
                                                         .concatenate(s[0][s[1].ndims:]) if s[0].ndims is not None
                                                         and s[1].ndims is not None else TensorShape(None)],
                 lambda d, a: [dt.string], _segment_join)


def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    """out[j] = the strings of inputs whose segment id is j, joined by separator ("" if none)."""
    return make_host_op("UnsortedSegmentJoin", [as_strings(inputs), convert_to_tensor(segment_ids),
                                                convert_to_tensor(num_segments)],
                        {"separator": separator.encode() if isinstance(separator, str) else separator},
                        name=name or "UnsortedSegmentJoin").outputs[0]


# ---- tf.strings.format: TF's tensor summaries (print_v2's), numpy-like, floats at full precision -----------
def _scalar_text(v):
    if isinstance(v, (bytes, np.bytes_)):
        return '"%s"' % bytes(v).decode("utf-8", "replace")
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    if isinstance(v, np.floating):   # TF's FloatToBuffer / DoubleToBuffer: short if it round-trips, else exact
        if v.dtype.itemsize <= 4:
            short = "%.6g" % v
            return short if np.float32(short) == np.float32(v) else "%.9g" % v
        short = "%.15g" % v
        return short if float(short) == float(v) else "%.17g" % v
    return str(v)


def summarize_tensor(a, summarize=3, depth=0):
    """A tensor as TF's string formatting writes it: [1 2 ... 9 10] (summarize items each side)."""
    if a.ndim == 0:
        return _scalar_text(a[()])
    n = a.shape[0]
    cut = 0 <= summarize < n and n > 2 * summarize
    rows = list(range(summarize)) + [None] + list(range(n - summarize, n)) if cut else list(range(n))
    if a.ndim == 1:
        return "[" + " ".join("..." if i is None else _scalar_text(a[i]) for i in rows) + "]"
    sep = "\n" * (a.ndim - 1) + " " * (depth + 1)
    return "[" + sep.join("..." if i is None else summarize_tensor(a[i], summarize, depth + 1) for i in rows) + "]"





def _format(session, op, inputs):
    parts = op.attrs["template"].split(op.attrs["placeholder"])
    texts = [summarize_tensor(np.asarray(x), op.attrs["summarize"]) for x in inputs]
    out = parts[0]
    for t, rest in zip(texts, parts[1:]):
        out += t + rest
    return [string_array((), [out.encode("utf-8")])]


register_host_op("StringFormat", lambda s, a, v: [TensorShape([])], lambda d, a: [dt.string], _format)


def string_format(template, inputs, placeholder="{}", summarize=3, name=None):
    """template with each placeholder replaced by the summary of the next tensor of inputs."""
    inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    if template.count(placeholder) != len(inputs):
        raise ValueError("%s placeholder(s) in template does not match %s tensor(s) provided as input"
                         % (template.count(placeholder), len(inputs)))
    tensors = [convert_to_tensor(x) for x in inputs]
    return make_host_op("StringFormat", tensors, {"template": template, "placeholder": placeholder,
                                                  "summarize": int(summarize)}, name=name or "StringFormat").outputs[0]


# ---- UnicodeScript: ICU's script code (UScriptCode) of each code point, from TF 1.15's own table -------------
@functools.lru_cache(maxsize=None)   # read once per process, not at every trace of a UnicodeScript op
def _script_table():
    """(run starts, their scripts): unicode_scripts.json, recorded from TF 1.15 by
    tests/data/make_unicode_scripts.py (every code point of Unicode as TF's ICU classifies it)."""
    import json
    import os
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "unicode_scripts.json")) as f:
        table = json.load(f)
    return np.asarray(table["starts"], np.int32), np.asarray(table["codes"], np.int32)


def _script_lower(attrs, x):
    import jax.numpy as jnp
    starts, codes = _script_table()
    run = jnp.searchsorted(jnp.asarray(starts), x, side="right") - 1
    return jnp.where((x < 0) | (x > 0x10FFFF), -1, jnp.asarray(codes)[jnp.clip(run, 0)]).astype(np.int32)


register_op("UnicodeScript", shape=lambda s, a, v: [s[0]], dtype=lambda d, a: [dt.int32], grad=None,
            lower=_script_lower)


def unicode_script(input, name=None):
    """ICU's script code (UScriptCode: 0 Common, 1 Inherited, 3 Arabic, 8 Cyrillic, 17 Han, 25 Latin, ...)
    of each int32 code point; -1 for a value that is no code point."""
    x = convert_to_tensor(input, name="input")
    if x.dtype != dt.int32:
        raise TypeError("Input 'input' of 'UnicodeScript' Op has type %s that does not match expected type of "
                        "int32." % x.dtype.name)
    return make_op("UnicodeScript", [x], name=name or "UnicodeScript")


# ---- SparseCross: every combination of one feature per input in each row (TF's SparseCrossOp) ----------------
def _fingerprint_cat64(fp1, fp2):
    """TF's FingerprintCat64 (tensorflow/core/platform/fingerprint.h)."""
    mul = 0xc6a4a7935bd1e995
    shift_mix = lambda v: v ^ (v >> 47)   # noqa: E731
    result = fp1 ^ mul
    result ^= (shift_mix((fp2 * mul) & _M64) * mul) & _M64
    result = (result * mul) & _M64
    return shift_mix((shift_mix(result) * mul) & _M64)


def _cross(session, op, inputs):
    import itertools
    from tinyflow.ops.string_ops import _fingerprint64
    n_sparse, hashed = op.attrs["n_sparse"], op.attrs["hashed_output"]
    rows = []   # per input: the features (bytes) of each row
    for k in range(n_sparse):
        indices, values, shape = inputs[k], inputs[n_sparse + k], inputs[2 * n_sparse + k]
        feats = [[] for _ in range(int(shape[0]))]
        for (b, _), v in zip(indices, values):
            feats[b].append(v)
        rows.append(feats)
    rows += [list(dense) for dense in inputs[3 * n_sparse:]]
    batch = len(rows[0]) if rows else 0
    as_bytes = lambda v: v if isinstance(v, bytes) else str(int(v)).encode()   # noqa: E731
    fp = _fingerprint64() if hashed else None
    indices, values = [], []
    for b in range(batch):
        for j, combo in enumerate(itertools.product(*[r[b] for r in rows])):
            indices.append((b, j))
            if not hashed:
                values.append(b"_X_".join(as_bytes(v) for v in combo))
                continue
            h = op.attrs["hash_key"]
            for v in combo:
                h = _fingerprint_cat64(h, fp(v) if isinstance(v, bytes) else int(v) & _M64)
            n = op.attrs["num_buckets"]
            values.append(h % n if n > 0 else h % (2 ** 63 - 1))
    width = max([j + 1 for _, j in indices] or [0])
    indices = np.array(indices, np.int64).reshape(-1, 2)
    values = np.array(values, np.int64) if hashed else string_array((len(values),), values)
    return [indices, values, np.array([batch, width], np.int64)]


register_host_op("SparseCross", lambda s, a, v: [TensorShape([None, 2]), TensorShape([None]), TensorShape([2])],
                 lambda d, a: [dt.int64, dt.int64 if a["hashed_output"] else dt.string, dt.int64], _cross)


def sparse_cross(inputs, hashed_output=False, num_buckets=0, hash_key=None, name=None):
    """The SparseTensor [batch, crosses] of every combination of one feature of each input per row (the
    last input's feature varying fastest): their strings joined by "_X_" (integers in decimal), or, hashed,
    FingerprintCat64 chained from hash_key over each feature's Fingerprint64 (strings; an integer is its
    own hash) modulo num_buckets. The inputs: SparseTensors and dense [batch, k] Tensors, int64 or string."""
    from tinyflow.ops.sparse import SparseTensor
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("Inputs must be a list")
    sparse = [t for t in inputs if isinstance(t, SparseTensor)]
    dense = [convert_to_tensor(t, name="dense_inputs") for t in inputs if not isinstance(t, SparseTensor)]
    for t in [s.values for s in sparse] + dense:
        if t.dtype not in (dt.int64, dt.string):
            raise TypeError("SparseCross takes int64 or string features, got %s (%s)" % (t.dtype.name, t.name))
    attrs = {"n_sparse": len(sparse), "hashed_output": bool(hashed_output), "num_buckets": int(num_buckets),
             "hash_key": int(0xDECAFCAFFE if hash_key is None else hash_key)}
    op = make_host_op("SparseCross", [s.indices for s in sparse] + [s.values for s in sparse] +
                      [s.dense_shape for s in sparse] + dense, attrs, name=name or "SparseCross")
    return SparseTensor(*op.outputs)
