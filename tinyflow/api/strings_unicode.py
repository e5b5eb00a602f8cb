"""tf.strings' functions with ragged results (RaggedTensors of api/ragged.py): unicode decoding and splitting,
unicode_encode, bytes_split and ngrams, over the host ops of ops/string_more_ops.py."""
import numpy as np

from tinyflow.api.ragged import RaggedTensor
from tinyflow.graph import dtypes as dt
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.host_ops import make_host_op
from tinyflow.ops.string_more_ops import _codec
from tinyflow.ops.string_ops import as_strings

__all__ = ["bytes_split", "ngrams", "split", "unicode_decode", "unicode_decode_with_offsets", "unicode_encode",
           "unicode_split", "unicode_split_with_offsets"]


def _nest(result, shape, what):
    """`result`, ragged over the flattened strings of a tensor of `shape`, nested by its leading dimensions
    (TF's ragged result of rank(input) + 1: uniform row splits, then the strings' own)."""
    dims = shape.as_list() if shape.ndims is not None else None
    if dims is None or None in dims:
        raise NotImplementedError("tinyflow's %s of a tensor of rank 2 or more needs its shape known while "
                                  "building, got %s" % (what, shape))
    for d in range(len(dims) - 1, 0, -1):
        rows = int(np.prod(dims[:d], dtype=np.int64))
        result = RaggedTensor.from_row_splits(result, convert_to_tensor(np.arange(rows + 1, dtype=np.int64) * dims[d]))
    return result


def _flatten(s):
    from tinyflow.ops.core import array_ops as A
    return A.reshape(s, [-1]) if s.shape.ndims != 1 else s


def split(input=None, sep=None, maxsplit=-1, result_type="SparseTensor", source=None, name=None):
    """tf.strings.split: each string split at runs of whitespace (sep=None) or at each occurrence of sep, at
    most maxsplit times; a SparseTensor of rank(input) + 1 or a RaggedTensor (a scalar input: a vector)."""
    from tinyflow.ops import string_ops as S
    src = as_strings(input if input is not None else source)
    if result_type == "SparseTensor":
        if src.shape.ndims == 0:
            raise ValueError("tf.strings.split of a scalar with result_type='SparseTensor': TF 1.15 has no sparse "
                             "result for it (its result is a vector: use result_type='RaggedTensor')")
        return S.split(src, sep, maxsplit, name=name)
    if result_type != "RaggedTensor":
        raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")
    attrs = {"skip_empty": False, "any_char": False, "whitespace": sep is None, "maxsplit": int(maxsplit)}
    _, values, _, splits = S.split_op(src, "" if sep is None else sep, attrs, name)
    if src.shape.ndims == 0:
        return values
    return _nest(RaggedTensor.from_row_splits(values, splits), src.shape, "tf.strings.split")


def string_split(source, sep=None, skip_empty=True, delimiter=None, result_type="SparseTensor", name=None):
    """tf.string_split (TF 1.15's v1): each string of the vector `source` split at any character of the
    delimiter (" " by default; each byte when empty); a SparseTensor [len(source), longest] or a RaggedTensor."""
    from tinyflow.ops import string_ops as S
    if sep is not None and delimiter is not None and sep != delimiter:
        raise ValueError("Cannot specify both 'sep' and 'delimiter'")
    delimiter = sep if sep is not None else " " if delimiter is None else delimiter
    if result_type == "SparseTensor":
        return S.string_split(source, delimiter, skip_empty=skip_empty, name=name)
    if result_type != "RaggedTensor":
        raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")
    src = as_strings(source)
    if src.shape.ndims not in (None, 1):
        raise ValueError("Shape must be rank 1 but is rank %d for 'StringSplit' (op: 'StringSplit')" % src.shape.ndims)
    _, values, _, splits = S.split_op(src, delimiter, {"skip_empty": bool(skip_empty), "any_char": True}, name)
    return RaggedTensor.from_row_splits(values, splits)


def _decode(input, input_encoding, errors_, replacement_char, replace_control_characters, split, name):
    _codec(input_encoding)
    if errors_ not in ("strict", "replace", "ignore"):
        raise ValueError("errors must be one of 'strict', 'replace' or 'ignore', got %r" % errors_)
    s = as_strings(input)
    op = make_host_op("UnicodeDecodeWithOffsets", [_flatten(s) if s.shape.ndims != 0 else s],
                      {"input_encoding": input_encoding, "errors": errors_,
                                                        "replacement_char": int(replacement_char),
                                                        "replace_control_characters": bool(replace_control_characters),
                                                        "split": split}, name=name)
    values, splits, offsets = op.outputs
    if s.shape.ndims == 0:
        return values, offsets
    return tuple(_nest(RaggedTensor.from_row_splits(v, splits), s.shape, name) for v in (values, offsets))


def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533, replace_control_characters=False,
                   name=None):
    """The code points of each string (a RaggedTensor of int32 for a 1-D input, a vector for a scalar)."""
    return _decode(input, input_encoding, errors, replacement_char, replace_control_characters, False,
                   name or "UnicodeDecode")[0]


def unicode_decode_with_offsets(input, input_encoding, errors="replace", replacement_char=65533,
                                replace_control_characters=False, name=None):
    """(code points, the byte offset where each starts)."""
    return _decode(input, input_encoding, errors, replacement_char, replace_control_characters, False,
                   name or "UnicodeDecodeWithOffsets")


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533, name=None):
    """Each string split into its characters (as strings of their bytes)."""
    return _decode(input, input_encoding, errors, replacement_char, False, True, name or "UnicodeSplit")[0]


def unicode_split_with_offsets(input, input_encoding, errors="replace", replacement_char=65533, name=None):
    """(characters, the byte offset where each starts)."""
    return _decode(input, input_encoding, errors, replacement_char, False, True, name or "UnicodeSplitWithOffsets")


def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533, name=None):
    """Strings from code points: a RaggedTensor (or dense [N, M]) of int32 gives N strings, a vector one."""
    from tinyflow.ops.core import array_ops as A
    _codec(output_encoding)
    attrs = {"output_encoding": output_encoding, "errors": errors, "replacement_char": int(replacement_char)}
    if isinstance(input, RaggedTensor):
        return make_host_op("UnicodeEncode", [input.values, input.row_splits], attrs, name=name or "UnicodeEncode"
                            ).outputs[0]
    x = convert_to_tensor(input, dt.int32, name="input")
    if x.shape.ndims == 1:
        splits = A.stack([convert_to_tensor(0, dt.int64), A.shape(x, out_type=dt.int64)[0]])
        return A.reshape(make_host_op("UnicodeEncode", [x, splits], attrs, name=name or "UnicodeEncode").outputs[0],
                         [])
    from tinyflow.ops.core import math_ops as M
    from tinyflow.ops.core.sequence_ops import range as _range
    rows, cols = A.shape(x, out_type=dt.int64)[0], A.shape(x, out_type=dt.int64)[1]
    splits = M.multiply(M.cast(_range(rows + 1), dt.int64), cols)   # each row of the matrix is one string
    return make_host_op("UnicodeEncode", [A.reshape(x, [-1]), splits], attrs, name=name or "UnicodeEncode").outputs[0]


def bytes_split(input, name=None):
    """Each string split into its bytes (a RaggedTensor for a 1-D input, a vector for a scalar)."""
    s = as_strings(input)
    values, splits = make_host_op("BytesSplit", [_flatten(s) if s.shape.ndims != 0 else s],
                                  name=name or "BytesSplit").outputs
    return values if s.shape.ndims == 0 else _nest(RaggedTensor.from_row_splits(values, splits), s.shape,
                                                   "tf.strings.bytes_split")


def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None, preserve_short_sequences=False,
           name=None):
    """The ngrams of each row of data (a 1-D string tensor: one row; a RaggedTensor or [N, M] tensor: N rows),
    joined by separator, optionally padded with pad_values (left, right) padding_width times."""
    from tinyflow.ops.core import array_ops as A
    from tinyflow.ops.core import math_ops as M
    from tinyflow.ops.core.sequence_ops import range as _range
    widths = [int(ngram_width)] if np.ndim(ngram_width) == 0 else [int(w) for w in ngram_width]
    if pad_values is None:
        lpad = rpad = None
        pw = 0
    else:
        lpad, rpad = (pad_values, pad_values) if isinstance(pad_values, (str, bytes)) else pad_values
        lpad, rpad = (v.encode() if isinstance(v, str) else v for v in (lpad, rpad))
        pw = -1 if padding_width is None else int(padding_width)
    attrs = {"widths": tuple(widths), "separator": separator.encode() if isinstance(separator, str) else separator,
             "left_pad": lpad, "right_pad": rpad,
             "padding_width": pw, "short": bool(preserve_short_sequences)}
    if isinstance(data, RaggedTensor):
        values, splits, ragged = data.values, data.row_splits, True
    else:
        d = as_strings(data)
        if d.shape.ndims == 1:
            values, splits, ragged = d, A.stack([convert_to_tensor(0, dt.int64), A.shape(d, out_type=dt.int64)[0]]), \
                False
        else:
            rows, cols = A.shape(d, out_type=dt.int64)[0], A.shape(d, out_type=dt.int64)[1]
            values, splits = A.reshape(d, [-1]), M.multiply(M.cast(_range(rows + 1), dt.int64), cols)
            out = make_host_op("StringNGrams", [values, splits], attrs, name=name or "StringNGrams").outputs[0]
            return A.reshape(out, A.stack([M.cast(rows, dt.int32), -1]))   # equal rows: a dense result, as TF
    out, out_splits = make_host_op("StringNGrams", [values, splits], attrs, name=name or "StringNGrams").outputs
    return RaggedTensor.from_row_splits(out, out_splits) if ragged else out
