"""tf.summary: scalar and histogram summaries, merge / merge_all, FileWriter, and tf.Summary.

A summary op is computed by the Session on the host from its input's value, which the jitted
function fetches (OpDef.host_compute): fetching it gives the serialized Summary, as in TF, ready
for FileWriter.add_summary. With the `tensorboard` extra installed (pip install
"tinyflow[tensorboard]") summaries are TensorBoard's protobufs and FileWriter writes real event
files; without it a summary is JSON and FileWriter appends one JSON line per event to
`<logdir>/events.tinyflow.jsonl`, so a script runs unchanged either way.
"""
import contextlib
import json
import os
import re
import time
import warnings

import numpy as np

from . import errors
from .graph import dtypes as dt
from .graph.core import GraphKeys, get_default_graph
from .graph.registry import register_op
from .graph.shapes import TensorShape
from .ops.base import convert_to_tensor, make_op

__all__ = ["FileWriter", "FileWriterCache", "Summary", "histogram", "merge", "merge_all", "scalar"]


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
        def __init__(self, tag="", simple_value=None, histo=None, **kwargs):
            self.tag, self.simple_value, self.histo = tag, simple_value, histo

    def __init__(self, value=()):
        self.value = list(value)

    def SerializeToString(self):
        protos = _protos()
        if protos is None:
            return json.dumps({"value": [{"tag": v.tag, "simple_value": v.simple_value, "histo": v.histo}
                                         for v in self.value]}).encode()
        proto = protos[0].Summary()
        for v in self.value:
            item = proto.value.add(tag=v.tag)
            if v.histo is not None:
                item.histo.CopyFrom(protos[0].HistogramProto(**v.histo))
            elif v.simple_value is not None:
                item.simple_value = v.simple_value
        return proto.SerializeToString()

    @classmethod
    def FromString(cls, data):
        protos = _protos()
        if protos is None:
            return cls([cls.Value(**v) for v in json.loads(data.decode())["value"]])
        proto = protos[0].Summary.FromString(data)
        out = []
        for v in proto.value:
            if v.HasField("histo"):
                h = v.histo
                out.append(cls.Value(v.tag, histo=dict(min=h.min, max=h.max, num=h.num, sum=h.sum,
                                                       sum_squares=h.sum_squares, bucket_limit=list(h.bucket_limit),
                                                       bucket=list(h.bucket))))
            else:
                out.append(cls.Value(v.tag, simple_value=v.simple_value))
        return cls(out)


def _histogram(values):
    """TF's histogram of `values`: its default buckets (edges +-1e-12 * 1.1^k, and 0)."""
    v = np.asarray(values, np.float64).reshape(-1)
    edges, e = [], 1e-12
    while e < 1e20:
        edges.append(e)
        e *= 1.1
    limits = [-x for x in reversed(edges)] + [0.0] + edges + [np.finfo(np.float64).max]
    counts = np.bincount(np.searchsorted(limits, v, side="left"), minlength=len(limits))[:len(limits)]
    nonzero = np.nonzero(counts)[0]
    lo, hi = (nonzero[0], nonzero[-1] + 1) if len(nonzero) else (0, 0)
    return dict(min=float(v.min()) if v.size else 0.0, max=float(v.max()) if v.size else 0.0, num=float(v.size),
                sum=float(v.sum()), sum_squares=float((v * v).sum()), bucket_limit=[float(x) for x in limits[lo:hi]],
                bucket=[float(c) for c in counts[lo:hi]])


# ---- the summary ops ---------------------------------------------------------------------------------
def _scalar_value(session, op, values):
    value = np.asarray(values[0])
    if value.ndim != 0:
        raise errors.InvalidArgumentError(op.node_def, op, "tags and values not the same shape: [] != %s (tag '%s')"
                                          % (list(value.shape), op.attrs["tag"]))
    return [Summary([Summary.Value(op.attrs["tag"], simple_value=float(value))]).SerializeToString()]


def _histogram_value(session, op, values):
    return [Summary([Summary.Value(op.attrs["tag"], histo=_histogram(values[0]))]).SerializeToString()]


def _merge_value(session, op, values):
    merged = []
    for data in values:
        merged.extend(Summary.FromString(data).value)
    return [Summary(merged).SerializeToString()]


_STRING = lambda d, a: [dt.string]  # noqa: E731
_SCALAR = lambda s, a, v: [TensorShape([])]  # noqa: E731
for _type, _rule in (("ScalarSummary", _scalar_value), ("HistogramSummary", _histogram_value),
                     ("MergeSummary", _merge_value)):
    register_op(_type, shape=_SCALAR, dtype=_STRING, grad=None, host_compute=_rule)


def _summary_op(op_type, name, tensor, collections, family):
    name = re.sub(r"[^-/\w\.]", "_", name)  # TF's rule for a valid summary name
    graph = get_default_graph()
    with graph.name_scope(family) if family else contextlib.nullcontext():
        with graph.name_scope(name) as scope:
            tag = scope.rstrip("/") if family is None else family + "/" + scope.rstrip("/")
            out = make_op(op_type, [convert_to_tensor(tensor)], {"tag": tag}, name=scope)
    for key in (collections if collections is not None else [GraphKeys.SUMMARIES]):
        graph.add_to_collection(key, out)
    return out


def scalar(name, tensor, collections=None, family=None):
    """A summary of a scalar tensor, tagged with `name` (prefixed by the enclosing name scope)."""
    return _summary_op("ScalarSummary", name, tensor, collections, family)


def histogram(name, values, collections=None, family=None):
    """A histogram summary of any tensor's values (TF's default buckets)."""
    return _summary_op("HistogramSummary", name, values, collections, family)


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
            values = [{"tag": v.tag, "simple_value": v.simple_value, "histo": v.histo}
                      for v in Summary.FromString(data).value]
            self._file.write(json.dumps({"wall_time": time.time(), "step": step, "summary": values}) + "\n")

    def add_graph(self, graph, global_step=None, graph_def=None):
        """Writes the graph's GraphDef to the event file, for TensorBoard's graph tab (needs tensorboard)."""
        if self._writer is None:
            return
        from .tf_files.graph_util import as_graph_def
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
