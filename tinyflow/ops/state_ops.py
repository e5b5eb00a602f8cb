"""Variables and their updates: VariableV2, Assign/AssignAdd/AssignSub, tf.Variable, initializers,
and the host ops that ask the Session which variables are initialized.

A variable is the output of a VariableV2 op; its value lives in the Session. Ops that read it take
that tensor as an input (passes/state.py decides which value each reader sees); ops that update it
take it as a reference input (OpDef.ref_inputs) and return its new value.
"""
import builtins

import jax
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph import errors
from tinyflow.graph.core import GraphKeys, ShapeError, Tensor, get_default_graph, session_for
from tinyflow.graph.registry import SessionValue, from_attr, register_op
from tinyflow.graph.serialize import register_serializable
from tinyflow.graph.shapes import TensorShape, as_shape
from tinyflow.ops.core.base import convert_to_tensor, make_op, register_tensor_conversion_function
from tinyflow.ops.core.array_ops import identity, no_op
from tinyflow.ops.core.util import first_bad, position_text

register_op("VariableV2", shape=lambda s, a, v: [a["shape"]], dtype=from_attr("dtype"), grad=None, lower=None,
            stateful=True)

__all__ = [
    'Variable',
    'all_variables',
    'assert_variables_initialized',
    'assign',
    'assign_add',
    'assign_sub',
    'count_up_to',
    'global_variables',
    'global_variables_initializer',
    'group',
    'initialize_all_variables',
    'initialize_local_variables',
    'initialize_variables',
    'is_variable_initialized',
    'local_variables',
    'local_variables_initializer',
    'model_variables',
    'moving_average_variables',
    'report_uninitialized_variables',
    'scatter_add',
    'scatter_div',
    'scatter_max',
    'scatter_min',
    'scatter_mul',
    'scatter_nd_sub',
    'scatter_nd_add',
    'scatter_nd_update',
    'scatter_sub',
    'scatter_update',
    'trainable_variables',
    'variables_initializer',
    'tuple',
]



def _assign_shape(shapes, attrs, values):
    ref, value = shapes
    if attrs.get("validate_shape", True) and not ref.is_compatible_with(value):
        if ref.ndims != value.ndims:
            raise ShapeError("Shapes must be equal rank, but are %d and %d" % (ref.ndims, value.ndims))
        for i, (a, b) in enumerate(zip(ref.as_list(), value.as_list())):
            if a is not None and b is not None and a != b:
                raise ShapeError("Dimension %d in both shapes must be equal, but are %d and %d. Shapes are %s and %s."
                                 % (i, a, b, ref.as_proto_str(), value.as_proto_str()))
    return [ref]


def _assign_dtype(dtypes, attrs):
    if dtypes[0] != dtypes[1]:
        raise TypeError("Input 'value' of '%s' Op has type %s that does not match type %s of argument 'ref'."
                        % (attrs.get("_type", "Assign"), dtypes[1].name, dtypes[0].name))
    return [dtypes[0]]


register_op("Assign", shape=_assign_shape, dtype=_assign_dtype, grad=None, ref_inputs=(0,), overwrites=True,
            lower=lambda a, cur, value: value)
register_op("AssignAdd", shape=_assign_shape, dtype=_assign_dtype, grad=None, ref_inputs=(0,),
            lower=lambda a, cur, value: cur + value)
register_op("AssignSub", shape=_assign_shape, dtype=_assign_dtype, grad=None, ref_inputs=(0,),
            lower=lambda a, cur, value: cur - value)


def _count_up_to_shape(shapes, attrs, values):
    if shapes[0].ndims not in (None, 0):
        raise ShapeError("Shape must be rank 0 but is rank %d" % shapes[0].ndims)
    return [TensorShape([])]


# CountUpTo's output is the variable's new value (ref_inputs' convention); count_up_to subtracts the 1.
# At the limit its check fails, which leaves the variable as it was (checks gate the step's updates).
register_op("CountUpTo", shape=_count_up_to_shape, dtype=lambda d, a: [d[0]], grad=None, ref_inputs=(0,),
            lower=lambda a, cur: cur + 1, check=lambda a, cur: (cur < a["limit"],),
            check_message=lambda op: "Reached limit of %d" % op.attrs["limit"], check_error=errors.OutOfRangeError)


# ---- sparse updates: scatter_update/add/sub, scatter_nd_update/add --------------------------------
def _scatter_shape(nd):
    """shape rule: the ref's shape; updates must be indices.shape + ref.shape[1:] (scatter) or
    indices.shape[:-1] + ref.shape[indices.shape[-1]:] (scatter_nd); scatter also takes a scalar."""
    def rule(shapes, attrs, values):
        ref, idx, upd = shapes
        if ref.ndims is None or idx.ndims is None or upd.ndims is None:
            return [ref]
        if nd:
            k = idx[-1].value if idx.ndims else None
            if k is None:
                return [ref]
            if k > ref.ndims:
                raise ShapeError("Output must have rank at least %d, got %d" % (k, ref.ndims))
            want = TensorShape(idx.as_list()[:-1] + ref.as_list()[k:])
            if ref.num_elements() == 0 and (idx.num_elements() or upd.num_elements()):   # TF's shape function
                raise ShapeError("Indices and updates specified for empty output shape")
        else:
            if upd.ndims == 0:  # a scalar goes to every indexed row
                return [ref]
            want = TensorShape(idx.as_list() + ref.as_list()[1:])
        if not upd.is_compatible_with(want):
            raise ShapeError("Shapes must be equal rank, but are %d and %d" % (upd.ndims, want.ndims)
                             if upd.ndims != want.ndims else
                             "Dimensions must be equal: updates has shape %s but %s expects %s"
                             % (upd.as_proto_str(), attrs["_type"], want.as_proto_str()))
        return [ref]
    return rule


def _scatter_dtype(dtypes, attrs):
    if dtypes[1] not in (dt.int32, dt.int64):
        raise TypeError("Value passed to parameter 'indices' has DataType %s not in list of allowed values: "
                        "int32, int64" % dtypes[1].name)
    return _assign_dtype([dtypes[0], dtypes[2]], attrs)


def _scatter_check(nd):
    """TF checks the indices when the op runs (XLA would drop or clamp an out-of-range one)."""
    def check(a, ref, idx, upd):
        if nd:
            k = idx.shape[-1]
            dims = jnp.array(ref.shape[:k], idx.dtype)
            return (*first_bad(jnp.any((idx < 0) | (idx >= dims), axis=-1), idx.reshape(-1, k)),
                    jnp.array(ref.shape, np.int64))
        return (*first_bad((idx < 0) | (idx >= ref.shape[0]), idx.reshape(-1)), jnp.array(ref.shape, np.int64))
    return check


def _scatter_message(nd):
    def message(op, pos, dims, row, shape):
        where = position_text(pos, dims)
        if nd:
            return "indices[%s] = [%s] does not index into shape [%s]" % (
                where, ", ".join(str(int(v)) for v in np.atleast_1d(row)), ",".join(str(int(d)) for d in shape))
        return "indices[%s] = %d is not in [0, %d)" % (where, int(row), int(shape[0]))
    return message


def _nd_index(idx):
    return builtins.tuple(jnp.moveaxis(idx, -1, 0))


_SCATTERS = {  # op type -> (is scatter_nd, new value of the ref)
    "ScatterUpdate": (False, lambda cur, i, u: cur.at[i].set(u)),
    "ScatterAdd": (False, lambda cur, i, u: cur.at[i].add(u)),
    "ScatterSub": (False, lambda cur, i, u: cur.at[i].add(-u)),
    "ScatterNdUpdate": (True, lambda cur, i, u: cur.at[_nd_index(i)].set(u)),
    "ScatterNdAdd": (True, lambda cur, i, u: cur.at[_nd_index(i)].add(u)),
    "ScatterMul": (False, lambda cur, i, u: cur.at[i].multiply(u)),
    "ScatterDiv": (False, lambda cur, i, u: _divided(cur, i, u)),
    # TF's CPU kernel: p = u < p ? u : p (min): a NaN update is ignored, a NaN already there stays
    "ScatterMax": (False, lambda cur, i, u: cur.at[i].max(_nan_to(u, -jnp.inf))),
    "ScatterMin": (False, lambda cur, i, u: cur.at[i].min(_nan_to(u, jnp.inf))),
    "ScatterNdSub": (True, lambda cur, i, u: cur.at[_nd_index(i)].add(-u)),
}


def _nan_to(u, fill):
    return jnp.where(jnp.isnan(u), jnp.asarray(fill, u.dtype), u) if jnp.issubdtype(u.dtype, jnp.inexact) else u


def _divided(cur, i, u):
    """ref[i] /= u, a repeated index's divisions in turn as TF's loop does them (x / a / b, not x / (a * b)
    nor x * (1 / a)); integers with C's division (toward zero)."""
    rows = jnp.reshape(jnp.asarray(i), (-1,))
    u = jnp.broadcast_to(jnp.asarray(u), i.shape + cur.shape[1:]).reshape(rows.shape + cur.shape[1:])
    return jax.lax.fori_loop(0, rows.shape[0], lambda k, c: c.at[rows[k]].set(jax.lax.div(c[rows[k]], u[k])), cur)
for _t, (_nd, _fn) in _SCATTERS.items():
    register_op(_t, shape=_scatter_shape(_nd), dtype=_scatter_dtype, grad=None, ref_inputs=(0,),
                lower=lambda a, cur, i, u, _fn=_fn: _fn(jnp.asarray(cur), i, jnp.asarray(u, cur.dtype)),
                check=_scatter_check(_nd), check_message=_scatter_message(_nd))


def _scatter(op_type, ref, indices, updates, name):
    ref = _ref(ref)
    indices = convert_to_tensor(indices, preferred_dtype=dt.int32, name="indices")
    updates = convert_to_tensor(updates, dtype=ref.dtype, name="updates")
    return make_op(op_type, [ref, indices, updates], {"_type": op_type}, name=name or op_type)


def scatter_update(ref, indices, updates, use_locking=True, name=None):
    """ref[indices] = updates (rows along dimension 0); returns the updated variable's value."""
    return _scatter("ScatterUpdate", ref, indices, updates, name)


def scatter_add(ref, indices, updates, use_locking=False, name=None):
    """ref[indices] += updates (duplicate indices add up); returns the updated value."""
    return _scatter("ScatterAdd", ref, indices, updates, name)


def scatter_sub(ref, indices, updates, use_locking=False, name=None):
    """ref[indices] -= updates (duplicate indices add up); returns the updated value."""
    return _scatter("ScatterSub", ref, indices, updates, name)


def scatter_nd_update(ref, indices, updates, use_locking=True, name=None):
    """ref[indices[..., 0], indices[..., 1], ...] = updates; returns the updated value."""
    return _scatter("ScatterNdUpdate", ref, indices, updates, name)


def scatter_mul(ref, indices, updates, use_locking=False, name=None):
    """ref[indices] *= updates; returns the updated value."""
    return _scatter("ScatterMul", ref, indices, updates, name)


def scatter_div(ref, indices, updates, use_locking=False, name=None):
    """ref[indices] /= updates; returns the updated value."""
    return _scatter("ScatterDiv", ref, indices, updates, name)


def scatter_max(ref, indices, updates, use_locking=False, name=None):
    """ref[indices] = max(ref[indices], updates); returns the updated value."""
    return _scatter("ScatterMax", ref, indices, updates, name)


def scatter_min(ref, indices, updates, use_locking=False, name=None):
    """ref[indices] = min(ref[indices], updates); returns the updated value."""
    return _scatter("ScatterMin", ref, indices, updates, name)


def scatter_nd_sub(ref, indices, updates, use_locking=False, name=None):
    """ref[indices[..., 0], ...] -= updates (duplicates add up); returns the updated value."""
    return _scatter("ScatterNdSub", ref, indices, updates, name)


def scatter_nd_add(ref, indices, updates, use_locking=False, name=None):
    """ref[indices[..., 0], ...] += updates (duplicates add up); returns the updated value."""
    return _scatter("ScatterNdAdd", ref, indices, updates, name)


def _ref(ref):
    """The VariableV2 output behind a Variable or ref tensor."""
    if isinstance(ref, Variable):
        return ref._variable
    if isinstance(ref, Tensor) and ref.op.type == "VariableV2":
        return ref
    raise TypeError("Input 'ref' of an assign op must be a variable, got %r" % (ref,))


def _update(op_type, ref, value, name, validate_shape=True):
    ref = _ref(ref)
    value = convert_to_tensor(value, dtype=ref.dtype)
    return make_op(op_type, [ref, value], {"validate_shape": validate_shape, "_type": op_type}, name=name or op_type)


def count_up_to(ref, limit, name=None):
    """The variable's value, which the op then increments; OutOfRangeError (the variable unchanged) once
    the value has reached `limit`. The variable holds an int32 or int64 scalar."""
    ref = _ref(ref)
    if ref.dtype not in (dt.int32, dt.int64):
        raise TypeError("Value passed to parameter 'ref' has DataType %s not in list of allowed values: int32, int64"
                        % ref.dtype.name)
    new = make_op("CountUpTo", [ref], {"limit": int(limit)}, name=(name or "CountUpTo") + "/increment")
    from tinyflow.ops.core import math_ops
    return math_ops.subtract(new, math_ops.scalar_like(1, new), name=name or "CountUpTo")


def assign(ref, value, validate_shape=None, use_locking=None, name=None):
    """Sets the variable to `value`; the op's output is the new value."""
    return _update("Assign", ref, value, name, validate_shape is not False)


def assign_add(ref, value, use_locking=None, name=None):
    """Adds `value` to the variable; the op's output is the new value."""
    return _update("AssignAdd", ref, value, name)


def assign_sub(ref, value, use_locking=None, name=None):
    """Subtracts `value` from the variable; the op's output is the new value."""
    return _update("AssignSub", ref, value, name)


_variable_class = [None]  # register_variable_class's hook


def register_variable_class(variable_class):
    """Eager execution's seam (api/eager calls it): variable_class(cls) is the class tf.Variable(...)
    makes now (an eager variable while executing eagerly, else cls)."""
    _variable_class[0] = variable_class


def _deferred_variable(var, name, dtype, shape, trainable, collections):
    """Fills `var` (a new tf.Variable) as TinyFlow's shapeless variable: a VariableV2 of a possibly
    unknown shape, no initial value, a no-op initializer."""
    graph = get_default_graph()
    with graph.control_dependencies(None), graph.name_scope(name or "Variable") as scope:
        attrs = {"shape": as_shape(shape), "dtype": dt.as_dtype(dtype or dt.float32)}
        var._variable = graph.create_op("VariableV2", [], attrs, name=scope).outputs[0]
        var._initial_value = None
        var._initializer_op = no_op(name="Assign")
        var._snapshot = None
    var._trainable = trainable
    var._constraint = None
    collections = list(collections if collections is not None else [GraphKeys.GLOBAL_VARIABLES])
    if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
        collections.append(GraphKeys.TRAINABLE_VARIABLES)
    graph.add_to_collections(collections, var)


class _VariableMeta(type):
    """TF's VariableMetaclass: a `Variable(...)` call goes through the creators of the graph's
    tf.variable_creator_scope's (the innermost first), each given the next one and the arguments."""

    def __call__(cls, *args, **kwargs):
        creators = getattr(get_default_graph(), "_variable_creator_stack", None)
        if cls is not Variable or not creators:
            return super().__call__(*args, **kwargs)
        kwargs.update(zip(("initial_value", "trainable", "collections", "validate_shape", "caching_device", "name",
                           "variable_def", "dtype", "expected_shape", "import_scope", "constraint"), args))

        def chained(creator, next_creator):
            return lambda **kw: creator(next_creator, **kw)
        make = lambda **kw: super(_VariableMeta, cls).__call__(**kw)  # noqa: E731 (the default creator)
        for creator in creators:
            make = chained(creator, make)
        return make(**kwargs)


class Variable(metaclass=_VariableMeta):
    """tf.Variable: a VariableV2 op, its initializer (an Assign of the initial value) and a read."""

    def __new__(cls, *args, **kwargs):
        if cls is Variable and _variable_class[0] is not None:
            cls = _variable_class[0](cls)
        return object.__new__(cls)

    def __init__(self, initial_value=None, trainable=True, collections=None, validate_shape=True,
                 caching_device=None, name=None, variable_def=None, dtype=None, expected_shape=None,
                 import_scope=None, constraint=None, use_resource=None, synchronization=None, aggregation=None,
                 shape=None):
        if initial_value is None:
            return _deferred_variable(self, name, dtype, shape, trainable, collections)  # TinyFlow's tf.Variable()
        graph = get_default_graph()
        with graph.control_dependencies(None), graph.name_scope(name or "Variable") as scope:
            if callable(initial_value):
                with graph.name_scope("Initializer"):
                    init = convert_to_tensor(initial_value(), dtype=dtype, name="initial_value")
            else:
                init = convert_to_tensor(initial_value, dtype=dtype, name="initial_value")
            if dtype is not None and init.dtype != dt.as_dtype(dtype):
                from tinyflow.ops.core.math_ops import cast
                init = cast(init, dtype)
            var_shape = as_shape(shape) if shape is not None else init.shape
            if validate_shape and not var_shape.is_fully_defined():
                raise ValueError("initial_value must have a shape specified: %s" % init)
            self._variable = graph.create_op("VariableV2", [], {"shape": var_shape, "dtype": init.dtype},
                                             name=scope).outputs[0]
            self._initial_value = init
            self._initializer_op = assign(self._variable, init, validate_shape=validate_shape,
                                          name="Assign").op
            self._snapshot = None
            # TF makes `<name>/read` here, an op tinyflow does not need: counted for get_seed's op count
            graph.tf_only_ops = getattr(graph, "tf_only_ops", 0) + 1
        self._trainable = trainable
        self._constraint = constraint
        if collections is None:
            collections = [GraphKeys.GLOBAL_VARIABLES]
        collections = list(collections)
        if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections.append(GraphKeys.TRAINABLE_VARIABLES)
        graph.add_to_collections(collections, self)

    # ---- identity --------------------------------------------------------------------------------
    name = property(lambda self: self._variable.name)
    op = property(lambda self: self._variable.op)
    graph = property(lambda self: self._variable.graph)
    dtype = property(lambda self: self._variable.dtype)
    shape = property(lambda self: self._variable.shape)
    device = property(lambda self: "")
    trainable = property(lambda self: self._trainable)
    initializer = property(lambda self: self._initializer_op)
    initial_value = property(lambda self: self._initial_value)
    constraint = property(lambda self: self._constraint)

    def get_shape(self):
        return self._variable.shape

    def _as_graph_element(self):
        return self._variable

    def _ref(self):
        return self._variable

    def value(self):
        """The variable's value as a tensor (its `read` snapshot)."""
        if self._snapshot is None:
            with self.graph.as_default(), self.graph.control_dependencies(None), \
                    self.graph.name_scope(self.op.name + "/"):
                self._snapshot = identity(self._variable, name="read")
        return self._snapshot

    def read_value(self):
        """A fresh read of the variable (an Identity op)."""
        return identity(self._variable, name="read")

    def initialized_value(self):
        """The initial value, for initializing other variables from this one."""
        with self.graph.control_dependencies(None):
            return identity(self._initial_value)

    # ---- updates ---------------------------------------------------------------------------------
    def assign(self, value, use_locking=False, name=None, read_value=True):
        op = assign(self, value, name=name)
        return op if read_value else op.op

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        op = assign_add(self, delta, name=name)
        return op if read_value else op.op

    def count_up_to(self, limit):
        """tf.count_up_to of this variable."""
        return count_up_to(self, limit)

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        op = assign_sub(self, delta, name=name)
        return op if read_value else op.op

    def eval(self, session=None):
        """The variable's current value in `session` (default: the default session)."""
        return session_for(session, self._variable).run(self._variable)

    def load(self, value, session=None):
        """Writes `value` into the variable in `session` without adding ops to the graph."""
        sess = session_for(session, self._variable)
        a = np.asarray(value)
        if not self.shape.is_compatible_with(a.shape):
            raise ValueError("Cannot load value of shape %s into variable %s of shape %s" % (a.shape, self.name,
                                                                                           self.shape))
        sess._set_variable(self.op, a)

    def set_shape(self, shape):
        self._variable.set_shape(shape)

    def __repr__(self):
        return "<tf.Variable '%s' shape=%s dtype=%s_ref>" % (self.name, self.shape, self.dtype.name)

    def __hash__(self):
        return id(self)

    def __eq__(self, other):
        return self is other

    def __iter__(self):
        raise TypeError("'Variable' object is not iterable.")

    def __bool__(self):
        raise TypeError("Using a `tf.Variable` as a Python `bool` is not allowed.")


def _variable_to_tensor(v, dtype=None, name=None, as_ref=False):
    if dtype is not None and dt.as_dtype(dtype) != v.dtype:
        raise ValueError("Incompatible type conversion requested to type '%s' for variable of type '%s'"
                         % (dt.as_dtype(dtype).name, v.dtype.name))
    return v._variable


register_tensor_conversion_function(Variable, _variable_to_tensor)


# ---- collections and initializers -----------------------------------------------------------------
def global_variables(scope=None):
    return get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


def all_variables():
    return global_variables()


def local_variables(scope=None):
    return get_default_graph().get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def trainable_variables(scope=None):
    return get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def model_variables(scope=None):
    return get_default_graph().get_collection(GraphKeys.MODEL_VARIABLES, scope)


def moving_average_variables(scope=None):
    return get_default_graph().get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


def group(*inputs, **kwargs):
    """An op that runs all `inputs` (ops or tensors) and has no output."""
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError("Unknown keyword arguments: " + ", ".join(kwargs))
    flat = []
    for i in inputs:
        flat.extend(i if isinstance(i, (list, builtins.tuple)) else [i])
    deps = [d.op if isinstance(d, (Tensor, Variable)) else d for d in flat if d is not None]
    g = deps[0].graph if deps else get_default_graph()
    with g.control_dependencies(deps):
        return no_op(name=name or "group_deps")


def tuple_(tensors, name=None, control_inputs=None):
    """tf.tuple: the tensors, each available only once all of them are computed."""
    tensors = [convert_to_tensor(t) if t is not None else None for t in tensors]
    g = get_default_graph()
    with g.name_scope(name or "tuple"):
        gate = group(*[t for t in tensors if t is not None] + list(control_inputs or []))
        with g.control_dependencies([gate]):
            return [identity(t) if t is not None else None for t in tensors]


def variables_initializer(var_list, name="init"):
    """An op that runs the initializers of `var_list`."""
    if var_list:
        return group(*[v.initializer for v in var_list], name=name)
    return no_op(name=name)


def global_variables_initializer():
    """An op that initializes every global variable."""
    return variables_initializer(global_variables(), name="init")


def local_variables_initializer():
    return variables_initializer(local_variables(), name="init")


initialize_all_variables = global_variables_initializer
initialize_variables = variables_initializer
initialize_local_variables = local_variables_initializer


def _report_host(session, op, inputs):
    names = [v.name.encode() for v in op.attrs["vars"] if not session._is_initialized(v)]
    return [np.array(names, dtype=object)]


def _is_initialized_host(session, op, inputs):
    return [np.bool_(session._is_initialized(op.attrs["vars"][0]))]


register_op("ReportUninitializedVariables", shape=lambda s, a, v: [TensorShape([None])],
            dtype=lambda d, a: [dt.string], grad=None, host=SessionValue(_report_host))
register_op("IsVariableInitialized", shape=lambda s, a, v: [TensorShape([])], dtype=lambda d, a: [dt.bool_],
            grad=None, host=SessionValue(_is_initialized_host))


def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables"):
    """The names of the uninitialized variables among `var_list` (default: all), as a 1-D string tensor."""
    if var_list is None:
        var_list = global_variables() + local_variables()
    return get_default_graph().create_op("ReportUninitializedVariables", [],
                                         {"vars": [v.op for v in var_list]}, name=name).outputs[0]


def is_variable_initialized(variable):
    """A bool scalar: whether the Session has initialized `variable`."""
    return get_default_graph().create_op("IsVariableInitialized", [], {"vars": [variable.op]},
                                         name="IsVariableInitialized").outputs[0]


def assert_variables_initialized(var_list=None):
    return no_op()


tuple = tuple_  # tf.tuple; code in this module spells the builtin builtins.tuple


register_serializable(Variable)  # graph files may hold tf.Variable objects (as data)
