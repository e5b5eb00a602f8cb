"""tf.data.experimental's statistics (TF 1.15's stats_ops / stats_aggregator): `latency_stats(tag)` records
how long each element took to come out of the dataset before it (microseconds), `bytes_produced_stats(tag)`
each element's size in bytes, into the StatsAggregator that tf.data.Options.experimental_stats.aggregator
sets on the pipeline; `aggregator.get_summary()` is a string tensor: a tf.Summary with one histogram per
tag (TF's HistogramProto buckets), as TF's StatsAggregatorSummary op gives it."""
import time
import weakref

import numpy as np

from tinyflow.api.data.dataset_ops import Dataset
from tinyflow.graph import dtypes as dt
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.host_ops import make_host_op, register_host_op


class StatsAggregator:
    """Collects the statistics of the pipelines whose options name it, per Session (TF's aggregator is a
    per-session resource)."""

    def __init__(self):
        self._records = weakref.WeakKeyDictionary()   # Session -> {tag: [value]}
        self._anonymous = {}                            # (a pipeline iterated outside a Session)

    def _record(self, session, tag, value):
        records = self._anonymous if session is None else self._records.setdefault(session, {})
        records.setdefault(tag, []).append(float(value))

    def get_summary(self):
        """A scalar string tensor: the serialized tf.Summary of every tag recorded so far."""
        return make_host_op("StatsAggregatorSummary", [], {"aggregator": self}).outputs[0]


def _summary(session, op, inputs):
    from tinyflow.api.summary import _histogram, _summary as serialized
    from tinyflow.formats.tf_protos import HistogramProto
    aggregator = op.attrs["aggregator"]
    records = aggregator._records.get(session, aggregator._anonymous) if session is not None else \
        aggregator._anonymous
    return [np.array(serialized([dict(tag=tag, histo=HistogramProto(**_histogram(values)))
                                 for tag, values in sorted(records.items())]), dtype=object)]


register_host_op("StatsAggregatorSummary", lambda s, a, v: [TensorShape([])], lambda d, a: [dt.string], _summary,
                 stateful=True)


def _nbytes(a):
    """An element component's size as TF counts it: its buffer, a string's characters."""
    return sum(len(v) for v in a.reshape(-1)) if a.dtype == object else a.nbytes


class _Stats(Dataset):
    """The input's elements, each measured into the pipeline's aggregator under `tag`."""

    def __init__(self, input_dataset, tag, measure):
        super().__init__(input_dataset._types, input_dataset._shapes, [input_dataset])
        self._tag, self._measure = tag, measure

    def _iterate(self, run):
        elements = self._inputs[0]._iterate(run)
        while True:
            start = time.perf_counter()
            try:
                element = next(elements)
            except StopIteration:
                return
            aggregator = run.state.get("stats_aggregator")
            if aggregator is not None:
                aggregator._record(run.session, self._tag, self._measure(element, time.perf_counter() - start))
            yield element


def _stats(tag, measure):
    return lambda dataset: _Stats(dataset, tag, measure)


def latency_stats(tag):
    """A transformation recording, under `tag`, the microseconds each element took to be produced."""
    return _stats(tag, lambda element, seconds: round(seconds * 1e6))


def bytes_produced_stats(tag):
    """A transformation recording, under `tag`, the size in bytes of each element."""
    return _stats(tag, lambda element, seconds: sum(_nbytes(np.asarray(c)) for c in element))
