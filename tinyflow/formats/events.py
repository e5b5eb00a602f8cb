"""TF's event files, which TensorBoard reads: a TFRecord file of Event protobufs.

The file is `<logdir>/events.out.tfevents.<10-digit seconds>.<host><suffix>` (TF 1.15's EventsWriter);
its first event says the format's version (file_version "brain.Event:2"), then come the events the
writer is given (summaries, graphs, session logs), each framed as a TFRecord (length, crc32c).
"""
import atexit
import os
import socket
import time
import weakref

from tinyflow.formats.tfrecord import frame, read_records

FILE_VERSION = "brain.Event:2"


def event_file_name(logdir, suffix=""):
    """A new event file's path in `logdir`, as TF names it (a number added if one of that second exists)."""
    base = os.path.join(logdir, "events.out.tfevents.%010d.%s" % (int(time.time()), socket.gethostname()))
    path, n = base + suffix, 1
    while os.path.exists(path):  # two writers in one second: TF would truncate the first's file
        path, n = "%s.%d%s" % (base, n, suffix), n + 1
    return path


_OPEN = weakref.WeakSet()   # the writers not closed yet: what they queued is written at exit


@atexit.register
def _flush_at_exit():
    """A script that never closes its FileWriter still gets every event it queued (TF's writer thread
    flushes its queue at exit)."""
    for writer in list(_OPEN):
        try:
            writer.flush()
        except (OSError, ValueError):   # its file went away: nothing more to save
            pass


class EventFileWriter:
    """Appends Event protobufs to a new event file in `logdir`; written to disk when `max_queue` events
    wait, `flush_secs` have passed since the last write, on flush() / close(), or at exit."""

    def __init__(self, logdir, max_queue=10, flush_secs=120, filename_suffix=""):
        from tinyflow.formats.tf_protos import Event  # TF's messages are built on first use, not at `import tinyflow`
        os.makedirs(logdir, exist_ok=True)
        self.path = event_file_name(logdir, filename_suffix or "")
        self._file = open(self.path, "wb")
        self._max_queue, self._flush_secs = max_queue, flush_secs
        self._pending, self._last_flush = [], time.time()
        self.add_event(Event(wall_time=time.time(), file_version=FILE_VERSION))
        self.flush()
        _OPEN.add(self)

    @property
    def closed(self):
        return self._file is None

    def add_event(self, event):
        """Queues an Event (dropped once closed, as TF's writer does)."""
        if self._file is None:
            return
        self._pending.append(frame(event.SerializeToString()))
        if len(self._pending) >= self._max_queue or time.time() - self._last_flush >= self._flush_secs:
            self.flush()

    def flush(self):
        if self._file is None:
            return
        self._file.write(b"".join(self._pending))
        self._file.flush()
        self._pending, self._last_flush = [], time.time()

    def close(self):
        if self._file is not None:
            self.flush()
            self._file.close()
            self._file = None
            _OPEN.discard(self)


def summary_iterator(path):
    """tf.train.summary_iterator: the Event protobufs of an event file, in order (DataLossError naming the
    file on a corrupted or truncated record)."""
    from google.protobuf.message import DecodeError

    from tinyflow.graph import errors
    from tinyflow.formats.tf_protos import Event
    for i, record in enumerate(read_records(path)):
        try:
            yield Event.FromString(record)
        except DecodeError as e:  # a record whose checksums hold but which is no Event
            raise errors.DataLossError(None, None, "record %d of event file %s is not an Event protobuf: %s"
                                       % (i, path, e)) from None
