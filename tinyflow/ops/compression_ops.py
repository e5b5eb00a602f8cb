"""tf.io.decode_compressed: ZLIB or GZIP compressed strings inflated on the host."""
import zlib


from tinyflow.graph import dtypes as dt
from tinyflow.graph import errors
from tinyflow.ops.host_ops import bytes_map, make_host_op, register_host_op
from tinyflow.ops.string_ops import as_strings

__all__ = ["decode_compressed"]


def _inflate(session, op, inputs):
    """TF's ZlibInputStream: what the stream inflates to until it ends or the input does (a cut stream gives
    what came before the cut, bytes after the stream's end are ignored); bad data is a DataLossError."""
    kind = op.attrs["compression_type"]

    def one(s):
        if not kind:
            return s
        try:
            return zlib.decompressobj(zlib.MAX_WBITS | (16 if kind == "GZIP" else 0)).decompress(bytes(s))
        except zlib.error as e:
            raise errors.DataLossError(op.node_def, op, "inflate() failed: %s" % e) from None
    return [bytes_map(one, inputs[0])]


register_host_op("DecodeCompressed", lambda s, a, v: [s[0]], lambda d, a: [dt.string], _inflate)


def decode_compressed(bytes, compression_type="", name=None):
    """Each string decompressed ("ZLIB", "GZIP", or "" for none)."""
    if compression_type not in ("", "ZLIB", "GZIP"):
        raise ValueError("Unsupported compression type: %s" % compression_type)
    return make_host_op("DecodeCompressed", [as_strings(bytes)], {"compression_type": compression_type},
                        name=name or "DecodeCompressed").outputs[0]


