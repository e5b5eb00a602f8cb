"""slim's variables (tf.contrib.framework.python.ops.variables, TF 1.15): model and local variables,
the collection queries slim code uses, and restoring from checkpoints (assign_from_checkpoint_fn)."""
import re

from tinyflow.api.contrib.slim.arg_scope import add_arg_scope
from tinyflow.api.train import step as _step
from tinyflow.api.train import tf_checkpoint as _ckpt
from tinyflow.graph.core import GraphKeys, add_to_collection, get_collection
from tinyflow.ops import state_ops
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.core.base import convert_to_tensor

get_global_step = _step.get_global_step
create_global_step = _step.create_global_step
get_or_create_global_step = _step.get_or_create_global_step
assert_global_step = _step.assert_global_step


def assert_or_get_global_step(graph=None, global_step_tensor=None):
    """global_step_tensor when given (checked to be a scalar integer), else the graph's global step."""
    if global_step_tensor is None:
        return get_global_step(graph)
    assert_global_step(global_step_tensor)
    return global_step_tensor


@add_arg_scope
def variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=True, collections=None,
             caching_device=None, device=None, partitioner=None, custom_getter=None, use_resource=None,
             synchronization=None, aggregation=None):
    """get_variable, also put in `collections` (GLOBAL_VARIABLES by default)."""
    collections = list(collections if collections is not None else [GraphKeys.GLOBAL_VARIABLES])
    collections = list(dict.fromkeys(collections))  # TF drops duplicates, keeping the order
    return vs.get_variable(name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                           trainable=trainable, collections=collections, custom_getter=custom_getter)


@add_arg_scope
def model_variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=True,
                   collections=None, caching_device=None, device=None, partitioner=None, custom_getter=None,
                   use_resource=None, synchronization=None, aggregation=None):
    """A variable also in MODEL_VARIABLES (what checkpoints of a model hold)."""
    collections = list(collections or []) + [GraphKeys.GLOBAL_VARIABLES, GraphKeys.MODEL_VARIABLES]
    return variable(name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                    trainable=trainable, collections=collections, custom_getter=custom_getter)


@add_arg_scope
def local_variable(initial_value, validate_shape=True, name=None, use_resource=None):
    """A non-trainable variable in LOCAL_VARIABLES (initialized by local_variables_initializer)."""
    from tinyflow.ops.state_ops import Variable
    return Variable(initial_value, trainable=False, collections=[GraphKeys.LOCAL_VARIABLES],
                    validate_shape=validate_shape, name=name)


@add_arg_scope
def global_variable(initial_value, validate_shape=True, name=None, use_resource=None):
    """A non-trainable variable in GLOBAL_VARIABLES."""
    from tinyflow.ops.state_ops import Variable
    return Variable(initial_value, trainable=False, collections=[GraphKeys.GLOBAL_VARIABLES],
                    validate_shape=validate_shape, name=name)


def add_model_variable(var):
    """Adds `var` to MODEL_VARIABLES (once)."""
    if var not in get_collection(GraphKeys.MODEL_VARIABLES):
        add_to_collection(GraphKeys.MODEL_VARIABLES, var)


def get_variables(scope=None, suffix=None, collection=GraphKeys.GLOBAL_VARIABLES):
    """The variables of `collection` whose name starts with `scope` (a string, or a variable scope)
    and ends with `suffix`."""
    if isinstance(scope, vs.VariableScope):
        scope = scope.name
    if suffix is not None:
        if ":" not in suffix:
            suffix += ":"
        scope = (scope or "") + ".*" + suffix
    return get_collection(collection, scope)


def get_model_variables(scope=None, suffix=None):
    return get_variables(scope, suffix, GraphKeys.MODEL_VARIABLES)


def get_local_variables(scope=None, suffix=None):
    return get_variables(scope, suffix, GraphKeys.LOCAL_VARIABLES)


def get_trainable_variables(scope=None, suffix=None):
    return get_variables(scope, suffix, GraphKeys.TRAINABLE_VARIABLES)


def get_variables_to_restore(include=None, exclude=None):
    """The global variables (MODEL_ and others) under the scopes of `include` (all when None) and
    under none of the scopes of `exclude`."""
    if include is None:
        vars_to_include = get_variables()
    else:
        if not isinstance(include, (list, tuple)):
            raise TypeError("include is provided but is not a list or a tuple.")
        vars_to_include = [v for scope in include for v in get_variables(scope)]
    vars_to_exclude = set()
    if exclude is not None:
        if not isinstance(exclude, (list, tuple)):
            raise TypeError("exclude is provided but is not a list or a tuple.")
        for scope in exclude:
            vars_to_exclude.update(get_variables(scope))
    return [v for v in vars_to_include if v not in vars_to_exclude]


def get_variables_by_suffix(suffix, scope=None):
    return get_variables(scope=scope, suffix=suffix)


def get_variables_by_name(given_name, scope=None):
    """The variables whose last name component is `given_name`."""
    suffix = "/" + given_name + ":|^" + given_name + ":"
    return get_variables(scope=scope, suffix=suffix)


def get_unique_variable(var_op_name):
    """The one variable named `var_op_name`; ValueError when there is none or several."""
    candidates = get_variables(scope=var_op_name)
    if not candidates:
        raise ValueError("Couldn't find variable %s" % var_op_name)
    for candidate in candidates:
        if candidate.op.name == var_op_name:
            return candidate
    raise ValueError("Variable %s does not uniquely identify a variable" % var_op_name)


def get_variable_full_name(var):
    return var.op.name


def filter_variables(var_list, include_patterns=None, exclude_patterns=None, reg_search=True):
    """The variables of var_list whose names match one of include_patterns and none of exclude_patterns
    (regular expressions searched, or matched from the start when reg_search is False)."""
    match = re.search if reg_search else re.match

    def matches(v, patterns):
        return any(match(p, v.name) for p in patterns)
    out = [v for v in var_list if include_patterns is None or matches(v, include_patterns)]
    return [v for v in out if exclude_patterns is None or not matches(v, exclude_patterns)]


def _name_map(var_list):
    if isinstance(var_list, dict):
        return dict(var_list)
    out = {}
    for var in var_list:
        name = var.op.name
        if name in out:
            raise ValueError("Variable %s is repeated in var_list." % name)
        out[name] = var
    return out


def assign_from_values(var_names_to_values):
    """(assign op, feed dict) setting each named model variable to its value."""
    from tinyflow.ops.state_ops import group
    from tinyflow.ops.core.array_ops import placeholder
    assigns, feed = [], {}
    for name, value in var_names_to_values.items():
        var = get_variables(name)
        if not var:
            raise ValueError("Variable %s wasn't found" % name)
        if len(var) > 1:
            var = [v for v in var if v.op.name == name] or var
        var = var[0]
        ph = placeholder(var.dtype.base_dtype, var.shape, name="placeholder/" + var.op.name)
        assigns.append(state_ops.assign(var, ph))
        feed[ph] = value
    return group(*assigns), feed


def assign_from_values_fn(var_names_to_values):
    op, feed = assign_from_values(var_names_to_values)
    return lambda session: session.run(op, feed)


def assign_from_checkpoint(model_path, var_list, ignore_missing_vars=False):
    """(assign op, feed dict) restoring var_list (a list, or {checkpoint name: variable}) from the
    checkpoint model_path."""
    reader = _ckpt.open_reader(model_path)
    values = {}
    for ckpt_name, var in _name_map(var_list).items():
        if not reader.has_tensor(ckpt_name):
            if ignore_missing_vars:
                continue
            raise ValueError("Checkpoint is missing variable [%s]" % ckpt_name)
        values[var] = reader.get_tensor(ckpt_name)
    from tinyflow.ops.state_ops import group
    from tinyflow.ops.core.array_ops import placeholder
    assigns, feed = [], {}
    for var, value in values.items():
        ph = placeholder(var.dtype.base_dtype, var.shape, name="placeholder/" + var.op.name)
        assigns.append(state_ops.assign(var, ph))
        feed[ph] = value
    return group(*assigns), feed


def assign_from_checkpoint_fn(model_path, var_list, ignore_missing_vars=False, reshape_variables=False):
    """A function(session) that restores var_list from the checkpoint model_path (None when
    ignore_missing_vars leaves nothing to restore, as TF)."""
    from tinyflow.api.train.saver import Saver
    if not var_list:
        raise ValueError("var_list cannot be empty")
    var_map = _name_map(var_list)
    if ignore_missing_vars:
        reader = _ckpt.open_reader(model_path)
        var_map = {name: v for name, v in var_map.items() if reader.has_tensor(name)}
        if not var_map:
            return None
    saver = Saver(var_map, reshape=reshape_variables)

    def callback(session):
        saver.restore(session, model_path)
    return callback


def zero_initializer(ref, use_locking=True, name="zero_initializer"):
    """An op setting the variable `ref` to zeros."""
    from tinyflow.ops.core import array_ops
    return state_ops.assign(ref, array_ops.zeros_like(convert_to_tensor(ref)), name=name)
