"""tf.data's file sources: TextLineDataset and TFRecordDataset (strings, read on the host).

File names may be known now (a string or list) or a string placeholder the iterator's initializer
is fed. Elements are scalar strings (bytes); `map` them with tf.decode_csv or tf.parse_single_example.
"""
import zlib

import numpy as np

from tinyflow.graph import errors
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import Tensor
from tinyflow.graph.shapes import TensorShape
from tinyflow.formats import files, tfrecord
from tinyflow.ops.core.base import as_tensor_or_none
from tinyflow.ops.host_ops import to_bytes_array
from tinyflow.api.data.dataset_ops import Dataset


def _filenames(filenames):
    t = as_tensor_or_none(filenames)
    if t is not None:
        if t.dtype is not dt.string:
            raise TypeError("`filenames` must be a `tf.Tensor` of `tf.string`, got %s" % t.dtype.name)
        return t
    return to_bytes_array(filenames).reshape(-1)


def _names(run, filenames):
    a = run.value(filenames)
    return [f.decode("utf-8") if isinstance(f, bytes) else str(f) for f in np.asarray(a, object).reshape(-1)]


class _FileDataset(Dataset):
    def __init__(self, filenames, compression_type=None):
        self._files = _filenames(filenames)
        self._compression = compression_type
        super().__init__(dt.string, TensorShape([]), args=[self._files] if isinstance(self._files, Tensor) else [])

    def _iterate(self, run):
        for name in _names(run, self._files):
            for record in self._records(name):
                yield (record,)


class TextLineDataset(_FileDataset):
    """The lines of text files, without their line endings (one scalar string per line)."""

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None):
        super().__init__(filenames, compression_type)

    def _records(self, name):
        f, _ = files.open_regular(name, "text file")
        with f:   # streamed: a line at a time, each at most files.MAX_COMPRESSED_RECORD bytes
            try:
                for line in files.lines(files.decompressing(f, (self._compression or "").upper()), name):
                    yield np.array(line.rstrip(b"\r"), dtype=object)
            except (OSError, zlib.error, EOFError) as e:
                raise errors.DataLossError(None, None, "%s: cannot decompress (%s)" % (name, e)) from None


class TFRecordDataset(_FileDataset):
    """The records of TFRecord files (one scalar string each); checksums are verified."""

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None):
        super().__init__(filenames, compression_type)

    def _records(self, name):
        for record in tfrecord.read_records(name, self._compression):
            yield np.array(record, dtype=object)


class FixedLengthRecordDataset(_FileDataset):
    """Fixed-length records of binary files (after `header_bytes`, before `footer_bytes`)."""

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None, buffer_size=None,
                 compression_type=None, num_parallel_reads=None):
        self._sizes = int(record_bytes), int(header_bytes or 0), int(footer_bytes or 0)
        super().__init__(filenames, compression_type)

    def _records(self, name):
        n, head, foot = self._sizes
        f, size = files.open_regular(name, "record file")
        with f:   # streamed: a record at a time
            f.seek(head)
            for _ in range(max(0, size - head - foot) // n if n > 0 else 0):
                yield np.array(f.read(n), dtype=object)
