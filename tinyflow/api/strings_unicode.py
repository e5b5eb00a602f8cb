"""tf.strings' functions with ragged results (RaggedTensors of api/ragged.py): unicode decoding and splitting,
unicode_encode, bytes_split and ngrams, over the host ops of ops/string_more_ops.py."""
import numpy as np

from tinyflow.api.ragged import RaggedTensor
from tinyflow.graph import dtypes as dt
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.host_ops import make_host_op
from tinyflow.ops.string_more_ops import _codec
from tinyflow.ops.string_ops import as_strings

__all__ = ["bytes_split", "ngrams", "unicode_decode", "unicode_decode_with_offsets", "unicode_encode",
           "unicode_split", "unicode_split_with_offsets"]


def _decode(input, input_encoding, errors_, replacement_char, replace_control_characters, split, name):
    _codec(input_encoding)
    if errors_ not in ("strict", "replace", "ignore"):
        raise ValueError("errors must be one of 'strict', 'replace' or 'ignore', got %r" % errors_)
    s = as_strings(input)
    if s.shape.ndims not in (0, 1):
        raise NotImplementedError("tinyflow's unicode decoding takes a scalar or 1-D string tensor, got rank %s"
                                  % s.shape.ndims)
    op = make_host_op("UnicodeDecodeWithOffsets", [s], {"input_encoding": input_encoding, "errors": errors_,
                                                        "replacement_char": int(replacement_char),
                                                        "replace_control_characters": bool(replace_control_characters),
                                                        "split": split}, name=name)
    values, splits, offsets = op.outputs
    if s.shape.ndims == 0:
        return values, offsets
    return RaggedTensor.from_row_splits(values, splits), RaggedTensor.from_row_splits(offsets, splits)


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
    values, splits = make_host_op("BytesSplit", [s], name=name or "BytesSplit").outputs
    return values if s.shape.ndims == 0 else RaggedTensor.from_row_splits(values, splits)


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
