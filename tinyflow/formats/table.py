"""TF's immutable sorted string table (tensorflow/core/lib/io/table*.cc, LevelDB's format), the
`.index` file of a V2 checkpoint. Pure Python, no compression.

  file   := data block* metaindex block, index block, footer
  block  := entry* restarts (uint32 LE each) num_restarts (uint32 LE), then a 5-byte trailer:
            type byte (0: uncompressed) and the masked crc32c of block contents + type byte
  entry  := varint shared, varint non_shared, varint value_length, key suffix, value
            (the key is the previous key's first `shared` bytes + the suffix)
  index  := one entry per data block: a key >= the block's last key -> BlockHandle(varint offset, size)
  footer := metaindex handle, index handle, zero padding to 40 bytes, magic 0xdb4775248b80fb57 (LE)

Every length, offset and checksum read is checked: a bad file gives DataLossError naming it.
"""
import struct

from tinyflow.graph import errors

MAGIC = 0xdb4775248b80fb57
FOOTER_SIZE = 48
_MASK_DELTA = 0xa282ead8
_BLOCK_SIZE = 4096
_RESTART_INTERVAL = 16


def crc32c(data):
    """CRC-32C (Castagnoli) of bytes, by the google-crc32c package (a core dependency, loaded here)."""
    try:
        import google_crc32c
    except ImportError:  # pragma: no cover - google-crc32c is a core dependency
        raise ImportError("tinyflow: TF checkpoints need the google-crc32c package: "
                          "pip install google-crc32c") from None
    return google_crc32c.value(bytes(data))


def masked_crc32c(data):
    """TF's masked CRC (crc32c.h Mask): stored CRCs are masked so a CRC of CRCs stays strong."""
    crc = crc32c(data)
    return ((((crc >> 15) | (crc << 17)) & 0xffffffff) + _MASK_DELTA) & 0xffffffff


def _varint(n):
    out = bytearray()
    while True:
        b = n & 0x7f
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


class _Bad(Exception):
    """A structural error inside a table; turned into DataLossError naming the file."""


def _read_varint(buf, pos, end):
    result, shift = 0, 0
    while True:
        if pos >= end or shift > 63:
            raise _Bad("bad varint at offset %d" % pos)
        b = buf[pos]
        pos += 1
        result |= (b & 0x7f) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


# ---- writing ---------------------------------------------------------------------------------------
class _BlockBuilder:
    def __init__(self, restart_interval):
        self.interval = restart_interval
        self.buf = bytearray()
        self.restarts = [0]
        self.count = 0
        self.last = b""

    def add(self, key, value):
        shared = 0
        if self.count < self.interval:
            n = min(len(key), len(self.last))
            while shared < n and key[shared] == self.last[shared]:
                shared += 1
        else:
            self.restarts.append(len(self.buf))
            self.count = 0
        self.buf += _varint(shared) + _varint(len(key) - shared) + _varint(len(value))
        self.buf += key[shared:] + value
        self.last = key
        self.count += 1

    def finish(self):
        return bytes(self.buf) + b"".join(struct.pack("<I", r) for r in self.restarts) + \
            struct.pack("<I", len(self.restarts))

    def size(self):
        return len(self.buf) + 4 * len(self.restarts) + 4


def write_table(items):
    """The bytes of a table holding items, a list of (key bytes, value bytes) in strictly increasing key order."""
    out = bytearray()

    def emit(block):
        handle = _varint(len(out)) + _varint(len(block))
        trailer = b"\x00" + struct.pack("<I", masked_crc32c(block + b"\x00"))
        out.extend(block + trailer)
        return handle
    index = _BlockBuilder(1)
    block = _BlockBuilder(_RESTART_INTERVAL)
    prev = None
    for key, value in items:
        if prev is not None and key <= prev:
            raise ValueError("table keys must be strictly increasing: %r after %r" % (key, prev))
        prev = key
        block.add(key, value)
        if block.size() >= _BLOCK_SIZE:  # the block's last key is a valid index separator
            index.add(block.last, emit(block.finish()))
            block = _BlockBuilder(_RESTART_INTERVAL)
    if block.count or not index.count:
        index.add(block.last, emit(block.finish()))
    meta_handle = emit(_BlockBuilder(_RESTART_INTERVAL).finish())
    index_handle = emit(index.finish())
    footer = (meta_handle + index_handle).ljust(40, b"\x00") + struct.pack("<Q", MAGIC)
    return bytes(out + footer)


# ---- reading ---------------------------------------------------------------------------------------
def _handle(buf, pos, end):
    offset, pos = _read_varint(buf, pos, end)
    size, pos = _read_varint(buf, pos, end)
    return offset, size, pos


def _block(buf, offset, size):
    """The contents of the block at (offset, size), its trailer checked."""
    if offset < 0 or size < 4 or offset + size + 5 > len(buf) - FOOTER_SIZE:
        raise _Bad("block handle (offset %d, size %d) outside the file" % (offset, size))
    contents = bytes(buf[offset:offset + size])
    kind = buf[offset + size]
    (stored,) = struct.unpack_from("<I", buf, offset + size + 1)
    if masked_crc32c(contents + bytes([kind])) != stored:
        raise _Bad("block checksum mismatch at offset %d" % offset)
    if kind != 0:
        raise _Bad("block at offset %d is compressed (type %d), which tinyflow does not read" % (offset, kind))
    return contents


def _entries(block):
    """(key, value) pairs of one block, in order."""
    if len(block) < 4:
        raise _Bad("block too short")
    (num_restarts,) = struct.unpack_from("<I", block, len(block) - 4)
    limit = len(block) - 4 - 4 * num_restarts
    if num_restarts < 1 or limit < 0:
        raise _Bad("bad restart count %d" % num_restarts)
    pos, key, out = 0, b"", []
    while pos < limit:
        shared, pos = _read_varint(block, pos, limit)
        non_shared, pos = _read_varint(block, pos, limit)
        vlen, pos = _read_varint(block, pos, limit)
        if shared > len(key) or pos + non_shared + vlen > limit:
            raise _Bad("corrupted block entry at offset %d" % pos)
        key = key[:shared] + block[pos:pos + non_shared]
        pos += non_shared
        out.append((key, block[pos:pos + vlen]))
        pos += vlen
    return out


def read_table(data, filename):
    """All (key, value) pairs of a table's bytes, in key order; DataLossError naming filename if bad."""
    try:
        if len(data) < FOOTER_SIZE:
            raise _Bad("file too short (%d bytes) to be a table" % len(data))
        footer = data[-FOOTER_SIZE:]
        if struct.unpack_from("<Q", footer, 40)[0] != MAGIC:
            raise _Bad("not an sstable (bad magic number)")
        _, _, pos = _handle(footer, 0, 40)
        ioff, isize, _ = _handle(footer, pos, 40)
        items, prev = [], None
        for sep, handle in _entries(_block(data, ioff, isize)):
            off, size, _ = _handle(handle, 0, len(handle))
            for key, value in _entries(_block(data, off, size)):
                if prev is not None and key <= prev:
                    raise _Bad("keys out of order")
                if key > sep:
                    raise _Bad("key beyond its index entry")
                prev = key
                items.append((key, value))
        return items
    except (_Bad, struct.error) as e:
        raise errors.DataLossError(None, None, "Unable to read table %s: %s (a truncated or corrupted file?)"
                                   % (filename, e)) from None
