"""tf.train.experimental's mixed precision (TF 1.15): loss scales, MixedPrecisionLossScaleOptimizer and
enable_mixed_precision_graph_rewrite.

TF's graph rewrite turns float32 ops to float16 on GPUs only (grappler's auto_mixed_precision); on a CPU
it rewrites nothing, so training equals float32 training with loss scaling around it. tinyflow does the
same everywhere: no float16 rewrite (XLA picks its own precision per op), and the optimizer wrapped with
TF's loss scaling: the loss is multiplied by the scale, the gradients divided by it, and with the dynamic
scale a step whose gradients are not all finite changes nothing (variables, slots, global step) and
halves the scale; `increment_period` finite steps in a row double it.
"""
from tinyflow.api.tensor_util import IndexedSlices
from tinyflow.api.train.optimizer import Optimizer
from tinyflow.graph.core import control_dependencies, get_default_graph
from tinyflow.ops import state_ops
from tinyflow.ops.core import math_ops
from tinyflow.ops.core.array_ops import no_op, stack, zeros_like
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.core.indexing_ops import where
from tinyflow.graph import dtypes

_ENABLED = [False]


class LossScale:
    """The loss scale base class: call it for the current scale; update(grads) -> (op, should_apply)."""

    def __call__(self):
        raise NotImplementedError()

    def update(self, grads):
        raise NotImplementedError()

    def get_config(self):
        raise NotImplementedError()


class FixedLossScale(LossScale):
    """A constant loss scale; every step applies."""

    def __init__(self, loss_scale_value):
        if not isinstance(loss_scale_value, (int, float)):
            raise ValueError("loss_scale_value must be a Python int or float.")
        if loss_scale_value < 1:
            raise ValueError("loss_scale_value must be at least 1.")
        self._loss_scale_value = float(loss_scale_value)

    def __call__(self):
        return convert_to_tensor(self._loss_scale_value)

    def update(self, grads):
        return no_op(), True

    def get_config(self):
        return {"loss_scale_value": self._loss_scale_value}

    def __repr__(self):
        return "FixedLossScale(%s)" % self._loss_scale_value


def _all_finite(grads):
    checks = [math_ops.reduce_all(math_ops.is_finite(g)) for g in grads if g is not None]
    return math_ops.reduce_all(stack(checks)) if checks else convert_to_tensor(True)


class DynamicLossScale(LossScale):
    """Doubles (multiplier) the scale after increment_period finite steps; halves it (not below 1) on a
    step with a non-finite gradient, which is not applied."""

    def __init__(self, initial_loss_scale=2 ** 15, increment_period=2000, multiplier=2.):
        self._initial_loss_scale = float(initial_loss_scale)
        self._increment_period = int(increment_period)
        self._multiplier = float(multiplier)
        graph = get_default_graph()
        with control_dependencies(None), graph.name_scope(None):
            self._current_loss_scale = state_ops.Variable(self._initial_loss_scale, name="current_loss_scale",
                                                          trainable=False, dtype=dtypes.float32)
            self._num_good_steps = state_ops.Variable(0, name="good_steps", trainable=False, dtype=dtypes.int64)

    initial_loss_scale = property(lambda self: self._initial_loss_scale)
    increment_period = property(lambda self: self._increment_period)
    multiplier = property(lambda self: self._multiplier)

    def __call__(self):
        return self._current_loss_scale.value()

    def update(self, grads):
        """(the op updating the scale, a bool tensor: whether the gradients are all finite)."""
        ok = _all_finite(grads if isinstance(grads, (list, tuple)) else [grads])
        scale, good = self._current_loss_scale.value(), self._num_good_steps.value()
        more = good + 1
        grow = math_ops.logical_and(ok, more >= self._increment_period)
        bigger = scale * self._multiplier
        bigger = where(math_ops.is_finite(bigger), bigger, scale)
        smaller = math_ops.maximum(scale / self._multiplier, 1.)
        new_scale = where(grow, bigger, where(ok, scale, smaller))
        new_good = where(math_ops.logical_and(ok, math_ops.logical_not(grow)), more, zeros_like(more))
        op = state_ops.group(state_ops.assign(self._current_loss_scale, new_scale),
                             state_ops.assign(self._num_good_steps, new_good))
        return op, ok

    def get_config(self):
        return {"initial_loss_scale": self._initial_loss_scale, "increment_period": self._increment_period,
                "multiplier": self._multiplier}

    def __repr__(self):
        return "DynamicLossScale(initial_loss_scale=%s, increment_period=%d, multiplier=%s)" % (
            self._initial_loss_scale, self._increment_period, self._multiplier)


def get_loss_scale(loss_scale):
    """A LossScale from 'dynamic', a number or a LossScale (TF's loss_scale_module.get)."""
    if isinstance(loss_scale, LossScale):
        return loss_scale
    if loss_scale == "dynamic":
        return DynamicLossScale()
    if isinstance(loss_scale, (int, float)):
        return FixedLossScale(loss_scale)
    raise ValueError("Invalid argument for loss_scale: %s" % (loss_scale,))


class MixedPrecisionLossScaleOptimizer(Optimizer):
    """An optimizer applying loss scaling: scaled loss in compute_gradients, unscaled gradients, and
    apply_gradients that changes nothing on a non-finite step (TF applies under a tf.cond; tinyflow runs
    the update and keeps the old values of the variables, slots and global step where it must not apply)."""

    def __init__(self, opt, loss_scale):
        if not isinstance(opt, Optimizer):
            raise ValueError('"opt" must be an instance of Optimizer, but got: %s' % type(opt))
        super().__init__(False, "MixedPrecisionLossScale")
        self._optimizer = opt
        self._loss_scale = get_loss_scale(loss_scale)

    def compute_gradients(self, loss, var_list=None, gate_gradients=Optimizer.GATE_OP, aggregation_method=None,
                          colocate_gradients_with_ops=False, grad_loss=None, checkpoints=None):
        scale = self._loss_scale()
        grads_and_vars = self._optimizer.compute_gradients(
            loss * scale, var_list=var_list, gate_gradients=gate_gradients, grad_loss=grad_loss,
            checkpoints=checkpoints)
        inverse = 1. / scale
        return [(None if g is None else
                 IndexedSlices(g.values * math_ops.cast(inverse, g.dtype), g.indices, g.dense_shape)
                 if isinstance(g, IndexedSlices) else g * math_ops.cast(inverse, g.dtype), v)
                for g, v in grads_and_vars]

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        grads_and_vars = list(grads_and_vars)
        update_scale, ok = self._loss_scale.update([g for g, _ in grads_and_vars])
        if ok is True:
            return state_ops.group(self._optimizer.apply_gradients(grads_and_vars, global_step, name), update_scale)
        opt, graph = self._optimizer, get_default_graph()
        var_list = [v for g, v in grads_and_vars if g is not None]
        with control_dependencies(None):
            opt._create_slots(var_list)
        state = var_list + [s for slots in opt._slots.values() for v, s in slots.items() if v in var_list]
        state += [v for (_, g), v in opt._non_slot.items() if g is graph]
        state += [global_step] if global_step is not None else []
        old = [v.read_value() for v in state]
        safe = [(None if g is None else where(ok, g, zeros_like(g)), v) for g, v in grads_and_vars]
        with control_dependencies(old):
            applied = opt.apply_gradients(safe, global_step, name)
        with control_dependencies([applied]):
            keep = [state_ops.assign(v, where(ok, v.read_value(), o)) for v, o in zip(state, old)]
        return state_ops.group(*keep, update_scale)

    def get_slot(self, var, name):
        return self._optimizer.get_slot(var, name)

    def get_slot_names(self):
        return self._optimizer.get_slot_names()

    def variables(self):
        return self._optimizer.variables()


def enable_mixed_precision_graph_rewrite(opt, loss_scale="dynamic"):
    """opt wrapped with loss scaling (MixedPrecisionLossScaleOptimizer); no float16 rewrite (see the module)."""
    if isinstance(opt, MixedPrecisionLossScaleOptimizer):
        raise ValueError('"opt" must not already be an instance of a MixedPrecisionLossScaleOptimizer. '
                         "`enable_mixed_precision_graph_rewrite` will automatically wrap the optimizer with a "
                         "MixedPrecisionLossScaleOptimizer.")
    _ENABLED[0] = True
    return MixedPrecisionLossScaleOptimizer(opt, loss_scale)


def disable_mixed_precision_graph_rewrite():
    """Undoes enable_mixed_precision_graph_rewrite's switch (optimizers already wrapped stay wrapped)."""
    _ENABLED[0] = False
