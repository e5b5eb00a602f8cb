"""TF 1.15's core long tail built from graph ops, as TF's Python builds them: batch_gather,
histogram_fixed_width_bins, guarantee_const, uniform_unit_scaling_initializer, the variable
partitioners and py_function."""
import math

import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import get_default_graph
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops import random_ops
from tinyflow.ops.core import array_ops, math_ops
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.core.indexing_ops import gather
from tinyflow.ops.core.sequence_ops import range as _range
from tinyflow.ops.init_ops import Initializer, _dims, _float_dtype
from tinyflow.ops.misc_ops import histogram_fixed_width  # noqa: F401
from tinyflow.ops.script_ops import py_func

__all__ = ["UniformUnitScaling", "batch_gather", "fixed_size_partitioner", "guarantee_const",
           "histogram_fixed_width_bins", "min_max_variable_partitioner", "py_function",
           "uniform_unit_scaling_initializer", "variable_axis_size_partitioner"]


def batch_gather(params, indices, name=None):
    """params[b..., indices[b..., i], ...]: a gather along axis rank(indices) - 1, batched over the axes
    before it (which params and indices share)."""
    with get_default_graph().name_scope(name or "BatchGather"):
        indices = convert_to_tensor(indices, name="indices")
        params = convert_to_tensor(params, name="params")
        if indices.shape.ndims is None:
            raise ValueError("batch_gather does not allow indices with unknown shape.")
        nb = indices.shape.ndims - 1
        if nb == 0:
            return gather(params, indices)
        p_shape, i_shape = array_ops.shape(params), array_ops.shape(indices)
        batch = math_ops.reduce_prod(p_shape[:nb])
        # params' batch axes flattened into its gather axis; each batch's indices offset into its own rows
        flat = array_ops.reshape(params, array_ops.concat([[-1], p_shape[nb + 1:]], 0))
        offsets = math_ops.cast(_range(batch) * p_shape[nb], indices.dtype)
        flat_idx = array_ops.reshape(indices, array_ops.stack([batch, -1])) + array_ops.expand_dims(offsets, 1)
        got = gather(flat, array_ops.reshape(flat_idx, [-1]))
        out = array_ops.reshape(got, array_ops.concat([i_shape, p_shape[nb + 1:]], 0))
        out.set_shape(indices.shape.concatenate(params.shape[nb + 1:]) if params.shape.ndims else None)
        return out


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=dt.int32, name=None):
    """The bin (0 to nbins - 1) of each value among nbins equal bins over value_range, clipped at the ends."""
    with get_default_graph().name_scope(name or "histogram_fixed_width_bins"):
        values = convert_to_tensor(values, name="values")
        shape = array_ops.shape(values)
        flat = array_ops.reshape(values, [-1])
        value_range = convert_to_tensor(value_range, name="value_range")
        nbins_f = math_ops.cast(convert_to_tensor(nbins, dt.int32, name="nbins"), values.dtype)
        scaled = math_ops.truediv(flat - value_range[0], value_range[1] - value_range[0], name="scaled_values")
        indices = math_ops.floor(nbins_f * scaled, name="indices")
        indices = math_ops.cast(math_ops.clip_by_value(indices, 0, nbins_f - 1), dt.int32)
        return array_ops.reshape(indices, shape)


def guarantee_const(input, name=None):
    """input, promised constant for the run (TF may then fold it; XLA folds what it can)."""
    return array_ops.identity(input, name=name or "GuaranteeConst")


class UniformUnitScaling(Initializer):
    """Uniform in [-m, m) with m = factor * sqrt(3 / input size), the input size being the product of all
    dimensions but the last (the full variable's when partitioned)."""

    def __init__(self, factor=1.0, seed=None, dtype=dt.float32):
        self.factor, self.seed, self.dtype = factor, seed, _float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        scale_shape = partition_info.full_shape if partition_info is not None else _dims(shape)
        input_size = max(float(np.prod([float(d) for d in scale_shape[:-1]])), 1.0)
        max_val = math.sqrt(3 / input_size) * self.factor
        return random_ops.random_uniform(_dims(shape), -max_val, max_val, dtype or self.dtype, seed=self.seed)

    def get_config(self):
        return {"factor": self.factor, "seed": self.seed, "dtype": self.dtype.name}


uniform_unit_scaling_initializer = UniformUnitScaling


# The partitioners answer as TF's do (how many shards along each axis); tinyflow's get_variable keeps one
# unpartitioned variable whatever a partitioner answers.
def fixed_size_partitioner(num_shards, axis=0):
    """A partitioner of `num_shards` shards along `axis` (fewer if the axis is shorter)."""
    def _partitioner(shape, **unused_args):
        partitions = [1] * len(shape)
        partitions[axis] = min(num_shards, TensorShape(shape).dims[axis].value)
        return partitions
    return _partitioner


def _element_size(dtype, per_string):
    dtype = dt.as_dtype(dtype)
    return per_string if dtype.base_dtype == dt.string else dtype.size


def variable_axis_size_partitioner(max_shard_bytes, axis=0, bytes_per_string_element=16, max_shards=None):
    """A partitioner keeping each shard along `axis` under max_shard_bytes where it can."""
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError("Both max_shard_bytes and bytes_per_string_element must be positive.")
    if max_shards and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def _partitioner(shape, dtype):
        if not isinstance(shape, TensorShape):
            raise ValueError("shape is not a TensorShape: %s" % shape)
        if not shape.is_fully_defined():
            raise ValueError("shape is not fully defined: %s" % shape)
        partitions = [1] * shape.ndims
        per_slice = 1.0 * (shape.num_elements() / shape.dims[axis].value) * _element_size(dtype,
                                                                                           bytes_per_string_element)
        slices_per_shard = max(1, math.floor(max_shard_bytes / per_slice))
        shards = int(math.ceil(1.0 * shape.dims[axis].value / slices_per_shard))
        partitions[axis] = min(max_shards, shards) if max_shards else shards
        return partitions
    return _partitioner


def min_max_variable_partitioner(max_partitions=1, axis=0, min_slice_size=256 << 10, bytes_per_string_element=16):
    """A partitioner of slices of at least min_slice_size bytes, at most max_partitions of them."""
    def _partitioner(shape, dtype):
        shape = TensorShape(shape)
        if axis >= len(shape):
            raise ValueError("Can not partition variable along axis %d when shape is only %s" % (axis, shape))
        total = shape.num_elements() * _element_size(dtype, bytes_per_string_element)
        partitions = [1] * len(shape)
        partitions[axis] = max(1, min(shape.dims[axis].value, max_partitions,
                                      int(math.ceil(total / min_slice_size))))
        return partitions
    return _partitioner


def py_function(func, inp, Tout, name=None):
    """tf.py_function: func(*eager tensors) run on the host each time the op runs (their .numpy() is the
    value); what it returns becomes the outputs of dtypes Tout. No gradient flows through it."""
    from tinyflow.runtime.eager.tensor import EagerTensor
    touts = Tout if isinstance(Tout, (list, tuple)) else [Tout]

    def call(*arrays):
        got = func(*[EagerTensor(np.asarray(a), dt.as_dtype(np.asarray(a).dtype)) for a in arrays])
        if got is None:
            return []
        return [np.asarray(g, dt.as_dtype(t).np) for g, t in zip(got if isinstance(got, (list, tuple)) else [got],
                                                                  touts)]
    out = py_func(call, inp, list(touts), name=name or "EagerPyFunc")
    return out if isinstance(Tout, (list, tuple)) else out[0]
