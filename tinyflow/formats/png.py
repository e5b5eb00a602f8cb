"""PNG files as TF 1.15 writes them (tensorflow/core/lib/png/png_io.cc on libpng 1.6.37), byte for byte.

TF's image summaries are PNGs made by libpng with its defaults: each row gets the filter (None, Sub,
Up, Average, Paeth) whose bytes have the smallest sum of |signed byte| (libpng's heuristic, ties to
the first), then zlib deflate at the default level with memLevel 9, the Z_FILTERED strategy and a
window sized to the image, whose header's window size libpng then shrinks to the smallest that
covers the image (optimize_cmf); IDAT chunks hold at most 8192 bytes.
"""
import struct
import zlib

import numpy as np

_NONE, _SUB, _UP, _AVG, _PAETH = range(5)
_ZBUF_SIZE = 8192


def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def _filter_rows(pixels):
    """The image's bytes as libpng writes them into deflate: each row's filter type, then the row. All
    rows' five filterings at once (each reads the unfiltered rows), each row's kept by libpng's cost:
    the sum of its bytes read as signed, ties to the first kind (a Python loop per row: 10 ms an image)."""
    h, w, c = pixels.shape
    r = pixels.reshape(h, w * c).astype(np.int32)
    up = np.concatenate([np.zeros((1, w * c), np.int32), r[:-1]])
    left, upleft = (np.concatenate([np.zeros((h, c), np.int32), a[:, :-c]], axis=1) for a in (r, up))
    pa, pb, pc = np.abs(up - upleft), np.abs(left - upleft), np.abs(left + up - 2 * upleft)
    paeth = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, up, upleft))
    filtered = (np.stack([r, r - left, r - up, r - (left + up) // 2, r - paeth]) & 0xFF).astype(np.uint8)
    kinds = [_NONE, _SUB, _UP, _AVG, _PAETH]
    if h == 1:   # libpng's png_write_start_row: no row above to predict from
        kinds = [_NONE, _SUB]
    if w == 1:
        kinds = [k for k in kinds if k in (_NONE, _UP)]
    kinds = np.array(kinds)
    cost = np.minimum(filtered[kinds], 256 - filtered[kinds].astype(np.int32)).sum(axis=2)   # [kind, row]
    best = kinds[np.argmin(cost, axis=0)]
    rows = np.concatenate([best[:, None].astype(np.uint8), filtered[best, np.arange(h)]], axis=1)
    return rows.tobytes(), len(kinds) > 1 or kinds[0] != _NONE


def _window_bits(size):
    bits = 15
    if size <= 16384:  # png_deflate_claim: a window no bigger than the image needs
        half = 1 << (bits - 1)
        while size + 262 <= half:
            half >>= 1
            bits -= 1
    return bits


def _optimize_cmf(data, size):
    """libpng's optimize_cmf: the zlib header's window size lowered to the smallest covering `size` bytes."""
    cmf = data[0]
    if size > 16384 or (cmf & 0x0F) != 8 or (cmf & 0xF0) > 0x70:
        return data
    cinfo = cmf >> 4
    half = 1 << (cinfo + 7)
    if size > half:
        return data
    while True:
        half >>= 1
        cinfo -= 1
        if not (cinfo > 0 and size <= half):
            break
    cmf = (cmf & 0x0F) | (cinfo << 4)
    flg = data[1] & 0xE0
    flg += 0x1F - ((cmf << 8) + flg) % 0x1F
    return bytes([cmf, flg]) + data[2:]


def encode(pixels, level=-1):
    """PNG bytes of a uint8 [height, width, channels] array (channels 1, 2, 3 or 4), as TF writes them."""
    pixels = np.ascontiguousarray(pixels, np.uint8)
    h, w, c = pixels.shape
    color_type = {1: 0, 2: 4, 3: 2, 4: 6}[c]
    raw, filtering = _filter_rows(pixels)
    z = zlib.compressobj(level, zlib.DEFLATED, _window_bits(len(raw)), 9,
                         zlib.Z_FILTERED if filtering else zlib.Z_DEFAULT_STRATEGY)
    data = _optimize_cmf(z.compress(raw) + z.flush(), len(raw))
    idat = b"".join(_chunk(b"IDAT", data[i:i + _ZBUF_SIZE]) for i in range(0, len(data), _ZBUF_SIZE))
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, color_type, 0, 0, 0)) + idat
            + _chunk(b"IEND", b""))
