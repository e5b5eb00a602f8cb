"""TFRecord files: tf.io.TFRecordWriter, tf.io.tf_record_iterator, and the reader the datasets use.

A record is framed as TF writes it (tensorflow/core/lib/io/record_writer.cc):
    uint64 length (little endian) | uint32 masked crc32c(length) | data | uint32 masked crc32c(data)
with masked(crc) = ((crc >> 15) | (crc << 17)) + 0xa282ead8 (mod 2**32). Both checksums are verified on
read; a bad one is a DataLossError naming the file. GZIP / ZLIB compression wrap the whole stream.
crc32c comes from the `google-crc32c` package, imported when a record is first framed.
"""
import gzip
import io
import struct
import zlib

from tinyflow.formats import files
from tinyflow.graph import errors

_MASK_DELTA = 0xA282EAD8


def _crc32c(data):
    try:
        import google_crc32c
    except ImportError:  # pragma: no cover
        raise ImportError("tinyflow: TFRecord files need the `google-crc32c` package (pip install google-crc32c)") \
            from None
    return google_crc32c.value(data)


def masked_crc32c(data):
    """TF's masked crc32c of `data` (bytes), as a uint32 int."""
    crc = _crc32c(bytes(data))
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


class TFRecordCompressionType:
    NONE, ZLIB, GZIP = 0, 1, 2


class TFRecordOptions:
    """tf.io.TFRecordOptions: the compression of a TFRecord file ('', 'ZLIB' or 'GZIP')."""
    compression_type_map = {TFRecordCompressionType.ZLIB: "ZLIB", TFRecordCompressionType.GZIP: "GZIP",
                            TFRecordCompressionType.NONE: ""}

    def __init__(self, compression_type=None, **kwargs):
        self.compression_type = _compression(compression_type)

    @classmethod
    def get_compression_type_string(cls, options):
        return _compression(options.compression_type if isinstance(options, TFRecordOptions) else options)


def _compression(c):
    if isinstance(c, TFRecordOptions):
        return c.compression_type
    if c is None:
        return ""
    if isinstance(c, int):
        return TFRecordOptions.compression_type_map[c]
    c = c.upper()
    if c not in ("", "ZLIB", "GZIP"):
        raise ValueError("Unknown compression type: %r" % (c,))
    return c


def _open(path, mode, compression):
    if compression == "GZIP":
        return gzip.open(path, mode)
    return open(path, mode)


def frame(record):
    """One record's bytes as written in a TFRecord file."""
    header = struct.pack("<Q", len(record))
    return header + struct.pack("<I", masked_crc32c(header)) + record + struct.pack("<I", masked_crc32c(record))


class TFRecordWriter:
    """tf.io.TFRecordWriter(path, options=None): `write(record_bytes)`, `flush()`, `close()`; a with-block."""

    def __init__(self, path, options=None):
        self._path = path
        self._compression = _compression(options)
        try:
            self._f = _open(path, "wb", self._compression) if self._compression != "ZLIB" else open(path, "wb")
        except OSError as e:
            raise errors.NotFoundError(None, None, "%s; %s" % (path, e.strerror)) from None
        self._z = zlib.compressobj() if self._compression == "ZLIB" else None

    def write(self, record):
        """Appends one record (bytes; a str is UTF-8 encoded)."""
        data = frame(record.encode("utf-8") if isinstance(record, str) else bytes(record))
        self._f.write(self._z.compress(data) if self._z else data)

    def flush(self):
        if self._z is None:
            self._f.flush()

    def close(self):
        if self._f is not None:
            if self._z is not None:
                self._f.write(self._z.flush())
            self._f.close()
            self._f = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def read_records(path, compression=None):
    """Yields the records of the TFRecord file `path` (bytes); see records_with_offsets."""
    for _, record in records_with_offsets(path, compression):
        yield record


def records_with_offsets(path, compression=None):
    """Yields (offset, record) of the records of the TFRecord file `path` (bytes), verifying both checksums of each.
    The file is streamed, one record at a time (a record's length is checked against the file's size and
    files.MAX_RECORD before it is read). DataLossError (naming the file) on a corrupted or truncated record or
    a file that is not a regular file; NotFoundError when absent."""
    compression = _compression(compression)
    f, size = files.open_regular(path, "TFRecord file")
    with f:
        stream = files.decompressing(f, compression)
        try:
            yield from _records(stream, path, None if compression else size)
        except (OSError, zlib.error, EOFError) as e:
            raise errors.DataLossError(None, None, "%s: cannot decompress (%s)" % (path, e)) from None


def _records(f, path, size):
    """(offset, record) of a stream of framed records; `size`: the stream's length when known."""
    pos = 0
    while True:
        header = f.read(12)
        if not header:
            return
        if len(header) < 12:
            raise errors.DataLossError(None, None, "truncated record at %d in file %s" % (pos, path))
        (length,) = struct.unpack("<Q", header[:8])
        (crc,) = struct.unpack("<I", header[8:])
        if crc != masked_crc32c(header[:8]):
            raise errors.DataLossError(None, None, "corrupted record at %d in file %s (length checksum mismatch)"
                                       % (pos, path))
        if size is not None and pos + 16 + length > size:
            raise errors.DataLossError(None, None, "truncated record at %d in file %s: its length %d is over the "
                                       "file's %d bytes" % (pos, path, length, size))
        limit = files.MAX_RECORD if size is not None else files.MAX_COMPRESSED_RECORD
        if length > limit:
            raise errors.DataLossError(None, None, "record at %d in file %s: its length %d is over tinyflow's limit "
                                       "of %d bytes for a record%s" % (pos, path, length, limit, "" if size is not None
                                                                       else " of a compressed file"))
        record = f.read(length) if size is not None else _read_chunks(f, length)
        tail = f.read(4)
        if len(record) < length or len(tail) < 4:
            raise errors.DataLossError(None, None, "truncated record at %d in file %s" % (pos, path))
        (crc,) = struct.unpack("<I", tail)
        if crc != masked_crc32c(record):
            raise errors.DataLossError(None, None, "corrupted record at %d in file %s (data checksum mismatch)"
                                       % (pos, path))
        yield pos, record
        pos += 16 + length


def _read_chunks(f, n):
    """n bytes of a decompressing stream, read 1 MiB at a time: memory grows only with what really comes."""
    buf = io.BytesIO()   # getvalue() hands over its buffer: no second copy
    while buf.tell() < n:
        chunk = f.read(min(1 << 20, n - buf.tell()))
        if not chunk:
            break
        buf.write(chunk)
    return buf.getvalue()


def tf_record_iterator(path, options=None):
    """tf.io.tf_record_iterator / tf.python_io.tf_record_iterator: the records of a file, as bytes."""
    return read_records(path, options)
