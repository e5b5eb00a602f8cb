"""tf.contrib.framework (TF 1.15): arg_scope, variables and checkpoint helpers (slim's), the global
step, checkpoint reading (list_variables, load_variable, init_from_checkpoint), assert_scalar, nest,
smart_cond / smart_case."""
import types

import numpy as np

from tinyflow.api import nest as _nest
from tinyflow.api.contrib.slim.arg_scope import (add_arg_scope, arg_scope, arg_scope_func_key, arg_scoped_arguments,  # noqa
                                                 current_arg_scope, has_arg_scope)
from tinyflow.api.contrib.slim.variables import (add_model_variable, assert_global_step, assert_or_get_global_step,  # noqa
                                                 assign_from_checkpoint, assign_from_checkpoint_fn, assign_from_values,
                                                 assign_from_values_fn, create_global_step, filter_variables,
                                                 get_global_step, get_local_variables, get_model_variables,
                                                 get_or_create_global_step, get_trainable_variables,
                                                 get_unique_variable, get_variable_full_name, get_variables,
                                                 get_variables_by_name, get_variables_by_suffix,
                                                 get_variables_to_restore, global_variable, local_variable,
                                                 model_variable, variable, zero_initializer)
from tinyflow.api.train.tf_checkpoint import (init_from_checkpoint, list_variables, load_checkpoint,  # noqa: F401
                                              load_variable)
from tinyflow.graph.core import get_default_graph as _default_graph
from tinyflow.ops.check_ops import assert_scalar  # noqa: F401
from tinyflow.ops.control_flow_ops import cond as _cond
from tinyflow.ops.core.base import constant_value_of as _constant_value
from tinyflow.ops.core.base import convert_to_tensor as _convert

# tf.contrib.framework.nest is tensorflow.python.util.nest: tf.nest's functions and is_sequence
nest = types.ModuleType(__name__ + ".nest", "tf.contrib.framework.nest (TF's util.nest).")
nest.__dict__.update({k: v for k, v in vars(_nest).items() if not k.startswith("_")})
nest.is_sequence = _nest.is_nested


def get_name_scope():
    """The current name scope, as a string ("" at the top)."""
    return _default_graph().get_name_scope()


def is_tensor(x):
    """Whether x is a graph tensor (or a sparse tensor)."""
    from tinyflow.graph.core import Tensor
    return isinstance(x, Tensor) or type(x).__name__ == "SparseTensor"


def convert_to_tensor_or_sparse_tensor(value, dtype=None, name=None):
    if type(value).__name__ == "SparseTensor":
        return value
    return _convert(value, dtype=dtype, name=name)


def reduce_sum_n(tensors, name=None):
    """The sum of the elements of every tensor of the list."""
    from tinyflow.ops.core import math_ops
    if not tensors:
        raise ValueError("No tensors provided.")
    return math_ops.add_n([math_ops.reduce_sum(t) for t in tensors], name=name or "reduce_sum_n")


# ---- smart_cond: decided now when the predicate is known now (TF's framework/smart_cond.py) --------
def smart_constant_value(pred):
    """pred's value when known now (a Python bool, 0 or 1, or a tensor that folds), else None."""
    if hasattr(pred, "op"):
        value = _constant_value(pred)
        return None if value is None else bool(value)
    if isinstance(pred, (bool, np.bool_)) or (isinstance(pred, int) and pred in (0, 1)):
        return bool(pred)
    raise TypeError("`pred` must be a Tensor, or a Python bool, or 1 or 0. Found instead: %s" % type(pred))


def smart_cond(pred, true_fn=None, false_fn=None, name=None):
    """TF's smart_cond: the branch is called now when pred is known now, else tf.cond (which runs the
    taken branch only, as TF)."""
    if not callable(true_fn):
        raise TypeError("`true_fn` must be callable.")
    if not callable(false_fn):
        raise TypeError("`false_fn` must be callable.")
    value = smart_constant_value(pred)
    if value is not None:
        return true_fn() if value else false_fn()
    return _cond(pred, true_fn=true_fn, false_fn=false_fn, name=name)


def smart_case(pred_fn_pairs, default=None, exclusive=False, name="smart_case"):
    """TF's smart_case: tf.case decided now as far as the preds are known now (the first true one wins)."""
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else list(pred_fn_pairs)
    if default is None:
        if not pairs:
            raise ValueError("Must provide at least one item in pred_fn_pairs")
        pairs, default = pairs[:-1], pairs[-1][1]
    fn = default
    for pred, branch in reversed(pairs):
        fn = (lambda p, b, rest: lambda: smart_cond(p, b, rest, name=name))(pred, branch, fn)
    return fn()
