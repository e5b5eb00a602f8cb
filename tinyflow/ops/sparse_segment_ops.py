"""tf.sparse.segment_sum/mean/sqrt_n (tf.sparse_segment_*) and tf.math.unsorted_segment_sqrt_n: the segment
reductions of segment_ops.py over rows gathered by `indices`, built as TF's values define them (the sqrt_n
forms divide by the square root of each segment's row count; an empty segment is 0)."""
import numpy as np

from tinyflow.ops.core import math_ops as M
from tinyflow.ops.core.array_ops import concat, ones_like, reshape, shape
from tinyflow.ops.core.base import constant, convert_to_tensor
from tinyflow.ops.core.indexing_ops import gather, unsorted_segment_sum
from tinyflow.ops.core.util import int_tensor, name_scope
from tinyflow.ops.segment_ops import segment_mean, segment_sum, unsorted_segment_mean

__all__ = ["sparse_segment_mean", "sparse_segment_sqrt_n", "sparse_segment_sum", "unsorted_segment_sqrt_n"]


def _per_row(count, data, ids):
    """count [n] reshaped to broadcast against the segment results of data (rows of ids' rank)."""
    extra = data.shape.ndims - ids.shape.ndims if data.shape.ndims is not None and ids.shape.ndims is not None else 0
    if extra:
        return reshape(count, concat([shape(count), constant(np.ones(extra, np.int32))], 0))
    return count


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """out[j] = sum of data[i...] over segment_ids[i...] == j, divided by sqrt(their count); 0 if none."""
    with name_scope(name or "UnsortedSegmentSqrtN"):
        d = convert_to_tensor(data, name="data")
        ids = int_tensor(segment_ids, "segment_ids")
        total = unsorted_segment_sum(d, ids, num_segments)
        count = unsorted_segment_sum(ones_like(ids, dtype=d.dtype), ids, num_segments)
        count = M.sqrt(M.maximum(count, M.scalar_like(1, count)))
        return M.realdiv(total, _per_row(count, d, ids))


def _sparse_segment(kind, data, indices, segment_ids, name, num_segments):
    with name_scope(name or "SparseSegment" + kind):
        d = convert_to_tensor(data, name="data")
        rows = gather(d, int_tensor(indices, "indices"))
        ids = int_tensor(segment_ids, "segment_ids")
        if kind == "Sum":
            return segment_sum(rows, ids) if num_segments is None else unsorted_segment_sum(rows, ids, num_segments)
        if kind == "Mean":
            return segment_mean(rows, ids) if num_segments is None else unsorted_segment_mean(rows, ids, num_segments)
        if num_segments is None:
            total = segment_sum(rows, ids)
            count = segment_sum(ones_like(ids, dtype=d.dtype), ids)
            count = M.sqrt(M.maximum(count, M.scalar_like(1, count)))
            return M.realdiv(total, _per_row(count, rows, ids))
        return unsorted_segment_sqrt_n(rows, ids, num_segments)


def sparse_segment_sum(data, indices, segment_ids, name=None, num_segments=None):
    """out[j] = sum of data[indices[i]] over segment_ids[i] == j (sorted ids, or num_segments rows)."""
    return _sparse_segment("Sum", data, indices, segment_ids, name, num_segments)


def sparse_segment_mean(data, indices, segment_ids, name=None, num_segments=None):
    """out[j] = mean of data[indices[i]] over segment_ids[i] == j; 0 for an empty segment."""
    return _sparse_segment("Mean", data, indices, segment_ids, name, num_segments)


def sparse_segment_sqrt_n(data, indices, segment_ids, name=None, num_segments=None):
    """out[j] = sum of data[indices[i]] over segment_ids[i] == j, divided by sqrt(their count)."""
    return _sparse_segment("SqrtN", data, indices, segment_ids, name, num_segments)
