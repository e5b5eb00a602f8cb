"""String ops (tf.strings.*, tf.as_string, tf.string_to_number, ...): computed on the host.

Each op is a host op (ops/host_ops.py): a numpy/Python rule over object arrays of bytes, run by the
Session's host stage before the jitted step. Shapes and dtypes are known when the graph is built,
as in TF; values are checked when the op runs, with TF's InvalidArgumentError messages.
"""
import base64
import codecs
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
# encoding="utf-8": ICU's full case mapping of the decoded text, a bad byte sequence becoming U+FFFD
_upper = _elementwise("StringUpper", lambda op, s: s.decode("utf-8", "replace").upper().encode("utf-8")
                      if op.attrs.get("encoding") == "utf-8" else s.upper())
_lower = _elementwise("StringLower", lambda op, s: s.decode("utf-8", "replace").lower().encode("utf-8")
                      if op.attrs.get("encoding") == "utf-8" else s.lower())
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


def is_trail_byte(c):
    """A UTF-8 continuation byte (10xxxxxx): TF's UTF8_CHAR units start at every other byte, valid or not."""
    return (c & 0xC0) == 0x80


def _length(op, s):
    if op.attrs["unit"] == "UTF8_CHAR":
        return sum(not is_trail_byte(c) for c in s)
    return len(s)


_length_op = _elementwise("StringLength", _length, out=dt.int32)


def length(input, name=None, unit="BYTE"):
    """tf.strings.length: bytes per string (unit='UTF8_CHAR': characters), int32."""
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError("unit must be one of BYTE, UTF8_CHAR, got %r" % (unit,))
    return _length_op(input, name=name, unit=unit)


_B64_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def _b64_decode(op, s):
    """TF's Base64Decode: web-safe characters only; "=" padding only in a last group of four."""
    s = bytes(s)
    body, tail = s[:(len(s) - 1) // 4 * 4], s[(len(s) - 1) // 4 * 4:]
    if len(tail) == 4:
        tail = tail[:2] if tail[2:] == b"==" else tail[:3] if tail[3:] == b"=" else tail
    if not set(body) <= _B64_CHARS:
        raise _bad(op, "Invalid character found in base64.")
    if len(tail) == 1:
        raise _bad(op, "Base64 string length cannot be 1 modulo 4.")
    if not set(tail) <= _B64_CHARS:
        raise _bad(op, "Invalid character found in base64.")
    return base64.urlsafe_b64decode(body + tail + b"=" * (-len(tail) % 4))


_encode_b64 = _elementwise("EncodeBase64", lambda op, s: base64.urlsafe_b64encode(s).rstrip(
    b"" if op.attrs["pad"] else b"="))
_decode_b64 = _elementwise("DecodeBase64", _b64_decode)


def encode_base64(input, pad=False, name=None):
    """tf.io.encode_base64: web-safe base64 (no padding unless pad)."""
    return _encode_b64(input, name=name, pad=bool(pad))


def decode_base64(input, name=None):
    """tf.io.decode_base64: the inverse of encode_base64."""
    return _decode_b64(input, name=name)


# ---- regular expressions: RE2's semantics (TF's) over Python's re ---------------------------------------
# RE2 matches UTF-8 text rune by rune: "." and negated classes never match a byte that is no valid UTF-8
# (an encoded surrogate is a rune to RE2), \d \s \w are ASCII, and a global replace allows no empty match
# where the previous match ended. The text is decoded to str with each invalid byte as U+DC80..U+DCFF
# (surrogateescape's code points, which the translated pattern excludes) and encoded back the same way.
def _re2_errors(e):
    if isinstance(e, UnicodeDecodeError):
        b = e.object[e.start:e.start + 3]
        if len(b) == 3 and b[0] == 0xED and 0xA0 <= b[1] <= 0xBF and is_trail_byte(b[2]):   # a surrogate: a rune
            return b.decode("utf-8", "surrogatepass"), e.start + 3
        return chr(0xDC00 + e.object[e.start]), e.start + 1
    text = e.object[e.start:e.end]
    return b"".join(bytes([ord(c) - 0xDC00]) if 0xDC80 <= ord(c) <= 0xDCFF else c.encode("utf-8", "surrogatepass")
                    for c in text), e.end


codecs.register_error("tinyflow_re2", _re2_errors)
_BAD_BYTES = "\udc80-\udcff"
_CLASSES = {"d": "0-9", "s": "\t\n\f\r ", "w": "0-9A-Za-z_"}
_POSIX = {"alpha": "A-Za-z", "digit": "0-9", "alnum": "0-9A-Za-z", "upper": "A-Z", "lower": "a-z",
          "space": "\t\n\v\f\r ", "xdigit": "0-9A-Fa-f", "word": "0-9A-Za-z_", "blank": "\t ",
          "punct": "!-/:-@\\[-`{-~", "cntrl": "\x00-\x1f\x7f", "print": " -~", "graph": "!-~"}


def _re2_pattern(pattern):
    """An RE2 pattern (bytes) as a Python str pattern with RE2's ASCII classes and UTF-8 "."."""
    p = bytes(pattern).decode("utf-8", "surrogateescape")
    dot = "[^%s]" % _BAD_BYTES if "(?s" in p else "[^\n%s]" % _BAD_BYTES
    out, i, in_class = [], 0, False
    while i < len(p):
        c = p[i]
        if c == "\\" and i + 1 < len(p):
            e = p[i + 1]
            if e.lower() in _CLASSES:
                inner = _CLASSES[e.lower()]
                out.append(inner if in_class and e.islower() else "[%s]" % inner if e.islower() else
                           "[^%s%s]" % (inner, _BAD_BYTES))
            else:
                out.append(p[i:i + 2])
            i += 2
            continue
        if in_class and p.startswith("[:", i) and p.find(":]", i) > 0 and p[i + 2:p.find(":]", i)] in _POSIX:
            out.append(_POSIX[p[i + 2:p.find(":]", i)]])     # [[:alpha:]]: RE2's ASCII classes
            i = p.find(":]", i) + 2
            continue
        if in_class:
            out.append(c)
            in_class = c != "]"
        elif c == "[":
            neg = p[i + 1:i + 2] == "^"
            out.append("[^" + _BAD_BYTES if neg else "[")
            i += 1 + neg
            if p[i:i + 1] == "]":    # a leading "]" is a literal
                out.append("\\]")
                i += 1
            in_class = True
            continue
        else:   # RE2's "$" is the end of the text (Python's also matches before a final newline)
            out.append(dot if c == "." else "\\Z" if c == "$" and "(?m" not in p else c)
        i += 1
    return "".join(out)


def _compile(op, pattern):
    try:
        return re.compile(_re2_pattern(pattern))
    except re.error as e:
        raise _bad(op, "Invalid pattern: %s, error: %s" % (bytes(pattern).decode("utf-8", "replace"), e)) from None


def _rewrite(op, rewrite, groups):
    """RE2's rewrite (\\0..\\9, \\\\) as pieces: text or a group number."""
    pieces, text, i = [], rewrite.decode("utf-8", "tinyflow_re2"), 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text) and text[i + 1].isdigit():
            n = int(text[i + 1])
            if n > groups:
                raise _bad(op, "Invalid rewrite pattern: %s" % rewrite.decode("utf-8", "replace"))
            pieces.append(n)
            i += 2
        elif c == "\\" and text[i + 1:i + 2] == "\\":
            pieces.append("\\")
            i += 2
        else:
            pieces.append(c)
            i += 1
    return lambda m: "".join(p if isinstance(p, str) else (m.group(p) or "") for p in pieces)


def _re2_replace(rx, repl, text, replace_global):
    """RE2::GlobalReplace (or Replace): no empty match where the last match ended."""
    out, pos, last_end, count = [], 0, -1, 0
    while pos <= len(text):
        m = rx.search(text, pos)
        if m is None:
            break
        out.append(text[pos:m.start()])
        if m.start() == m.end() == last_end:    # skip one rune (an invalid byte: one byte)
            out.append(text[pos:pos + 1])
            pos += 1
            continue
        out.append(repl(m))
        pos = last_end = m.end()
        count += 1
        if not replace_global:
            break
    return None if count == 0 else "".join(out) + text[pos:]


def _regex_replace(session, op, inputs):
    a, pattern, rewrite = inputs
    rx = _compile(op, pattern[()] if np.ndim(pattern) == 0 else pattern)
    repl = _rewrite(op, bytes(rewrite[()]), rx.groups)

    def one(s):
        out = _re2_replace(rx, repl, bytes(s).decode("utf-8", "tinyflow_re2"), op.attrs["replace_global"])
        return s if out is None else out.encode("utf-8", "tinyflow_re2")
    return [bytes_map(one, a)]


def _regex_full_match(session, op, inputs):
    a, pattern = inputs
    rx = _compile(op, pattern[()])
    return [np.array([rx.fullmatch(bytes(s).decode("utf-8", "tinyflow_re2")) is not None for s in a.reshape(-1)],
                     bool).reshape(a.shape)]


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
    moved = np.transpose(a, keep + list(axes)).reshape([a.shape[i] for i in keep] +
                                                       [int(np.prod([a.shape[i] for i in axes]))])
    sep = op.attrs["separator"]
    out = string_array(moved.shape[:-1], (sep.join(row) for row in moved.reshape(
        int(np.prod(moved.shape[:-1])), moved.shape[-1])))
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
def _forward(s, n, pos):
    """TF's ForwardNUTF8CharPositions: (position n characters on, whether there were n)."""
    count = 0
    while count < n and pos < len(s):
        pos += 1
        while pos < len(s) and is_trail_byte(s[pos]):
            pos += 1
        count += 1
    return pos, count == n


def _back(s, n, pos):
    """TF's BackNUTF8CharPositions."""
    count = 0
    while count < n and pos > 0:
        pos -= 1
        while pos > 0 and is_trail_byte(s[pos]):
            pos -= 1
        count += 1
    return pos, count == n


def _substr_bytes(s, p, n, utf8):
    """(start, end) bytes of TF's Substr, or None where pos is out of range (TF's substr_op.cc). A negative
    len: to the end in BYTE units (TF's size_t conversion), none in UTF8_CHAR units (from a negative pos: out
    of range)."""
    if not utf8:
        if abs(p) > len(s):
            return None
        p = p + len(s) if p < 0 else p
        return p, len(s) if n < 0 else min(len(s), p + n)
    if p >= 0:
        start, ok = _forward(s, p, 0)
        return (start, _forward(s, n, start)[0]) if ok else None
    skip = max(-p - n, 0)       # characters after the substring
    end, ok = _back(s, skip, len(s))
    start, ok2 = _back(s, -p - skip, end)
    return (start, end) if ok and ok2 else None


def _substr(session, op, inputs):
    a, pos, ln = inputs
    utf8 = op.attrs["unit"] == "UTF8_CHAR"
    shape = np.broadcast_shapes(a.shape, np.shape(pos), np.shape(ln))
    flat = zip(np.broadcast_to(a, shape).reshape(-1), np.broadcast_to(pos, shape).reshape(-1),
               np.broadcast_to(ln, shape).reshape(-1))
    out = []
    for i, (s, p, n) in enumerate(flat):
        span = _substr_bytes(bytes(s), int(p), int(n), utf8)
        if span is None:
            raise _bad(op, "pos %d out of range for string b'%s' at index %d" % (p, s.decode("latin-1"), i))
        out.append(s[span[0]:span[1]])
    return [string_array(shape, out)]


register_host_op("Substr", lambda s, a, v: [s[0]], _STRING, _substr)


def substr(input, pos, len, name=None, unit="BYTE"):
    """tf.strings.substr: `len` bytes (unit='UTF8_CHAR': characters) from `pos` (negative: from the end)."""
    pos_t = pos if getattr(pos, "dtype", None) is dt.int64 else convert_to_tensor(pos, dt.int32)
    len_t = convert_to_tensor(len, pos_t.dtype)     # TF's T: int32 or int64, the same for both
    return make_host_op("Substr", [as_strings(input), pos_t, len_t], {"unit": unit}, name=name or "Substr").outputs[0]


# ---- numbers <-> strings --------------------------------------------------------------------------
# TF's safe_strto* (whitespace around; an integer takes no "+"; floats: "inf" and "nan" but not "infinity")
_NUMBER = re.compile(rb"\s*[-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?|inf|nan|0[xX][0-9a-fA-F]+)\s*",
                     re.IGNORECASE)
_INT = re.compile(rb"\s*-?\d+\s*")


def parse_number(s, out):
    """The number of dtype `out` string s holds as TF's safe_strto32/64/strtof/strtod read it, or None."""
    v = None
    if out.is_integer and _INT.fullmatch(s):
        v = int(s)
        if not out.min <= v <= out.max:
            v = None
    elif out.is_floating and _NUMBER.fullmatch(s):
        t = s.strip()
        hexa = t.lower().lstrip(b"+-").startswith(b"0x")
        v = (-1 if t.startswith(b"-") else 1) * float(int(t.lstrip(b"+-"), 16)) if hexa else float(t)
    return v


def _to_number(session, op, inputs):
    out = op.attrs["out_type"]
    a = inputs[0]
    vals = []
    for s in a.reshape(-1):
        v = parse_number(bytes(s), out)
        if v is None:
            raise _bad(op, "StringToNumberOp could not correctly convert string: %s" % s.decode("utf-8", "replace"))
        vals.append(v)
    with np.errstate(over="ignore"):    # "1e39" as float32: inf, as TF's strtof
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


_FILLS = ("", " ", "+", "-", "0", "#")


def _as_string(session, op, inputs):
    a = inputs[0]
    at = op.attrs
    if a.dtype.kind == "b":
        return [bytes_map(lambda v: b"true" if v else b"false", a.astype(object))]
    width = str(at["width"]) if at["width"] > -1 else ""
    if a.dtype.kind in "fc":
        kind = "e" if at["scientific"] else ("g" if at["shortest"] else "f")
        prec = ".%d" % at["precision"] if at["precision"] > -1 else ""
        fmt = "%" + at["fill"] + width + prec + kind
        spaced = "%" + at["fill"].replace("0", "") + width + prec + kind

        def text(v):   # C's printf: nan and inf are never zero-padded, a NaN with its sign bit is "-nan"
            v = float(v)
            if np.isfinite(v):
                return fmt % v
            return (spaced % -np.inf).replace("inf", "nan") if np.isnan(v) and np.signbit(v) else spaced % v
        if a.dtype.kind == "c":
            flat = ["(%s,%s)" % (text(v.real), text(v.imag)) for v in a.reshape(-1)]
        else:
            flat = [text(v) for v in a.reshape(-1)]
    else:
        flat = [("%" + at["fill"] + width + "d") % int(v) for v in a.reshape(-1)]
    return [string_array(a.shape, [t.encode("ascii") for t in flat])]


register_host_op("AsString", _SAME_SHAPE, _STRING, _as_string)


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):
    """tf.as_string / tf.strings.as_string: numbers and bools as strings, printf-style (%f, %e, %g, %d;
    complex numbers as "(re,im)")."""
    x = convert_to_tensor(input)
    if x.dtype is dt.string:
        raise TypeError("Value passed to parameter 'input' has DataType string not in list of allowed values: "
                        "int8, int16, int32, int64, complex64, complex128, float32, float64, bool")
    if scientific and shortest:
        raise ValueError("Cannot select both scientific and shortest notation")
    if fill and len(fill) > 1:
        raise ValueError("Fill string must be one or fewer characters")
    if not (x.dtype.is_floating or x.dtype.is_complex):   # TF's kernel refuses these (InvalidArgumentError)
        if scientific or shortest:
            raise errors.InvalidArgumentError(None, None, "scientific and shortest format not supported for "
                                              "datatype %s" % x.dtype.name)
        if precision > -1:
            raise errors.InvalidArgumentError(None, None, "precision not supported for datatype %s" % x.dtype.name)
    if fill not in _FILLS:
        raise errors.InvalidArgumentError(None, None, 'Fill argument not supported: "%s"' % fill)
    attrs = {"precision": int(precision), "scientific": bool(scientific), "shortest": bool(shortest),
             "width": int(width), "fill": fill}
    return make_host_op("AsString", [x], attrs, name=name or "AsString").outputs[0]


# ---- split ----------------------------------------------------------------------------------------
def _split_whitespace(s, maxsplit):
    """TF's SplitV2 without sep: runs of whitespace; maxsplit 0 keeps the string whole, and past maxsplit
    the rest (its leading whitespace removed, empty or not) is the last piece."""
    if maxsplit == 0:
        return [s]
    parts, rest = [], s.lstrip()
    while rest:
        token = rest.split(None, 1)[0]
        parts.append(token)
        rest = rest[len(token):].lstrip()
        if len(parts) == maxsplit:
            return parts + [rest]
    return parts


def _split_one(s, d, attrs):
    if attrs.get("whitespace"):
        return _split_whitespace(s, attrs.get("maxsplit", -1))
    if d == b"":
        return [bytes([c]) for c in s]
    if attrs["any_char"]:
        return re.split(b"[" + re.escape(d) + b"]", s) if s else []
    return s.split(d, attrs.get("maxsplit", -1))


def _split(session, op, inputs):
    """(indices, values, dense_shape, row_splits) of each string's pieces: indices [string, piece] over the
    flattened strings, or with attr nd, the string's own index in the input's shape."""
    a, delim = inputs
    d = delim[()] if np.ndim(delim) == 0 else delim
    nd = op.attrs.get("nd", False)
    indices, values, width, splits = [], [], 0, [0]
    for i, (where, s) in enumerate(zip(np.ndindex(*a.shape), a.reshape(-1))):
        parts = _split_one(bytes(s), d, op.attrs)
        if op.attrs["skip_empty"]:
            parts = [p for p in parts if p]
        indices.extend((where if nd else (i,)) + (j,) for j in range(len(parts)))
        values.extend(parts)
        width = max(width, len(parts))
        splits.append(len(values))
    idx = np.array(indices, np.int64).reshape(-1, (a.ndim if nd else 1) + 1)
    shape = (list(a.shape) if nd else [a.size]) + [width]
    return [idx, string_array((len(values),), values), np.array(shape, np.int64), np.array(splits, np.int64)]


def _split_shapes(s, a, v):
    rank = (s[0].ndims if a.get("nd") else 1) if s[0].ndims is not None else None
    return [TensorShape([None, None if rank is None else rank + 1]), TensorShape([None]),
            TensorShape([None if rank is None else rank + 1]), TensorShape([None])]


register_host_op("StringSplit", _split_shapes, lambda d, a: [dt.int64, dt.string, dt.int64, dt.int64], _split)


def split_op(source, delimiter, attrs, name):
    """The StringSplit op of `source`: (indices, values, dense_shape, row_splits)."""
    return make_host_op("StringSplit", [source, as_strings(delimiter)], attrs, name=name or "StringSplit").outputs


def string_split(source, delimiter=" ", skip_empty=True, sep=None, name=None):
    """tf.string_split: splits each string of the vector `source` at any character of `delimiter`
    (each byte when empty); a SparseTensor of strings with dense_shape [len(source), longest]."""
    delimiter = sep if sep is not None else delimiter
    src = as_strings(source)
    if src.shape.ndims not in (None, 1):
        raise ValueError("Shape must be rank 1 but is rank %d for 'StringSplit' (op: 'StringSplit')"
                         % src.shape.ndims)
    return SparseTensor(*split_op(src, delimiter, {"skip_empty": bool(skip_empty), "any_char": True}, name)[:3])


def split(source, sep=None, maxsplit=-1, name=None, input=None):
    """tf.strings.split's SparseTensor result: sep=None splits at runs of whitespace, else at each
    occurrence of the string `sep`, at most maxsplit times (-1: no limit); indices of rank(source) + 1."""
    src = as_strings(source if input is None else input)
    attrs = {"skip_empty": False, "any_char": False, "whitespace": sep is None, "maxsplit": int(maxsplit), "nd": True}
    return SparseTensor(*split_op(src, "" if sep is None else sep, attrs, name)[:3])


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
