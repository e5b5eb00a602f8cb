"""tf.io (and tf.python_io): files (tf.io.gfile), TFRecord files, tf.train.Example parsing, decoders."""
import types as _types

import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.host_ops import make_host_op, register_host_op

from tinyflow.api import gfile  # noqa: F401
from tinyflow.api.tf_files.graph_util import write_graph  # noqa: E402,F401 (tf.io.write_graph)
from tinyflow.formats.tfrecord import (TFRecordCompressionType, TFRecordOptions, TFRecordWriter, tf_record_iterator)  # noqa: F401
from tinyflow.ops.parsing_ops import (FixedLenFeature, FixedLenSequenceFeature, VarLenFeature, decode_csv,  # noqa: F401
                                      decode_raw, parse_example, parse_single_example)
from tinyflow.ops.string_ops import decode_base64, encode_base64  # noqa: F401
from tinyflow.ops.reader_ops import matching_files, read_file, write_file  # noqa: F401
from tinyflow.ops.misc_ops import parse_tensor, serialize_tensor  # noqa: F401
from tinyflow.ops.image_codec_ops import (decode_and_crop_jpeg, decode_bmp, decode_gif, decode_image,  # noqa: F401
                                         decode_jpeg, decode_png, encode_jpeg, encode_png, extract_jpeg_shape)

python_io = _types.SimpleNamespace(TFRecordWriter=TFRecordWriter, tf_record_iterator=tf_record_iterator,
                                   TFRecordOptions=TFRecordOptions, TFRecordCompressionType=TFRecordCompressionType)
from tinyflow.api.sparse_more import deserialize_many_sparse, serialize_many_sparse, serialize_sparse  # noqa: F401,E402
from tinyflow.ops.queue_ops import FIFOQueue, PaddingFIFOQueue, QueueBase, RandomShuffleQueue  # noqa: F401,E402
from tinyflow.api.queue import PriorityQueue  # noqa: F401,E402
from tinyflow.api.image_more import is_jpeg  # noqa: F401,E402
from tinyflow.api.framework import SparseFeature, decode_proto, encode_proto  # noqa: F401,E402
from tinyflow.ops.compression_ops import decode_compressed  # noqa: F401,E402


def match_filenames_once(pattern, name=None):
    """The files matching pattern, as tf.train.match_filenames_once gives them."""
    from tinyflow.api import train
    return train.match_filenames_once(pattern, name=name)


# ---- tf.train.SequenceExample parsing: context features as parse_example's, feature lists over time ------
def _sequence_rule(session, op, inputs):
    from types import SimpleNamespace

    from tinyflow.formats.example_pb import Example, SequenceExample
    from tinyflow.ops import parsing_ops as p
    single, a = op.attrs["single"], op.attrs
    recs = [inputs[0][()]] if single else list(inputs[0].reshape(-1))
    for (key, _, _), default in zip(a["ctx_dense"], inputs[1:]):
        if not recs and default.size == 0:   # TF 1.15's kernel refuses an empty batch with a required one
            raise p._bad(op, "Inconsistent number of elements for feature %s: 0 vs 1" % key)
    examples = []
    for s in recs:
        try:
            examples.append(SequenceExample.FromString(bytes(s)))
        except Exception:
            raise p._bad(op, "Could not parse example input, value: '%s'" % bytes(s)[:64]) from None
    # the context: parse_example's own rule over Examples made of each context
    contexts = [Example(features=ex.context) for ex in examples]
    context_op = SimpleNamespace(attrs=dict(sparse=a["ctx_sparse"], dense=a["ctx_dense"], single=single, seq=()),
                                 node_def=op.node_def, name=op.name)
    serialized = np.array([c.SerializeToString() for c in contexts], dtype=object)
    outs = p._parse_example(session, context_op, [np.array(serialized[0], object) if single else serialized] +
                            list(inputs[1:]))
    lead = (lambda b: []) if single else (lambda b: [b])

    def steps(ex, key, dtype, b):
        if key not in ex.feature_lists.feature_list:
            return None
        values = []
        for t, f in enumerate(ex.feature_lists.feature_list[key].feature):
            kind = f.WhichOneof("kind")
            if kind is not None and kind != p._KIND[dtype]:
                raise p._bad(op, "Name: <unknown>, Feature list: %s, Index: %d.  Data types don't match. Expected "
                             "type: %s" % (key, t, p._KIND_NAME[p._KIND[dtype]]))
            values.append(list(getattr(f, kind).value) if kind else [])
        return values

    for key, dtype in a["seq_sparse"]:
        indices, values, times, width = [], [], 0, 0
        for b, ex in enumerate(examples):
            rows = steps(ex, key, dtype, b) or []
            times = max(times, len(rows))
            for t, row in enumerate(rows):
                indices += [lead(b) + [t, j] for j in range(len(row))]
                values += row
                width = max(width, len(row))
        outs.append(np.array(indices, np.int64).reshape(-1, 2 if single else 3))
        outs.append(p.string_array((len(values),), values) if dtype is dt.string else np.array(values, dtype.np))
        outs.append(np.array(lead(len(examples)) + [times, width], np.int64))
    lengths = []
    for key, dtype, shape, allow_missing in a["seq_dense"]:
        stride, rows = int(np.prod(shape, dtype=np.int64)), []
        for b, ex in enumerate(examples):
            found = steps(ex, key, dtype, b)
            if found is None and not allow_missing:   # TF's two kernels' messages
                raise p._bad(op, "Name: , Feature list '%s' is required but could not be found.  Did you mean to "
                             "include it in feature_list_dense_missing_assumed_empty or feature_list_dense_defaults?"
                             % key if single else "Missing feature %s in example <unknown>" % key)
            for t, row in enumerate(found or []):
                if len(row) != stride:
                    raise p._bad(op, "Name: <unknown>, Key: %s, Index: %d.  Number of %s values != expected.  "
                                 "values size: %d but output shape: [%s]" % (key, t, p._KIND_NAME[p._KIND[dtype]],
                                                                            len(row), ",".join(map(str, shape))))
            rows.append([v for row in found or [] for v in row])
        times = max([len(r) // stride for r in rows] + [0])
        pad = b"" if dtype is dt.string else 0
        flat = [v for r in rows for v in r + [pad] * (times * stride - len(r))]
        full = tuple(lead(len(examples))) + (times,) + tuple(shape)
        outs.append(p.string_array(full, flat) if dtype is dt.string else np.array(flat, dtype.np).reshape(full))
        lengths.append(np.array([len(r) // stride for r in rows], np.int64))
    return outs + ([] if single else lengths)


def _sequence_shapes(shapes, attrs, values):
    single = attrs["single"]
    lead = [] if single else [shapes[0].as_list()[0] if shapes[0].ndims == 1 else None]
    out = []
    for _ in attrs["ctx_sparse"]:
        out += [TensorShape([None, len(lead) + 1]), TensorShape([None]), TensorShape([len(lead) + 1])]
    out += [TensorShape(lead + list(shape)) for _, _, shape in attrs["ctx_dense"]]
    for _ in attrs["seq_sparse"]:
        out += [TensorShape([None, len(lead) + 2]), TensorShape([None]), TensorShape([len(lead) + 2])]
    out += [TensorShape(lead + [None] + list(shape)) for _, _, shape, _ in attrs["seq_dense"]]
    return out + ([] if single else [TensorShape(lead)] * len(attrs["seq_dense"]))


def _sequence_dtypes(dtypes, attrs):
    out = []
    for _, d in attrs["ctx_sparse"]:
        out += [dt.int64, d, dt.int64]
    out += [d for _, d, _ in attrs["ctx_dense"]]
    for _, d in attrs["seq_sparse"]:
        out += [dt.int64, d, dt.int64]
    out += [d for _, d, _, _ in attrs["seq_dense"]]
    return out + ([] if attrs["single"] else [dt.int64] * len(attrs["seq_dense"]))


register_host_op("ParseSequenceExample", _sequence_shapes, _sequence_dtypes, _sequence_rule)


def _parse_sequence(serialized, context_features, sequence_features, single, name):
    from tinyflow.ops import parsing_ops as p
    if not (context_features or sequence_features):
        raise ValueError("Missing features.")
    ctx_sparse, ctx_dense, defaults, seq = p.read_features(context_features or {})
    if seq:
        raise ValueError("Invalid feature %s: a context feature is a FixedLenFeature or VarLenFeature" % seq[0])
    seq_sparse, seq_dense = [], []
    for key in sorted(sequence_features or {}):
        spec = sequence_features[key]
        dtype = dt.as_dtype(spec.dtype)
        if dtype not in p._KIND:
            raise ValueError("Unsupported dtype %s for feature %s: use int64, float32 or string" % (dtype.name, key))
        if isinstance(spec, p.VarLenFeature):
            seq_sparse.append((key, dtype))
        elif isinstance(spec, p.FixedLenSequenceFeature) and TensorShape(spec.shape).is_fully_defined():
            seq_dense.append((key, dtype, [int(d) for d in TensorShape(spec.shape).as_list()],
                              bool(spec.allow_missing)))
        elif isinstance(spec, p.FixedLenFeature):
            raise ValueError("Unsupported FixedLenFeature %s." % (spec,))
        else:
            raise ValueError("Invalid feature %s: a sequence feature is a VarLenFeature or a FixedLenSequenceFeature "
                             "of a fully defined shape, got %r" % (key, spec))
    op = make_host_op("ParseSequenceExample", [p.as_strings(serialized, "serialized")] + defaults,
                      dict(ctx_sparse=ctx_sparse, ctx_dense=ctx_dense, seq_sparse=seq_sparse, seq_dense=seq_dense,
                           single=single), name=name or ("ParseSingleSequenceExample" if single else
                                                         "ParseSequenceExample"))
    outs = list(op.outputs)
    results = []
    for sparse, dense in ((ctx_sparse, ctx_dense), (seq_sparse, seq_dense)):
        result = {}
        for key, _ in sparse:
            result[key], outs = p.SparseTensor(*outs[:3]), outs[3:]
        for item in dense:
            result[item[0]], outs = outs[0], outs[1:]
        results.append(result)
    if not single:
        results.append({item[0]: t for item, t in zip(seq_dense, outs)})
    return tuple(results)


def parse_single_sequence_example(serialized, context_features=None, sequence_features=None, example_name=None,
                                  name=None):
    """One serialized tf.train.SequenceExample (a scalar) -> (context, feature_lists): the context parsed as
    parse_single_example's features, each feature list to [time] + shape (FixedLenSequenceFeature) or a
    SparseTensor [time, values] (VarLenFeature)."""
    return _parse_sequence(serialized, context_features, sequence_features, True, name)


def parse_sequence_example(serialized, context_features=None, sequence_features=None, example_names=None,
                           name=None):
    """A vector of serialized SequenceExamples -> (context, feature_lists, lengths): the feature lists padded
    to the longest ([batch, time] + shape; strings with b"", numbers with 0), `lengths` each
    FixedLenSequenceFeature's number of steps per example."""
    return _parse_sequence(serialized, context_features, sequence_features, False, name)


# ---- tf.io.decode_json_example: JSON text -> serialized tf.train.Example ------------------------------------
def _decode_json(session, op, inputs):
    from google.protobuf import json_format

    from tinyflow.formats.example_pb import Example
    from tinyflow.graph import errors
    from tinyflow.ops.host_ops import bytes_map

    def one(text):
        try:
            return json_format.Parse(text.decode("utf-8"), Example()).SerializeToString()
        except (json_format.ParseError, UnicodeDecodeError) as e:
            raise errors.InvalidArgumentError(op.node_def, op, "Error while parsing JSON: %s" % e) from None
    return [bytes_map(one, inputs[0])]


register_host_op("DecodeJSONExample", lambda s, a, v: [s[0]], lambda d, a: [dt.string], _decode_json)


def decode_json_example(json_examples, name=None):
    """Each JSON text (protobuf's JSON mapping of tf.train.Example) as a serialized Example, same shape."""
    from tinyflow.ops.string_ops import as_strings
    return make_host_op("DecodeJSONExample", [as_strings(json_examples, "json_examples")],
                        name=name or "DecodeJSONExample").outputs[0]
