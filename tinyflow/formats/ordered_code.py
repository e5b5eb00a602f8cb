"""The keys under which a V2 checkpoint stores the slices of a partitioned variable
(tensorflow/core/util/saved_tensor_slice_util.cc EncodeTensorNameSlice, written with
tensorflow/core/lib/strings/ordered_code.cc): order-preserving encodings of numbers and strings.
"""
import struct


def num_increasing(n):
    """WriteNumIncreasing: a length byte, then the big-endian bytes of n without leading zeros."""
    raw = n.to_bytes(8, "big").lstrip(b"\x00")
    return bytes([len(raw)]) + raw


def string(s):
    """WriteString: 0x00 -> 0x00 0xff, 0xff -> 0xff 0x00, terminated by 0x00 0x01."""
    return b"".join(b"\x00\xff" if c == 0 else b"\xff\x00" if c == 0xff else bytes([c]) for c in s) + b"\x00\x01"


# kLengthToHeaderBits: the first bits of an encoding of `len` bytes say its length
_HEADER = [None, (0x80, 0), (0xc0, 0), (0xe0, 0), (0xf0, 0), (0xf8, 0), (0xfc, 0), (0xfe, 0), (0xff, 0),
           (0xff, 0x80), (0xff, 0xc0)]


def signed_num_increasing(val):
    """WriteSignedNumIncreasing: len bytes of two's complement with len sign-header bits, len the
    smallest with |x| < 2**(7*len - 1)."""
    x = ~val if val < 0 else val
    length = 1
    while x >= 1 << (7 * length - 1):
        length += 1
    buf = bytearray((b"\xff\xff" if val < 0 else b"\x00\x00") + struct.pack(">q", val))[10 - length:]
    buf[0] ^= _HEADER[length][0]
    if length > 1:
        buf[1] ^= _HEADER[length][1]
    return bytes(buf)


def tensor_slice_key(name, extents):
    """EncodeTensorNameSlice(name, slice): extents [(start, length)] with length -1 for a full dimension."""
    out = num_increasing(0) + string(name.encode("utf-8")) + num_increasing(len(extents))
    for start, length in extents:
        out += signed_num_increasing(start) + signed_num_increasing(length)
    return out
