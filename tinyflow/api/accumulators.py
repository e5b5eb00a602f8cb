"""tf.ConditionalAccumulator, tf.SparseConditionalAccumulator and their base: gradients summed across
Session runs (synchronous replicas), computed on the host by ops/accumulator_ops.py."""
import collections

from tinyflow.api.tensor_util import IndexedSlices
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import get_default_graph
from tinyflow.graph.serialize import register_serializable
from tinyflow.graph.shapes import TensorShape, as_shape
from tinyflow.ops import accumulator_ops  # noqa: F401 (registers the host ops)
from tinyflow.ops.core import math_ops
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.host_ops import make_host_op

_SparseTake = collections.namedtuple("SparseAccumulatorTakeGradient", ["indices", "values", "shape"])


class ConditionalAccumulatorBase:
    """What both accumulators share: a dtype, a shape (partly known), a per-session resource, the number of
    gradients summed and the global step below which an applied gradient is dropped as stale."""

    def __init__(self, dtype, shape, accumulator_ref=None, shared_name=None, name="accumulator",
                 reduction_type="MEAN"):
        if reduction_type not in ("MEAN", "SUM"):
            raise ValueError("reduction_type must be MEAN or SUM, got %r" % (reduction_type,))
        g = get_default_graph()
        self._dtype = dt.as_dtype(dtype)
        self._shape = TensorShape(None) if shape is None else as_shape(shape)
        self._reduction_type = reduction_type
        self._name = g.unique_name(name)
        count = getattr(g, "_queue_count", 0)     # one count with the queues: their resource names never meet
        g._queue_count = count + 1
        self._resource = shared_name or "_%d_%s" % (count, self._name)

    name = property(lambda self: self._name)
    dtype = property(lambda self: self._dtype)
    accumulator_ref = property(lambda self: self)

    def _op(self, op_type, inputs, name, **attrs):
        return make_host_op(op_type, inputs, dict(attrs, accumulator=self), name=name or op_type)

    def num_accumulated(self, name=None):
        """The number of gradients summed since the last take_grad (int32 scalar)."""
        return self._op("AccumulatorNumAccumulated", [], name or self._name + "_NumAccumulated").outputs[0]

    def set_global_step(self, new_global_step, name=None):
        """An op that sets the global step (gradients of a lower local_step are dropped from then on)."""
        step = math_ops.cast(convert_to_tensor(new_global_step), dt.int64)
        return self._op("AccumulatorSetGlobalStep", [step], name)

    def _step(self, local_step):
        return math_ops.cast(convert_to_tensor(local_step, name="local_step"), dt.int64)

    def _required(self, num_required):
        return convert_to_tensor(num_required, dt.int32, name="num_required")


class ConditionalAccumulator(ConditionalAccumulatorBase):
    """Sums dense gradients of one dtype and shape; take_grad returns their mean (reduction_type "MEAN") or
    sum ("SUM")."""

    def __init__(self, dtype, shape=None, shared_name=None, name="conditional_accumulator", reduction_type="MEAN"):
        super().__init__(dtype, shape, None, shared_name, name, reduction_type)

    def apply_grad(self, grad, local_step=0, name=None):
        """An op that adds `grad` to the sum, unless local_step is below the global step."""
        grad = convert_to_tensor(grad, self._dtype, name="grad")
        grad.shape.assert_is_compatible_with(self._shape)
        return self._op("ResourceAccumulatorApplyGradient", [self._step(local_step), grad], name)

    def take_grad(self, num_required, name=None):
        """Waits for num_required gradients, returns their mean (or sum), resets the sum and advances the
        global step; InvalidArgumentError when num_required < 1."""
        op = self._op("ResourceAccumulatorTakeGradient", [self._required(num_required)], name)
        return op.outputs[0]


class SparseConditionalAccumulator(ConditionalAccumulatorBase):
    """Sums sparse gradients (indices into the first dimension, their rows); the mean divides each row by
    the number of gradients that held its index."""

    def __init__(self, dtype, shape=None, shared_name=None, name="sparse_conditional_accumulator",
                 reduction_type="MEAN"):
        super().__init__(dtype, shape, None, shared_name, name, reduction_type)

    def apply_indexed_slices_grad(self, grad, local_step=0, name=None):
        """apply_grad of an IndexedSlices."""
        return self.apply_grad(grad.indices, grad.values, grad.dense_shape, local_step, name)

    def apply_grad(self, grad_indices, grad_values, grad_shape=None, local_step=0, name=None):
        """An op that merges (grad_indices, grad_values) into the sum, unless local_step is below the global
        step; grad_shape, when given, must fit the accumulator's shape."""
        indices = convert_to_tensor(grad_indices, dt.int64, name="grad_indices")
        values = convert_to_tensor(grad_values, self._dtype, name="grad_values")
        shape = convert_to_tensor([] if grad_shape is None else grad_shape, dt.int64, name="grad_shape")
        return self._op("SparseAccumulatorApplyGradient", [self._step(local_step), indices, values, shape], name,
                        has_known_shape=grad_shape is not None)

    def take_grad(self, num_required, name=None):
        """(indices, values, shape) of the mean (or sum) of num_required gradients; the shape's first
        dimension is -1 when the accumulator's is unknown."""
        op = self._op("SparseAccumulatorTakeGradient", [self._required(num_required)], name)
        return _SparseTake(*op.outputs)

    def take_indexed_slices_grad(self, num_required, name=None):
        """take_grad as an IndexedSlices."""
        indices, values, shape = self.take_grad(num_required, name)
        return IndexedSlices(indices=indices, values=values, dense_shape=shape)


for _cls in (ConditionalAccumulator, SparseConditionalAccumulator):
    register_serializable(_cls)
