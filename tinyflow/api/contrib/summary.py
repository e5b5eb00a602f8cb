"""tf.contrib.summary: TF 1.15's "v2" summary writers in graph mode (what TPUEstimator's host_call and
many TF1 research scripts use).

A writer is made with create_file_writer and made the default with `writer.as_default()`; inside a
recording context (always_record_summaries, record_summaries_every_n_global_steps) scalar / histogram /
image / audio / text build ops that, when run, write their value at the global step (or `step=`) to the
default writer's event file. The writing happens in a py_func (a callback from the compiled step), so a
step that writes summaries does not donate its variables' buffers; the file is TF's event format.
"""
import contextlib
import time

import numpy as np

from tinyflow.api import summary as _v1
from tinyflow.api.train import get_global_step
from tinyflow.formats import png
from tinyflow.formats.events import EventFileWriter
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import add_to_collection, get_collection, get_default_graph
from tinyflow.ops.core import math_ops
from tinyflow.ops.core.base import constant, convert_to_tensor
from tinyflow.ops.script_ops import py_func
from tinyflow.ops.state_ops import no_op

_SUMMARY_COLLECTION = "_SUMMARY_V2"
_INIT_COLLECTION = "_SUMMARY_WRITER_INIT_OP"
_DEFAULT = _v1.V2_DEFAULT   # record None: no recording context (v2 records, contrib not)


class SummaryWriter:
    """An event file in `logdir`, opened on the first value written to it."""

    def __init__(self, logdir, max_queue=10, flush_millis=120000, filename_suffix=".v2"):
        self._logdir, self._max_queue = logdir, max_queue
        self._flush_secs, self._suffix = flush_millis / 1000.0, filename_suffix
        self._file = None
        self._init_op = no_op(name="create_summary_file_writer")
        add_to_collection(_INIT_COLLECTION, self._init_op)

    def _events(self):
        if self._file is None or self._file.closed:
            self._file = EventFileWriter(self._logdir, self._max_queue, self._flush_secs, self._suffix)
        return self._file

    def write(self, value, step):
        from tinyflow.formats.tf_protos import Event, Summary
        self._events().add_event(Event(wall_time=time.time(), step=int(step), summary=Summary(value=[value])))

    def init(self):
        return self._init_op

    def flush(self):
        if self._file is not None:
            self._file.flush()

    def close(self):
        if self._file is not None:
            self._file.close()

    @contextlib.contextmanager
    def as_default(self):
        """Makes this writer the default one for the summary ops built inside."""
        previous, _DEFAULT["writer"] = _DEFAULT["writer"], self
        try:
            yield self
        finally:
            _DEFAULT["writer"] = previous

    def set_as_default(self):
        _DEFAULT["writer"] = self


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None, name=None):
    """A SummaryWriter for `logdir` (None: a writer that writes nothing)."""
    if logdir is None:
        return _NoWriter()
    return SummaryWriter(str(logdir), max_queue or 10, flush_millis or 120000,
                         ".v2" if filename_suffix is None else filename_suffix)


class _NoWriter(SummaryWriter):
    def __init__(self):
        self._file, self._init_op = None, no_op(name="no_summary_writer")

    def write(self, value, step):
        pass


@contextlib.contextmanager
def _recording(condition):
    previous, _DEFAULT["record"] = _DEFAULT["record"], condition
    try:
        yield
    finally:
        _DEFAULT["record"] = previous


def always_record_summaries():
    """Summary ops built inside write at every run."""
    return _recording(True)


def never_record_summaries():
    """Summary ops built inside write nothing."""
    return _recording(False)


def record_summaries_every_n_global_steps(n, global_step=None):
    """Summary ops built inside write when the global step is a multiple of n."""
    step = global_step if global_step is not None else get_global_step()
    if step is None:
        raise ValueError("record_summaries_every_n_global_steps needs a global step (create one first)")
    return _recording(math_ops.equal(math_ops.floormod(step, n), 0))


def should_record_summaries():
    """Whether summary ops built here record (a bool tensor)."""
    record = bool(_DEFAULT["record"]) if _DEFAULT["record"] is None else _DEFAULT["record"]
    return convert_to_tensor(record) if not isinstance(record, bool) else constant(record and _DEFAULT["writer"]
                                                                                   is not None)


def _write_op(name, tensor, step, encode, family=None, record_default=False):
    """The op writing encode(value) as a Summary.Value at `step` to the default writer, when recording."""
    writer, record = _DEFAULT["writer"], _DEFAULT["record"]
    record = record_default if record is None else record
    if writer is None or record is False:
        return constant(False)
    tag = "%s/%s" % (family, name) if family else name
    scope = get_default_graph().get_name_scope()
    tag = "%s/%s" % (scope, tag) if scope else tag
    step = step if step is not None else get_global_step()
    if step is None:
        raise ValueError("No step set via 'step' argument or tf.train.get_or_create_global_step()")

    def write(value, at, on):
        if on:
            writer.write(encode(tag, value), at)
        return np.bool_(bool(on))
    on = record if not isinstance(record, bool) else constant(True)
    op = py_func(write, [convert_to_tensor(tensor), math_ops.cast(step, dt.int64), on], dt.bool_, name=name)
    op.set_shape([])
    add_to_collection(_SUMMARY_COLLECTION, op)
    return op


def _value(**fields):
    from tinyflow.formats.tf_protos import Summary
    return Summary.Value(**fields)


def scalar(name, tensor, family=None, step=None):
    """Writes a scalar (simple_value)."""
    return _write_op(name, tensor, step, lambda tag, v: _value(tag=tag, simple_value=float(v)), family)


def histogram(name, tensor, family=None, step=None):
    """Writes a histogram of the values (TF's default buckets)."""
    return _write_op(name, tensor, step, lambda tag, v: _value(tag=tag, histo=_v1._histogram(v)), family)


def image(name, tensor, bad_color=None, max_images=3, family=None, step=None):
    """Writes up to max_images PNG images of a [N, H, W, C] batch (floats scaled as TF does)."""
    def encode(tag, images):
        pixels = images[0] if images.dtype == np.uint8 else _v1._to_uint8(images[0].astype(np.float64))
        return _value(tag=tag, image=dict(height=pixels.shape[0], width=pixels.shape[1],
                                          colorspace=pixels.shape[2], encoded_image_string=png.encode(pixels)))
    return _write_op(name, tensor, step, encode, family)


def text(name, tensor, step=None):
    """Writes a string tensor as TensorBoard's text plugin reads it."""
    raise NotImplementedError("tinyflow's tf.contrib.summary.text: strings run on the host; use tf.summary.text")


def all_summary_ops():
    """The summary ops built so far in the default graph."""
    return get_collection(_SUMMARY_COLLECTION)


def summary_writer_initializer_op():
    """The writers' initializer ops (run them once, as TF requires)."""
    return get_collection(_INIT_COLLECTION)


initialize = _v1.initialize   # (tf.summary.initialize: the default writer's initializer, and the graph)


def flush(writer=None, name=None):
    """An op that writes what `writer` (the default one) holds to disk."""
    writer = writer or _DEFAULT["writer"]
    if writer is None:
        return no_op(name=name or "flush")

    def do():
        writer.flush()
        return np.bool_(True)
    op = py_func(do, [], dt.bool_, name=name or "flush")
    op.set_shape([])
    return op
