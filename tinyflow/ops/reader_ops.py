"""TF1 readers (tf.TextLineReader, tf.WholeFileReader, tf.TFRecordReader, tf.FixedLengthRecordReader).

`reader.read(queue)` is a host op giving (key, value) scalar strings: the next record of the
current file; when a file is done, the reader dequeues the next file name from `queue` (a
string_input_producer), and raises OutOfRangeError once that queue is closed and empty. Keys are
TF's: "<file>:<line>" for lines, "<file>:<n>" for records, the file name for whole files. The
reader's position is per session (a reader is a session resource in TF).
"""
import threading
import weakref

import numpy as np

from tinyflow.graph import errors
from tinyflow.graph.serialize import register_serializable
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import get_default_graph
from tinyflow.graph.shapes import TensorShape
from tinyflow.formats import tfrecord
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.host_ops import make_host_op, register_host_op, string_array
from tinyflow.ops.queue_ops import queue_state

_STATES = weakref.WeakKeyDictionary()  # Session -> {reader name: _ReaderState} (by name: see queue_ops)
_LOCK = threading.Lock()


class _ReaderState:
    def __init__(self):
        self.records = None   # iterator of (key, value) of the current file
        self.produced = 0
        self.completed = 0
        self.lock = threading.Lock()


def _state(session, reader):
    with _LOCK:
        per = _STATES.setdefault(session, {})
        return per.setdefault(reader._name, _ReaderState())


def _next_record(session, op, reader, queue):
    st = _state(session, reader)
    while True:
        if st.records is not None:
            item = next(st.records, None)
            if item is not None:
                st.produced += 1
                return item
            st.records = None
            st.completed += 1
        name = queue_state(session, queue).take(op, None)[0]
        name = np.asarray(name).reshape(-1)[0]
        name = bytes(name).decode("utf-8") if isinstance(name, (bytes, np.bytes_)) else str(name)
        st.records = reader._records(op, name)


def _read(session, op, inputs):
    reader, queue = op.attrs["reader"], op.attrs["queue"]
    with _state(session, reader).lock:
        key, value = _next_record(session, op, reader, queue)
    return [np.array(key, object), np.array(value, object)]


def _read_up_to(session, op, inputs):
    reader, queue = op.attrs["reader"], op.attrs["queue"]
    keys, values = [], []
    with _state(session, reader).lock:
        for _ in range(int(inputs[0])):
            try:
                k, v = _next_record(session, op, reader, queue)
            except errors.OutOfRangeError:
                if not keys:
                    raise
                break
            keys.append(k)
            values.append(v)
    return [string_array((len(keys),), keys), string_array((len(values),), values)]


def _count(session, op, inputs):
    st = _state(session, op.attrs["reader"])
    return [np.int64(st.produced if op.attrs["what"] == "produced" else st.completed)]


def _reset(session, op, inputs):
    with _LOCK:
        _STATES.setdefault(session, {}).pop(op.attrs["reader"]._name, None)
    return []


_KV = lambda d, a: [dt.string, dt.string]  # noqa: E731
register_host_op("ReaderReadV2", lambda s, a, v: [TensorShape([]), TensorShape([])], _KV, _read, stateful=True)
register_host_op("ReaderReadUpToV2", lambda s, a, v: [TensorShape([None]), TensorShape([None])], _KV, _read_up_to,
                 stateful=True)
register_host_op("ReaderNumRecordsProducedV2", lambda s, a, v: [TensorShape([])], lambda d, a: [dt.int64], _count,
                 stateful=True)
register_host_op("ReaderResetV2", lambda s, a, v: [], lambda d, a: [], _reset, stateful=True)


def _open(op, name):
    """The bytes of file `name`: a regular file of at most files.MAX_WHOLE_FILE bytes."""
    from tinyflow.formats import files
    try:
        return files.read_regular(name, "file")
    except errors.OpError as e:
        raise type(e)(op.node_def, op, e.message) from None


class ReaderBase:
    """A reader of records from files whose names it dequeues from a queue."""

    _type = "Reader"

    def __init__(self, name=None):
        g = get_default_graph()
        self._name = g.unique_name(name or self._type)
        self._prefix = self._name.split("/")[-1]

    reader_ref = property(lambda self: self)
    supports_serialize = False

    def read(self, queue, name=None):
        """(key, value) scalar string tensors: the next record, dequeuing file names from `queue`."""
        k, v = make_host_op("ReaderReadV2", [], {"reader": self, "queue": queue},
                            name=name or "ReaderReadV2").outputs
        return k, v

    def read_up_to(self, queue, num_records, name=None):
        """Up to `num_records` (key, value) pairs as two string vectors."""
        k, v = make_host_op("ReaderReadUpToV2", [convert_to_tensor(num_records, dt.int64)],
                            {"reader": self, "queue": queue}, name=name or "ReaderReadUpToV2").outputs
        return k, v

    def num_records_produced(self, name=None):
        return make_host_op("ReaderNumRecordsProducedV2", [], {"reader": self, "what": "produced"},
                            name=name or "ReaderNumRecordsProducedV2").outputs[0]

    def num_work_units_completed(self, name=None):
        return make_host_op("ReaderNumRecordsProducedV2", [], {"reader": self, "what": "completed"},
                            name=name or "ReaderNumWorkUnitsCompletedV2").outputs[0]

    def reset(self, name=None):
        return make_host_op("ReaderResetV2", [], {"reader": self}, name=name or "ReaderResetV2")


class TextLineReader(ReaderBase):
    """Lines of text files (without line endings), after `skip_header_lines` of each file."""
    _type = "TextLineReaderV2"

    def __init__(self, skip_header_lines=None, name=None):
        self._skip = int(skip_header_lines or 0)
        super().__init__(name)

    def _records(self, op, name):
        lines = _open(op, name).split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        for i, line in enumerate(lines):
            if i >= self._skip:
                yield ("%s:%d" % (name, i + 1)).encode("utf-8"), line.rstrip(b"\r")


class WholeFileReader(ReaderBase):
    """Whole files: the key is the file name, the value its contents."""
    _type = "WholeFileReaderV2"

    def _records(self, op, name):
        yield name.encode("utf-8"), _open(op, name)


class IdentityReader(ReaderBase):
    """Its work units themselves: each name it dequeues is both the key and the value."""
    _type = "IdentityReaderV2"

    def _records(self, op, name):
        yield name.encode("utf-8"), name.encode("utf-8")


class TFRecordReader(ReaderBase):
    """The records of TFRecord files (checksums verified)."""
    _type = "TFRecordReaderV2"

    def __init__(self, name=None, options=None):
        self._options = options
        super().__init__(name)

    def _records(self, op, name):
        try:
            for offset, r in tfrecord.records_with_offsets(name, self._options):
                yield ("%s:%d" % (name, offset)).encode("utf-8"), r
        except errors.OpError as e:
            raise type(e)(op.node_def, op, e.message) from None


class FixedLengthRecordReader(ReaderBase):
    """Fixed-length records of binary files (after `header_bytes`, before `footer_bytes`)."""
    _type = "FixedLengthRecordReaderV2"

    def __init__(self, record_bytes, header_bytes=None, footer_bytes=None, hop_bytes=None, name=None,
                 encoding=None):
        self._sizes = int(record_bytes), int(header_bytes or 0), int(footer_bytes or 0)
        super().__init__(name)

    def _records(self, op, name):
        n, head, foot = self._sizes
        data = _open(op, name)
        body = data[head:len(data) - foot]
        for i in range(0, len(body) - n + 1, n):
            yield ("%s:%d" % (name, i // n)).encode("utf-8"), body[i:i + n]


def _matching_files(session, op, inputs):
    import glob
    names = []
    for pattern in np.asarray(inputs[0], object).reshape(-1):
        names.extend(sorted(glob.glob(pattern.decode("utf-8"))))
    return [string_array((len(names),), [n.encode("utf-8") for n in names])]


register_host_op("MatchingFiles", lambda s, a, v: [TensorShape([None])], lambda d, a: [dt.string], _matching_files,
                 stateful=True)


def matching_files(pattern, name=None):
    """tf.io.matching_files: the sorted file names matching the glob `pattern` (a string or vector),
    looked up each time the op runs."""
    from tinyflow.ops.string_ops import as_strings
    return make_host_op("MatchingFiles", [as_strings(pattern, "pattern")], name=name or "MatchingFiles").outputs[0]


def match_filenames_once(pattern, name=None):
    """tf.train.match_filenames_once: the file names matching `pattern` (computed when run; TF keeps
    them in a local variable, which tinyflow does not need)."""
    return matching_files(pattern, name=name or "matching_filenames")


# Graph files may describe readers (their options: plain data; the files read come from a queue).
for _cls in (TextLineReader, WholeFileReader, TFRecordReader, FixedLengthRecordReader):
    register_serializable(_cls)


def _read_file(session, op, inputs):
    from tinyflow.formats.files import read_regular   # only regular files, bounded (untrusted paths too)
    name = bytes(np.asarray(inputs[0], object).reshape(()).item()).decode("utf-8")
    out = np.empty((), dtype=object)
    out[()] = read_regular(name)
    return [out]


def _write_file(session, op, inputs):
    name = bytes(np.asarray(inputs[0], object).reshape(()).item()).decode("utf-8")
    with open(name, "wb") as f:
        f.write(bytes(np.asarray(inputs[1], object).reshape(()).item()))
    return []


register_host_op("ReadFile", lambda s, a, v: [TensorShape([])], lambda d, a: [dt.string], _read_file, stateful=True)
register_host_op("WriteFile", lambda s, a, v: [], lambda d, a: [], _write_file, stateful=True)


def read_file(filename, name=None):
    """tf.read_file: the whole file as one string, read each time the op runs."""
    from tinyflow.ops.string_ops import as_strings
    return make_host_op("ReadFile", [as_strings(filename, "filename")], name=name or "ReadFile").outputs[0]


def write_file(filename, contents, name=None):
    """tf.write_file: an op writing `contents` (a string) to `filename` when run."""
    from tinyflow.ops.string_ops import as_strings
    return make_host_op("WriteFile", [as_strings(filename, "filename"), as_strings(contents, "contents")],
                        name=name or "WriteFile")
