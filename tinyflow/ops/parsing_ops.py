"""Parsing ops: tf.decode_raw, tf.decode_csv, tf.parse_example / parse_single_example. Host ops.

Each parses strings on the host (ops/host_ops.py) into numbers the jitted step can consume.
Static shapes are TF's: decode_csv's outputs have the records' shape, decode_raw appends one
unknown dimension, a FixedLenFeature gives [batch] + its shape.
"""
import collections
import csv

import numpy as np

from tinyflow.graph import errors
from tinyflow.graph import dtypes as dt
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.host_ops import make_host_op, register_host_op, string_array
from tinyflow.ops.sparse import SparseTensor
from tinyflow.ops.string_ops import as_strings

_TF_NAME = {"float32": "float", "float64": "double"}


def _bad(op, msg):
    return errors.InvalidArgumentError(op.node_def, op, msg)


# ---- decode_raw -----------------------------------------------------------------------------------
def _decode_raw(session, op, inputs):
    a = inputs[0]
    out = op.attrs["out_type"]
    size = out.np.itemsize
    dtype = out.np.newbyteorder("<" if op.attrs["little_endian"] else ">")
    flat = list(a.reshape(-1))
    width = None
    rows = []
    for i, s in enumerate(flat):
        if len(s) % size:
            raise _bad(op, "Input to DecodeRaw has length %d that is not a multiple of %d, the size of %s"
                       % (len(s), size, out.name))
        if width is not None and len(s) != width:
            raise _bad(op, "DecodeRaw requires input strings to all be the same size, but element %d has size "
                       "%d != %d" % (i, width, len(s)))
        width = len(s)
        rows.append(np.frombuffer(s, dtype).astype(out.np))
    n = (width or 0) // size
    return [np.array(rows, out.np).reshape(a.shape + (n,))]


register_host_op("DecodeRaw", lambda s, a, v: [s[0].concatenate(TensorShape([None])) if s[0].ndims is not None
                                               else TensorShape(None)],
                 lambda d, a: [a["out_type"]], _decode_raw)


def decode_raw(input_bytes=None, out_type=None, little_endian=True, name=None, bytes=None):
    """tf.decode_raw / tf.io.decode_raw: the bytes of each string as numbers of `out_type` (one more
    dimension, the same length for every string)."""
    x = as_strings(input_bytes if input_bytes is not None else bytes)
    out = dt.as_dtype(out_type)
    return make_host_op("DecodeRaw", [x], {"out_type": out, "little_endian": bool(little_endian)},
                        name=name or "DecodeRaw").outputs[0]


# ---- decode_csv -----------------------------------------------------------------------------------
def _parse_field(op, text, d, col, rec):
    if d is dt.string:
        return text.encode("utf-8", "surrogateescape")
    from tinyflow.ops.string_ops import parse_number
    v = parse_number(text.encode("utf-8", "surrogateescape"), d)
    if v is None:
        raise _bad(op, "Field %d in record %d is not a valid %s: %s" % (col, rec, _TF_NAME.get(d.name, d.name), text))
    return v


def _decode_csv(session, op, inputs):
    records, defaults = inputs[0], inputs[1:]
    at = op.attrs
    types, cols = at["types"], at["select_cols"]
    na = at["na_value"]
    columns = [[] for _ in types]
    for r, rec in enumerate(records.reshape(-1)):
        text = bytes(rec).decode("utf-8", "surrogateescape")    # any bytes, as TF's
        if at["use_quote_delim"]:
            fields = next(csv.reader([text], delimiter=at["field_delim"], quotechar='"', strict=True), [""])
        else:
            fields = text.split(at["field_delim"])
        if text == "":
            fields = []     # TF: an empty record has no field
        if cols is not None:
            if max(cols) >= len(fields):
                raise _bad(op, "Expect %d fields but have %d in record %d" % (max(cols) + 1, len(fields), r))
            fields = [fields[c] for c in cols]
        elif len(fields) != len(types):
            raise _bad(op, "Expect %d fields but have %d in record %d" % (len(types), len(fields), r))
        for c, (f, d, dflt) in enumerate(zip(fields, types, defaults)):
            if f == "" or (na and f == na):
                if dflt.size == 0:
                    raise _bad(op, "Field %d is required but missing in record %d!" % (c, r))
                columns[c].append(dflt.reshape(-1)[0])
            else:
                columns[c].append(_parse_field(op, f, d, c, r))
    shape = records.shape
    return [string_array(shape, col) if d is dt.string else np.array(col, d.np).reshape(shape)
            for col, d in zip(columns, types)]


def _csv_shape(shapes, attrs, values):
    return [shapes[0]] * len(attrs["types"])


register_host_op("DecodeCSV", _csv_shape, lambda d, a: list(a["types"]), _decode_csv)


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None, na_value="",
               select_cols=None):
    """tf.decode_csv / tf.io.decode_csv: one tensor per column, of the dtype of its default; an empty
    field (or `na_value`) takes the column's default, which [] makes required."""
    recs = as_strings(records, "records")
    defaults = []
    for i, d in enumerate(record_defaults):
        t = convert_to_tensor(d)
        if t.shape.ndims is not None and t.shape.ndims > 1 or (t.shape.ndims == 1 and t.shape.as_list()[0] not in
                                                                 (0, 1, None)):
            raise ValueError("Shape of a default must be a length-0 or length-1 vector, or a scalar. for "
                             "'DecodeCSV' (op: 'DecodeCSV') default %d has shape %s" % (i, t.shape))
        defaults.append(t)
    if select_cols is not None and list(select_cols) != sorted(set(select_cols)):
        raise ValueError("select_cols is not strictly increasing.")
    if select_cols is not None and len(select_cols) != len(defaults):
        raise ValueError("Length of select_cols and record_defaults do not match.")
    if len(field_delim) != 1:
        raise ValueError("field_delim should be only 1 char")
    attrs = {"types": [t.dtype for t in defaults], "field_delim": field_delim,
             "use_quote_delim": bool(use_quote_delim), "na_value": na_value,
             "select_cols": None if select_cols is None else [int(c) for c in select_cols]}
    return list(make_host_op("DecodeCSV", [recs] + defaults, attrs, name=name or "DecodeCSV").outputs)


# ---- tf.train.Example parsing ---------------------------------------------------------------------
class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A feature with a fixed number of values: parsed to a dense tensor of `shape`."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature with any number of values: parsed to a SparseTensor."""


class FixedLenSequenceFeature(collections.namedtuple("FixedLenSequenceFeature",
                                                     ["shape", "dtype", "allow_missing", "default_value"])):
    """A feature of any number of items of `shape`: parsed to [items] + shape (a batch: padded to its
    longest with `default_value`)."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


_KIND = {dt.int64: "int64_list", dt.float32: "float_list", dt.string: "bytes_list"}
_KIND_NAME = {"int64_list": "int64", "float_list": "float", "bytes_list": "string"}


def _feature_values(op, ex, key, dtype, index, single):
    feats = ex.features.feature
    if key not in feats:
        return None
    f = feats[key]
    kind = f.WhichOneof("kind")
    if kind is None:     # a Feature with no list set: TF reads it as missing
        return None
    if kind != _KIND[dtype]:
        where = "Key: %s." % key if single else "Name: <unknown>, Key: %s, Index: %d." % (key, index)
        raise _bad(op, "%s  Data types don't match. Data type: %s but expected type: %s"
                   % (where, _KIND_NAME[kind], _TF_NAME.get(dtype.name, dtype.name)))
    return list(getattr(f, kind).value)


def _parse_example(session, op, inputs):
    from tinyflow.formats.example_pb import Example
    serialized = inputs[0]
    single = op.attrs["single"]
    recs = [serialized[()]] if single else list(serialized.reshape(-1))
    examples = []
    for i, s in enumerate(recs):
        try:
            examples.append(Example.FromString(bytes(s)))
        except Exception:
            raise _bad(op, "Could not parse example input, value: '%s'" % bytes(s)[:64]) from None
    outs = []
    for key, dtype in op.attrs["sparse"]:
        indices, values, width = [], [], 0
        for b, ex in enumerate(examples):
            vals = _feature_values(op, ex, key, dtype, b, single) or []
            indices.extend([[j] if single else [b, j] for j in range(len(vals))])
            values.extend(vals)
            width = max(width, len(vals))
        outs.append(np.array(indices, np.int64).reshape(-1, 1 if single else 2))
        outs.append(string_array((len(values),), values) if dtype is dt.string else np.array(values, dtype.np))
        outs.append(np.array([width] if single else [len(examples), width], np.int64))
    for (key, dtype, shape), default in zip(op.attrs["dense"], inputs[1:]):
        n = int(np.prod(shape, dtype=np.int64))
        rows = []
        if key in op.attrs.get("seq", ()):
            outs.append(_sequence_feature(op, examples, key, dtype, shape, default, single))
            continue
        for b, ex in enumerate(examples):
            vals = _feature_values(op, ex, key, dtype, b, single)
            if vals is None:
                if default.size == 0:
                    raise _bad(op, "%sFeature: %s (data type: %s) is required but could not be found."
                               % ("" if single else "Name: <unknown>, ", key, _KIND_NAME[_KIND[dtype]]))
                vals = list(np.broadcast_to(default, shape).reshape(-1))
            if len(vals) != n and single:
                raise _bad(op, "Key: %s.  Can't parse serialized Example." % key)
            if len(vals) != n:
                raise _bad(op, "Name: <unknown>, Key: %s, Index: %d.  Number of %s values != expected.  Values size: "
                           "%d but output shape: [%s]" % (key, b, _KIND_NAME[_KIND[dtype]], len(vals),
                                                          ",".join(map(str, shape))))
            rows.append(vals)
        full = tuple(shape) if single else (len(examples),) + tuple(shape)
        flat = [v for r in rows for v in r]
        outs.append(string_array(full, flat) if dtype is dt.string else np.array(flat, dtype.np).reshape(full))
    return outs


def _sequence_feature(op, examples, key, dtype, shape, default, single):
    """A FixedLenSequenceFeature: each example's values as items of `shape`, padded to the longest."""
    stride, rows = int(np.prod(shape, dtype=np.int64)), []
    for b, ex in enumerate(examples):
        vals = _feature_values(op, ex, key, dtype, b, single) or []
        if len(vals) % stride:
            raise _bad(op, "Name: <unknown>, Key: %s, Index: %d.  Number of %s values is not a multiple of stride "
                       "length. Saw %d values but output shape is: [?,%s]" % (key, b, _KIND_NAME[_KIND[dtype]],
                                                                             len(vals), ",".join(map(str, shape))))
        rows.append(vals)
    items = max([len(r) // stride for r in rows] + [0])
    pad = default.reshape(-1)[0] if default.size else (b"" if dtype is dt.string else 0)
    flat = [v for r in rows for v in r + [pad] * (items * stride - len(r))]
    full = ((items,) if single else (len(examples), items)) + tuple(shape)
    return string_array(full, flat) if dtype is dt.string else np.array(flat, dtype.np).reshape(full)


def _parse_shapes(shapes, attrs, values):
    single = attrs["single"]
    batch = [] if single else [shapes[0].as_list()[0] if shapes[0].ndims == 1 else None]
    out = []
    for _ in attrs["sparse"]:
        out += [TensorShape([None, 1 if single else 2]), TensorShape([None]), TensorShape([1 if single else 2])]
    out += [TensorShape(batch + [None] * (k in attrs.get("seq", ())) + list(shape)) for k, _, shape in attrs["dense"]]
    return out


def _parse_dtypes(dtypes, attrs):
    out = []
    for _, d in attrs["sparse"]:
        out += [dt.int64, d, dt.int64]
    return out + [d for _, d, _ in attrs["dense"]]


register_host_op("ParseExample", _parse_shapes, _parse_dtypes, _parse_example)


def read_features(features):
    """(sparse [(key, dtype)], dense [(key, dtype, shape)], their default tensors, sequence keys) of a
    features dict, in sorted key order, checked as TF checks them."""
    sparse, dense, defaults, seq = [], [], [], []
    for key in sorted(features):
        spec = features[key]
        dtype = dt.as_dtype(spec.dtype)
        if dtype not in _KIND:
            raise ValueError("Unsupported dtype %s for feature %s: use int64, float32 or string" % (dtype.name, key))
        if isinstance(spec, VarLenFeature):
            sparse.append((key, dtype))
        elif isinstance(spec, FixedLenSequenceFeature):
            if not spec.allow_missing:
                raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing to be True.")
            shape = TensorShape(spec.shape)
            if not shape.is_fully_defined():
                raise ValueError("dense_shapes[%d] has unknown rank or unknown inner dimensions: [?,%s]" % (
                    len(dense), ",".join("?" if d is None else str(d) for d in shape.as_list() or [])))
            dense.append((key, dtype, [int(d) for d in shape.as_list()]))
            seq.append(key)
            defaults.append(convert_to_tensor(np.zeros([0], dtype.np) if spec.default_value is None
                                              else spec.default_value, dtype))
        elif isinstance(spec, FixedLenFeature):
            shape = [int(d) for d in TensorShape(spec.shape).as_list()]
            dense.append((key, dtype, shape))
            dv = np.zeros([0], dtype.np) if spec.default_value is None else spec.default_value
            defaults.append(convert_to_tensor(dv, dtype))
        else:
            raise ValueError("Invalid feature %s: %r (FixedLenFeature or VarLenFeature)" % (key, spec))
    return sparse, dense, defaults, seq


def _parse(serialized, features, single, name):
    if not features:
        raise ValueError("Missing: features was %s." % features)
    sparse, dense, defaults, seq = read_features(features)
    s = as_strings(serialized, "serialized")
    op = make_host_op("ParseExample", [s] + defaults, dict(sparse=sparse, dense=dense, single=single, seq=seq),
                      name=name or ("ParseSingleExample" if single else "ParseExample"))
    outs, result = list(op.outputs), {}
    for key, _ in sparse:
        result[key] = SparseTensor(*outs[:3])
        outs = outs[3:]
    for (key, _, _), t in zip(dense, outs):
        result[key] = t
    return result


def parse_example(serialized, features, name=None, example_names=None):
    """tf.parse_example / tf.io.parse_example: a vector of serialized tf.train.Example protos parsed
    into {key: Tensor [batch] + shape (FixedLenFeature) or SparseTensor (VarLenFeature)}."""
    return _parse(serialized, features, False, name)


def parse_single_example(serialized, features, name=None, example_names=None):
    """tf.parse_single_example / tf.io.parse_single_example: one serialized Example (a scalar)."""
    return _parse(serialized, features, True, name)
