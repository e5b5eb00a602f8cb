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
    return stand_in(name, message)


def stand_in(name, message):
    """The callable that stands in for a declared name: calling it raises UnimplementedError(message); its
    `unimplemented` attribute makes tinyflow.coverage count the name as declared, not implemented."""
    def fn(*args, **kwargs):
        raise errors.UnimplementedError(None, None, message)
    fn.__name__ = name.split(".")[-1]
    fn.__qualname__ = fn.__name__
    fn.__doc__ = message + "."
    fn.unimplemented = True
    return fn


_NO_NATIVE = "tinyflow runs on XLA through JAX and cannot load TF's compiled kernels"
LMDBReader = unimplemented("LMDBReader", "tf.data with a Python generator over the LMDB file")
load_file_system_library = unimplemented("load_file_system_library", why=_NO_NATIVE)
load_library = unimplemented("load_library", why=_NO_NATIVE)
load_op_library = unimplemented("load_op_library", "tf.py_func or a graph of TF ops", why=_NO_NATIVE)
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


@__import__("contextlib").contextmanager
def variable_creator_scope(variable_creator):
    """Inside it, every tf.Variable (get_variable's too) is made by `variable_creator(next_creator, **kwargs)`
    (TF's creator chain: the innermost scope's creator first; `next_creator(**kwargs)` makes it the usual way)."""
    from tinyflow.graph.core import get_default_graph
    graph = get_default_graph()
    stack = getattr(graph, "_variable_creator_stack", None) or []
    graph._variable_creator_stack = stack + [variable_creator]
    try:
        yield
    finally:
        graph._variable_creator_stack = stack


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


# ---- CriticalSection, session handles, partitioned variables -------------------------------------------------
class CriticalSection:
    """tf.CriticalSection: runs `fn` so that no two executions of the section overlap. A Session run is
    one XLA program executed as a whole, so an execution is `fn()` itself, ordered after the section's
    previous execution in the graph (TF's own ordering of the executions of one section)."""

    def __init__(self, name=None, shared_name=None, critical_section_def=None, import_scope=None):
        from tinyflow.graph.core import get_default_graph
        self._name = get_default_graph().unique_name(name or "CriticalSection")
        self._last = None

    name = property(lambda self: self._name)

    def execute(self, fn, exclusive_resource_access=True, name=None):
        from tinyflow.api import control_dependencies, identity, name_scope
        from tinyflow.api.nest import flatten, map_structure
        with name_scope(name or "critical_section_execute"):
            with control_dependencies([self._last] if self._last is not None else []):
                out = fn()
                out = map_structure(lambda t: identity(t) if hasattr(t, "op") and hasattr(t, "dtype") else t, out)
        ops = [getattr(t, "op", t) for t in flatten(out) if hasattr(t, "op") or hasattr(t, "type")]
        self._last = ops[-1] if ops else self._last
        return out


class TensorHandle:
    """A value kept in a Session between runs (tf.get_session_handle's result once run): `handle` is the
    string get_session_tensor's placeholder is fed with."""

    def __init__(self, handle, dtype, session):
        self._handle, self._dtype, self._session = handle, dtype, session

    handle = property(lambda self: self._handle)

    def __str__(self):
        return self._handle

    def eval(self):
        holder, tensor = get_session_tensor(self._handle, self._dtype)
        return self._session.run(tensor, feed_dict={holder: self._handle})

    def delete(self):
        holder, deleter = delete_session_tensor(self._handle)
        self._session.run(deleter, feed_dict={holder: self._handle})


_HANDLES = __import__("weakref").WeakKeyDictionary()   # Session -> {handle: value}


def _keep(session, op, inputs):
    store = _HANDLES.setdefault(session, {})
    handle = "%s;%d;/job:localhost/replica:0/task:0/device:CPU:0" % (op.name, len(store))
    store[handle] = inputs[0]
    return [np.array(TensorHandle(handle, op.inputs[0].dtype, session), dtype=object)]


def _kept(session, op, inputs):
    handle = bytes(np.asarray(inputs[0]).reshape(-1)[0]).decode("utf-8")
    store = _HANDLES.get(session, {})
    if handle not in store:
        raise errors.InvalidArgumentError(op.node_def, op, "The tensor with handle '%s' is not in the session store."
                                          % handle)
    if op.type == "DeleteSessionTensor":
        del store[handle]
        return []
    return [store[handle]]


def _register_handle_ops():
    from tinyflow.graph.shapes import TensorShape
    from tinyflow.ops.host_ops import register_host_op
    register_host_op("GetSessionHandle", lambda s, a, v: [TensorShape([])], lambda d, a: [dt.string], _keep,
                     stateful=True)
    register_host_op("GetSessionTensor", lambda s, a, v: [TensorShape(None)], lambda d, a: [a["dtype"]], _kept,
                     stateful=True)
    register_host_op("DeleteSessionTensor", lambda s, a, v: [], lambda d, a: [], _kept, stateful=True)


_register_handle_ops()


def get_session_handle(data, name=None):
    """A string tensor whose run keeps `data`'s value in the Session: the run gives a TensorHandle."""
    from tinyflow.ops.core.base import convert_to_tensor
    from tinyflow.ops.host_ops import make_host_op
    return make_host_op("GetSessionHandle", [convert_to_tensor(data)], name=name or "GetSessionHandle").outputs[0]


def get_session_tensor(handle, dtype, name=None):
    """(holder, tensor): feed `holder` a handle's string and `tensor` is the value kept under it."""
    from tinyflow.ops.core.array_ops import placeholder
    from tinyflow.ops.host_ops import make_host_op
    holder = placeholder(dt.string, [], name=(name or "GetSessionTensor") + "_holder")
    return holder, make_host_op("GetSessionTensor", [holder], {"dtype": dt.as_dtype(dtype)},
                                name=name or "GetSessionTensor").outputs[0]


def delete_session_tensor(handle, name=None):
    """(holder, deleter): running `deleter` with `holder` fed a handle's string forgets that value."""
    from tinyflow.ops.core.array_ops import placeholder
    from tinyflow.ops.host_ops import make_host_op
    holder = placeholder(dt.string, [], name=(name or "DeleteSessionTensor") + "_holder")
    return holder, make_host_op("DeleteSessionTensor", [holder], name=name or "DeleteSessionTensor")


def create_partitioned_variables(shape, slicing, initializer, dtype=dt.float32, trainable=True, collections=None,
                                 name=None, reuse=None):
    """The variables of `shape` cut into `slicing[i]` parts along each axis i (TF's: one axis at most), as
    a list, each `<name>/part_<k>` initialized with its slice of what `initializer` gives the whole shape
    (a constant array is sliced as it is)."""
    from tinyflow.ops.variable_scope import get_variable, variable_scope
    if len(shape) != len(slicing):
        raise ValueError("The 'shape' and 'slicing' of a partitioned Variable must have the length: shape: %s, "
                         "slicing: %s" % (shape, slicing))
    if len(shape) < 1:
        raise ValueError("A partitioned Variable must have rank at least 1: shape: %s" % shape)
    axes = [i for i, n in enumerate(slicing) if n > 1]
    if len(axes) > 1:
        raise ValueError("Can only slice a variable along one dimension: shape: %s, partitioning: %s"
                         % (shape, slicing))
    axis = axes[0] if axes else 0
    parts, size = slicing[axis], shape[axis]
    sizes = [size // parts + (1 if k < size % parts else 0) for k in range(parts)]
    out, start = [], 0
    with variable_scope(name, "PartitionedVariable", reuse=reuse):
        for k, n in enumerate(sizes):
            part = list(shape)
            part[axis] = n
            init = initializer
            if isinstance(initializer, (list, tuple, np.ndarray)):
                init = np.asarray(initializer)[(slice(None),) * axis + (slice(start, start + n),)]
            out.append(get_variable("part_%d" % k, part if not isinstance(init, np.ndarray) else None, dtype=dtype,
                                    initializer=init, trainable=trainable, collections=collections))
            start += n
    return out


__all__ = sorted(n for n in dict(globals()) if not n.startswith("_") and n not in (
    "re", "time", "np", "dt", "errors", "as_shape", "unimplemented", "stand_in", "TensorSpec", "decode_proto",
    "encode_proto", "DatasetSpec", "TensorHandle"))  # (tf.vectorized_map: api/__init__.py's LAZY_NAMES, tf.map_fn)
