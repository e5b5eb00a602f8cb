"""Ops whose output shape depends on input values: dynamic_partition, dynamic_stitch and
unique_with_counts (tf.where(c), boolean_mask, unique and range live with their families).

Each is registered with `dynamic_shape`: when its deciding inputs are not known while tracing,
the pipeline runs it on concrete values between two jitted segments (lower/segments.py,
docs/dynamic_shapes.md). Their rules therefore read those inputs with numpy, and move the data
with jax.numpy (it stays on the device).
"""
import collections

import jax.numpy as jnp
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import ShapeError, get_default_graph
from tinyflow.graph.registry import register_op
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core.array_ops import concat, expand_dims, reshape, shape, size, zeros_like
from tinyflow.ops.core.util import is_concrete, name_scope
from tinyflow.ops.core.base import convert_to_tensor, make_op
from tinyflow.ops.core.indexing_ops import gather, scatter_nd
from tinyflow.ops.core.sequence_ops import range as _range

__all__ = ['dynamic_partition', 'dynamic_stitch', 'unique_with_counts']


def _concrete(x, what):
    """x as numpy; a traced x means the op sits where shapes must be static (a tf.cond / while body)."""
    if not is_concrete(x):
        raise ValueError("%s has an output shape that depends on input values; inside tf.cond / "
                         "tf.while_loop bodies tinyflow needs those values known at compile time" % what)
    return np.asarray(x)


# ---- dynamic_partition ----------------------------------------------------------------------------
def _partition_shape(shapes, attrs, values):
    data, parts = shapes
    if data.ndims is None or parts.ndims is None:
        return [TensorShape(None)] * attrs["num_partitions"]
    k = parts.ndims
    if data.ndims < k or not TensorShape(data.as_list()[:k]).is_compatible_with(parts):
        raise ShapeError("data.shape must start with partitions.shape, got data.shape = %s, partitions.shape = %s"
                         % (data.as_proto_str(), parts.as_proto_str()))
    return [TensorShape([None] + data.as_list()[k:])] * attrs["num_partitions"]


def _partition_lower(a, data, partitions):
    p = _concrete(partitions, "tf.dynamic_partition").reshape(-1)
    n = a["num_partitions"]
    bad = np.nonzero((p < 0) | (p >= n))[0]
    if bad.size:
        raise ValueError("partitions[%d] = %d is not in [0, %d)" % (bad[0], p[bad[0]], n))
    flat = jnp.reshape(data, (p.size,) + tuple(data.shape[np.ndim(partitions):]))
    return tuple(flat[np.nonzero(p == i)[0]] for i in range(n))


def _partition_grad(op, *grads):
    """TF's rule (a dynamic_stitch of partitioned positions), as a scatter into data's shape."""
    data, partitions = op.inputs
    positions = reshape(_range(size(partitions)), shape(partitions))
    parted = dynamic_partition(positions, partitions, len(op.outputs))
    grads = [g if g is not None else zeros_like(o) for g, o in zip(grads, op.outputs)]
    flat_shape = concat([reshape(size(partitions), [1]), shape(data)[partitions.shape.ndims:]], 0)
    flat = scatter_nd(expand_dims(concat(parted, 0), 1), concat(grads, 0), flat_shape)
    return [reshape(flat, shape(data)), None]


register_op("DynamicPartition", shape=_partition_shape, dtype=lambda d, a: [d[0]] * a["num_partitions"],
            grad=_partition_grad, lower=_partition_lower, dynamic_shape=True)


def dynamic_partition(data, partitions, num_partitions, name=None):
    """Splits `data` into `num_partitions` tensors: out[i] holds the entries (over partitions'
    dimensions) whose partition is i, in order. Their lengths depend on the values of `partitions`."""
    with name_scope(name or "DynamicPartition") as scope:
        data = convert_to_tensor(data, name="data")
        partitions = convert_to_tensor(partitions, dtype=dt.int32, name="partitions")
        outs = make_op("DynamicPartition", [data, partitions], {"num_partitions": int(num_partitions)}, name=scope)
        return outs if isinstance(outs, list) else [outs]


# ---- dynamic_stitch -------------------------------------------------------------------------------
def _stitch_shape(shapes, attrs, values):
    n = attrs["N"]
    idx, data = shapes[:n], shapes[n:]
    if idx[0].ndims is None or data[0].ndims is None:
        return [TensorShape(None)]
    return [TensorShape([None] + data[0].as_list()[idx[0].ndims:])]


def _stitch_lower(a, *args):
    n = a["N"]
    idx = [_concrete(i, "tf.dynamic_stitch").reshape(-1) for i in args[:n]]
    rest = tuple(args[n].shape[np.ndim(args[0]):])
    data = jnp.concatenate([jnp.reshape(d, (i.size,) + rest) for i, d in zip(idx, args[n:])], 0)
    flat = np.concatenate(idx) if idx else np.zeros([0], np.int32)
    size = int(flat.max()) + 1 if flat.size else 0
    # a later index wins (TF's rule): the last source row of each output row, numpy-side
    src = np.full(size, -1, np.int64)
    src[flat] = np.arange(flat.size)
    out = data[np.maximum(src, 0)]
    mask = (src >= 0).reshape((-1,) + (1,) * len(rest))
    return jnp.where(mask, out, jnp.zeros((), out.dtype))


def _stitch_grad(op, g):
    n = op.attrs["N"]
    return [None] * n + [gather(g, i) for i in op.inputs[:n]]


def _stitch_check(a, *args):
    """TF's bounds check: no negative index (the output is max + 1 long). The data: the first bad one's
    position in its own indices tensor."""
    flat = [jnp.reshape(i, (-1,)) for i in args[:a["N"]]]
    if not sum(f.size for f in flat):
        return jnp.asarray(True), jnp.asarray(0)
    bad = jnp.concatenate([f < 0 for f in flat])
    at = jnp.concatenate([jnp.arange(f.size) for f in flat])
    return ~jnp.any(bad), at[jnp.argmax(bad)]


register_op("DynamicStitch", shape=_stitch_shape, dtype=lambda d, a: [d[a["N"]]], grad=_stitch_grad,
            lower=_stitch_lower, dynamic_shape=lambda op, known: not all(known[:op.attrs["N"]]),
            check=_stitch_check, check_message=lambda op, i: "indices[%d] is out of range" % i)


def dynamic_stitch(indices, data, name=None):
    """out[indices[m][i], ...] = data[m][i, ...]: interleaves the `data` tensors; its length is
    max(indices) + 1 (a later index wins where two name the same row)."""
    with name_scope(name or "DynamicStitch") as scope:
        indices = [convert_to_tensor(i, dtype=dt.int32, name="indices") for i in indices]
        data = [convert_to_tensor(d, name="data") for d in data]
        if len(indices) != len(data):
            raise ValueError("indices and data must have the same length, got %d and %d" % (len(indices), len(data)))
        return make_op("DynamicStitch", indices + data, {"N": len(indices)}, name=scope)


# ---- unique_with_counts ---------------------------------------------------------------------------
UniqueWithCountsOutput = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def _unique_counts_lower(a, x):
    x = _concrete(x, "tf.unique_with_counts")
    vals, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    order = np.argsort(first)          # TF's order: by first occurrence
    position = np.empty_like(order)
    position[order] = np.arange(len(order))
    t = a["out_idx"].np
    return vals[order], position[inverse.reshape(-1)].astype(t), counts[order].astype(t)


def _unique_counts_shape(shapes, attrs, values):
    if shapes[0].ndims not in (None, 1):
        raise ShapeError("Shape must be rank 1 but is rank %d" % shapes[0].ndims)
    return [TensorShape([None]), shapes[0], TensorShape([None])]


register_op("UniqueWithCounts", shape=_unique_counts_shape, dtype=lambda d, a: [d[0], a["out_idx"], a["out_idx"]],
            grad=None, lower=_unique_counts_lower, dynamic_shape=True)


def unique_with_counts(x, out_idx=dt.int32, name=None):
    """(y, idx, count): the distinct values of 1-D `x` in order of first occurrence, x == gather(y,
    idx), and how often each occurs."""
    op = get_default_graph().create_op("UniqueWithCounts", [convert_to_tensor(x)], {"out_idx": dt.as_dtype(out_idx)},
                                       name=name or "UniqueWithCounts")
    return UniqueWithCountsOutput(*op.outputs)

