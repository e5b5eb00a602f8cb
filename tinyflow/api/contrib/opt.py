"""tf.contrib.opt (TF 1.15): the optimizers real code uses beyond tf.train's, with TF's slot names and math.

- LARSOptimizer: momentum on lr * trust_ratio * (grad + weight_decay * var), trust_ratio =
  eeta * |var| / (|grad| + weight_decay * |var| + epsilon) (1 where either norm is 0; skip_list names skip
  the scaling and the decay);
- AdamWOptimizer / MomentumWOptimizer: decoupled weight decay (var -= weight_decay * var, before the update
  of the gradient computed on the undecayed var), then Adam / Momentum.
"""
from tinyflow.api.train.optimizers import AdamOptimizer, MomentumOptimizer, Optimizer
from tinyflow.api.train import training_ops as _ops
from tinyflow.graph.core import control_dependencies
from tinyflow.ops import state_ops
from tinyflow.ops.core import array_ops, indexing_ops, math_ops
from tinyflow.ops.core.base import convert_to_tensor

__all__ = ["AdamWOptimizer", "LARSOptimizer", "MomentumWOptimizer"]


def _norm(x):
    return math_ops.sqrt(math_ops.reduce_sum(math_ops.square(x)))


class LARSOptimizer(Optimizer):
    """Layer-wise Adaptive Rate Scaling (You et al. 2017) with momentum, as tf.contrib.opt has it."""

    def __init__(self, learning_rate, momentum=0.9, weight_decay=0.0001, eeta=0.001, epsilon=0.0,
                 name="LARSOptimizer", skip_list=None, use_nesterov=False):
        if momentum < 0.0:
            raise ValueError("momentum should be positive: %s" % momentum)
        if weight_decay < 0.0:
            raise ValueError("weight_decay should be positive: %s" % weight_decay)
        super().__init__(False, name)
        self._learning_rate, self._momentum, self._weight_decay = learning_rate, momentum, weight_decay
        self._eeta, self._epsilon, self._skip_list, self._use_nesterov = eeta, epsilon, skip_list, use_nesterov

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def compute_lr(self, grad, var):
        """(the scaled learning rate, the gradient with the weight decay added) of one variable."""
        scaled_lr = self._learning_rate
        if self._skip_list is None or not any(v in var.name for v in self._skip_list):
            w_norm, g_norm = _norm(var.value()), _norm(grad)
            one = array_ops.ones_like(w_norm)
            ratio = self._eeta * w_norm / (g_norm + self._weight_decay * w_norm + self._epsilon)
            trust_ratio = math_ops.where_v2(math_ops.greater(w_norm, 0),
                                            math_ops.where_v2(math_ops.greater(g_norm, 0), ratio, one), one)
            scaled_lr = self._learning_rate * trust_ratio
            grad = grad + self._weight_decay * var.value()
        return scaled_lr, grad

    def _apply_dense(self, grad, var):
        scaled_lr, grad = self.compute_lr(grad, var)
        return _ops.apply_momentum(var, self.get_slot(var, "momentum"), math_ops.cast(1.0, var.dtype),
                                   grad * math_ops.cast(scaled_lr, var.dtype),
                                   math_ops.cast(self._momentum, var.dtype), use_nesterov=self._use_nesterov)


def _decoupled(base):
    """base with TF's DecoupledWeightDecayExtension: var -= weight_decay * var before each update."""

    class Decoupled(base):
        def __init__(self, weight_decay, *args, **kwargs):
            self._decay = weight_decay
            self._decay_var_list = None
            super().__init__(*args, **kwargs)

        def minimize(self, loss, global_step=None, var_list=None, *args, decay_var_list=None, **kwargs):
            self._decay_var_list = set(decay_var_list) if decay_var_list else None
            return super().minimize(loss, global_step, var_list, *args, **kwargs)

        def apply_gradients(self, grads_and_vars, global_step=None, name=None, decay_var_list=None):
            if decay_var_list:
                self._decay_var_list = set(decay_var_list)
            return super().apply_gradients(grads_and_vars, global_step, name)

        def _prepare(self):
            super()._prepare()
            self._decay_t = convert_to_tensor(self._call_if_callable(self._decay), name="weight_decay")

        def _apply_dense(self, grad, var):
            if self._decay_var_list is not None and var not in self._decay_var_list:
                return super()._apply_dense(grad, var)
            decay = state_ops.assign_sub(var, math_ops.cast(self._decay_t, var.dtype) * var.value())
            with control_dependencies([decay]):
                return super()._apply_dense(grad, var)

        def _apply_sparse(self, grad, var):
            """The indexed rows decay (TF's scatter_add of -weight_decay * rows; written with scatter_update,
            which a repeated index leaves the same), then the base's sparse update."""
            if self._decay_var_list is not None and var not in self._decay_var_list:
                return super()._apply_sparse(grad, var)
            rows = indexing_ops.gather(var.value(), grad.indices)
            decay = state_ops.scatter_update(var, grad.indices, rows + -math_ops.cast(self._decay_t, var.dtype) * rows)
            with control_dependencies([decay]):
                return super()._apply_sparse(grad, var)
    return Decoupled


class AdamWOptimizer(_decoupled(AdamOptimizer)):
    """Adam with decoupled weight decay (Loshchilov & Hutter), tf.contrib.opt's."""

    def __init__(self, weight_decay, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False,
                 name="AdamW"):
        super().__init__(weight_decay, learning_rate, beta1, beta2, epsilon, use_locking, name)


class MomentumWOptimizer(_decoupled(MomentumOptimizer)):
    """Momentum with decoupled weight decay, tf.contrib.opt's."""

    def __init__(self, weight_decay, learning_rate, momentum, use_locking=False, name="MomentumW",
                 use_nesterov=False):
        super().__init__(weight_decay, learning_rate, momentum, use_locking, name, use_nesterov)

