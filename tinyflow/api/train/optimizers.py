"""TF1's optimizers beyond gradient descent: Momentum, Adam, Adagrad, RMSProp, Adadelta, Ftrl and the
proximal ones.

Each one names its slots and hyperparameter tensors as TF 1.15 does (slot variables "w/Adam",
"w/Adam_1", ...; Adam's "beta1_power"/"beta2_power" as non-trainable variables) and applies its
update with one op of training_ops.py per variable.
"""
from tinyflow.ops import state_ops
from tinyflow.ops.core.math_ops import cast
from tinyflow.api.train import training_ops as ops
from tinyflow.api.train.optimizer import Optimizer


class _RowUpdates(Optimizer):
    """TF's sparse updates: a dense gradient updates every row, an IndexedSlices one only the rows at its
    indices (TF's SparseApply* kernels: a row not indexed keeps its slots, so Momentum and RMSProp are
    lazy), a repeated index's rows summed first. Both come from the subclass's `_update(grad, var, indices)`."""

    def _apply_dense(self, grad, var):
        return self._update(grad, var, None)

    def _apply_sparse(self, grad, var):
        return self._update(grad.values, var, grad.indices)

    def _apply_sparse_duplicate_indices(self, grad, var):
        # the SparseApply* ops sum a repeated index's rows themselves (TF: tf.unique first), in one step
        return self._apply_sparse(grad, var)


class MomentumOptimizer(_RowUpdates):
    """accum = momentum * accum + grad; var -= lr * accum (Nesterov: var -= lr * (grad + momentum * accum))."""

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum", use_nesterov=False):
        super().__init__(use_locking, name)
        self._hypers = {"learning_rate": learning_rate, "momentum": momentum}
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _update(self, grad, var, indices):
        lr, momentum = self._rates(var, "learning_rate", "momentum")
        return ops.apply_momentum(var, self.get_slot(var, "momentum"), lr, grad, momentum,
                                  use_nesterov=self._use_nesterov, indices=indices)


class AdamOptimizer(_RowUpdates):
    """Adam as TF 1.15 computes it:
        m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g^2
        lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t);  var -= lr_t * m / (sqrt(v) + epsilon)
    with beta1^t and beta2^t kept in the variables beta1_power and beta2_power."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False, name="Adam"):
        super().__init__(use_locking, name)
        self._hypers = {"learning_rate": learning_rate, "beta1": beta1, "beta2": beta2, "epsilon": epsilon}

    def _get_beta_accumulators(self, graph=None):
        return self._get_non_slot_variable("beta1_power", graph), self._get_non_slot_variable("beta2_power", graph)

    def _create_slots(self, var_list):
        first_var = min(var_list, key=lambda x: x.name)
        self._create_non_slot_variable(self._hypers["beta1"], "beta1_power", first_var)
        self._create_non_slot_variable(self._hypers["beta2"], "beta2_power", first_var)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _update(self, grad, var, indices):
        powers = [cast(p.value(), var.dtype) for p in self._get_beta_accumulators(var.graph)]
        return ops.apply_adam(var, self.get_slot(var, "m"), self.get_slot(var, "v"), *powers,
                              *self._rates(var, "learning_rate", "beta1", "beta2", "epsilon"), grad, indices)

    def _finish(self, update_ops, name_scope):
        b1p, b2p = self._get_beta_accumulators()
        graph = b1p.graph
        with graph.control_dependencies(update_ops):
            update_beta1 = state_ops.assign(b1p, b1p.value() * self._hyper_t["beta1"])
            update_beta2 = state_ops.assign(b2p, b2p.value() * self._hyper_t["beta2"])
        return state_ops.group(*update_ops + [update_beta1, update_beta2], name=name_scope)


class AdagradOptimizer(_RowUpdates):
    """accum += grad^2; var -= lr * grad / sqrt(accum), accum starting at initial_accumulator_value."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False, name="Adagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError("initial_accumulator_value must be positive: %s" % initial_accumulator_value)
        super().__init__(use_locking, name)
        self._hypers = {"learning_rate": learning_rate}
        self._initial_accumulator_value = initial_accumulator_value

    def _create_slots(self, var_list):
        for v in var_list:
            self._constant_slot(v, self._initial_accumulator_value, "accumulator", self._name)

    def _update(self, grad, var, indices):
        return ops.apply_adagrad(var, self.get_slot(var, "accumulator"), *self._rates(var, "learning_rate"), grad,
                                 indices)


class RMSPropOptimizer(_RowUpdates):
    """ms = decay * ms + (1 - decay) * g^2 (ms starts at 1); mom = momentum * mom + lr * g / sqrt(ms + eps);
    var -= mom. centered: ms - mg^2 under the square root, mg the moving mean of g."""

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False, centered=False,
                 name="RMSProp"):
        super().__init__(use_locking, name)
        self._hypers = {"learning_rate": learning_rate, "decay": decay, "momentum": momentum, "epsilon": epsilon}
        self._centered = centered

    def _create_slots(self, var_list):
        for v in var_list:
            self._constant_slot(v, 1.0, "rms", self._name)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _update(self, grad, var, indices):
        hyper = self._rates(var, "learning_rate", "decay", "momentum", "epsilon") + [grad]
        rms, mom = self.get_slot(var, "rms"), self.get_slot(var, "momentum")
        if self._centered:
            return ops.apply_centered_rms_prop(var, self.get_slot(var, "mg"), rms, mom, *hyper, indices)
        return ops.apply_rms_prop(var, rms, mom, *hyper, indices)


class AdadeltaOptimizer(_RowUpdates):
    """accum = rho * accum + (1 - rho) * g^2; u = sqrt(accum_update + eps) / sqrt(accum + eps) * g;
    accum_update = rho * accum_update + (1 - rho) * u^2; var -= lr * u."""

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-8, use_locking=False, name="Adadelta"):
        super().__init__(use_locking, name)
        self._hypers = {"lr": learning_rate, "rho": rho, "epsilon": epsilon}

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name)

    def _update(self, grad, var, indices):
        return ops.apply_adadelta(var, self.get_slot(var, "accum"), self.get_slot(var, "accum_update"),
                                  *self._rates(var, "lr", "rho", "epsilon"), grad, indices)


class FtrlOptimizer(_RowUpdates):
    """FTRL-proximal (McMahan et al. 2013) as TF's ApplyFtrl / ApplyFtrlV2 (l2 shrinkage) compute it."""

    def __init__(self, learning_rate, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0, use_locking=False, name="Ftrl",
                 accum_name=None, linear_name=None, l2_shrinkage_regularization_strength=0.0):
        super().__init__(use_locking, name)
        if initial_accumulator_value < 0.0:
            raise ValueError("initial_accumulator_value %f needs to be be positive or zero"
                             % initial_accumulator_value)
        if learning_rate_power > 0.0:
            raise ValueError("learning_rate_power %f needs to be negative or zero" % learning_rate_power)
        if l1_regularization_strength < 0.0:
            raise ValueError("l1_regularization_strength %f needs to be positive or zero"
                             % l1_regularization_strength)
        if l2_regularization_strength < 0.0:
            raise ValueError("l2_regularization_strength %f needs to be positive or zero"
                             % l2_regularization_strength)
        if l2_shrinkage_regularization_strength < 0.0:
            raise ValueError("l2_shrinkage_regularization_strength %f needs to be positive or zero"
                             % l2_shrinkage_regularization_strength)
        self._hypers = {"learning_rate": learning_rate,
                        "l1_regularization_strength": l1_regularization_strength,
                        "l2_regularization_strength": l2_regularization_strength,
                        "learning_rate_power": learning_rate_power,
                        "l2_shrinkage_regularization_strength": l2_shrinkage_regularization_strength}
        self._lr_power, self._l2_shrinkage = learning_rate_power, l2_shrinkage_regularization_strength
        self._init_accum = initial_accumulator_value
        self._accum_name, self._linear_name = accum_name, linear_name

    def _create_slots(self, var_list):
        for v in var_list:
            self._constant_slot(v, self._init_accum, "accum", self._accum_name or self._name)
            self._zeros_slot(v, "linear", self._linear_name or self._name)

    def _update(self, grad, var, indices):
        slots = [self.get_slot(var, "accum"), self.get_slot(var, "linear")]
        rates = self._rates(var, "learning_rate", "l1_regularization_strength", "l2_regularization_strength")
        power, = self._rates(var, "learning_rate_power")
        if self._l2_shrinkage > 0.0:
            shrinkage, = self._rates(var, "l2_shrinkage_regularization_strength")
            return ops.apply_ftrl_v2(var, *slots, grad, *rates, shrinkage, power, sqrt_power=self._lr_power == -0.5,
                                     indices=indices)
        return ops.apply_ftrl(var, *slots, grad, *rates, power, sqrt_power=self._lr_power == -0.5, indices=indices)


class ProximalGradientDescentOptimizer(_RowUpdates):
    """Gradient descent followed by TF's proximal step for l1 / l2 regularization."""

    def __init__(self, learning_rate, l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="ProximalGradientDescent"):
        super().__init__(use_locking, name)
        self._hypers = _proximal_hypers(learning_rate, l1_regularization_strength, l2_regularization_strength)

    def _update(self, grad, var, indices):
        return ops.apply_proximal_gradient_descent(var, *self._rates(var, *self._hypers), grad, indices)


class ProximalAdagradOptimizer(_RowUpdates):
    """Adagrad followed by TF's proximal step (its rate lr / sqrt(accum)) for l1 / l2 regularization."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, use_locking=False, name="ProximalAdagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError("initial_accumulator_value must be positive: %s" % initial_accumulator_value)
        super().__init__(use_locking, name)
        self._hypers = _proximal_hypers(learning_rate, l1_regularization_strength, l2_regularization_strength)
        self._init_accum = initial_accumulator_value

    def _create_slots(self, var_list):
        for v in var_list:
            self._constant_slot(v, self._init_accum, "accumulator", self._name)

    def _update(self, grad, var, indices):
        return ops.apply_proximal_adagrad(var, self.get_slot(var, "accumulator"), *self._rates(var, *self._hypers),
                                          grad, indices)


class AdagradDAOptimizer(_RowUpdates):
    """Adagrad dual averaging (TF's): accumulates gradients and their squares; each step sets the variable
    from them and the global step (var = -lr * shrink(g_acc, l1 * t) / (l2 * t * lr + sqrt(gg_acc)),
    t = global_step + 1), so it needs `global_step`."""

    def __init__(self, learning_rate, global_step, initial_gradient_squared_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0, use_locking=False,
                 name="AdagradDA"):
        if initial_gradient_squared_accumulator_value <= 0.0:
            raise ValueError("initial_gradient_squared_accumulator_value must be positive: %s"
                             % initial_gradient_squared_accumulator_value)
        super().__init__(use_locking, name)
        self._hypers = _proximal_hypers(learning_rate, l1_regularization_strength, l2_regularization_strength)
        self._init_accum, self._global_step = initial_gradient_squared_accumulator_value, global_step

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "gradient_accumulator", self._name)
            self._constant_slot(v, self._init_accum, "gradient_squared_accumulator", self._name)

    def _prepare(self):
        from tinyflow.ops.core.array_ops import identity
        super()._prepare()
        self._global_step_on_worker = identity(self._global_step) + 1

    def _update(self, grad, var, indices):
        lr, l1, l2 = self._rates(var, *self._hypers)
        return ops.apply_adagrad_da(var, self.get_slot(var, "gradient_accumulator"),
                                    self.get_slot(var, "gradient_squared_accumulator"), grad, lr, l1, l2,
                                    cast(self._global_step_on_worker, "int64"), indices)


def _proximal_hypers(learning_rate, l1, l2):
    """The hyperparameters shared by the proximal optimizers, under TF's names."""
    return {"learning_rate": learning_rate, "l1_regularization_strength": l1, "l2_regularization_strength": l2}
