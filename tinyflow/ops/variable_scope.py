"""Variable scopes and tf.get_variable, with TF1's sharing rules.

Each graph holds one store (`graph._variable_store`): the variables made by get_variable, keyed by
their full name; the current VariableScope; and how often each scope name was opened (so
`variable_scope(None, default_name="dense")` gives "dense", "dense_1", ...).

Variables are named by the variable scope only; the ops made inside a scope are named by the name
scope that `variable_scope` opens alongside (a re-entered scope gets a fresh name scope "foo_1").
"""
import contextlib
import functools
import inspect

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import GraphKeys, get_default_graph
from tinyflow.graph.shapes import as_shape
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.state_ops import Variable

__all__ = ["AUTO_REUSE", "VariableScope", "get_variable", "get_local_variable", "get_variable_scope",
           "no_regularizer", "variable_scope"]


class _ReuseMode:
    """The type of AUTO_REUSE: get_variable creates a missing variable and reuses an existing one."""

    def __repr__(self):
        return "_ReuseMode.AUTO_REUSE"


AUTO_REUSE = _ReuseMode()


class VariableScope:
    """What get_variable uses inside a `variable_scope`: its name and its defaults."""

    def __init__(self, reuse, name="", initializer=None, regularizer=None, caching_device=None, partitioner=None,
                 custom_getter=None, name_scope="", dtype=dt.float32, use_resource=None, constraint=None):
        self._name = name
        self._reuse = reuse
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint

    name = property(lambda self: self._name)
    original_name_scope = property(lambda self: self._name_scope)
    reuse = property(lambda self: self._reuse)
    initializer = property(lambda self: self._initializer)
    regularizer = property(lambda self: self._regularizer)
    caching_device = property(lambda self: self._caching_device)
    partitioner = property(lambda self: self._partitioner)
    custom_getter = property(lambda self: self._custom_getter)
    dtype = property(lambda self: self._dtype)
    use_resource = property(lambda self: self._use_resource)
    constraint = property(lambda self: self._constraint)

    def reuse_variables(self):
        """From now on, get_variable in this scope returns existing variables."""
        self._reuse = True

    def set_initializer(self, initializer):
        self._initializer = initializer

    def set_regularizer(self, regularizer):
        self._regularizer = regularizer

    def set_dtype(self, dtype):
        self._dtype = dtype

    def set_custom_getter(self, custom_getter):
        self._custom_getter = custom_getter

    def set_caching_device(self, caching_device):
        self._caching_device = caching_device

    def set_partitioner(self, partitioner):
        self._partitioner = partitioner

    def set_use_resource(self, use_resource):
        self._use_resource = use_resource

    def global_variables(self):
        return get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES, self._scope_prefix())

    def trainable_variables(self):
        return get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES, self._scope_prefix())

    def local_variables(self):
        return get_default_graph().get_collection(GraphKeys.LOCAL_VARIABLES, self._scope_prefix())

    def _scope_prefix(self):
        return self._name + "/" if self._name else ""

    def _copy(self, **changes):
        kw = dict(reuse=self._reuse, name=self._name, initializer=self._initializer, regularizer=self._regularizer,
                  caching_device=self._caching_device, partitioner=self._partitioner,
                  custom_getter=self._custom_getter, name_scope=self._name_scope, dtype=self._dtype,
                  use_resource=self._use_resource, constraint=self._constraint)
        kw.update({k: v for k, v in changes.items() if v is not None})
        return VariableScope(**kw)

    def get_variable(self, var_store, name, shape=None, dtype=None, initializer=None, regularizer=None,
                     reuse=None, trainable=None, collections=None, caching_device=None, partitioner=None,
                     validate_shape=True, use_resource=None, custom_getter=None, constraint=None, **kwargs):
        """get_variable with this scope's defaults (reuse, initializer, regularizer, dtype, getter)."""
        if regularizer is None:
            regularizer = self._regularizer
        if reuse is None:
            reuse = self._reuse
        if custom_getter is None:
            custom_getter = self._custom_getter
        full_name = self._name + "/" + name if self._name else name
        graph = get_default_graph()
        # Variable names depend only on the variable scope, so the name scope is reset meanwhile.
        with graph.name_scope(None):
            if dtype is not None and initializer is not None and not callable(initializer):
                init_dtype = convert_to_tensor(initializer).dtype.base_dtype
                if init_dtype != dt.as_dtype(dtype):
                    raise ValueError("Initializer type '%s' and explicit dtype '%s' don't match."
                                     % (init_dtype, dt.as_dtype(dtype)))
            if initializer is None:
                initializer = self._initializer
            if constraint is None:
                constraint = self._constraint
            if dtype is None:
                dtype = self._dtype
            return var_store.get_variable(full_name, shape=shape, dtype=dtype, initializer=initializer,
                                          regularizer=regularizer, reuse=reuse, trainable=trainable,
                                          collections=collections, validate_shape=validate_shape,
                                          custom_getter=custom_getter, constraint=constraint)


class _VariableStore:
    """Per graph: variables by full name, the current scope, and how often each scope name was opened."""

    def __init__(self):
        self.vars = {}
        self.current_scope = VariableScope(False)
        self.scope_counts = {}

    def open_scope(self, name):
        self.scope_counts[name] = self.scope_counts.get(name, 0) + 1

    def close_subscopes(self, name):
        """Leaving scope `name` resets the counts of its sub-scopes (TF: so "a/dense" restarts in "a_1")."""
        for k in self.scope_counts:
            if name is None or k.startswith(name + "/"):
                self.scope_counts[k] = 0

    def get_variable(self, name, shape=None, dtype=dt.float32, initializer=None, regularizer=None, reuse=None,
                     trainable=None, collections=None, validate_shape=True, custom_getter=None, constraint=None):
        if custom_getter is not None:
            if not callable(custom_getter):
                raise ValueError("Passed a custom_getter which is not callable: %s" % custom_getter)
            kw = dict(shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer, reuse=reuse,
                      trainable=trainable, collections=collections, validate_shape=validate_shape,
                      constraint=constraint)
            return custom_getter(self._true_getter, name, **kw)
        return self._true_getter(name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                                 reuse=reuse, trainable=trainable, collections=collections,
                                 validate_shape=validate_shape, constraint=constraint)

    def _true_getter(self, name, shape=None, dtype=dt.float32, initializer=None, regularizer=None, reuse=None,
                     trainable=None, collections=None, validate_shape=True, constraint=None, **kwargs):
        dtype = dt.as_dtype(dtype if dtype is not None else dt.float32).base_dtype
        from_value = initializer is not None and not callable(initializer)
        if shape is not None and from_value:
            raise ValueError("If initializer is a constant, do not specify shape.")
        shape = as_shape(shape)
        if name in self.vars:
            found = self.vars[name]
            if reuse is False or reuse is None:
                raise ValueError("Variable %s already exists, disallowed. Did you mean to set reuse=True or "
                                 "reuse=tf.AUTO_REUSE in VarScope?" % name)
            if not shape.is_compatible_with(found.get_shape()):
                raise ValueError("Trying to share variable %s, but specified shape %s and found shape %s."
                                 % (name, shape, found.get_shape()))
            if not from_value and dtype != found.dtype.base_dtype:
                raise ValueError("Trying to share variable %s, but specified dtype %s and found dtype %s."
                                 % (name, dtype.name, found.dtype.name))
            return found
        if reuse is True:
            raise ValueError("Variable %s does not exist, or was not created with tf.get_variable(). Did you mean "
                             "to set reuse=tf.AUTO_REUSE in VarScope?" % name)
        if initializer is None:
            initializer = _default_initializer(name, dtype)
        if from_value:
            init_val, var_dtype = initializer, None
        else:
            if inspect.isclass(initializer):
                initializer = initializer()
            if shape.is_fully_defined():
                dims = shape.as_list()
                init_val = lambda: _call_initializer(initializer, dims, dtype)  # noqa: E731
                var_dtype = dtype
            elif _takes_no_args(initializer):
                init_val, var_dtype = initializer, None
            else:
                raise ValueError("Shape of a new variable (%s) must be fully defined, but instead was %s."
                                 % (name, shape))
        if trainable is None:
            trainable = True
        graph = get_default_graph()
        with graph.control_dependencies(None):
            v = Variable(initial_value=init_val, name=name, trainable=trainable, collections=collections,
                         validate_shape=validate_shape, dtype=var_dtype, constraint=constraint)
        self.vars[name] = v
        if regularizer:
            with graph.control_dependencies(None), graph.name_scope(name + "/Regularizer/"):
                loss = regularizer(v)
            if loss is not None:
                graph.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
        return v


def _call_initializer(initializer, shape, dtype):
    try:
        params = inspect.signature(initializer).parameters
    except (TypeError, ValueError):
        params = {"partition_info": None}
    if "partition_info" in params or any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return initializer(shape, dtype=dtype, partition_info=None)
    return initializer(shape, dtype=dtype)  # a plain callable(shape, dtype)


def _takes_no_args(fn):
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)


def _default_initializer(name, dtype):
    """TF's defaults: glorot_uniform for floats, zeros for integers, bools and strings."""
    from tinyflow.ops import init_ops
    if dtype.is_floating:
        return init_ops.glorot_uniform_initializer()
    if dtype.is_integer or dtype.is_bool or dtype == dt.string:
        return init_ops.zeros_initializer()
    raise ValueError("An initializer for variable %s of %s is required" % (name, dtype.base_dtype))


def _store(graph=None):
    graph = graph or get_default_graph()
    if graph._variable_store is None:
        graph._variable_store = _VariableStore()
    return graph._variable_store


def get_variable_scope():
    """The current VariableScope."""
    return _store().current_scope


def get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=None,
                 collections=None, caching_device=None, partitioner=None, validate_shape=True, use_resource=None,
                 custom_getter=None, constraint=None, synchronization=None, aggregation=None):
    """Gets an existing variable (when the scope reuses) or creates a new one named `scope/name`.

    `initializer` is an Initializer (called with the shape and dtype), a class of one, or a tensor or
    numpy/Python value (then `shape` must be None). Raises ValueError when the variable exists and
    reuse is off, or does not exist and reuse is True.
    """
    store = _store()
    return store.current_scope.get_variable(store, name, shape=shape, dtype=dtype, initializer=initializer,
                                            regularizer=regularizer, trainable=trainable, collections=collections,
                                            validate_shape=validate_shape, custom_getter=custom_getter,
                                            constraint=constraint)


def get_local_variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=False,
                       collections=None, caching_device=None, partitioner=None, validate_shape=True,
                       use_resource=None, custom_getter=None, constraint=None, synchronization=None,
                       aggregation=None):
    """get_variable into the LOCAL_VARIABLES collection (not trainable)."""
    collections = list(collections or []) + [GraphKeys.LOCAL_VARIABLES]
    return get_variable(name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                        trainable=False, collections=collections, validate_shape=validate_shape,
                        custom_getter=custom_getter, constraint=constraint)


def _get_unique_scope_name(store, prefix):
    """`prefix`, or `prefix_1`, `prefix_2`, ... if a scope of that name was already opened here."""
    cur = store.current_scope.name
    full = cur + "/" + prefix if cur else prefix
    if store.scope_counts.get(full, 0) == 0:
        return prefix
    i = 1
    while store.scope_counts.get("%s_%d" % (full, i), 0) > 0:
        i += 1
    return "%s_%d" % (prefix, i)


def _nest_getters(inner, outer):
    """An inner scope's custom getter calls through the outer scope's (TF's nesting)."""
    def getter(next_getter, *args, **kwargs):
        return inner(functools.partial(outer, next_getter), *args, **kwargs)
    return getter


@contextlib.contextmanager
def _pure_variable_scope(store, name_or_scope, old_name_scope, reuse=None, **defaults):
    """Makes the scope current (without touching the name scope) and restores the old one on exit."""
    old = store.current_scope
    if isinstance(name_or_scope, VariableScope):
        new_name = name_or_scope.name
        saved_counts = dict(store.scope_counts)
        store.open_scope(new_name)
        scope = name_or_scope._copy(reuse=reuse if reuse else name_or_scope.reuse, name_scope=old_name_scope,
                                    **defaults)
    else:
        new_name = old.name + "/" + name_or_scope if old.name else name_or_scope
        if defaults.get("custom_getter") is not None and old.custom_getter is not None:
            defaults["custom_getter"] = _nest_getters(defaults["custom_getter"], old.custom_getter)
        # Reuse is inherited: a sub-scope of a reusing scope reuses too.
        scope = old._copy(name=new_name, name_scope=old_name_scope, **defaults)
        scope._reuse = reuse or old.reuse
        store.open_scope(new_name)
    store.current_scope = scope
    try:
        yield scope
    finally:
        if isinstance(name_or_scope, VariableScope):
            store.scope_counts = saved_counts
        else:
            store.close_subscopes(new_name)
        store.current_scope = old


class variable_scope:  # noqa: N801 (TF's name)
    """`with tf.variable_scope(name_or_scope, default_name=None, values=None, ..., reuse=None)`.

    A string opens a sub-scope of the current one; a VariableScope object re-enters that scope
    (its full name, not nested); None uses `default_name`, made unique ("dense", "dense_1").
    Also opens a name scope for the ops created inside (unless auxiliary_name_scope=False).
    """

    def __init__(self, name_or_scope, default_name=None, values=None, initializer=None, regularizer=None,
                 caching_device=None, partitioner=None, custom_getter=None, reuse=None, dtype=None,
                 use_resource=None, constraint=None, auxiliary_name_scope=True):
        if default_name is None and name_or_scope is None:
            raise TypeError("If default_name is None then name_or_scope is required")
        if name_or_scope is not None and not isinstance(name_or_scope, (VariableScope, str)):
            raise TypeError("VariableScope: name_or_scope must be a string or VariableScope.")
        if reuse is False:  # TF: reuse=False means "inherit", like None
            reuse = None
        if not (reuse is None or reuse is True or reuse is AUTO_REUSE):
            raise ValueError("The reuse parameter must be True or False or None.")
        if not isinstance(auxiliary_name_scope, bool):
            raise TypeError("The auxiliary_name_scope must be `True` or `False`, while get %s"
                            % auxiliary_name_scope)
        from tinyflow.ops.core.base import graph_of
        self._graph = graph_of(*(values or ()))
        self._name_or_scope = name_or_scope
        self._default_name = default_name
        self._reuse = reuse
        self._aux = auxiliary_name_scope
        self._defaults = dict(initializer=initializer, regularizer=regularizer, caching_device=caching_device,
                              partitioner=partitioner, custom_getter=custom_getter,
                              dtype=dt.as_dtype(dtype) if dtype is not None else None, use_resource=use_resource,
                              constraint=constraint)
        self._stack = None

    def __enter__(self):
        if self._stack is not None:
            raise RuntimeError("variable_scope is not reentrant; create a new one.")
        stack = contextlib.ExitStack()
        try:
            scope = self._enter(stack)
        except BaseException:
            stack.close()
            raise
        self._stack = stack
        return scope

    def _enter(self, stack):
        g = self._graph
        if g is not get_default_graph():  # `values` from another graph: build there
            stack.enter_context(g.as_default())
        store = _store(g)
        if self._name_or_scope is None and self._reuse:
            raise ValueError("reuse=True cannot be used without a name_or_scope")
        if not self._aux:
            cur = g.get_name_scope()  # re-enter the current name scope as is
            ns = stack.enter_context(g.name_scope(cur + "/" if cur else ""))
        elif self._name_or_scope is None:
            ns = stack.enter_context(g.name_scope(self._default_name))
        else:
            base = (self._name_or_scope if isinstance(self._name_or_scope, str)
                    else self._name_or_scope.name.split("/")[-1])
            ns = stack.enter_context(g.name_scope(base)) if base else ""
        if self._name_or_scope is None:
            name = _get_unique_scope_name(store, self._default_name)
            old_ns = ns
        else:
            name = self._name_or_scope
            old_ns = ns if isinstance(name, str) else name.original_name_scope
        return stack.enter_context(_pure_variable_scope(store, name, old_ns, reuse=self._reuse, **self._defaults))

    def __exit__(self, *exc):
        stack, self._stack = self._stack, None
        return stack.__exit__(*exc)


def no_regularizer(_):
    """A regularizer that adds nothing: turns off a scope's default regularizer for one variable."""
    return None
