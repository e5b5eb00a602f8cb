"""tf.keras.optimizers: TF 1.15's Keras optimizers (optimizer_v2) with Keras' defaults (Adam and
RMSprop epsilon 1e-7, RMSprop rho 0.9, Adagrad's accumulators starting at 0.1, ...).

`get_updates(loss, params)` builds the update ops fit runs with each step. The learning rate and the
other hyperparameters are variables ("training/Adam/learning_rate"), so callbacks can change them
(`K.set_value(model.optimizer.lr, 0.01)`) without a recompile; `iterations` counts the steps.
A tf.train optimizer passed to compile is used through its minimize.
"""
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import get_default_graph
from tinyflow.ops import state_ops
from tinyflow.ops.core import math_ops
from tinyflow.passes.gradients import gradients

_COUNTS = {}


class Optimizer:
    """Base class: subclasses give `_defaults`, `_hypers` (those that are variables, besides
    learning_rate and decay), `_slots` and `_update(var, grad, slots, step)`.

    The variables are named as TF 1.15's Keras optimizers name them in graph mode, so checkpoints and
    .h5 files TF wrote restore: "training/Adam/iter", the hyperparameters "training/Adam/beta_1", ...
    (sorted), the slots "training/Adam/dense/kernel/m", slot by slot; `weights` is [iter, slots...]."""

    _slots = ()
    _defaults = {}
    _hypers = ()

    def __init__(self, name=None, **kwargs):
        self._name = name or type(self).__name__
        extra = set(kwargs) - set(self._defaults) - {"lr", "decay", "clipnorm", "clipvalue"}
        if extra:
            raise TypeError("Unexpected keyword argument passed to optimizer: " + str(sorted(extra)[0]))
        self._config = dict(self._defaults)
        if "lr" in kwargs:
            kwargs["learning_rate"] = kwargs.pop("lr")
        self._config.update({k: v for k, v in kwargs.items() if k in self._defaults})
        self._config["decay"] = float(kwargs.get("decay", self._config.get("decay", 0.0)))
        self.clipnorm, self.clipvalue = kwargs.get("clipnorm"), kwargs.get("clipvalue")
        self._hyper_vars, self.weights, self.iterations, self._scope = {}, [], None, None
        self._slot_vars = []

    @property
    def decay(self):
        return self._config["decay"]

    def _build_hypers(self):
        """iter and the hyperparameter variables, in a name scope of the optimizer's name under the
        current one ("training/Adam/" when fit builds the train function)."""
        if self.iterations is not None:
            return
        graph = get_default_graph()
        with graph.name_scope(self._name) as scope:
            self._scope = scope
            self.iterations = state_ops.Variable(np.int64(0), name="iter", trainable=False)
            self.weights.append(self.iterations)
            for k in sorted(("learning_rate", "decay") + tuple(self._hypers)):
                if not callable(self._config[k]):   # (a LearningRateSchedule is evaluated each step)
                    self._hyper_vars[k] = state_ops.Variable(np.float32(self._config[k]), name=k, trainable=False)

    def __getattr__(self, name):
        if name in ("lr", "learning_rate") or name in type(self)._defaults:
            if name.startswith("_"):
                raise AttributeError(name)
            self._build_hypers()
            key = "learning_rate" if name == "lr" else name
            return self._hyper_vars.get(key, self._config.get(key))
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))

    def _hyper(self, name, dtype):
        if callable(self._config.get(name)):   # a LearningRateSchedule: its value at the current step (TF 1.15)
            return math_ops.cast(self._config[name](math_ops.cast(self.iterations.value(), dtype)), dtype)
        v = self._hyper_vars.get(name)
        return math_ops.cast(v.value() if v is not None else self._config[name], dtype)

    def get_gradients(self, loss, params):
        grads = gradients(loss, params)
        if any(g is None for g in grads):
            raise ValueError("An operation has `None` for gradient. Please make sure that all of your ops have a "
                             "gradient defined (i.e. are differentiable).")
        if self.clipnorm is not None:
            from tinyflow.ops.clip_ops import clip_by_norm
            grads = [clip_by_norm(g, self.clipnorm) for g in grads]
        if self.clipvalue is not None:
            grads = [math_ops.clip_by_value(g, -self.clipvalue, self.clipvalue) for g in grads]
        return grads

    def _slot_value(self, slot, p):
        init = self._config.get("initial_accumulator_value", 0.0) if slot == "accumulator" else 0.0
        return np.full(p.shape.as_list(), init, dtype=p.dtype.base_dtype.np)

    def _extra_weights(self):
        """Non-slot weights a subclass adds after the hyperparameters (Nadam's momentum_cache)."""
        return {}

    def get_updates(self, loss, params):
        """The ops of one step: each param (and its slots) updated from the gradient of `loss`."""
        graph = get_default_graph()
        self._build_hypers()
        grads = self.get_gradients(loss, params)
        updates = []
        with graph.name_scope(self._scope):
            self._extra = self._extra_weights()
            self.weights.extend(self._extra.values())
            slots = [{} for _ in params]
            for s in self._slots:
                for p, p_slots in zip(params, slots):
                    p_slots[s] = state_ops.Variable(self._slot_value(s, p), name="%s/%s" % (p.op.name, s),
                                                    trainable=False)
                    self.weights.append(p_slots[s])
                    self._slot_vars.append((s, p, p_slots[s]))   # (for object-based checkpoints)
            step = math_ops.cast(self.iterations.value() + 1, dt.float32)
            self._prepare(step)
            for p, g, p_slots in zip(params, grads, slots):
                updates.extend(self._update(p, g, p_slots, step))
            with graph.control_dependencies(updates):
                updates.append(state_ops.assign_add(self.iterations, np.int64(1)))
        return updates

    def _prepare(self, step):
        """Values shared by all variables' updates (computed once per step)."""

    def get_weights(self):
        from tinyflow.api.keras import backend as K
        return K.batch_get_value(self.weights)

    def set_weights(self, weights):
        """The optimizer's state from a list of arrays in the order of `weights` (iter, slots)."""
        from tinyflow.api.keras import backend as K
        params = self.weights
        if len(params) != len(weights):
            raise ValueError("Length of the specified weight list (%d) does not match the number of weights of the "
                             "optimizer (%d)" % (len(weights), len(params)))
        for p, w in zip(params, weights):
            if tuple(p.shape.as_list()) != tuple(np.shape(w)):
                raise ValueError("Optimizer weight shape %s not compatible with provided weight shape %s"
                                 % (tuple(p.shape.as_list()), tuple(np.shape(w))))
        K.batch_set_value(zip(params, weights))

    @staticmethod
    def _set(var, value):
        """var = value, through the variable's constraint (applied after each update, as Keras does)."""
        constraint = getattr(var, "constraint", None)
        return state_ops.assign(var, constraint(value) if constraint is not None else value)

    def _lr(self, dtype, step):
        lr = self._hyper("learning_rate", dtype)
        if self.decay:   # TF 1.15: lr / (1 + decay * iterations), decay read from its variable
            lr = lr / (1.0 + self._hyper("decay", dtype) * math_ops.cast(step - 1.0, dtype))
        return lr

    def get_config(self):
        """The constructor's arguments; the hyperparameters' current values once they are variables
        (float32, as TF 1.15 writes them to .h5 files)."""
        config = {"name": self._name}
        values = {}
        if self._hyper_vars:
            from tinyflow.api.keras import backend as K
            names = sorted(self._hyper_vars)
            values = dict(zip(names, (float(v) for v in K.batch_get_value([self._hyper_vars[k] for k in names]))))
        for k in ("learning_rate", "decay") + tuple(k for k in self._defaults if k != "learning_rate"):
            config[k] = values.get(k, self._config[k])
            if callable(config[k]):
                from tinyflow.api.keras.schedules import serialize
                config[k] = serialize(config[k])
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        if isinstance(config.get("learning_rate"), dict):
            from tinyflow.api.keras.schedules import deserialize
            config["learning_rate"] = deserialize(config["learning_rate"])
        return cls(**config)


class SGD(Optimizer):
    """var -= lr * g; with momentum: v = momentum * v - lr * g, var += v (Nesterov: var += momentum * v - lr * g)."""

    _defaults = {"learning_rate": 0.01, "momentum": 0.0, "nesterov": False}
    _hypers = ("momentum",)

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD", **kwargs):
        super().__init__(name, learning_rate=learning_rate, momentum=momentum, nesterov=nesterov, **kwargs)
        self._slots = ("momentum",) if momentum else ()

    def _update(self, var, g, slots, step):
        lr = self._lr(var.dtype.base_dtype, step)
        if not slots:
            return [self._set(var, var.value() - lr * g)]
        m = self._hyper("momentum", var.dtype.base_dtype)
        v = m * slots["momentum"].value() - lr * g
        new_var = var.value() + (m * v - lr * g if self._config["nesterov"] else v)
        return [state_ops.assign(slots["momentum"], v), self._set(var, new_var)]


class Adam(Optimizer):
    """m, v moving moments; var -= lr * sqrt(1 - beta_2^t) / (1 - beta_1^t) * m / (sqrt(v) + epsilon)."""

    _defaults = {"learning_rate": 0.001, "beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7, "amsgrad": False}
    _hypers = ("beta_1", "beta_2")
    _slots = ("m", "v")

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False, name="Adam",
                 **kwargs):
        super().__init__(name, learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon,
                         amsgrad=amsgrad, **kwargs)
        if amsgrad:
            self._slots = ("m", "v", "vhat")

    def _update(self, var, g, slots, step):
        dtype = var.dtype.base_dtype
        b1, b2, eps = self._hyper("beta_1", dtype), self._hyper("beta_2", dtype), self._config["epsilon"]
        t = math_ops.cast(step, dtype)
        lr = self._lr(dtype, step) * math_ops.sqrt(1.0 - math_ops.pow(b2, t)) / (1.0 - math_ops.pow(b1, t))
        m = b1 * slots["m"].value() + (1.0 - b1) * g
        v = b2 * slots["v"].value() + (1.0 - b2) * g * g
        out = [state_ops.assign(slots["m"], m), state_ops.assign(slots["v"], v)]
        if "vhat" in slots:
            v = math_ops.maximum(slots["vhat"].value(), v)
            out.append(state_ops.assign(slots["vhat"], v))
        return out + [self._set(var, var.value() - lr * m / (math_ops.sqrt(v) + eps))]


class Adamax(Optimizer):
    """Adam with the infinity norm: u = max(beta_2 * u, |g|); var -= lr / (1 - beta_1^t) * m / (u + epsilon)."""

    _defaults = {"learning_rate": 0.001, "beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7}
    _hypers = ("beta_1", "beta_2")
    _slots = ("m", "v")

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name="Adamax", **kwargs):
        super().__init__(name, learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon, **kwargs)

    def _update(self, var, g, slots, step):
        dtype = var.dtype.base_dtype
        b1, b2 = self._hyper("beta_1", dtype), self._hyper("beta_2", dtype)
        lr = self._lr(dtype, step) / (1.0 - math_ops.pow(b1, math_ops.cast(step, dtype)))
        m = b1 * slots["m"].value() + (1.0 - b1) * g
        u = math_ops.maximum(b2 * slots["v"].value(), math_ops.abs(g))
        return [state_ops.assign(slots["m"], m), state_ops.assign(slots["v"], u),
                self._set(var, var.value() - lr * m / (u + self._config["epsilon"]))]


class RMSprop(Optimizer):
    """rms = rho * rms + (1 - rho) * g^2; var -= lr * g / (sqrt(rms) + epsilon) (with momentum, TF's
    kernel: mom = momentum * mom + lr * g / sqrt(rms + epsilon); var -= mom). `centered` subtracts the
    mean gradient's square from rms."""

    _defaults = {"learning_rate": 0.001, "rho": 0.9, "momentum": 0.0, "epsilon": 1e-7, "centered": False}
    _hypers = ("momentum", "rho")

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False, name="RMSprop",
                 **kwargs):
        super().__init__(name, learning_rate=learning_rate, rho=rho, momentum=momentum, epsilon=epsilon,
                         centered=centered, **kwargs)
        self._slots = ("rms",) + (("momentum",) if momentum else ()) + (("mg",) if centered else ())

    def _update(self, var, g, slots, step):
        dtype = var.dtype.base_dtype
        rho, lr, eps = self._hyper("rho", dtype), self._lr(dtype, step), self._config["epsilon"]
        rms = rho * slots["rms"].value() + (1.0 - rho) * g * g
        out, denom = [state_ops.assign(slots["rms"], rms)], rms
        if "mg" in slots:
            mg = rho * slots["mg"].value() + (1.0 - rho) * g
            out.append(state_ops.assign(slots["mg"], mg))
            denom = rms - mg * mg
        if "momentum" in slots:
            mom = self._hyper("momentum", dtype) * slots["momentum"].value() + lr * g / math_ops.sqrt(denom + eps)
            return out + [state_ops.assign(slots["momentum"], mom), self._set(var, var.value() - mom)]
        return out + [self._set(var, var.value() - lr * g / (math_ops.sqrt(denom) + eps))]


class Adagrad(Optimizer):
    """accumulator += g^2 (starting at 0.1); var -= lr * g / (sqrt(accumulator) + epsilon)."""

    _defaults = {"learning_rate": 0.001, "initial_accumulator_value": 0.1, "epsilon": 1e-7}
    _slots = ("accumulator",)

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7, name="Adagrad", **kwargs):
        super().__init__(name, learning_rate=learning_rate, initial_accumulator_value=initial_accumulator_value,
                         epsilon=epsilon, **kwargs)

    def _update(self, var, g, slots, step):
        acc = slots["accumulator"].value() + g * g
        lr = self._lr(var.dtype.base_dtype, step)
        return [state_ops.assign(slots["accumulator"], acc),
                self._set(var, var.value() - lr * g / (math_ops.sqrt(acc) + self._config["epsilon"]))]


class Adadelta(Optimizer):
    """acc = rho * acc + (1 - rho) g^2; u = sqrt(acc_u + eps) / sqrt(acc + eps) * g;
    acc_u = rho * acc_u + (1 - rho) u^2; var -= lr * u."""

    _defaults = {"learning_rate": 0.001, "rho": 0.95, "epsilon": 1e-7}
    _hypers = ("rho",)
    _slots = ("accum_grad", "accum_var")

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, name="Adadelta", **kwargs):
        super().__init__(name, learning_rate=learning_rate, rho=rho, epsilon=epsilon, **kwargs)

    def _update(self, var, g, slots, step):
        dtype = var.dtype.base_dtype
        rho, eps, lr = self._hyper("rho", dtype), self._config["epsilon"], self._lr(dtype, step)
        acc = rho * slots["accum_grad"].value() + (1.0 - rho) * g * g
        u = math_ops.sqrt(slots["accum_var"].value() + eps) / math_ops.sqrt(acc + eps) * g
        acc_u = rho * slots["accum_var"].value() + (1.0 - rho) * u * u
        return [state_ops.assign(slots["accum_grad"], acc), state_ops.assign(slots["accum_var"], acc_u),
                self._set(var, var.value() - lr * u)]


class Nadam(Optimizer):
    """Adam with Nesterov momentum and TF 1.15's momentum schedule: mu_t = beta_1 * (1 - 0.5 *
    0.96^(decay * t)) with decay 0.004 (`schedule_decay`), the product of the mu's kept in
    "momentum_cache"; the learning rate is not decayed."""

    _defaults = {"learning_rate": 0.001, "beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7}
    _hypers = ("beta_1", "beta_2")
    _slots = ("m", "v")

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name="Nadam", **kwargs):
        kwargs["decay"] = kwargs.pop("schedule_decay", 0.004)   # TF 1.15 overrides any `decay` with this
        super().__init__(name, learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon, **kwargs)

    def _extra_weights(self):
        return {"momentum_cache": state_ops.Variable(np.float32(1.0), name="momentum_cache", trainable=False)}

    def _prepare(self, step):
        cache = self._extra["momentum_cache"]
        b1 = self._hyper("beta_1", dt.float32)
        decay = self._config["decay"]
        self._m_t = b1 * (1.0 - 0.5 * math_ops.pow(0.96, decay * step))
        self._m_t_1 = b1 * (1.0 - 0.5 * math_ops.pow(0.96, decay * (step + 1.0)))
        self._cache_update = state_ops.assign(cache, cache.value() * self._m_t)
        self._m_schedule_new = self._cache_update
        self._m_schedule_next = self._m_schedule_new * self._m_t_1
        self._b2_denominator = 1.0 - math_ops.pow(self._hyper("beta_2", dt.float32), step)

    def _update(self, var, g, slots, step):
        dtype = var.dtype.base_dtype
        b1, b2 = self._hyper("beta_1", dtype), self._hyper("beta_2", dtype)
        g_prime = g / (1.0 - self._m_schedule_new)
        m = b1 * slots["m"].value() + (1.0 - b1) * g
        v = b2 * slots["v"].value() + (1.0 - b2) * g * g
        m_bar = (1.0 - self._m_t) * g_prime + self._m_t_1 * (m / (1.0 - self._m_schedule_next))
        new_var = var.value() - self._hyper("learning_rate", dtype) * m_bar / (
            math_ops.sqrt(v / self._b2_denominator) + self._config["epsilon"])
        out = [state_ops.assign(slots["m"], m), state_ops.assign(slots["v"], v), self._set(var, new_var)]
        if not getattr(self, "_cache_added", False):
            self._cache_added = True
            out.insert(0, self._cache_update)
        return out


class TFOptimizer:
    """A tf.train optimizer given to compile (TF 1.15 wraps it so): its apply_gradients is the update,
    counting the steps in `iterations` ("TFOptimizer/iterations", or the global step an Estimator gives)."""

    def __init__(self, optimizer, iterations=None):
        self.optimizer = optimizer
        if iterations is None:
            with get_default_graph().name_scope("TFOptimizer"):
                iterations = state_ops.Variable(np.int64(0), name="iterations", trainable=False)
        self.iterations, self.weights = iterations, []

    def get_updates(self, loss, params):
        grads = self.optimizer.compute_gradients(loss, params)
        return [self.optimizer.apply_gradients(grads, global_step=self.iterations)]

    def get_config(self):
        raise NotImplementedError

    @property
    def lr(self):
        raise AttributeError("A tf.train optimizer has no Keras `lr` variable")


class Ftrl(Optimizer):
    """FTRL-proximal, TF's ApplyFtrl (ApplyFtrlV2 with l2 shrinkage): slots accumulator (initial_accumulator_value)
    and linear."""

    _defaults = {"learning_rate": 0.001, "learning_rate_power": -0.5, "initial_accumulator_value": 0.1,
                 "l1_regularization_strength": 0.0, "l2_regularization_strength": 0.0,
                 "l2_shrinkage_regularization_strength": 0.0}
    _hypers = ("learning_rate_power", "l1_regularization_strength", "l2_regularization_strength")
    _slots = ("accumulator", "linear")

    def __init__(self, learning_rate=0.001, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0, name="Ftrl",
                 l2_shrinkage_regularization_strength=0.0, **kwargs):
        for what, value in (("initial_accumulator_value", initial_accumulator_value),
                            ("l1_regularization_strength", l1_regularization_strength),
                            ("l2_regularization_strength", l2_regularization_strength),
                            ("l2_shrinkage_regularization_strength", l2_shrinkage_regularization_strength)):
            if value < 0.0:
                raise ValueError("%s %f needs to be positive or zero" % (what, value))
        if learning_rate_power > 0.0:
            raise ValueError("learning_rate_power %f needs to be negative or zero" % learning_rate_power)
        super().__init__(name, learning_rate=learning_rate, learning_rate_power=learning_rate_power,
                         initial_accumulator_value=initial_accumulator_value,
                         l1_regularization_strength=l1_regularization_strength,
                         l2_regularization_strength=l2_regularization_strength,
                         l2_shrinkage_regularization_strength=l2_shrinkage_regularization_strength, **kwargs)

    def _update(self, var, g, slots, step):
        from tinyflow.api.train import training_ops as ops
        dtype = var.dtype.base_dtype
        rates = [self._lr(dtype, step), self._hyper("l1_regularization_strength", dtype),
                 self._hyper("l2_regularization_strength", dtype)]
        power = self._hyper("learning_rate_power", dtype)
        sqrt_power = self._config["learning_rate_power"] == -0.5
        shrinkage = self._config["l2_shrinkage_regularization_strength"]
        if shrinkage > 0.0:
            return [ops.apply_ftrl_v2(var, slots["accumulator"], slots["linear"], g, *rates,
                                      math_ops.cast(shrinkage, dtype), power, sqrt_power=sqrt_power)]
        return [ops.apply_ftrl(var, slots["accumulator"], slots["linear"], g, *rates, power, sqrt_power=sqrt_power)]


sgd, adam, adamax, rmsprop, adagrad, adadelta, nadam = SGD, Adam, Adamax, RMSprop, Adagrad, Adadelta, Nadam
_BY_NAME = {"sgd": SGD, "adam": Adam, "adamax": Adamax, "rmsprop": RMSprop, "adagrad": Adagrad, "adadelta": Adadelta,
            "nadam": Nadam, "ftrl": Ftrl}


def serialize(optimizer):
    """{"class_name": "Adam", "config": {...}} as TF 1.15 writes it in a .h5 file's training_config."""
    return {"class_name": type(optimizer).__name__, "config": optimizer.get_config()}


def deserialize(config, custom_objects=None):
    """The optimizer of a serialize() record (class names as TF's, case-insensitive)."""
    name = config.get("class_name") if isinstance(config, dict) else None
    cls = (custom_objects or {}).get(name) or _BY_NAME.get(str(name).lower())
    if cls is None:
        raise ValueError("Unknown optimizer: %s" % (name,))
    return cls.from_config(dict(config.get("config") or {}))


def get(identifier):
    """'adam' -> Adam() with Keras' defaults; a Keras optimizer as is; a tf.train optimizer wrapped."""
    if isinstance(identifier, Optimizer) or isinstance(identifier, TFOptimizer):
        return identifier
    if hasattr(identifier, "get_updates") and hasattr(identifier, "get_scaled_loss"):   # a LossScaleOptimizer
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        if identifier.lower() not in _BY_NAME:
            raise ValueError("Unknown optimizer: %s" % identifier)
        if identifier.lower() == "adagrad":   # TF 1.15's Adagrad.from_config starts the accumulators at 0
            return Adagrad(initial_accumulator_value=0.0)
        return _BY_NAME[identifier.lower()]()
    from tinyflow.api.train.optimizer import Optimizer as TrainOptimizer
    if isinstance(identifier, TrainOptimizer):
        return TFOptimizer(identifier)
    raise ValueError("Could not interpret optimizer identifier: %s" % (identifier,))


from tinyflow.api.keras import schedules  # noqa: E402,F401 (tf.keras.optimizers.schedules)
