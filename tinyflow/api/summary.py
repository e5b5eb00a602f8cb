"""tf.summary: scalar, histogram and image summaries, merge / merge_all, FileWriter, and tf.Summary.

A summary op is computed by the Session on the host from its input's value, which the jitted
function fetches (OpDef.host_compute): fetching it gives the serialized Summary, as in TF, ready
for FileWriter.add_summary. With the `tensorboard` extra installed (pip install
"tinyflow[tensorboard]") summaries are TensorBoard's protobufs and FileWriter writes real event
files; without it a summary is JSON and FileWriter appends one JSON line per event to
`<logdir>/events.tinyflow.jsonl`, so a script runs unchanged either way.
"""
import base64
import contextlib
import json
import os
import re
import time
import warnings

import numpy as np

from tinyflow.graph import errors
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import GraphKeys, get_default_graph
from tinyflow.graph.registry import register_op
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core.base import convert_to_tensor, make_op

__all__ = ["FileWriter", "FileWriterCache", "Summary", "histogram", "image", "merge", "merge_all", "scalar"]


def _protos():
    """TensorBoard's protobuf modules, or None when the extra is not installed."""
    try:
        from tensorboard.compat.proto import event_pb2, summary_pb2
    except ImportError:
        return None
    return summary_pb2, event_pb2


# ---- tf.Summary: the value a summary op gives ------------------------------------------------------
class Summary:
    """tf.Summary: a list of Summary.Value(tag=, simple_value= | histo=); SerializeToString / FromString
    give TensorBoard's protobuf bytes (tensorboard extra) or JSON."""

    class Value:
        def __init__(self, tag="", simple_value=None, histo=None, image=None, **kwargs):
            self.tag, self.simple_value, self.histo, self.image = tag, simple_value, histo, image

        def to_json(self):
            out = {"tag": self.tag, "simple_value": self.simple_value, "histo": self.histo}
            if self.image is not None:  # the PNG as base64 text
                out["image"] = dict(self.image, encoded_image_string=base64.b64encode(
                    self.image["encoded_image_string"]).decode("ascii"))
            return out

        @classmethod
        def from_json(cls, v):
            image = v.get("image")
            if image is not None:
                image = dict(image, encoded_image_string=base64.b64decode(image["encoded_image_string"]))
            return cls(v["tag"], simple_value=v.get("simple_value"), histo=v.get("histo"), image=image)

    def __init__(self, value=()):
        self.value = list(value)

    def SerializeToString(self):
        protos = _protos()
        if protos is None:
            return json.dumps({"value": [v.to_json() for v in self.value]}).encode()
        proto = protos[0].Summary()
        for v in self.value:
            item = proto.value.add(tag=v.tag)
            if v.histo is not None:
                item.histo.CopyFrom(protos[0].HistogramProto(**v.histo))
            elif v.image is not None:
                item.image.CopyFrom(protos[0].Summary.Image(**v.image))
            elif v.simple_value is not None:
                item.simple_value = v.simple_value
        return proto.SerializeToString()

    @classmethod
    def FromString(cls, data):
        protos = _protos()
        if protos is None:
            return cls([cls.Value.from_json(v) for v in json.loads(data.decode())["value"]])
        proto = protos[0].Summary.FromString(data)
        out = []
        for v in proto.value:
            if v.HasField("histo"):
                h = v.histo
                out.append(cls.Value(v.tag, histo=dict(min=h.min, max=h.max, num=h.num, sum=h.sum,
                                                       sum_squares=h.sum_squares, bucket_limit=list(h.bucket_limit),
                                                       bucket=list(h.bucket))))
            elif v.HasField("image"):
                i = v.image
                out.append(cls.Value(v.tag, image=dict(height=i.height, width=i.width, colorspace=i.colorspace,
                                                       encoded_image_string=i.encoded_image_string)))
            else:
                out.append(cls.Value(v.tag, simple_value=v.simple_value))
        return cls(out)


def _limits():
    """TF's default bucket limits: -DBL_MAX, ..., -1e-12, 0, 1e-12, ..., DBL_MAX (the edges grow by 10%
    from 1e-12 while below 1e20)."""
    edges, e = [], 1e-12
    while e < 1e20:
        edges.append(e)
        e *= 1.1
    edges.append(np.finfo(np.float64).max)
    return np.array([-x for x in reversed(edges)] + [0.0] + edges)


_LIMITS = _limits()


def _histogram(values):
    """TF's HistogramProto of `values`: default buckets, each run of empty buckets collapsed into one
    (Histogram::EncodeToProto with preserve_zero_buckets=false), so it stays small."""
    v = np.asarray(values, np.float64).reshape(-1)
    counts = np.bincount(np.searchsorted(_LIMITS, v, side="right").clip(max=len(_LIMITS) - 1),
                         minlength=len(_LIMITS))
    limits, buckets = [], []
    i = 0
    while i < len(counts):
        end, count = _LIMITS[i], counts[i]
        i += 1
        if count <= 0:
            while i < len(counts) and counts[i] <= 0:
                end, count = _LIMITS[i], counts[i]
                i += 1
        limits.append(float(end))
        buckets.append(float(count))
    big = float(np.finfo(np.float64).max)
    return dict(min=float(v.min()) if v.size else big, max=float(v.max()) if v.size else -big, num=float(v.size),
                sum=float(v.sum()), sum_squares=float((v * v).sum()), bucket_limit=limits, bucket=buckets)


# ---- the summary ops ---------------------------------------------------------------------------------
def _scalar_value(session, op, values):
    value = np.asarray(values[0])
    if value.ndim != 0:
        raise errors.InvalidArgumentError(op.node_def, op, "tags and values not the same shape: [] != %s (tag '%s')"
                                          % (list(value.shape), op.attrs["tag"]))
    return [Summary([Summary.Value(op.attrs["tag"], simple_value=float(value))]).SerializeToString()]


def _histogram_value(session, op, values):
    v = np.asarray(values[0], np.float64)
    if not np.all(np.isfinite(v)):  # TF's messages, naming the summary op
        what = "Nan" if np.isnan(v).any() else "Infinity"
        raise errors.InvalidArgumentError(op.node_def, op, "%s in summary histogram for: %s" % (what, op.name))
    return [Summary([Summary.Value(op.attrs["tag"], histo=_histogram(values[0]))]).SerializeToString()]


def _png(pixels):
    """PNG bytes of a uint8 [height, width, channels] array (channels 1, 3 or 4), written with zlib."""
    import struct
    import zlib
    h, w, c = pixels.shape
    color_type = {1: 0, 3: 2, 4: 6}[c]
    raw = b"".join(b"\x00" + pixels[row].tobytes() for row in range(h))  # filter type 0 on every row

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, color_type, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


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
        out.append(Summary.Value(tag, image=dict(height=pixels.shape[0], width=pixels.shape[1],
                                                 colorspace=pixels.shape[2], encoded_image_string=_png(pixels))))
    return [Summary(out).SerializeToString()]


def _merge_value(session, op, values):
    merged = []
    for data in values:
        merged.extend(Summary.FromString(data).value)
    return [Summary(merged).SerializeToString()]


_STRING = lambda d, a: [dt.string]  # noqa: E731
_SCALAR = lambda s, a, v: [TensorShape([])]  # noqa: E731
for _type, _rule in (("ScalarSummary", _scalar_value), ("HistogramSummary", _histogram_value),
                     ("ImageSummary", _image_value), ("MergeSummary", _merge_value)):
    register_op(_type, shape=_SCALAR, dtype=_STRING, grad=None, host_compute=_rule)


def _summary_op(op_type, name, tensor, collections, family, **attrs):
    name = re.sub(r"[^-/\w\.]", "_", name)  # TF's rule for a valid summary name
    graph = get_default_graph()
    with graph.name_scope(family) if family else contextlib.nullcontext():
        with graph.name_scope(name) as scope:
            tag = scope.rstrip("/") if family is None else family + "/" + scope.rstrip("/")
            out = make_op(op_type, [convert_to_tensor(tensor)], dict(attrs, tag=tag), name=scope)
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


def merge(inputs, collections=None, name=None):
    """One summary holding the values of all the summaries in `inputs`."""
    graph = get_default_graph()
    out = make_op("MergeSummary", list(inputs), {}, name=name or "Merge/MergeSummary")
    for key in collections or []:
        graph.add_to_collection(key, out)
    return out


def merge_all(key=GraphKeys.SUMMARIES, scope=None, name=None):
    """merge() of every summary in collection `key`, or None when it is empty."""
    summaries = get_default_graph().get_collection(key, scope)
    return merge(summaries, name=name) if summaries else None


# ---- FileWriter ------------------------------------------------------------------------------------
class FileWriter:
    """Writes summaries for TensorBoard to an event file in `logdir` (see the module docstring)."""

    _warned = False

    def __init__(self, logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None, filename_suffix=None,
                 session=None):
        self._logdir = logdir
        os.makedirs(logdir, exist_ok=True)
        protos = _protos()
        if protos is not None:
            from tensorboard.summary.writer.event_file_writer import EventFileWriter
            self._writer = EventFileWriter(logdir, max_queue, flush_secs, filename_suffix or "")
        else:
            self._writer = None
            self._file = open(os.path.join(logdir, "events.tinyflow.jsonl"), "a")
            if not FileWriter._warned:
                FileWriter._warned = True
                warnings.warn("tinyflow: TensorBoard is not installed; summaries go to %s as JSON lines "
                              "(pip install 'tinyflow[tensorboard]' for event files)." % self._file.name,
                              RuntimeWarning, stacklevel=2)
        if graph is not None or graph_def is not None:
            self.add_graph(graph, graph_def=graph_def)

    def get_logdir(self):
        return self._logdir

    def add_summary(self, summary, global_step=None):
        """Writes a fetched summary (bytes) or a tf.Summary at step global_step."""
        data = summary.SerializeToString() if isinstance(summary, Summary) else summary
        step = int(global_step) if global_step is not None else 0
        if self._writer is not None:
            _, event_pb2 = _protos()
            event = event_pb2.Event(wall_time=time.time(), step=step)
            event.summary.ParseFromString(data)
            self._writer.add_event(event)
        else:
            values = [v.to_json() for v in Summary.FromString(data).value]
            self._file.write(json.dumps({"wall_time": time.time(), "step": step, "summary": values}) + "\n")

    def add_graph(self, graph, global_step=None, graph_def=None):
        """Writes the graph's GraphDef to the event file, for TensorBoard's graph tab (needs tensorboard)."""
        if self._writer is None:
            return
        from tinyflow.api.tf_files.graph_util import as_graph_def
        try:
            gd = graph_def if graph_def is not None else (graph if hasattr(graph, "node") else as_graph_def(graph))
        except (ValueError, TypeError) as e:  # a graph TF's GraphDef cannot say: no graph tab, the rest works
            warnings.warn("tinyflow: the graph was not written for TensorBoard: %s" % e, RuntimeWarning, stacklevel=2)
            return
        _, event_pb2 = _protos()
        event = event_pb2.Event(wall_time=time.time(), step=int(global_step or 0),
                                graph_def=gd.SerializeToString())
        self._writer.add_event(event)

    def add_session_log(self, session_log, global_step=None):
        """Accepted for compatibility."""

    def flush(self):
        (self._writer or self._file).flush()

    def close(self):
        (self._writer or self._file).close()

    def reopen(self):
        """Accepted for compatibility."""

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
