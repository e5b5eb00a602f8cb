"""TF1's older names and small conveniences that tutorial scripts still call (tf.arg_max,
tf.device, tf.dimension_value, ...). Each is a thin wrapper over a tinyflow op or a no-op where
tinyflow has nothing to configure (device placement is XLA's)."""
import contextlib
import enum

from tinyflow.graph import shapes as _shapes
from tinyflow.graph.core import Tensor, constant_value, get_default_graph, name_scope
from tinyflow.ops.core import array_ops, math_ops
from tinyflow.ops.core.base import broadcast_shapes, convert_to_tensor, make_op_raw

__all__ = ["VariableAggregation", "VariableSynchronization", "TensorSpec",
           "arg_max", "arg_min", "device", "colocate_with", "container", "init_scope", "dimension_value",
           "dimension_at_index", "is_tensor", "get_static_value", "identity_n", "broadcast_static_shape",
           "tables_initializer", "initialize_all_tables", "op_scope", "variable_op_scope", "get_logger"]


def arg_max(input, dimension, output_type="int64", name=None):
    """TF1's tf.arg_max(input, dimension): tf.argmax with a required dimension."""
    return math_ops.argmax(input, axis=dimension, output_type=output_type, name=name)


def arg_min(input, dimension, output_type="int64", name=None):
    """TF1's tf.arg_min(input, dimension): tf.argmin with a required dimension."""
    return math_ops.argmin(input, axis=dimension, output_type=output_type, name=name)


@contextlib.contextmanager
def device(device_name_or_function):
    """Accepted and ignored: XLA places the whole step on one device (JAX's default)."""
    yield


@contextlib.contextmanager
def colocate_with(op, ignore_existing=False):
    """Accepted and ignored, as tf.device."""
    yield


@contextlib.contextmanager
def container(container_name):
    """Accepted and ignored: tinyflow's variables live in the Session, not in resource containers."""
    yield


@contextlib.contextmanager
def init_scope():
    """Builds outside any control dependencies (TF's init_scope, graph mode)."""
    with get_default_graph().control_dependencies(None):
        yield


def dimension_value(dimension):
    """The int (or None) of a Dimension, an int or None."""
    return dimension.value if isinstance(dimension, _shapes.Dimension) else dimension


def dimension_at_index(shape, index):
    """shape[index] as a Dimension (unknown when the rank is)."""
    shape = _shapes.as_shape(shape)
    if shape.ndims is None:
        return _shapes.Dimension(None)
    return shape[index]


def is_tensor(x):
    """Whether x is a tinyflow Tensor (or tensor-like: a Variable)."""
    return isinstance(x, Tensor) or hasattr(x, "_as_graph_element") or hasattr(x, "value") and hasattr(x, "op")


def get_static_value(tensor, partial=False):
    """The numpy value of `tensor` when known while building, else None (TF's tf.get_static_value)."""
    if not isinstance(tensor, Tensor):
        tensor = convert_to_tensor(tensor)
    return constant_value(tensor)


def identity_n(input, name=None):
    """tf.identity of each tensor of a list (one IdentityN op)."""
    inputs = [array_ops.convert_to_tensor(x) for x in input]
    return make_op_raw("IdentityN", inputs, name=name or "IdentityN").outputs


def broadcast_static_shape(shape_x, shape_y):
    """The broadcast of two TensorShapes (ValueError when they do not broadcast)."""
    return broadcast_shapes(_shapes.as_shape(shape_x), _shapes.as_shape(shape_y))


from tinyflow.ops.init_ops import tables_initializer  # noqa: E402 (the op that fills every lookup table)

initialize_all_tables = tables_initializer


def op_scope(values, name, default_name=None):
    """TF0's op_scope(values, name, default_name): a name scope."""
    return name_scope(name, default_name, values)


def variable_op_scope(values, name_or_scope, default_name=None, initializer=None, regularizer=None,
                      caching_device=None, partitioner=None, custom_getter=None, reuse=None, dtype=None,
                      use_resource=None, constraint=None):
    """TF0's variable_op_scope: a variable_scope with `values`."""
    from tinyflow.ops.variable_scope import variable_scope
    return variable_scope(name_or_scope, default_name=default_name, values=values, initializer=initializer,
                          regularizer=regularizer, reuse=reuse, dtype=dtype)


def get_logger():
    """tf.get_logger(): the Python logger tf.logging writes to, with TF's stderr handler."""
    from tinyflow.api.logging import get_logger as tf_logger
    return tf_logger()


class VariableAggregation(enum.Enum):
    """How a distributed variable combines its replicas' updates (accepted by tf.Variable / get_variable;
    tinyflow's data-parallel steps average gradients before every update)."""
    NONE, SUM, MEAN, ONLY_FIRST_REPLICA = 0, 1, 2, 3


class VariableSynchronization(enum.Enum):
    """When a distributed variable is synchronized (accepted by tf.Variable / get_variable)."""
    AUTO, NONE, ON_WRITE, ON_READ = 0, 1, 2, 3


class TensorSpec:
    """tf.TensorSpec(shape, dtype=tf.float32, name=None): a tensor's shape and dtype, as input signatures
    describe one."""

    def __init__(self, shape, dtype=None, name=None):
        from tinyflow.graph import dtypes
        self.shape = _shapes.as_shape(shape)
        self.dtype = dtypes.as_dtype(dtype or "float32")
        self.name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        return cls(tensor.shape, tensor.dtype, name or getattr(tensor.op, "name", None))

    def is_compatible_with(self, spec_or_tensor):
        return (self.dtype == spec_or_tensor.dtype and
                self.shape.is_compatible_with(_shapes.as_shape(spec_or_tensor.shape)))

    def __eq__(self, other):
        return (type(self) is type(other) and self.dtype == other.dtype and self.name == other.name
                and str(self.shape) == str(other.shape))

    def __hash__(self):
        return hash((str(self.shape), self.dtype, self.name))

    def __repr__(self):
        return "TensorSpec(shape=%s, dtype=%r, name=%r)" % (self.shape, self.dtype, self.name)
