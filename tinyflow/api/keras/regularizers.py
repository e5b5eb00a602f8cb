"""tf.keras.regularizers: l1, l2, l1_l2 penalties (added to the model's loss)."""
import numpy as np

from tinyflow.ops.core import math_ops


class Regularizer:
    def __call__(self, x):
        return 0.0


class L1L2(Regularizer):
    """l1 * sum(|x|) + l2 * sum(x**2)."""

    def __init__(self, l1=0.0, l2=0.0):
        self.l1, self.l2 = float(l1), float(l2)

    def __call__(self, x):
        out = None
        if self.l1:
            out = self.l1 * math_ops.reduce_sum(math_ops.abs(x))
        if self.l2:
            term = self.l2 * math_ops.reduce_sum(math_ops.square(x))
            out = term if out is None else out + term
        return out if out is not None else math_ops.cast(0.0, x.dtype)

    def get_config(self):
        return {"l1": float(np.float32(self.l1)), "l2": float(np.float32(self.l2))}   # float32, as TF 1.15 keeps them


def l1(l=0.01):  # noqa: E741 (Keras' name)
    return L1L2(l1=l)


def l2(l=0.01):  # noqa: E741
    return L1L2(l2=l)


def l1_l2(l1=0.01, l2=0.01):
    return L1L2(l1=l1, l2=l2)


def get(identifier):
    if identifier is None or callable(identifier):
        return identifier
    if isinstance(identifier, str) and identifier in ("l1", "l2", "l1_l2"):
        return globals()[identifier]()
    raise ValueError("Could not interpret regularizer identifier: %s" % (identifier,))


def serialize(regularizer):
    from tinyflow.api.keras.generic_utils import serialize_keras_object
    return serialize_keras_object(regularizer)


def deserialize(config, custom_objects=None):
    from tinyflow.api.keras.generic_utils import deserialize_keras_object
    return deserialize_keras_object(config, module_objects=globals(), custom_objects=custom_objects,
                                    printable_module_name="regularizer")
