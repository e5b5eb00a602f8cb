"""tf.keras.constraints: projections applied to a weight after each optimizer update."""
from tinyflow.ops.core import math_ops


class Constraint:
    def __call__(self, w):
        return w

    def get_config(self):
        return dict(vars(self))


class NonNeg(Constraint):
    """Weights >= 0."""

    def __call__(self, w):
        return w * math_ops.cast(math_ops.greater_equal(w, 0.0), w.dtype.base_dtype)


def _norms(w, axis):
    return math_ops.sqrt(math_ops.reduce_sum(math_ops.square(w), axis=axis, keepdims=True))


class MaxNorm(Constraint):
    """Each slice along `axis` rescaled to a norm of at most max_value."""

    def __init__(self, max_value=2, axis=0):
        self.max_value, self.axis = max_value, axis

    def __call__(self, w):
        norms = _norms(w, self.axis)
        desired = math_ops.clip_by_value(norms, 0.0, float(self.max_value))
        return w * (desired / (1e-7 + norms))


class UnitNorm(Constraint):
    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        return w / (1e-7 + _norms(w, self.axis))


class MinMaxNorm(Constraint):
    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w):
        norms = _norms(w, self.axis)
        desired = (self.rate * math_ops.clip_by_value(norms, self.min_value, self.max_value)
                   + (1 - self.rate) * norms)
        return w * (desired / (1e-7 + norms))


max_norm, non_neg, unit_norm, min_max_norm = MaxNorm, NonNeg, UnitNorm, MinMaxNorm


def get(identifier):
    if identifier is None or callable(identifier):
        return identifier
    if isinstance(identifier, str) and identifier in globals() and isinstance(globals()[identifier], type):
        return globals()[identifier]()
    raise ValueError("Could not interpret constraint identifier: %s" % (identifier,))


def serialize(constraint):
    from tinyflow.api.keras.generic_utils import serialize_keras_object
    return serialize_keras_object(constraint)


def deserialize(config, custom_objects=None):
    from tinyflow.api.keras.generic_utils import deserialize_keras_object
    return deserialize_keras_object(config, module_objects=globals(), custom_objects=custom_objects,
                                    printable_module_name="constraint")
