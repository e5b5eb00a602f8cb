"""tf.keras.optimizers.schedules and keras.experimental's decays (TF 1.15): learning rates as functions of
the optimizer's step, `schedule(step)`, computed by tf.train's decay functions (one formula, one place).
A Keras optimizer given one as learning_rate evaluates it at its `iterations` each step."""
from tinyflow.api.train import schedules as _decays


class LearningRateSchedule:
    """Base class: __call__(step) -> the learning rate at that step; get_config / from_config."""

    def __call__(self, step):
        raise NotImplementedError("Learning rate schedule must override __call__")

    def get_config(self):
        raise NotImplementedError("Learning rate schedule must override get_config")

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _schedule(class_name, fn, params, doc):
    """A LearningRateSchedule class whose constructor takes `params` (name last) and calls fn(lr, step, ...)."""
    names = [p if isinstance(p, str) else p[0] for p in params]
    defaults = {p[0]: p[1] for p in params if not isinstance(p, str)}

    def __init__(self, *args, **kwargs):
        if len(args) > len(names) + 1:
            raise TypeError("%s takes at most %d arguments" % (class_name, len(names) + 1))
        values = dict(defaults, name=None)
        values.update(zip(names + ["name"], args))
        unknown = set(kwargs) - set(names) - {"name"}
        if unknown:
            raise TypeError("__init__() got an unexpected keyword argument %r" % sorted(unknown)[0])
        values.update(kwargs)
        missing = [n for n in names if n not in values]
        if missing:
            raise TypeError("__init__() missing required argument: %r" % missing[0])
        self._values = values
        for k, v in values.items():
            setattr(self, k, v)

    def __call__(self, step):
        args = [self._values[n] for n in names]
        return fn(args[0], step, *args[1:], name=self.name or class_name)

    def get_config(self):
        return dict(self._values)
    return type(class_name, (LearningRateSchedule,), {"__init__": __init__, "__call__": __call__,
                                                      "get_config": get_config, "__doc__": doc,
                                                      "__module__": __name__})


ExponentialDecay = _schedule("ExponentialDecay", _decays.exponential_decay,
                             ["initial_learning_rate", "decay_steps", "decay_rate", ("staircase", False)],
                             "initial_learning_rate * decay_rate ^ (step / decay_steps).")
InverseTimeDecay = _schedule("InverseTimeDecay", _decays.inverse_time_decay,
                             ["initial_learning_rate", "decay_steps", "decay_rate", ("staircase", False)],
                             "initial_learning_rate / (1 + decay_rate * step / decay_steps).")
PolynomialDecay = _schedule("PolynomialDecay", _decays.polynomial_decay,
                            ["initial_learning_rate", "decay_steps", ("end_learning_rate", 0.0001), ("power", 1.0),
                             ("cycle", False)], "A polynomial decay to end_learning_rate over decay_steps.")
CosineDecay = _schedule("CosineDecay", _decays.cosine_decay,
                        ["initial_learning_rate", "decay_steps", ("alpha", 0.0)], "A cosine decay over decay_steps.")
CosineDecayRestarts = _schedule("CosineDecayRestarts", _decays.cosine_decay_restarts,
                                ["initial_learning_rate", "first_decay_steps", ("t_mul", 2.0), ("m_mul", 1.0),
                                 ("alpha", 0.0)], "A cosine decay with warm restarts (SGDR).")
LinearCosineDecay = _schedule("LinearCosineDecay", _decays.linear_cosine_decay,
                              ["initial_learning_rate", "decay_steps", ("num_periods", 0.5), ("alpha", 0.0),
                               ("beta", 0.001)], "A linear cosine decay.")
NoisyLinearCosineDecay = _schedule("NoisyLinearCosineDecay", _decays.noisy_linear_cosine_decay,
                                   ["initial_learning_rate", "decay_steps", ("initial_variance", 1.0),
                                    ("variance_decay", 0.55), ("num_periods", 0.5), ("alpha", 0.0),
                                    ("beta", 0.001)], "A linear cosine decay with noise.")


class PiecewiseConstantDecay(LearningRateSchedule):
    """values[i] while step is in (boundaries[i-1], boundaries[i]]."""

    def __init__(self, boundaries, values, name=None):
        if len(boundaries) != len(values) - 1:
            raise ValueError("The length of boundaries should be 1 less than the length of values")
        self.boundaries, self.values, self.name = boundaries, values, name

    def __call__(self, step):
        return _decays.piecewise_constant(step, self.boundaries, self.values, name=self.name or "PiecewiseConstant")

    def get_config(self):
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


def serialize(learning_rate_schedule):
    from tinyflow.api.keras.generic_utils import serialize_keras_object
    return serialize_keras_object(learning_rate_schedule)


def deserialize(config, custom_objects=None):
    from tinyflow.api.keras.generic_utils import deserialize_keras_object
    return deserialize_keras_object(config, module_objects=globals(), custom_objects=custom_objects,
                                    printable_module_name="decay")
