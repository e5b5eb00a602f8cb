"""TF1's optimizers beyond gradient descent: Momentum, Adam, Adagrad, RMSProp, Adadelta, Ftrl and the
proximal ones.

Each one names its slots and hyperparameter tensors as TF 1.15 does (slot variables "w/Adam",
"w/Adam_1", ...; Adam's "beta1_power"/"beta2_power" as non-trainable variables) and applies its
update with one op of training_ops.py per variable.
"""
from ..ops import state_ops
from . import training_ops as ops
from .optimizer import Optimizer


class MomentumOptimizer(Optimizer):
    """accum = momentum * accum + grad; var -= lr * accum (Nesterov: var -= lr * (grad + momentum * accum))."""

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum", use_nesterov=False):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        self._lr_t = self._hyper(self._learning_rate, "learning_rate")
        self._momentum_t = self._hyper(self._momentum, "momentum")

    def _apply_dense(self, grad, var):
        return ops.apply_momentum(var, self.get_slot(var, "momentum"), self._cast(self._lr_t, var), grad,
                                  self._cast(self._momentum_t, var), use_nesterov=self._use_nesterov)


class AdamOptimizer(Optimizer):
    """Adam as TF 1.15 computes it:
        m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g^2
        lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t);  var -= lr_t * m / (sqrt(v) + epsilon)
    with beta1^t and beta2^t kept in the variables beta1_power and beta2_power."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False, name="Adam"):
        super().__init__(use_locking, name)
        self._lr, self._beta1, self._beta2, self._epsilon = learning_rate, beta1, beta2, epsilon

    def _get_beta_accumulators(self, graph=None):
        return self._get_non_slot_variable("beta1_power", graph), self._get_non_slot_variable("beta2_power", graph)

    def _create_slots(self, var_list):
        first_var = min(var_list, key=lambda x: x.name)
        self._create_non_slot_variable(self._beta1, "beta1_power", first_var)
        self._create_non_slot_variable(self._beta2, "beta2_power", first_var)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _prepare(self):
        self._lr_t = self._hyper(self._lr, "learning_rate")
        self._beta1_t = self._hyper(self._beta1, "beta1")
        self._beta2_t = self._hyper(self._beta2, "beta2")
        self._epsilon_t = self._hyper(self._epsilon, "epsilon")

    def _apply_dense(self, grad, var):
        b1p, b2p = self._get_beta_accumulators(var.graph)
        c = self._cast
        return ops.apply_adam(var, self.get_slot(var, "m"), self.get_slot(var, "v"), c(b1p.value(), var),
                              c(b2p.value(), var), c(self._lr_t, var), c(self._beta1_t, var),
                              c(self._beta2_t, var), c(self._epsilon_t, var), grad)

    def _finish(self, update_ops, name_scope):
        b1p, b2p = self._get_beta_accumulators()
        graph = b1p.graph
        with graph.control_dependencies(update_ops):
            update_beta1 = state_ops.assign(b1p, b1p.value() * self._beta1_t)
            update_beta2 = state_ops.assign(b2p, b2p.value() * self._beta2_t)
        return state_ops.group(*update_ops + [update_beta1, update_beta2], name=name_scope)


class AdagradOptimizer(Optimizer):
    """accum += grad^2; var -= lr * grad / sqrt(accum), accum starting at initial_accumulator_value."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False, name="Adagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError("initial_accumulator_value must be positive: %s" % initial_accumulator_value)
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value

    def _create_slots(self, var_list):
        for v in var_list:
            self._constant_slot(v, self._initial_accumulator_value, "accumulator", self._name)

    def _prepare(self):
        self._lr_t = self._hyper(self._learning_rate, "learning_rate")

    def _apply_dense(self, grad, var):
        return ops.apply_adagrad(var, self.get_slot(var, "accumulator"), self._cast(self._lr_t, var), grad)


class RMSPropOptimizer(Optimizer):
    """ms = decay * ms + (1 - decay) * g^2 (ms starts at 1); mom = momentum * mom + lr * g / sqrt(ms + eps);
    var -= mom. centered: ms - mg^2 under the square root, mg the moving mean of g."""

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False, centered=False,
                 name="RMSProp"):
        super().__init__(use_locking, name)
        self._learning_rate, self._decay, self._momentum, self._epsilon = learning_rate, decay, momentum, epsilon
        self._centered = centered

    def _create_slots(self, var_list):
        for v in var_list:
            self._constant_slot(v, 1.0, "rms", self._name)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        self._lr_t = self._hyper(self._learning_rate, "learning_rate")
        self._decay_t = self._hyper(self._decay, "decay")
        self._momentum_t = self._hyper(self._momentum, "momentum")
        self._epsilon_t = self._hyper(self._epsilon, "epsilon")

    def _apply_dense(self, grad, var):
        c = self._cast
        hyper = [c(self._lr_t, var), c(self._decay_t, var), c(self._momentum_t, var), c(self._epsilon_t, var), grad]
        rms, mom = self.get_slot(var, "rms"), self.get_slot(var, "momentum")
        if self._centered:
            return ops.apply_centered_rms_prop(var, self.get_slot(var, "mg"), rms, mom, *hyper)
        return ops.apply_rms_prop(var, rms, mom, *hyper)


class AdadeltaOptimizer(Optimizer):
    """accum = rho * accum + (1 - rho) * g^2; u = sqrt(accum_update + eps) / sqrt(accum + eps) * g;
    accum_update = rho * accum_update + (1 - rho) * u^2; var -= lr * u."""

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-8, use_locking=False, name="Adadelta"):
        super().__init__(use_locking, name)
        self._lr, self._rho, self._epsilon = learning_rate, rho, epsilon

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name)

    def _prepare(self):
        self._lr_t = self._hyper(self._lr, "lr")
        self._rho_t = self._hyper(self._rho, "rho")
        self._epsilon_t = self._hyper(self._epsilon, "epsilon")

    def _apply_dense(self, grad, var):
        c = self._cast
        return ops.apply_adadelta(var, self.get_slot(var, "accum"), self.get_slot(var, "accum_update"),
                                  c(self._lr_t, var), c(self._rho_t, var), c(self._epsilon_t, var), grad)


class FtrlOptimizer(Optimizer):
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
        self._lr, self._lr_power = learning_rate, learning_rate_power
        self._init_accum = initial_accumulator_value
        self._l1, self._l2 = l1_regularization_strength, l2_regularization_strength
        self._l2_shrinkage = l2_shrinkage_regularization_strength
        self._accum_name, self._linear_name = accum_name, linear_name

    def _create_slots(self, var_list):
        for v in var_list:
            self._constant_slot(v, self._init_accum, "accum", self._accum_name or self._name)
            self._zeros_slot(v, "linear", self._linear_name or self._name)

    def _prepare(self):
        self._lr_t = self._hyper(self._lr, "learning_rate")
        self._l1_t = self._hyper(self._l1, "l1_regularization_strength")
        self._l2_t = self._hyper(self._l2, "l2_regularization_strength")
        self._lr_power_t = self._hyper(self._lr_power, "learning_rate_power")
        self._l2_shrinkage_t = self._hyper(self._l2_shrinkage, "l2_shrinkage_regularization_strength")

    def _apply_dense(self, grad, var):
        c = self._cast
        slots = [self.get_slot(var, "accum"), self.get_slot(var, "linear")]
        rates = [c(self._lr_t, var), c(self._l1_t, var), c(self._l2_t, var)]
        power = c(self._lr_power_t, var)
        if self._l2_shrinkage > 0.0:
            return ops.apply_ftrl_v2(var, *slots, grad, *rates, c(self._l2_shrinkage_t, var), power,
                                     sqrt_power=self._lr_power == -0.5)
        return ops.apply_ftrl(var, *slots, grad, *rates, power, sqrt_power=self._lr_power == -0.5)


class ProximalGradientDescentOptimizer(Optimizer):
    """Gradient descent followed by TF's proximal step for l1 / l2 regularization."""

    def __init__(self, learning_rate, l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="ProximalGradientDescent"):
        super().__init__(use_locking, name)
        self._lr, self._l1, self._l2 = learning_rate, l1_regularization_strength, l2_regularization_strength

    def _prepare(self):
        self._lr_t = self._hyper(self._lr, "learning_rate")
        self._l1_t = self._hyper(self._l1, "l1_regularization_strength")
        self._l2_t = self._hyper(self._l2, "l2_regularization_strength")

    def _apply_dense(self, grad, var):
        c = self._cast
        return ops.apply_proximal_gradient_descent(var, c(self._lr_t, var), c(self._l1_t, var), c(self._l2_t, var),
                                                   grad)


class ProximalAdagradOptimizer(Optimizer):
    """Adagrad followed by TF's proximal step (its rate lr / sqrt(accum)) for l1 / l2 regularization."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, use_locking=False, name="ProximalAdagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError("initial_accumulator_value must be positive: %s" % initial_accumulator_value)
        super().__init__(use_locking, name)
        self._lr, self._init_accum = learning_rate, initial_accumulator_value
        self._l1, self._l2 = l1_regularization_strength, l2_regularization_strength

    def _create_slots(self, var_list):
        for v in var_list:
            self._constant_slot(v, self._init_accum, "accumulator", self._name)

    def _prepare(self):
        self._lr_t = self._hyper(self._lr, "learning_rate")
        self._l1_t = self._hyper(self._l1, "l1_regularization_strength")
        self._l2_t = self._hyper(self._l2, "l2_regularization_strength")

    def _apply_dense(self, grad, var):
        c = self._cast
        return ops.apply_proximal_adagrad(var, self.get_slot(var, "accumulator"), c(self._lr_t, var),
                                          c(self._l1_t, var), c(self._l2_t, var), grad)
