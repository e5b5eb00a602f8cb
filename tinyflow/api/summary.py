"""tf.summary: scalar, histogram, image, audio, text and tensor summaries, merge / merge_all, FileWriter.

A summary op is computed by the Session on the host from its input's value, which the jitted
function fetches (a FromFetched HostRule): fetching it gives the serialized Summary protobuf, as in TF,
ready for FileWriter.add_summary. FileWriter writes TF's event files (formats/events.py), which
TensorBoard reads; tf.Summary, tf.Event, ... are TF's messages (formats/tf_protos.py).
"""
import contextlib
import re
import time
import warnings

import numpy as np

from tinyflow.formats import png
from tinyflow.graph import errors
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import GraphKeys, get_default_graph
from tinyflow.graph.registry import FromFetched, register_op
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core.base import convert_to_tensor, make_op
from tinyflow.ops.summary_ops import LIMITS, bucket_index

__all__ = ["FileWriter", "FileWriterCache", "all_v2_summary_ops", "audio", "get_summary_description", "histogram",
           "image", "initialize", "merge", "merge_all", "scalar", "tensor_summary", "text"]
_MESSAGES = ("Summary", "Event", "SessionLog", "SummaryDescription", "TaggedRunMetadata", "HistogramProto",
             "SummaryMetadata")


def __getattr__(name):
    """tf.summary.Summary, tf.summary.Event, ...: TF's messages, built on first use."""
    if name in _MESSAGES:
        from tinyflow.formats import tf_protos
        return getattr(tf_protos, name)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


# the default v2 summary writer (tf.contrib.summary's, whose module keeps it here) and its recording context
V2_DEFAULT = {"writer": None, "record": None}


def get_summary_description(node_def):
    """The SummaryDescription a TensorSummary node carries (its `description` attribute: the message as
    JSON); ValueError for any other op, as TF's."""
    import json
    if node_def.op != "TensorSummary":
        raise ValueError("Can't get_summary_description on %s" % node_def.op)
    text = node_def.attr["description"].s
    fields = json.loads(text.decode("utf-8") if isinstance(text, bytes) else text or "{}")
    hint = fields.get("typeHint", fields.get("type_hint", ""))
    from tinyflow.formats import tf_protos
    return tf_protos.SummaryDescription(type_hint=hint)


def initialize(graph=None, session=None):
    """tf.summary.initialize (TF 1.15's summary_ops_v2.initialize): runs the default v2 summary writer's
    initializer in `session` (the default one) and, given `graph`, writes it to that writer at step 0."""
    from tinyflow.runtime.session import get_default_session
    writer, init_ops = V2_DEFAULT["writer"], get_default_graph().get_collection("_SUMMARY_WRITER_INIT_OP")
    if writer is None and not init_ops:   # (a writer made but not the default now: its initializer runs)
        raise RuntimeError("No default tf.contrib.summary.SummaryWriter found")
    session = session or get_default_session()
    if session is None:
        raise ValueError("session must be passed if no default session exists")
    session.run(init_ops)
    if graph is not None and writer is not None:
        from tinyflow.formats.tf_protos import Event
        graph_def = graph.as_graph_def() if hasattr(graph, "as_graph_def") else graph
        writer._events().add_event(Event(wall_time=time.time(), step=0, graph_def=graph_def.SerializeToString()))


def all_v2_summary_ops():
    """The v2 summary ops (tf.compat.v2.summary, tf.contrib.summary) built so far in the default graph."""
    return get_default_graph().get_collection("_SUMMARY_V2")


def _summary(values):
    """The serialized Summary of a list of Summary.Value keyword dicts."""
    from tinyflow.formats.tf_protos import Summary
    return Summary(value=[Summary.Value(**v) for v in values]).SerializeToString()


def _encode(counts, lo, hi, num, total, squares):
    """TF's HistogramProto fields: default buckets, each run of empty buckets collapsed into its last
    one (Histogram::EncodeToProto with preserve_zero_buckets=false), so it stays small."""
    nonzero = counts > 0
    keep = nonzero | np.append(nonzero[1:], True)   # a bucket with counts, or the last of an empty run
    return dict(min=lo, max=hi, num=num, sum=total, sum_squares=squares,
                bucket_limit=LIMITS[keep].tolist(), bucket=counts[keep].astype(np.float64).tolist())


def _histogram(values):
    """TF's HistogramProto fields of `values`, on the host (a graph whose run has strings: host stage)."""
    v = np.asarray(values, np.float64).reshape(-1)
    counts = np.bincount(bucket_index(v), minlength=len(LIMITS))
    big = float(np.finfo(np.float64).max)
    with np.errstate(over="ignore"):   # values near DBL_MAX: inf, as TF's sums
        total, squares = float(v.sum()), float((v * v).sum())
    return _encode(counts, float(v.min()) if v.size else big, float(v.max()) if v.size else -big, float(v.size),
                   total, squares)


def _nonfinite(op, nans, infs):
    if nans or infs:  # TF's messages, naming the summary op
        raise errors.InvalidArgumentError(op.node_def, op, "%s in summary histogram for: %s"
                                          % ("Nan" if nans else "Infinity", op.name))


# ---- the summary ops ---------------------------------------------------------------------------------
def _scalar_value(session, op, values):
    value = np.asarray(values[0])
    if value.ndim != 0:
        raise errors.InvalidArgumentError(op.node_def, op, "tags and values not the same shape: [] != %s (tag '%s')"
                                          % (list(value.shape), op.attrs["tag"]))
    return [_summary([dict(tag=op.attrs["tag"], simple_value=float(value))])]


def _histogram_value(session, op, values):
    if len(values) == 2:   # the Session reads the op's `_host_inputs`: its HistogramBuckets, twice
        return _histogram_from_buckets(op, values[0])
    v = np.asarray(values[0], np.float64)
    _nonfinite(op, np.isnan(v).any(), np.isinf(v).any())
    from tinyflow.formats.tf_protos import HistogramProto
    return [_summary([dict(tag=op.attrs["tag"], histo=HistogramProto(**_histogram(v)))])]


def _histogram_from_buckets(op, packed):
    """The summary from HistogramBuckets' vector, computed in the step (ops/summary_ops.py)."""
    counts, (lo, hi, total, squares, nans, infs) = packed[:len(LIMITS)], packed[len(LIMITS):].tolist()
    _nonfinite(op, nans, infs)
    from tinyflow.formats.tf_protos import HistogramProto
    fields = _encode(counts, lo, hi, float(counts.sum()), total, squares)   # each value is in one bucket
    return [_summary([dict(tag=op.attrs["tag"], histo=HistogramProto(**fields))])]


def _to_uint8(image):
    """TF's ImageSummary normalization of one float image: non-negative images scaled so the largest
    value is 255; with negatives, 0 goes to 128 and the largest magnitude to 128 +- 127; non-finite
    pixels become red."""
    finite = np.isfinite(image).all(axis=-1)
    vals = image[finite]
    lo, hi = (float(vals.min()), float(vals.max())) if vals.size else (0.0, 0.0)
    if lo < 0:
        top = max(abs(lo), abs(hi))
        scale, offset = (0.0 if top < 1e-6 else 127.0 / top), 128.0
    else:
        scale, offset = (0.0 if hi < 1e-6 else 255.0 / hi), 0.0
    # TF casts (truncates) rather than rounds
    out = (np.where(finite[..., None], image, 0.0).astype(np.float32) * np.float32(scale)
           + np.float32(offset)).astype(np.uint8)
    out[~finite] = np.array([255, 0, 0, 255], np.uint8)[:image.shape[-1]]
    return out


def _image_value(session, op, values):
    images = np.asarray(values[0])
    if images.ndim != 4 or images.shape[-1] not in (1, 3, 4):
        raise errors.InvalidArgumentError(op.node_def, op, "Tensor must be 4-D with last dim 1, 3, or 4, not %s"
                                          % (list(images.shape),))
    count = min(images.shape[0], op.attrs["max_images"])
    out = []
    for i in range(count):
        pixels = images[i] if images.dtype == np.uint8 else _to_uint8(images[i].astype(np.float64))
        tag = op.attrs["tag"] + ("/image" if op.attrs["max_images"] == 1 else "/image/%d" % i)
        out.append(dict(tag=tag, image=dict(height=pixels.shape[0], width=pixels.shape[1], colorspace=pixels.shape[2],
                                            encoded_image_string=png.encode(pixels))))
    return [_summary(out)]


def _merge_value(session, op, values):
    from tinyflow.formats.tf_protos import Summary
    merged, tags = Summary(), set()
    for data in values:
        try:
            parsed = Summary.FromString(np.asarray(data, object).item())  # bytes, or a 0-d array of them
        except Exception:  # a string that is no Summary (TF's message)
            raise errors.InvalidArgumentError(op.node_def, op, "Could not parse one of the summary inputs") from None
        for v in parsed.value:
            if v.tag in tags:  # TF's MergeSummary check
                raise errors.InvalidArgumentError(op.node_def, op, "Duplicate tag %s found in summary inputs" % v.tag)
            tags.add(v.tag)
            merged.value.add().CopyFrom(v)
    return [merged.SerializeToString()]


def _wav(samples, sample_rate):
    """A 16-bit PCM WAV file of float samples [frames, channels] (TF's EncodeWav: clamped to [-1, 1],
    times 32768, rounded half away from zero, clamped to int16)."""
    import struct
    x = np.clip(samples.astype(np.float32), -1.0, 1.0) * np.float32(32768.0)
    pcm = np.clip(np.sign(x) * np.floor(np.abs(x) + 0.5), -32768, 32767).astype("<i2").tobytes()
    frames, channels = samples.shape
    rate = int(sample_rate)
    return (b"RIFF" + struct.pack("<I", 36 + len(pcm)) + b"WAVEfmt " +
            struct.pack("<IHHIIHH", 16, 1, channels, rate, rate * channels * 2, channels * 2, 16) +
            b"data" + struct.pack("<I", len(pcm)) + pcm)


def _audio_value(session, op, values):
    audio, rate = np.asarray(values[0]), np.asarray(values[1])
    if audio.ndim not in (2, 3) or rate.ndim != 0:
        raise errors.InvalidArgumentError(op.node_def, op, "sample_rate must be a scalar and the tensor 2-D "
                                          "[batch_size, frames] or 3-D [batch_size, frames, channels], not %s"
                                          % (list(audio.shape),))
    if audio.ndim == 2:
        audio = audio[:, :, None]
    out = []
    for i in range(min(audio.shape[0], op.attrs["max_outputs"])):
        tag = op.attrs["tag"] + ("/audio" if op.attrs["max_outputs"] == 1 else "/audio/%d" % i)
        out.append(dict(tag=tag, audio=dict(sample_rate=float(rate), num_channels=audio.shape[2],
                                            length_frames=audio.shape[1], content_type="audio/wav",
                                            encoded_audio_string=_wav(audio[i], rate))))
    return [_summary(out)]


def _tensor_value(session, op, values):
    from tinyflow.formats.tf_protos import SummaryMetadata, TensorProto
    from tinyflow.formats.convert import from_numpy
    metadata = SummaryMetadata.FromString(op.attrs["metadata"])
    return [_summary([dict(tag=op.attrs["tag"], metadata=metadata,
                           tensor=from_numpy(np.asarray(values[0]), TensorProto(), op.inputs[0].dtype))])]


_STRING = lambda d, a: [dt.string]  # noqa: E731
_SCALAR = lambda s, a, v: [TensorShape([])]  # noqa: E731
for _type, _rule in (("ScalarSummary", _scalar_value), ("HistogramSummary", _histogram_value),
                     ("ImageSummary", _image_value), ("MergeSummary", _merge_value),
                     ("AudioSummaryV2", _audio_value), ("TensorSummaryV2", _tensor_value)):
    register_op(_type, shape=_SCALAR, dtype=_STRING, grad=None, host=FromFetched(_rule))


def _buckets(op_type, inputs, attrs, name):
    """A histogram's numbers computed in the step, so only they come back (ops/summary_ops.py): the
    Session fetches the op's `_host_inputs` instead of its inputs (the host stage still reads the
    inputs), twice, so that the rule tells them from a host stage's one raw value."""
    if op_type != "HistogramSummary":
        return attrs
    buckets = make_op("HistogramBuckets", list(inputs)[-1:], {}, name=name)
    return dict(attrs, _host_inputs=[buckets, buckets])


def _summary_op(op_type, name, tensor, collections, family, more_inputs=(), tag=None, **attrs):
    """A summary op tagged by its name scope (or by `tag` exactly: tf.contrib.deprecated's summaries)."""
    name = re.sub(r"[^-/\w\.]", "_", name)  # TF's rule for a valid summary name
    graph = get_default_graph()
    with graph.name_scope(family) if family else contextlib.nullcontext():
        with graph.name_scope(name) as scope:
            if tag is None:
                tag = scope.rstrip("/") if family is None else family + "/" + scope.rstrip("/")
            inputs = [convert_to_tensor(tensor)] + [convert_to_tensor(x, dtype=dt.float32) for x in more_inputs]
            out = make_op(op_type, inputs, _buckets(op_type, inputs, dict(attrs, tag=tag), "buckets"), name=scope)
    for key in (collections if collections is not None else [GraphKeys.SUMMARIES]):
        graph.add_to_collection(key, out)
    return out


def scalar(name, tensor, collections=None, family=None):
    """A summary of a scalar tensor, tagged with `name` (prefixed by the enclosing name scope)."""
    return _summary_op("ScalarSummary", name, tensor, collections, family)


def histogram(name, values, collections=None, family=None):
    """A histogram summary of any tensor's values (TF's default buckets)."""
    return _summary_op("HistogramSummary", name, values, collections, family)


def image(name, tensor, max_outputs=3, collections=None, family=None):
    """PNG image summaries of the first `max_outputs` images of a [batch, height, width, 1|3|4] tensor
    (uint8 as is; floats normalized per image as TF does). Tags: NAME/image/0, ... (NAME/image when
    max_outputs is 1)."""
    tensor = convert_to_tensor(tensor)
    if tensor.dtype not in (dt.uint8, dt.float32, dt.float16, dt.float64):
        raise TypeError("Value passed to parameter 'tensor' has DataType %s not in list of allowed values: uint8, "
                        "float32, float16, float64" % tensor.dtype.name)
    if tensor.shape.ndims not in (None, 4) or (tensor.shape.ndims == 4 and tensor.shape[-1].value not in
                                                (None, 1, 3, 4)):
        raise ValueError("Tensor must be 4-D with last dim 1, 3, or 4, not %s" % tensor.shape)
    return _summary_op("ImageSummary", name, tensor, collections, family, max_images=int(max_outputs))


def audio(name, tensor, sample_rate, max_outputs=3, collections=None, family=None):
    """WAV audio summaries of the first `max_outputs` clips of a float [batch, frames] or [batch, frames,
    channels] tensor in [-1, 1] at `sample_rate` Hz. Tags: NAME/audio/0, ... (NAME/audio when max_outputs is 1)."""
    tensor = convert_to_tensor(tensor)
    if tensor.dtype != dt.float32:
        raise TypeError("Value passed to parameter 'tensor' has DataType %s not in list of allowed values: float32"
                        % tensor.dtype.name)
    return _summary_op("AudioSummaryV2", name, tensor, collections, family, more_inputs=[sample_rate],
                       max_outputs=int(max_outputs))


def tensor_summary(name, tensor, summary_description=None, collections=None, summary_metadata=None, family=None,
                   display_name=None):
    """A summary holding the whole tensor (a TensorProto), with optional SummaryMetadata."""
    from tinyflow.formats.tf_protos import SummaryMetadata
    metadata = SummaryMetadata() if summary_metadata is None else summary_metadata
    if display_name is not None:
        metadata.display_name = display_name
    if summary_description is not None:
        metadata.summary_description = summary_description
    return _summary_op("TensorSummaryV2", name, tensor, collections, family,
                       metadata=metadata.SerializeToString())


def text(name, tensor, collections=None):
    """A text summary (TensorBoard's text tab, markdown) of a string tensor of any shape."""
    from tinyflow.formats.tf_protos import SummaryMetadata
    tensor = convert_to_tensor(tensor)
    if tensor.dtype != dt.string:
        raise ValueError("Expected tensor %s to have dtype string, got %s" % (tensor.name, tensor.dtype.name))
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="text"))
    return tensor_summary(name, tensor, collections=collections, summary_metadata=metadata)


def merge(inputs, collections=None, name=None):
    """One summary holding the values of all the summaries in `inputs`."""
    graph = get_default_graph()
    out = make_op("MergeSummary", list(inputs), {}, name=name or "Merge/MergeSummary")
    for key in collections or []:
        graph.add_to_collection(key, out)
    return out


def imported(op_type, name, inputs, attrs):
    """A summary op of an imported GraphDef (tf_files/ops_table.py), named as its node, in no collection."""
    return make_op(op_type, list(inputs), _buckets(op_type, inputs, attrs, name + "/buckets"), name=name)


def merge_all(key=GraphKeys.SUMMARIES, scope=None, name=None):
    """merge() of every summary in collection `key`, or None when it is empty."""
    summaries = get_default_graph().get_collection(key, scope)
    return merge(summaries, name=name) if summaries else None


# ---- FileWriter ------------------------------------------------------------------------------------
class FileWriter:
    """tf.summary.FileWriter: writes summaries, the graph and session logs to a new event file in `logdir`
    (events.out.tfevents.<time>.<host>), which TensorBoard reads."""

    def __init__(self, logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None, filename_suffix=None,
                 session=None):
        from tinyflow.formats.events import EventFileWriter
        self._logdir = str(logdir)
        self._args = (max_queue, flush_secs, filename_suffix)
        self._writer = EventFileWriter(self._logdir, max_queue, flush_secs, filename_suffix)
        self._seen_tags = set()
        if graph is not None or graph_def is not None:
            self.add_graph(graph, graph_def=graph_def)
            if self._graph_def is not None:  # TF writes the graph again as a meta graph
                self.add_meta_graph(self._meta_graph(self._graph_def))

    def get_logdir(self):
        return self._logdir

    def add_event(self, event):
        """Writes an Event protobuf."""
        self._writer.add_event(event)

    def _add(self, global_step, **what):
        from tinyflow.formats.tf_protos import Event
        event = Event(wall_time=time.time(), **what)
        if global_step is not None:
            event.step = int(global_step)
        self.add_event(event)

    def add_summary(self, summary, global_step=None):
        """Writes a fetched summary (bytes) or a tf.Summary at step global_step. As in TF, a tag's
        SummaryMetadata is written with its first value only."""
        from tinyflow.formats.tf_protos import Summary
        if isinstance(summary, (bytes, bytearray, np.bytes_)):
            try:
                summary = Summary.FromString(bytes(summary))
            except Exception:
                raise errors.InvalidArgumentError(None, None, "add_summary: the bytes given are no Summary protobuf") \
                    from None
        else:
            summary = Summary.FromString(summary.SerializeToString())  # a copy: the caller's keeps its metadata
        for value in summary.value:
            if value.HasField("metadata"):
                if value.tag in self._seen_tags:
                    value.ClearField("metadata")
                else:
                    self._seen_tags.add(value.tag)
        self._add(global_step, summary=summary)

    def _meta_graph(self, graph_def):
        from tinyflow.formats.tf_protos import MetaGraphDef
        meta = MetaGraphDef()
        meta.meta_info_def.tensorflow_version = "1.15.5"
        meta.meta_info_def.tensorflow_git_version = "tinyflow"
        meta.graph_def.CopyFrom(graph_def)
        return meta

    def add_graph(self, graph, global_step=None, graph_def=None):
        """Writes the graph's GraphDef (TensorBoard's graph tab)."""
        from tinyflow.api.tf_files.graph_util import as_graph_def
        self._graph_def = None
        try:
            gd = graph_def if graph_def is not None else (graph if hasattr(graph, "node")
                                                          else as_graph_def(graph, add_shapes=True))
        except (ValueError, TypeError) as e:  # a graph TF's GraphDef cannot say: no graph tab, the rest works
            warnings.warn("tinyflow: the graph was not written for TensorBoard: %s" % e, RuntimeWarning, stacklevel=2)
            return
        self._graph_def = gd
        self._add(global_step, graph_def=gd.SerializeToString())

    def add_meta_graph(self, meta_graph_def, global_step=None):
        """Writes a MetaGraphDef."""
        self._add(global_step, meta_graph_def=meta_graph_def.SerializeToString())

    def add_session_log(self, session_log, global_step=None):
        """Writes a SessionLog (START / STOP / CHECKPOINT)."""
        self._add(global_step, session_log=session_log)

    def add_run_metadata(self, run_metadata, tag, global_step=None):
        """Writes a RunMetadata under `tag` (TensorBoard's per-step stats)."""
        from tinyflow.formats.tf_protos import TaggedRunMetadata
        data = run_metadata.SerializeToString() if hasattr(run_metadata, "SerializeToString") else b""
        self._add(global_step, tagged_run_metadata=TaggedRunMetadata(tag=tag, run_metadata=data))

    def flush(self):
        self._writer.flush()

    def close(self):
        self._writer.close()

    def reopen(self):
        """After close(): starts a new event file in the same logdir."""
        if self._writer.closed:
            from tinyflow.formats.events import EventFileWriter
            self._writer = EventFileWriter(self._logdir, *self._args)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class FileWriterCache:
    """One FileWriter per logdir."""
    _cache = {}

    @staticmethod
    def get(logdir):
        if logdir not in FileWriterCache._cache:
            FileWriterCache._cache[logdir] = FileWriter(logdir)
        return FileWriterCache._cache[logdir]

    @staticmethod
    def clear():
        FileWriterCache._cache.clear()
