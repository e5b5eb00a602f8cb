"""tinyflow: TensorFlow-1 graph programs on XLA through JAX. `import tinyflow as tf`.

This file only re-exports: the `tf.` namespace. The layers are graph/ (IR), ops/ (op families),
passes/ (prune, state, gradients, memory), lower/ (JAX) and client/ (Session).
"""
import jax as _jax

_jax.config.update("jax_enable_x64", True)  # TF's dtypes: float64 and int64 must stay themselves

from . import errors  # noqa: E402
from .graph.dtypes import (DType, as_dtype, bfloat16, bool_ as bool, double, float16, float32, float64,  # noqa
                           half, int8, int16, int32, int64, string, uint8, uint16, uint32, uint64)
from .graph.core import (Graph, GraphKeys, Operation, Tensor, add_to_collection, add_to_collections,  # noqa
                         control_dependencies, get_collection, get_collection_ref, get_default_graph, name_scope,
                         reset_default_graph)
from .graph.shapes import Dimension, TensorShape  # noqa
from .ops.base import constant, convert_to_tensor, register_tensor_conversion_function  # noqa
from .ops.math_ops import (abs, accumulate_n, add, add_n, argmax, argmin, cast, ceil, clip_by_value, cos,  # noqa
                           count_nonzero, div, divide, equal, erf, exp, expm1, floor, floordiv, floormod, greater,
                           greater_equal, is_finite, is_inf, is_nan, less, less_equal, log, log1p, logical_and,
                           logical_not, logical_or, logical_xor, matmul, maximum, minimum, mod, multiply, negative,
                           not_equal, pow, realdiv, reciprocal, reduce_all, reduce_any, reduce_logsumexp, reduce_max,
                           reduce_mean, reduce_min, reduce_prod, reduce_sum, rint, round, rsqrt, saturate_cast,
                           scalar_mul, sigmoid, sign, sin, sqrt, square, squared_difference, subtract, tan, tanh,
                           to_bfloat16, to_double, to_float, to_int32, to_int64, truediv, truncatediv, truncatemod)
from .ops.array_ops import (expand_dims, fill, identity, no_op, ones, ones_like, placeholder,  # noqa
                            placeholder_with_default, rank, reshape, shape, size, squeeze, stack, stop_gradient,
                            unstack, zeros, zeros_like)
from .ops.state_ops import (Variable, all_variables, assert_variables_initialized, assign, assign_add,  # noqa
                            assign_sub, global_variables, global_variables_initializer, group,
                            initialize_all_variables, initialize_local_variables, initialize_variables,
                            is_variable_initialized, local_variables, local_variables_initializer, model_variables,
                            moving_average_variables, report_uninitialized_variables, trainable_variables,
                            variables_initializer)
from .ops.state_ops import tuple_ as tuple  # noqa
from .ops import overloads as _overloads  # noqa: F401 (installs Tensor operators)
from .passes.gradients import gradients  # noqa
from .client.session import ConfigProto, InteractiveSession, Session, get_default_session  # noqa
from . import nn, train  # noqa

sub = subtract
mul = multiply
neg = negative
