"""Eager execution (TF 1.15's `tf.enable_eager_execution()`): ops run as they are called.

context.py    the mode switch: an EagerGraph as the default graph runs each op it is asked to create
execute.py    running one op: its lowering rule, jit-compiled once per signature
tensor.py     EagerTensor: a Tensor with a value
variables.py  EagerVariable: tf.Variable in eager mode
tape.py       tf.GradientTape over the registry's gradient rules
backprop.py   tfe.implicit_gradients & co., optimizers' minimize(callable)
data.py       iterating a tf.data.Dataset eagerly
tfe.py        the tf.contrib.eager namespace

Graph mode stays the default; importing this package registers eager execution with the modules
that offer a seam for it (tf.Variable's class, Optimizer.compute_gradients, Saver's values,
Dataset.__iter__); each acts only while executing eagerly.
"""
from tinyflow.ops import state_ops as _state_ops
from tinyflow.api.data import dataset_ops as _dataset_ops
from tinyflow.api.train import optimizer as _optimizer
from tinyflow.api.gradient_registry import custom_gradient  # noqa: F401 (eager and graph mode)
from tinyflow.runtime.eager.backprop import (gradients_function, implicit_gradients,  # noqa: F401
                                             implicit_value_and_gradients, value_and_gradients_function)
from tinyflow.runtime.eager.backprop import optimizer_gradients as _optimizer_gradients
from tinyflow.runtime.eager.context import (EagerGraph, disable_eager_execution, eager_mode, enable_eager_execution,  # noqa
                                            executing_eagerly)
from tinyflow.api.eager.data import Iterator  # noqa: F401
from tinyflow.runtime.eager.tape import GradientTape  # noqa: F401
from tinyflow.runtime.eager.tensor import EagerTensor  # noqa: F401
from tinyflow.runtime.eager.variables import EagerVariable, _variable_class, eager_values as _eager_values
from tinyflow.api.train import saver as _saver

_state_ops.register_variable_class(_variable_class)
_optimizer.register_eager(_optimizer_gradients)
_saver.register_eager(_eager_values)
_dataset_ops.register_eager(Iterator)

__all__ = ["EagerTensor", "EagerVariable", "GradientTape", "disable_eager_execution", "enable_eager_execution",
           "executing_eagerly"]
