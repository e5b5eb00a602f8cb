"""The Optimizer base class (TF1's minimize / compute_gradients / apply_gradients) and
GradientDescentOptimizer. Slots (Adam's m and v, ...) are real variables of the graph.

A subclass supplies `_apply_dense(grad, var)` returning the update op, and may create slots in
`_create_slots(var_list)` and extra variables/ops in `_prepare` and `_finish`.
"""
import jax.numpy as jnp

from ..graph import dtypes as dt
from ..graph.core import GraphKeys, Tensor, get_default_graph
from ..graph.registry import register_op, same_as_input
from ..ops import array_ops, state_ops
from ..ops.base import convert_to_tensor, make_op
from ..passes.gradients import gradients as _gradients


def _apply_shape(shapes, attrs, values):
    return [shapes[0]]


register_op("ApplyGradientDescent", shape=_apply_shape, dtype=same_as_input(0), grad=None, ref_inputs=(0,),
            lower=lambda a, var, alpha, delta: (var - alpha.astype(var.dtype) * delta).astype(var.dtype))


class Optimizer:
    """Base class of the TF1 optimizers."""

    GATE_NONE, GATE_OP, GATE_GRAPH = 0, 1, 2

    def __init__(self, use_locking, name):
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._slots = {}  # slot name -> {var: slot variable}

    def get_name(self):
        return self._name

    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=GATE_OP, aggregation_method=None,
                 colocate_gradients_with_ops=False, name=None, grad_loss=None):
        """compute_gradients then apply_gradients; ValueError if no variable gets a gradient."""
        grads_and_vars = self.compute_gradients(loss, var_list=var_list, grad_loss=grad_loss)
        vars_with_grad = [v for g, v in grads_and_vars if g is not None]
        if not vars_with_grad:
            raise ValueError("No gradients provided for any variable, check your graph for ops that do not support "
                             "gradients, between variables %s and loss %s." % ([str(v) for _, v in grads_and_vars],
                                                                                loss))
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(self, loss, var_list=None, gate_gradients=GATE_OP, aggregation_method=None,
                          colocate_gradients_with_ops=False, grad_loss=None):
        """[(gradient or None, variable)] for the trainable variables (or var_list), in their order."""
        if callable(loss):
            raise RuntimeError("`loss` passed to Optimizer.compute_gradients should be a Tensor in graph mode.")
        loss = convert_to_tensor(loss)
        if var_list is None:
            var_list = loss.graph.get_collection(GraphKeys.TRAINABLE_VARIABLES)
        else:
            var_list = list(var_list)
        if not var_list:
            raise ValueError("No variables to optimize.")
        grads = _gradients(loss, [v._as_graph_element() if hasattr(v, "_as_graph_element") else v
                                  for v in var_list], grad_ys=grad_loss)
        return list(zip(grads, var_list))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """An op that applies each gradient to its variable (and increments global_step after)."""
        grads_and_vars = [(g, v) for g, v in grads_and_vars]
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not pairs:
            raise ValueError("No gradients provided for any variable: %s." % ([str(v) for _, v in grads_and_vars],))
        graph = get_default_graph()
        with graph.control_dependencies(None):
            self._create_slots([v for _, v in pairs])
        with graph.name_scope(name or self._name) as scope:
            self._prepare()
            updates = []
            for g, v in pairs:
                g = convert_to_tensor(g)
                with graph.name_scope("update_" + v.op.name):
                    updates.append(self._apply_dense(g, v))
            finish = self._finish(updates, "update")
            if global_step is None:
                return state_ops.group(finish, name=scope)
            with graph.control_dependencies([finish]):
                return state_ops.assign_add(global_step, 1, name=scope).op

    # ---- subclass hooks --------------------------------------------------------------------------
    def _create_slots(self, var_list):
        pass

    def _prepare(self):
        pass

    def _apply_dense(self, grad, var):
        raise NotImplementedError()

    def _finish(self, update_ops, name_scope):
        return state_ops.group(*update_ops, name=name_scope)

    # ---- slots -----------------------------------------------------------------------------------
    def _zeros_slot(self, var, slot_name, op_name):
        return self._slot(var, slot_name, op_name, lambda: array_ops.zeros(var.shape.as_list(), var.dtype))

    def _slot(self, var, slot_name, op_name, init):
        """A slot variable `<var>/<op_name>` for var, created once, not trainable."""
        slots = self._slots.setdefault(slot_name, {})
        if var not in slots:
            graph = get_default_graph()
            with graph.name_scope(var.op.name + "/"):
                slots[var] = state_ops.Variable(init, trainable=False, name=op_name, dtype=var.dtype)
        return slots[var]

    def get_slot(self, var, name):
        """The slot variable `name` of `var`, or None."""
        return self._slots.get(name, {}).get(var)

    def get_slot_names(self):
        return sorted(self._slots)

    def variables(self):
        return [v for slots in self._slots.values() for v in slots.values()]

    def _call_if_callable(self, x):
        return x() if callable(x) else x


def _as_lr(lr, var):
    """A learning rate (number or tensor) as a tensor of the variable's dtype."""
    if isinstance(lr, Tensor) or hasattr(lr, "_as_graph_element"):
        lr = convert_to_tensor(lr)
        if lr.dtype != var.dtype:
            from ..ops.math_ops import cast
            lr = cast(lr, var.dtype)
        return lr
    return convert_to_tensor(lr, dtype=var.dtype)


class GradientDescentOptimizer(Optimizer):
    """var -= learning_rate * grad."""

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate

    def _apply_dense(self, grad, var):
        lr = _as_lr(self._call_if_callable(self._learning_rate), var)
        return make_op("ApplyGradientDescent", [var._as_graph_element(), lr, grad], name="ApplyGradientDescent")
