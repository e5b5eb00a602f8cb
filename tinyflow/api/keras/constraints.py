"""tf.keras.constraints: projections applied to a weight after each optimizer update."""
from tinyflow.ops.core import array_ops, math_ops


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


class RadialConstraint(Constraint):
    """Makes each (height, width) kernel of a rank-4 weight radially symmetric, as TF 1.15's RadialConstraint
    does (its rings filled from the kernel's diagonal entries, in TF's order)."""

    def __call__(self, w):
        shape = w.shape.as_list()
        if len(shape) != 4 or shape[0] != shape[1]:
            raise ValueError("The weight tensor must be of rank 4 with height==width")
        height, width, channels, filters = shape
        flat = array_ops.reshape(w, (height, width, channels * filters))
        kernels = [self._kernel_constraint(k) for k in array_ops.unstack(flat, axis=-1)]
        return array_ops.reshape(array_ops.stack(kernels, axis=-1), (height, width, channels, filters))

    @staticmethod
    def _kernel_constraint(kernel):
        size = kernel.shape.as_list()[0]
        start = size // 2
        odd = size % 2 == 1
        new = kernel[start - 1:start, start - 1:start]
        if not odd:
            new = new + array_ops.zeros((2, 2), dtype=kernel.dtype.base_dtype)
        for i in range(0 if odd else 1, start):   # rings of the value at the diagonal, inside out
            value = kernel[start + i, start + i]
            ring = array_ops.pad(new - value, [[1, 1], [1, 1]])
            new = ring + value
        return new


radial_constraint = RadialConstraint
