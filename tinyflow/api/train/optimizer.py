"""The Optimizer base class (TF1's minimize / compute_gradients / apply_gradients) and
GradientDescentOptimizer. Slots (Adam's m and v, ...) are real variables of the graph.

A subclass supplies `_apply_dense(grad, var)` returning the update op, and may create slots in
`_create_slots(var_list)` and extra updates in `_finish`. Its hyperparameters go in `self._hypers`
(TF's tensor name -> Python number, tensor or callable); `_prepare` turns each into a tensor once per
apply_gradients and `_rates(var, *names)` gives them in the variable's dtype.
The update ops themselves (ApplyAdam, ...) live in training_ops.py.
"""
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import GraphKeys, get_default_graph
from tinyflow.ops import state_ops, variable_scope
from tinyflow.ops.core import array_ops
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.core.math_ops import cast
from tinyflow.passes.gradients import gradients as _gradients
from tinyflow.api.tensor_util import IndexedSlices, sparse_gradients
from tinyflow.api.train import training_ops

_eager_gradients = [None]  # register_eager's hook


def register_eager(eager_gradients):
    """Eager execution's seam (api/eager calls it): eager_gradients(optimizer, loss, var_list,
    grad_loss) -> grads_and_vars while executing eagerly (loss a callable run on a tape), None in
    graph mode."""
    _eager_gradients[0] = eager_gradients

_VALID_DTYPES = (dt.float16, dt.bfloat16, dt.float32, dt.float64)


class Optimizer:
    """Base class of the TF1 optimizers."""

    GATE_NONE, GATE_OP, GATE_GRAPH = 0, 1, 2

    def __init__(self, use_locking, name):
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._slots = {}     # slot name -> {var: slot variable}
        self._non_slot = {}  # (name, graph) -> variable (Adam's beta powers)
        self._hypers = {}    # hyperparameter name -> value, in the order TF makes their tensors
        self._hyper_t = {}   # hyperparameter name -> tensor, made by _prepare

    def get_name(self):
        return self._name

    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=GATE_OP, aggregation_method=None,
                 colocate_gradients_with_ops=False, name=None, grad_loss=None, checkpoints=None):
        """compute_gradients then apply_gradients; ValueError if no variable gets a gradient.
        checkpoints: as tf.gradients' (recompute forward values in the backward pass)."""
        grads_and_vars = self.compute_gradients(loss, var_list=var_list, gate_gradients=gate_gradients,
                                                grad_loss=grad_loss, checkpoints=checkpoints)
        vars_with_grad = [v for g, v in grads_and_vars if g is not None]
        if not vars_with_grad:
            raise ValueError("No gradients provided for any variable, check your graph for ops that do not support "
                             "gradients, between variables %s and loss %s." % ([str(v) for _, v in grads_and_vars],
                                                                                loss))
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(self, loss, var_list=None, gate_gradients=GATE_OP, aggregation_method=None,
                          colocate_gradients_with_ops=False, grad_loss=None, checkpoints=None):
        """[(gradient or None, variable)] for the trainable variables (or var_list), in their order.
        checkpoints: None, a list of tensors, "sqrt", "memory" or "speed": as tf.gradients'."""
        if _eager_gradients[0] is not None:  # while executing eagerly: loss is a callable run on a tape
            grads_and_vars = _eager_gradients[0](self, loss, var_list, grad_loss)
            if grads_and_vars is not None:
                return grads_and_vars
        if callable(loss):
            raise RuntimeError("`loss` passed to Optimizer.compute_gradients should be a Tensor in graph mode.")
        loss = convert_to_tensor(loss)
        self._assert_valid_dtypes([loss])
        if var_list is None:
            var_list = get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES)
        else:
            var_list = list(var_list)
        if not var_list:
            raise ValueError("No variables to optimize.")
        grads = sparse_gradients(_gradients(loss, [convert_to_tensor(v) for v in var_list], grad_ys=grad_loss,
                                            checkpoints=checkpoints))
        if gate_gradients == Optimizer.GATE_GRAPH:
            grads = state_ops.tuple(grads)
        grads_and_vars = list(zip(grads, var_list))
        self._assert_valid_dtypes([v for g, v in grads_and_vars if g is not None])
        return grads_and_vars

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """An op that applies each gradient to its variable (and then increments global_step).

        Variables whose gradient is None are left untouched."""
        converted = []
        for g, v in grads_and_vars:
            if isinstance(g, IndexedSlices) and type(self)._apply_sparse is Optimizer._apply_sparse and \
                    type(self)._apply_sparse_duplicate_indices is Optimizer._apply_sparse_duplicate_indices:
                g = convert_to_tensor(g)   # no sparse update: the rows summed into a dense gradient
            if g is not None and not isinstance(g, IndexedSlices):
                try:
                    g = convert_to_tensor(g)
                except (TypeError, ValueError):
                    raise TypeError("Gradient must be convertible to a Tensor or IndexedSlices, or None: %s" % g)
            if not isinstance(v, state_ops.Variable):
                raise TypeError("Can not convert a %s into a Variable." % type(v).__name__)
            converted.append((g, v))
        if not converted:
            raise ValueError("No variables provided.")
        var_list = [v for g, v in converted if g is not None]
        if not var_list:
            raise ValueError("No gradients provided for any variable: %s." % ([str(v) for _, v in converted],))
        graph = get_default_graph()
        with graph.control_dependencies(None):
            self._create_slots(var_list)
        update_ops = []
        with graph.name_scope(name or self._name) as scope:
            self._prepare()
            for g, v in converted:
                if g is None:
                    continue
                with graph.name_scope("update_" + v.op.name):
                    update_ops.append(self._apply_sparse_duplicate_indices(g, v) if isinstance(g, IndexedSlices)
                                      else self._apply_dense(g, v))
            if global_step is None:
                apply_updates = self._finish(update_ops, scope)
            else:
                with graph.control_dependencies([self._finish(update_ops, "update")]):
                    apply_updates = state_ops.assign_add(global_step, 1, name=scope).op
        train_ops = graph.get_collection_ref(GraphKeys.TRAIN_OP)
        if apply_updates not in train_ops:
            train_ops.append(apply_updates)
        return apply_updates

    def _assert_valid_dtypes(self, tensors):
        for t in tensors:
            if t.dtype not in _VALID_DTYPES:
                raise ValueError("Invalid type %r for %s, expected: %s." % (t.dtype, t.name, list(_VALID_DTYPES)))

    # ---- subclass hooks --------------------------------------------------------------------------
    def _create_slots(self, var_list):
        pass

    def _prepare(self):
        self._hyper_t = {name: self._hyper(value, name) for name, value in self._hypers.items()}

    def _apply_dense(self, grad, var):
        raise NotImplementedError()

    def _apply_sparse_duplicate_indices(self, grad, var):
        """TF's: an IndexedSlices gradient with a repeated index's rows summed (tf.unique), then _apply_sparse."""
        from tinyflow.ops.core.indexing_ops import unsorted_segment_sum
        from tinyflow.ops.core.sequence_ops import unique
        indices, where = unique(grad.indices)
        values = unsorted_segment_sum(grad.values, where, array_ops.shape(indices)[0])
        return self._apply_sparse(IndexedSlices(values, indices, grad.dense_shape), var)

    def _apply_sparse(self, grad, var):
        """The update for an IndexedSlices gradient of distinct indices (rows `grad.indices`); an
        optimizer without one gets the gradient made dense."""
        raise NotImplementedError()

    def _finish(self, update_ops, name_scope):
        return state_ops.group(*update_ops, name=name_scope)

    # ---- hyperparameters -------------------------------------------------------------------------
    def _call_if_callable(self, x):
        return x() if callable(x) else x

    def _hyper(self, value, name):
        """A hyperparameter as a tensor, made once per apply_gradients (TF: float32 for Python floats)."""
        return convert_to_tensor(self._call_if_callable(value), name=name)

    def _rates(self, var, *names):
        """The named hyperparameter tensors in the variable's dtype (TF's math_ops.cast in _apply_dense)."""
        return [cast(self._hyper_t[name], var.dtype) for name in names]

    # ---- slots -----------------------------------------------------------------------------------
    def _zeros_slot(self, var, slot_name, op_name):
        return self._constant_slot(var, 0, slot_name, op_name)

    def _constant_slot(self, var, value, slot_name, op_name):
        # A variable whose shape is known only at run time (TinyFlow's shapeless weights) gets a slot of
        # shape(var), as TF's slot_creator does with validate_shape=False.
        shape = var.shape.as_list() if var.shape.is_fully_defined() else array_ops.shape(var.value())
        return self._slot(var, slot_name, op_name, lambda: array_ops.fill(shape, convert_to_tensor(value, var.dtype)))

    def _slot(self, var, slot_name, op_name, init):
        """A slot variable `<var>/<op_name>` for var, created once, not trainable (TF's slot_creator),
        inside the variable scope current when the optimizer runs (`OptimizeLoss/w/Adam`)."""
        slots = self._slots.setdefault(slot_name, {})
        if var not in slots:
            graph = var.graph
            outer = variable_scope.get_variable_scope().name
            scope = (outer + "/" if outer else "") + var.op.name + "/"
            if getattr(var, "_tf_partitioned", False):
                # TF's checkpoint key of a slot of a partitioned variable `v/part_0`: v + "/" + the slot's
                # name cut at len("v/part_0/"), which the outer scope shifts ("dnn/" gives v/t_0/Adagrad)
                cut = (scope[:-1] + "/part_0/" + op_name)[len(var.op.name + "/part_0/"):]
                scope, op_name = (var.op.name + "/" + cut).rsplit("/", 1)
                scope += "/"
            with graph.control_dependencies(None), graph.name_scope(scope):
                slots[var] = state_ops.Variable(init, trainable=False, name=op_name, dtype=var.dtype,
                                                validate_shape=var.shape.is_fully_defined())
        return slots[var]

    def get_slot(self, var, name):
        """The slot variable `name` of `var`, or None."""
        return self._slots.get(name, {}).get(var)

    def get_slot_names(self):
        """The names of the slots this optimizer created (e.g. ['m', 'v'] for Adam)."""
        return sorted(self._slots)

    def _create_non_slot_variable(self, initial_value, name, colocate_with):
        """A variable of the optimizer itself (one per graph), e.g. Adam's beta1_power."""
        key = (name, colocate_with.graph)
        if key not in self._non_slot:
            self._non_slot[key] = state_ops.Variable(initial_value, name=name, trainable=False)
        return self._non_slot[key]

    def _get_non_slot_variable(self, name, graph=None):
        return self._non_slot.get((name, graph or get_default_graph()))

    def variables(self):
        """The optimizer's own variables: slots and non-slot variables, sorted by name."""
        vs = [v for slots in self._slots.values() for v in slots.values()] + list(self._non_slot.values())
        return sorted(vs, key=lambda v: v.name)


class GradientDescentOptimizer(Optimizer):
    """var -= learning_rate * grad."""

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._hypers = {"learning_rate": learning_rate}

    def _apply_dense(self, grad, var):
        return training_ops.apply_gradient_descent(var, *self._rates(var, "learning_rate"), grad)

    def _apply_sparse(self, grad, var):
        """var[indices] -= learning_rate * values, repeated rows adding up (TF's scatter_sub)."""
        lr, = self._rates(var, "learning_rate")
        return state_ops.scatter_sub(var, grad.indices, grad.values * lr, use_locking=self._use_locking)

    _apply_sparse_duplicate_indices = _apply_sparse   # TF's too: scatter_sub adds up repeated rows
