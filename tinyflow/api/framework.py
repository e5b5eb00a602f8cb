"""TF 1.15's framework names of `tf.` that are no ops: DeviceSpec, the TypeSpec family, tf.Module, the
v2-behaviour switches (no-ops that record what was asked, as TF's do), convert_to_tensor_or_*, small wrappers
(grad_pass_through, vectorized_map, nondifferentiable_batch_function, timestamp, batch_scatter_update), and
the names tinyflow declares but does not implement: calling one raises tf.errors.UnimplementedError saying so."""
import re
import time

import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph import errors
from tinyflow.graph.errors import OpError  # noqa: F401 (tf.OpError)
from tinyflow.graph.shapes import as_shape

CXX11_ABI_FLAG = 0


# ---- declared, not implemented ------------------------------------------------------------------------
def unimplemented(name, instead=None, why=None):
    """A stand-in for tf.<name>: calling (or instantiating) it raises UnimplementedError with TF's name,
    why tinyflow lacks it and what to use instead."""
    message = "TF 1.15 has tf.%s; tinyflow does not implement it" % name
    if why:
        message += " (%s)" % why
    if instead:
        message += "; use %s instead" % instead

    def stand_in(*args, **kwargs):
        raise errors.UnimplementedError(None, None, message)
    stand_in.__name__ = name.split(".")[-1]
    stand_in.__qualname__ = stand_in.__name__
    stand_in.__doc__ = message + "."
    stand_in.unimplemented = True
    return stand_in


_NO_NATIVE = "tinyflow runs on XLA through JAX and cannot load TF's compiled kernels"
ConditionalAccumulator = unimplemented("ConditionalAccumulator", "an optimizer's own gradient averaging, or "
                                       "tf.contrib.opt.DropStaleGradientOptimizer-free synchronous training")
ConditionalAccumulatorBase = unimplemented("ConditionalAccumulatorBase")
SparseConditionalAccumulator = unimplemented("SparseConditionalAccumulator")
CriticalSection = unimplemented("CriticalSection", "tf.control_dependencies (a Session run is one XLA program)")
IdentityReader = unimplemented("IdentityReader", "tf.data.Dataset.from_tensor_slices")
LMDBReader = unimplemented("LMDBReader", "tf.data with a Python generator over the LMDB file")
delete_session_tensor = unimplemented("delete_session_tensor", why="no session handles")
get_session_handle = unimplemented("get_session_handle", "a tf.Variable to keep a value between runs")
get_session_tensor = unimplemented("get_session_tensor", "a tf.Variable to keep a value between runs")
load_file_system_library = unimplemented("load_file_system_library", why=_NO_NATIVE)
load_library = unimplemented("load_library", why=_NO_NATIVE)
load_op_library = unimplemented("load_op_library", "tf.py_func or a graph of TF ops", why=_NO_NATIVE)
wrap_function = unimplemented("compat.v1.wrap_function", "a graph built in a tf.Graph and run by a Session")
create_partitioned_variables = unimplemented("create_partitioned_variables",
                                             "tf.get_variable with a partitioner (tinyflow keeps one variable)")
decode_json_example = unimplemented("io.decode_json_example", "json and tf.train.Example in Python, then "
                                    "SerializeToString")
count_up_to = unimplemented("count_up_to", "tf.data's Dataset.take, or tf.assign_add with a tf.Assert")
parse_sequence_example = unimplemented("io.parse_sequence_example", "tf.io.parse_example of the context features")
parse_single_sequence_example = unimplemented("io.parse_single_sequence_example",
                                              "tf.io.parse_single_example of the context features")
decode_proto = unimplemented("io.decode_proto", "the message's Python class and ParseFromString in tf.py_func")
encode_proto = unimplemented("io.encode_proto", "the message's Python class and SerializeToString in tf.py_func")


class SparseFeature(__import__("collections").namedtuple(
        "SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"])):
    """tf.io.SparseFeature's configuration (index_key, value_key, dtype, size, already_sorted). tinyflow's
    parse_example does not read it: parse the index and value keys as VarLenFeatures and build the
    SparseTensor with tf.SparseTensor."""

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


# ---- the v2-behaviour switches: they change nothing in tinyflow and remember what was asked --------------
_SWITCHES = {"control_flow_v2": False, "resource_variables": False, "tensor_equality": False,
             "v2_tensorshape": False, "v2_behavior": False}


def _switch(key, value, doc):
    def switch():
        _SWITCHES[key] = value
    switch.__doc__ = doc + " (recorded; tinyflow runs graphs the same way either way)."
    return switch


enable_control_flow_v2 = _switch("control_flow_v2", True, "Asks for TF2's control flow")
disable_control_flow_v2 = _switch("control_flow_v2", False, "Asks for TF1's control flow")
disable_resource_variables = _switch("resource_variables", False, "Asks for reference variables")
enable_tensor_equality = _switch("tensor_equality", True, "Asks for Tensor.__eq__ to compare values")
disable_tensor_equality = _switch("tensor_equality", False, "Asks for Tensor.__eq__ to compare identity")
enable_v2_tensorshape = _switch("v2_tensorshape", True, "Asks for TensorShape to hold ints, not Dimensions")
disable_v2_tensorshape = _switch("v2_tensorshape", False, "Asks for TensorShape to hold Dimensions")
enable_v2_behavior = _switch("v2_behavior", True, "Asks for every TF2 behaviour")


def control_flow_v2_enabled():
    """Whether enable_control_flow_v2 was called last (TF's default in 1.15: False)."""
    return _SWITCHES["control_flow_v2"]


def resource_variables_enabled():
    """Whether enable_resource_variables was called last (TF 1.15's default: False)."""
    return _SWITCHES["resource_variables"]


def enable_resource_variables():
    """Asks for resource variables (recorded: tinyflow's variables behave as resource variables already)."""
    _SWITCHES["resource_variables"] = True


# ---- conversions ----------------------------------------------------------------------------------
def convert_to_tensor_or_indexed_slices(value, dtype=None, name=None):
    """An IndexedSlices as it is; anything else through convert_to_tensor."""
    from tinyflow.api.tensor_util import IndexedSlices
    from tinyflow.ops.core.base import convert_to_tensor
    if isinstance(value, IndexedSlices):
        if dtype is not None and not dt.as_dtype(dtype).is_compatible_with(value.dtype):
            raise ValueError("Tensor conversion requested dtype %s for Tensor with dtype %s: %r"
                             % (dt.as_dtype(dtype).name, value.dtype.name, value))
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)


def convert_to_tensor_or_sparse_tensor(value, dtype=None, name=None):
    """A SparseTensor (or SparseTensorValue, made a SparseTensor) as it is; anything else through
    convert_to_tensor."""
    from tinyflow.ops.core.base import convert_to_tensor
    from tinyflow.ops.sparse import SparseTensor, SparseTensorValue
    if isinstance(value, SparseTensorValue):
        value = SparseTensor(value.indices, value.values, value.dense_shape)
    if isinstance(value, SparseTensor):
        if dtype is not None and not dt.as_dtype(dtype).is_compatible_with(value.dtype):
            raise ValueError("Sparse dtype: requested = %s, actual = %s" % (dt.as_dtype(dtype).name,
                                                                             value.dtype.name))
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)


# ---- DeviceSpec -----------------------------------------------------------------------------------
class DeviceSpec:
    """A device name's parts: /job:<job>/replica:<r>/task:<t>/device:<TYPE>:<index>."""

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self.job, self.replica, self.task = job, replica, task
        self.device_type = device_type.upper() if device_type and device_type.lower() in ("cpu", "gpu") \
            else device_type
        self.device_index = device_index

    def parse_from_string(self, spec):
        for part in (p for p in (spec or "").split("/") if p):
            bits = part.split(":")
            key = bits[0].lower()
            if key in ("job", "replica", "task") and len(bits) == 2:
                setattr(self, key, bits[1] if key == "job" else int(bits[1]))
            elif key == "device" and len(bits) >= 2:
                self.device_type = bits[1]
                self.device_index = None if len(bits) < 3 or bits[2] == "*" else int(bits[2])
            elif key in ("cpu", "gpu") and len(bits) == 2:
                self.device_type, self.device_index = key.upper(), None if bits[1] == "*" else int(bits[1])
            else:
                raise ValueError("Unknown attribute: '%s' in '%s'" % (part, spec))
        return self

    @classmethod
    def from_string(cls, spec):
        return cls().parse_from_string(spec)

    def merge_from(self, dev):
        for key in ("job", "replica", "task", "device_type", "device_index"):
            if getattr(dev, key) is not None:
                setattr(self, key, getattr(dev, key))

    def replace(self, **kwargs):
        out = DeviceSpec(self.job, self.replica, self.task, self.device_type, self.device_index)
        for k, v in kwargs.items():
            setattr(out, k, v)
        return out

    def to_string(self):
        out = ""
        if self.job is not None:
            out += "/job:" + str(self.job)
        if self.replica is not None:
            out += "/replica:" + str(self.replica)
        if self.task is not None:
            out += "/task:" + str(self.task)
        if self.device_type is not None:
            out += "/device:%s:%s" % (self.device_type, "*" if self.device_index is None else self.device_index)
        return out

    def __eq__(self, other):
        return isinstance(other, DeviceSpec) and self.to_string() == other.to_string()

    def __hash__(self):
        return hash(self.to_string())

    def __repr__(self):
        return "<DeviceSpec %s>" % self.to_string()


# ---- the TypeSpec family ------------------------------------------------------------------------------
class TypeSpec:
    """The type of a value tf.function and tf.data pass around (shape and dtype of its parts)."""

    def __init__(self, shape=None, dtype=dt.float32):
        self._shape = as_shape(shape)
        self._dtype = dt.as_dtype(dtype)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    value_type = property(lambda self: None)

    def is_compatible_with(self, spec_or_value):
        other = spec_or_value if isinstance(spec_or_value, TypeSpec) else None
        if other is None:
            return self._dtype == getattr(spec_or_value, "dtype", None) and \
                self._shape.is_compatible_with(as_shape(getattr(spec_or_value, "shape", None)))
        return type(self) is type(other) and self._dtype == other._dtype and \
            self._shape.is_compatible_with(other._shape)

    def most_specific_compatible_type(self, other):
        if not self.is_compatible_with(other):
            raise ValueError("Types are not compatible: %r vs. %r" % (self, other))
        return type(self)(self._shape.most_specific_compatible_shape(other._shape), self._dtype)

    def __eq__(self, other):
        return type(self) is type(other) and self._dtype == other._dtype and str(self._shape) == str(other._shape)

    def __hash__(self):
        return hash((type(self).__name__, str(self._shape), self._dtype))

    def __repr__(self):
        return "%s(shape=%s, dtype=%r)" % (type(self).__name__, self._shape, self._dtype)


class DatasetSpec(TypeSpec):
    """tf.data.DatasetSpec: the type of a Dataset, from the specs of its elements."""

    def __init__(self, element_spec, dataset_shape=()):
        super().__init__(dataset_shape, dt.variant)
        self._element_spec = element_spec

    element_spec = property(lambda self: self._element_spec)

    @classmethod
    def from_value(cls, value):
        """The spec of a Dataset: its elements' output types and shapes as TensorSpecs (nested alike)."""
        from tinyflow.api.aliases import TensorSpec
        from tinyflow.api.nest import map_structure
        return cls(map_structure(lambda t, s: TensorSpec(s, t), value.output_types, value.output_shapes))

    def __eq__(self, other):
        return type(other) is DatasetSpec and self._element_spec == other._element_spec

    def __hash__(self):
        return hash(("DatasetSpec", repr(self._element_spec)))

    def __repr__(self):
        return "DatasetSpec(%r, %s)" % (self._element_spec, self._shape)


class SparseTensorSpec(TypeSpec):
    """The type of a SparseTensor: its dense shape and dtype."""

    @classmethod
    def from_value(cls, value):
        return cls(value.get_shape(), value.dtype)


class IndexedSlicesSpec(TypeSpec):
    """The type of an IndexedSlices (dense shape, dtype, indices' dtype)."""

    def __init__(self, shape=None, dtype=dt.float32, indices_dtype=dt.int64, dense_shape_dtype=None,
                 indices_shape=None):
        super().__init__(shape, dtype)
        self._indices_dtype = dt.as_dtype(indices_dtype)


class RaggedTensorSpec(TypeSpec):
    """The type of a RaggedTensor: shape, dtype, ragged rank, row_splits dtype."""

    def __init__(self, shape=None, dtype=dt.float32, ragged_rank=None, row_splits_dtype=dt.int64):
        super().__init__(shape, dtype)
        rank = self._shape.ndims
        self._ragged_rank = ragged_rank if ragged_rank is not None else (rank - 1 if rank else None)
        self._row_splits_dtype = dt.as_dtype(row_splits_dtype)

    ragged_rank = property(lambda self: self._ragged_rank)
    row_splits_dtype = property(lambda self: self._row_splits_dtype)


class TensorArraySpec(TypeSpec):
    """The type of a TensorArray: its elements' shape and dtype."""

    def __init__(self, element_shape=None, dtype=dt.float32, dynamic_size=None, infer_shape=True):
        super().__init__(element_shape, dtype)
        self._dynamic_size, self._infer_shape = dynamic_size, infer_shape


class OptionalSpec(TypeSpec):
    """The type of a tf.data Optional: the spec of its value."""

    def __init__(self, value_structure):
        super().__init__(None, dt.float32)
        self._value_structure = value_structure


# ---- tf.Module --------------------------------------------------------------------------------------
class Module:
    """tf.Module: a named container whose attributes hold variables and other modules; `variables`,
    `trainable_variables` and `submodules` walk them (lists, tuples and dicts included)."""

    def __init__(self, name=None):
        from tinyflow.api import name_scope
        name = name or re.sub(r"(?<!^)(?=[A-Z])", "_", type(self).__name__).lower()
        if not re.match(r"^[A-Za-z_][A-Za-z0-9_.\-/]*$", name):
            raise ValueError("%r is not a valid module name. Module names must be valid Python identifiers "
                             "(e.g. a valid class name)." % name)
        self._name = name
        with name_scope(name) as scope:
            self._scope_name = scope

    name = property(lambda self: self._name)

    @property
    def name_scope(self):
        from tinyflow.api import name_scope
        return name_scope(self._scope_name)

    def _walk(self, keep, seen=None):
        """TF's order: this module's own leaves (attributes sorted by name, nested lists and dicts
        flattened), then each submodule's, depth first; each object once."""
        seen = set() if seen is None else seen
        seen.add(id(self))
        out, subs = [], []

        def leaves(v):
            if isinstance(v, (list, tuple)):
                return [x for item in v for x in leaves(item)]
            if isinstance(v, dict):
                return [x for k in sorted(v, key=str) for x in leaves(v[k])]
            return [v]
        for key in sorted(vars(self)):
            for leaf in leaves(vars(self)[key]):
                if id(leaf) in seen:
                    continue
                if keep(leaf):
                    out.append(leaf)
                if isinstance(leaf, Module):
                    subs.append(leaf)
                seen.add(id(leaf))
        for sub in subs:
            out.extend(sub._walk(keep, seen))
        return tuple(out)

    @property
    def variables(self):
        from tinyflow.ops.state_ops import Variable
        return self._walk(lambda v: isinstance(v, Variable))

    @property
    def trainable_variables(self):
        from tinyflow.ops.state_ops import Variable
        return self._walk(lambda v: isinstance(v, Variable) and v.trainable)

    @property
    def submodules(self):
        return self._walk(lambda v: isinstance(v, Module))

    @classmethod
    def with_name_scope(cls, method):
        def wrapped(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)
        return wrapped


# ---- small wrappers -------------------------------------------------------------------------------
def grad_pass_through(f):
    """f with its gradient replaced by the identity: y = f(x) forward, dy/dx = 1 backward (TF's straight-
    through use: an assign or a rounding in the forward pass)."""
    def wrapped(*args):
        from tinyflow.api import convert_to_tensor, stop_gradient
        from tinyflow.ops.core.math_ops import add, subtract
        y = f(*args)
        x = convert_to_tensor(args[0])
        return add(stop_gradient(subtract(y, x)), x) if y.dtype == x.dtype else y
    return wrapped


def nondifferentiable_batch_function(num_batch_threads, max_batch_size, batch_timeout_micros,
                                     allowed_batch_sizes=None, max_enqueued_batches=10):
    """A decorator: TF batches concurrent calls of the function across Session.run calls; a tinyflow run
    is one program, so the function is called as it is."""
    def decorator(fn):
        return fn
    return decorator


variable_creator_scope = unimplemented("variable_creator_scope", "a custom_getter of tf.variable_scope")


def timestamp(name=None):
    """The time of the run, in seconds since the epoch, as a float64 scalar (a host op)."""
    from tinyflow.ops.script_ops import py_func
    out = py_func(lambda: np.float64(time.time()), [], dt.float64, stateful=True, name=name or "Timestamp")
    out.set_shape([])
    return out


def batch_scatter_update(ref, indices, updates, use_locking=True, name=None):
    """ref[i, indices[i, j]] = updates[i, j] for every batch row i (TF's tf.batch_scatter_update)."""
    from tinyflow.api import (cast, concat, convert_to_tensor, expand_dims, name_scope, ones_like, range as tf_range,
                              reshape, scatter_nd_update, shape)
    with name_scope(name or "BatchScatterUpdate"):
        indices = convert_to_tensor(indices, name="indices")
        rank = indices.shape.ndims
        if rank is None:
            raise ValueError("batch_scatter_update needs the rank of indices known")
        parts = []
        idx_shape = shape(indices)
        for d in range(rank - 1):
            r = cast(tf_range(idx_shape[d]), indices.dtype)
            shaped = reshape(r, [-1 if k == d else 1 for k in range(rank)])
            parts.append(expand_dims(shaped * ones_like(indices), -1))
        nd = concat(parts + [expand_dims(indices, -1)], -1)
        return scatter_nd_update(ref, nd, updates, use_locking=use_locking)


__all__ = sorted(n for n in dict(globals()) if not n.startswith("_") and n not in (
    "re", "time", "np", "dt", "errors", "as_shape", "unimplemented", "TensorSpec", "decode_proto", "encode_proto",
    "parse_sequence_example", "DatasetSpec"))  # (tf.vectorized_map: api/__init__.py's LAZY_NAMES, tf.map_fn)
