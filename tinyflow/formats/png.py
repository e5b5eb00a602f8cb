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


def _cost(row):
    """libpng's measure of a filtered row: the sum of its bytes read as signed."""
    return int(np.minimum(row, 256 - row.astype(np.int32)).sum())


def _filtered(row, prev, bpp, kind):
    r, p = row.astype(np.int32), prev.astype(np.int32)
    left = np.concatenate([np.zeros(bpp, np.int32), r[:-bpp]])
    if kind == _SUB:
        out = r - left
    elif kind == _UP:
        out = r - p
    elif kind == _AVG:
        out = r - (left + p) // 2
    elif kind == _PAETH:
        upleft = np.concatenate([np.zeros(bpp, np.int32), p[:-bpp]])
        pa, pb, pc = np.abs(p - upleft), np.abs(left - upleft), np.abs(left + p - 2 * upleft)
        pred = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, p, upleft))
        out = r - pred
    else:
        out = r
    return (out & 0xFF).astype(np.uint8)


def _filter_rows(pixels):
    """The image's bytes as libpng writes them into deflate: each row's filter type, then the row."""
    h, w, c = pixels.shape
    rows = pixels.reshape(h, w * c)
    kinds = [_NONE, _SUB, _UP, _AVG, _PAETH]
    if h == 1:   # libpng's png_write_start_row: no row above to predict from
        kinds = [_NONE, _SUB]
    if w == 1:
        kinds = [k for k in kinds if k in (_NONE, _UP)]
    prev = np.zeros(w * c, np.uint8)
    out = []
    for row in rows:
        best, best_cost = None, None
        for kind in kinds:
            candidate = _filtered(row, prev, c, kind)
            cost = _cost(candidate)
            if best is None or cost < best_cost:
                best, best_cost = (kind, candidate), cost
        out.append(bytes([best[0]]) + best[1].tobytes())
        prev = row
    return b"".join(out), len(kinds) > 1 or kinds[0] != _NONE


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
