"""TFRecord files: tf.io.TFRecordWriter, tf.io.tf_record_iterator, and the reader the datasets use.

A record is framed as TF writes it (tensorflow/core/lib/io/record_writer.cc):
    uint64 length (little endian) | uint32 masked crc32c(length) | data | uint32 masked crc32c(data)
with masked(crc) = ((crc >> 15) | (crc << 17)) + 0xa282ead8 (mod 2**32). Both checksums are verified on
read; a bad one is a DataLossError naming the file. GZIP / ZLIB compression wrap the whole stream.
crc32c comes from the `google-crc32c` package, imported when a record is first framed.
"""
import gzip
import struct
import zlib

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
    DataLossError (naming the file) on a corrupted or truncated record; NotFoundError when absent."""
    compression = _compression(compression)
    try:
        if compression == "ZLIB":
            with open(path, "rb") as f:
                data = zlib.decompress(f.read())
        else:
            with _open(path, "rb", compression) as f:
                data = f.read()
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, "%s; No such file or directory" % path) from None
    except (OSError, zlib.error, EOFError) as e:
        raise errors.DataLossError(None, None, "%s: cannot decompress (%s)" % (path, e)) from None
    pos, n = 0, len(data)
    while pos < n:
        if n - pos < 12:
            raise errors.DataLossError(None, None, "truncated record at %d in file %s" % (pos, path))
        header = data[pos:pos + 8]
        (length,) = struct.unpack("<Q", header)
        (crc,) = struct.unpack("<I", data[pos + 8:pos + 12])
        if crc != masked_crc32c(header):
            raise errors.DataLossError(None, None, "corrupted record at %d in file %s (length checksum mismatch)"
                                       % (pos, path))
        start, end = pos + 12, pos + 12 + length
        if end + 4 > n:
            raise errors.DataLossError(None, None, "truncated record at %d in file %s" % (pos, path))
        record = data[start:end]
        (crc,) = struct.unpack("<I", data[end:end + 4])
        if crc != masked_crc32c(record):
            raise errors.DataLossError(None, None, "corrupted record at %d in file %s (data checksum mismatch)"
                                       % (pos, path))
        yield pos, record
        pos = end + 4


def tf_record_iterator(path, options=None):
    """tf.io.tf_record_iterator / tf.python_io.tf_record_iterator: the records of a file, as bytes."""
    return read_records(path, options)
