"""String ops (tf.strings.*, tf.as_string, tf.string_to_number, ...): computed on the host.

Each op is a host op (ops/host_ops.py): a numpy/Python rule over object arrays of bytes, run by the
Session's host stage before the jitted step. Shapes and dtypes are known when the graph is built,
as in TF; values are checked when the op runs, with TF's InvalidArgumentError messages.
"""
import base64
import re

import numpy as np

from tinyflow.graph import errors
from tinyflow.graph import dtypes as dt
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core.base import broadcast_shapes, convert_to_tensor
from tinyflow.ops.host_ops import bytes_map, make_host_op, register_host_op, string_array
from tinyflow.ops.sparse import SparseTensor

_STRING = lambda d, a: [dt.string]  # noqa: E731
_SAME_SHAPE = lambda s, a, v: [s[0]]  # noqa: E731


def as_strings(x, name="input"):
    t = convert_to_tensor(x, dtype=dt.string) if not hasattr(x, "dtype") or x.dtype is not dt.string else x
    if t.dtype is not dt.string:
        raise TypeError("Input '%s' expected type string, got %s" % (name, t.dtype.name))
    return t


def _bad(op, msg):
    return errors.InvalidArgumentError(op.node_def, op, msg)


def _elementwise(op_type, fn, out=dt.string, attrs_fn=None):
    """Registers a one-input elementwise string op; returns its builder."""
    def rule(session, op, inputs):
        a = inputs[0]
        if out is dt.string:
            return [bytes_map(lambda s: fn(op, s), a)]
        flat = [fn(op, s) for s in a.reshape(-1)]
        return [np.array(flat, dtype=out.np).reshape(a.shape)]
    register_host_op(op_type, _SAME_SHAPE, lambda d, a: [out], rule)

    def build(input, name=None, **kw):
        return make_host_op(op_type, [as_strings(input)], kw, name=name or op_type).outputs[0]
    return build


# ---- case, strip, length, base64 -----------------------------------------------------------------
_upper = _elementwise("StringUpper", lambda op, s: s.decode("utf-8", "surrogateescape").upper().encode(
    "utf-8", "surrogateescape") if op.attrs.get("encoding") == "utf-8" else s.upper())
_lower = _elementwise("StringLower", lambda op, s: s.decode("utf-8", "surrogateescape").lower().encode(
    "utf-8", "surrogateescape") if op.attrs.get("encoding") == "utf-8" else s.lower())
_strip = _elementwise("StringStrip", lambda op, s: s.strip(b" \t\n\r\v\f"))


def upper(input, encoding="", name=None):
    """tf.strings.upper: ASCII upper case (encoding='utf-8': Unicode)."""
    return _upper(input, name=name, encoding=encoding.lower())


def lower(input, encoding="", name=None):
    """tf.strings.lower: ASCII lower case (encoding='utf-8': Unicode)."""
    return _lower(input, name=name, encoding=encoding.lower())


def strip(input, name=None):
    """tf.strings.strip: leading and trailing whitespace removed."""
    return _strip(input, name=name)


def _length(op, s):
    if op.attrs["unit"] == "UTF8_CHAR":
        return len(s.decode("utf-8", "replace"))
    return len(s)


_length_op = _elementwise("StringLength", _length, out=dt.int32)


def length(input, name=None, unit="BYTE"):
    """tf.strings.length: bytes per string (unit='UTF8_CHAR': characters), int32."""
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError("unit must be one of BYTE, UTF8_CHAR, got %r" % (unit,))
    return _length_op(input, name=name, unit=unit)


def _b64_decode(op, s):
    try:
        return base64.urlsafe_b64decode(s + b"=" * (-len(s) % 4))
    except Exception:
        raise _bad(op, "Invalid character found in base64.") from None


_encode_b64 = _elementwise("EncodeBase64", lambda op, s: base64.urlsafe_b64encode(s).rstrip(
    b"" if op.attrs["pad"] else b"="))
_decode_b64 = _elementwise("DecodeBase64", _b64_decode)


def encode_base64(input, pad=False, name=None):
    """tf.io.encode_base64: web-safe base64 (no padding unless pad)."""
    return _encode_b64(input, name=name, pad=bool(pad))


def decode_base64(input, name=None):
    """tf.io.decode_base64: the inverse of encode_base64."""
    return _decode_b64(input, name=name)


# ---- regular expressions --------------------------------------------------------------------------
def _re2_template(rewrite):
    """RE2's rewrite (\\1, \\\\) as Python's (\\g<1>)."""
    return re.sub(rb"\\(\d)", rb"\\g<\1>", rewrite)


def _regex_replace(session, op, inputs):
    a, pattern, rewrite = inputs
    rx = re.compile(bytes(pattern[()]) if np.ndim(pattern) == 0 else pattern)
    tmpl = _re2_template(rewrite[()])
    count = 0 if op.attrs["replace_global"] else 1
    return [bytes_map(lambda s: rx.sub(tmpl, s, count=count), a)]


def _regex_full_match(session, op, inputs):
    a, pattern = inputs
    rx = re.compile(pattern[()])
    return [np.array([rx.fullmatch(s) is not None for s in a.reshape(-1)], bool).reshape(a.shape)]


register_host_op("RegexReplace", _SAME_SHAPE, _STRING, _regex_replace)
register_host_op("RegexFullMatch", _SAME_SHAPE, lambda d, a: [dt.bool_], _regex_full_match)


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):
    """tf.strings.regex_replace: `pattern` (RE2 syntax) replaced by `rewrite` (\\1 for groups)."""
    return make_host_op("RegexReplace", [as_strings(input), as_strings(pattern), as_strings(rewrite)],
                        {"replace_global": bool(replace_global)}, name=name or "RegexReplace").outputs[0]


def regex_full_match(input, pattern, name=None):
    """tf.strings.regex_full_match: whether each string matches `pattern` entirely (bool)."""
    return make_host_op("RegexFullMatch", [as_strings(input), as_strings(pattern)],
                        name=name or "RegexFullMatch").outputs[0]


# ---- join and reduce_join -------------------------------------------------------------------------
def _join_shape(shapes, attrs, values):
    out = TensorShape([])
    for s in shapes:
        if s.ndims != 0:
            out = broadcast_shapes(out, s) if out.ndims != 0 else s
            if out.ndims is not None and s.ndims is not None and out.ndims == s.ndims:
                out = out.merge_with(s)
    return [out]


def _join(session, op, inputs):
    sep = op.attrs["separator"]
    shapes = {a.shape for a in inputs if a.ndim}
    if len(shapes) > 1:
        raise _bad(op, "Input shapes do not match: %s vs. %s" % tuple(sorted(shapes))[:2])
    shape = shapes.pop() if shapes else ()
    flat = [np.broadcast_to(a, shape).reshape(-1) for a in inputs]
    return [string_array(shape, (sep.join(parts) for parts in zip(*flat)))]


register_host_op("StringJoin", _join_shape, _STRING, _join)


def string_join(inputs, separator="", name=None):
    """tf.strings.join: the strings of `inputs` (equal shapes or scalars) joined element-wise."""
    ts = [as_strings(x) for x in inputs]
    return make_host_op("StringJoin", ts, {"separator": _as_bytes(separator)}, name=name or "StringJoin").outputs[0]


def _as_bytes(s):
    return s.encode("utf-8") if isinstance(s, str) else bytes(s)


def _reduce_join_shape(shapes, attrs, values):
    s = shapes[0]
    axes = attrs["axis"]
    if s.ndims is None:
        return [TensorShape(None)]
    axes = list(range(s.ndims)) if axes is None else [a % s.ndims for a in axes]
    dims = s.as_list()
    return [TensorShape([1 if i in axes else d for i, d in enumerate(dims)] if attrs["keep_dims"]
                        else [d for i, d in enumerate(dims) if i not in axes])]


def _reduce_join(session, op, inputs):
    a = inputs[0]
    axes = op.attrs["axis"]
    axes = tuple(range(a.ndim)) if axes is None else tuple(x % a.ndim for x in axes)
    keep = [i for i in range(a.ndim) if i not in axes]
    moved = np.transpose(a, keep + list(axes)).reshape([a.shape[i] for i in keep] + [-1])
    sep = op.attrs["separator"]
    out = string_array(moved.shape[:-1], (sep.join(row) for row in moved.reshape(-1, moved.shape[-1])))
    if op.attrs["keep_dims"]:
        out = out.reshape([1 if i in axes else a.shape[i] for i in range(a.ndim)])
    return [out]


register_host_op("ReduceJoin", _reduce_join_shape, _STRING, _reduce_join)


def reduce_join(inputs, axis=None, keep_dims=False, separator="", name=None, reduction_indices=None,
                keepdims=None):
    """tf.strings.reduce_join / tf.reduce_join: strings joined along `axis` (all axes when None)."""
    axis = reduction_indices if axis is None else axis
    keep = keep_dims if keepdims is None else keepdims
    axes = None if axis is None else [int(a) for a in np.atleast_1d(axis)]
    return make_host_op("ReduceJoin", [as_strings(inputs)], {"axis": axes, "keep_dims": bool(keep),
                                                           "separator": _as_bytes(separator)},
                        name=name or "ReduceJoin").outputs[0]


# ---- substr ---------------------------------------------------------------------------------------
def _substr(session, op, inputs):
    a, pos, ln = inputs
    utf8 = op.attrs["unit"] == "UTF8_CHAR"
    shape = np.broadcast_shapes(a.shape, np.shape(pos), np.shape(ln))
    flat = zip(np.broadcast_to(a, shape).reshape(-1), np.broadcast_to(pos, shape).reshape(-1),
               np.broadcast_to(ln, shape).reshape(-1))
    out = []
    for i, (s, p, n) in enumerate(flat):
        u = s.decode("utf-8", "replace") if utf8 else s
        p = int(p)
        if p > len(u) or p < -len(u):
            raise _bad(op, "pos %d out of range for string b'%s' at index %d"
                       % (p, s.decode("latin-1"), i))
        p = p % len(u) if (p < 0 and len(u)) else p
        piece = u[p:p + int(n)]
        out.append(piece.encode("utf-8") if utf8 else piece)
    return [string_array(shape, out)]


register_host_op("Substr", lambda s, a, v: [s[0]], _STRING, _substr)


def substr(input, pos, len, name=None, unit="BYTE"):
    """tf.strings.substr: `len` bytes (unit='UTF8_CHAR': characters) from `pos` (negative: from the end)."""
    pos_t, len_t = convert_to_tensor(pos, dt.int32), convert_to_tensor(len, dt.int32)
    return make_host_op("Substr", [as_strings(input), pos_t, len_t], {"unit": unit}, name=name or "Substr").outputs[0]


# ---- numbers <-> strings --------------------------------------------------------------------------
_NUMBER = re.compile(rb"\s*[-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?|inf|infinity|nan|0[xX][0-9a-fA-F]+)\s*",
                     re.IGNORECASE)
_INT = re.compile(rb"\s*[-+]?\d+\s*")


def _to_number(session, op, inputs):
    out = op.attrs["out_type"]
    a = inputs[0]
    vals = []
    for s in a.reshape(-1):
        v = None
        if out.is_integer and _INT.fullmatch(s):
            v = int(s)
            if not out.min <= v <= out.max:
                v = None
        elif out.is_floating and _NUMBER.fullmatch(s):
            t = s.strip()
            v = float(int(t, 16)) if t.lower().lstrip(b"+-").startswith(b"0x") else float(t)
        if v is None:
            raise _bad(op, "StringToNumberOp could not correctly convert string: %s" % s.decode("utf-8", "replace"))
        vals.append(v)
    return [np.array(vals, dtype=out.np).reshape(a.shape)]


register_host_op("StringToNumber", _SAME_SHAPE, lambda d, a: [a["out_type"]], _to_number)


def string_to_number(string_tensor, out_type=dt.float32, name=None):
    """tf.strings.to_number / tf.string_to_number: parses numbers (InvalidArgumentError when one is not)."""
    out = dt.as_dtype(out_type)
    if out not in (dt.float32, dt.float64, dt.int32, dt.int64):
        raise TypeError("Value passed to parameter 'out_type' has DataType %s not in list of allowed values: "
                        "float32, float64, int32, int64" % out.name)
    return make_host_op("StringToNumber", [as_strings(string_tensor)], {"out_type": out},
                        name=name or "StringToNumber").outputs[0]


def _as_string(session, op, inputs):
    a = inputs[0]
    at = op.attrs
    if a.dtype.kind == "b":
        return [bytes_map(lambda v: b"true" if v else b"false", a.astype(object))]
    flags = (at["fill"] if at["fill"] in ("0", "-", " ", "+") else "")
    width = str(at["width"]) if at["width"] > -1 else ""
    if a.dtype.kind == "f":
        kind = "e" if at["scientific"] else ("g" if at["shortest"] else "f")
        prec = ".%d" % at["precision"] if at["precision"] > -1 else ""
        fmt = "%" + flags + width + prec + kind
        cast = float
    else:
        fmt, cast = "%" + flags + width + "d", int
    flat = [(fmt % cast(v)).encode("ascii") for v in a.reshape(-1)]
    return [string_array(a.shape, flat)]


register_host_op("AsString", _SAME_SHAPE, _STRING, _as_string)


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):
    """tf.as_string / tf.strings.as_string: numbers and bools as strings, printf-style (%f, %d)."""
    x = convert_to_tensor(input)
    if x.dtype is dt.string:
        raise TypeError("Value passed to parameter 'input' has DataType string not in list of allowed values: "
                        "int8, int16, int32, int64, complex64, complex128, float32, float64, bool")
    if scientific and shortest:
        raise ValueError("Cannot select both scientific and shortest notation")
    if fill and len(fill) > 1:
        raise ValueError("Fill string must be one or fewer characters")
    attrs = {"precision": int(precision), "scientific": bool(scientific), "shortest": bool(shortest),
             "width": int(width), "fill": fill}
    return make_host_op("AsString", [x], attrs, name=name or "AsString").outputs[0]


# ---- split ----------------------------------------------------------------------------------------
def _split(session, op, inputs):
    a, delim = inputs
    d = delim[()] if np.ndim(delim) == 0 else delim
    skip = op.attrs["skip_empty"]
    indices, values, width = [], [], 0
    for i, s in enumerate(a.reshape(-1)):
        if op.attrs.get("whitespace"):
            parts = s.split()
        elif d == b"":
            parts = [bytes([c]) for c in s]
        elif op.attrs["any_char"]:
            parts = re.split(b"[" + re.escape(d) + b"]", s) if s else []
        else:
            parts = s.split(d) if s else []
        if skip:
            parts = [p for p in parts if p]
        for j, p in enumerate(parts):
            indices.append((i, j))
            values.append(p)
        width = max(width, len(parts))
    idx = np.array(indices, np.int64).reshape(-1, 2)
    return [idx, string_array((len(values),), values), np.array([a.size, width], np.int64)]


register_host_op("StringSplit", lambda s, a, v: [TensorShape([None, 2]), TensorShape([None]), TensorShape([2])],
                 lambda d, a: [dt.int64, dt.string, dt.int64], _split)


def string_split(source, delimiter=" ", skip_empty=True, sep=None, name=None):
    """tf.string_split: splits each string of the vector `source` at any character of `delimiter`
    (each byte when empty); a SparseTensor of strings with dense_shape [len(source), longest]."""
    delimiter = sep if sep is not None else delimiter
    src = as_strings(source)
    if src.shape.ndims not in (None, 1):
        raise ValueError("Shape must be rank 1 but is rank %d for 'StringSplit' (op: 'StringSplit')"
                         % src.shape.ndims)
    op = make_host_op("StringSplit", [src, as_strings(delimiter)], {"skip_empty": bool(skip_empty),
                                                                  "any_char": True}, name=name or "StringSplit")
    return SparseTensor(*op.outputs)


def split(source, sep=None, maxsplit=-1, name=None, input=None):
    """tf.strings.split (TF 1.15, without ragged tensors): a SparseTensor; sep=None splits at runs
    of whitespace, else at each occurrence of the string `sep`."""
    src = as_strings(source if input is None else input)
    op = make_host_op("StringSplit", [src, as_strings("" if sep is None else sep)],
                      {"skip_empty": False, "any_char": False, "whitespace": sep is None}, name=name or "StringSplit")
    return SparseTensor(*op.outputs)


# ---- hash buckets ---------------------------------------------------------------------------------
def _fingerprint64():
    """TF's Fingerprint64 (FarmHash) from the optional pyfarmhash package, as feature_column's string hashes."""
    try:
        import farmhash
    except ImportError:
        raise errors.UnimplementedError(None, None, "tf.strings.to_hash_bucket_fast needs TF's FarmHash "
                                        "Fingerprint64: pip install pyfarmhash") from None
    return farmhash.fingerprint64


def _hash_bucket(session, op, inputs):
    fp, n = _fingerprint64(), op.attrs["num_buckets"]
    return [np.array([fp(bytes(s)) % n for s in inputs[0].reshape(-1)], np.int64).reshape(inputs[0].shape)]


register_host_op("StringToHashBucketFast", _SAME_SHAPE, lambda d, a: [dt.int64], _hash_bucket)


def string_to_hash_bucket_fast(input, num_buckets, name=None):
    """tf.strings.to_hash_bucket_fast: Fingerprint64(s) % num_buckets (int64), TF's buckets."""
    if int(num_buckets) < 1:
        raise ValueError("num_buckets must be >= 1, got %d" % num_buckets)
    return make_host_op("StringToHashBucketFast", [as_strings(input)], {"num_buckets": int(num_buckets)},
                        name=name or "StringToHashBucketFast").outputs[0]
