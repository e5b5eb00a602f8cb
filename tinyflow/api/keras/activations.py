"""tf.keras.activations: activation functions, and `get` turning Keras' names into them."""
from tinyflow.api import nn
from tinyflow.ops.core import math_ops


def linear(x):
    return x


def relu(x, alpha=0.0, max_value=None, threshold=0):
    if alpha == 0 and max_value is None and threshold == 0:
        return nn.relu(x)
    negative = nn.relu(-x + threshold) if alpha != 0 else None
    out = nn.relu(x - threshold) + threshold if threshold != 0 else nn.relu(x)
    if threshold != 0:
        out = out * math_ops.cast(math_ops.greater(x, threshold), x.dtype)
    if max_value is not None:
        out = math_ops.minimum(out, max_value)
    if negative is not None:
        out = out - alpha * negative
    return out


def softmax(x, axis=-1):
    return nn.softmax(x, axis=axis)


def sigmoid(x):
    return math_ops.sigmoid(x)


def tanh(x):
    return math_ops.tanh(x)


def elu(x, alpha=1.0):
    out = nn.elu(x)
    return out if alpha == 1 else math_ops.where_v2(math_ops.greater(x, 0.0), out, alpha * out)


def selu(x):
    return nn.selu(x)


def softplus(x):
    return nn.softplus(x)


def softsign(x):
    return nn.softsign(x)


def exponential(x):
    return math_ops.exp(x)


def hard_sigmoid(x):
    return math_ops.clip_by_value(0.2 * x + 0.5, 0.0, 1.0)


_BY_NAME = {f.__name__: f for f in (linear, relu, softmax, sigmoid, tanh, elu, selu, softplus, softsign, exponential,
                                     hard_sigmoid)}


def get(identifier):
    """None -> linear; a name -> the function; a callable as is (ValueError otherwise, as Keras)."""
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError("Unknown activation function:%s" % identifier)
        return _BY_NAME[identifier]
    if callable(identifier):
        return identifier
    raise ValueError("Could not interpret activation function identifier: %s" % (identifier,))


def serialize(activation):
    return getattr(activation, "__name__", str(activation))


def deserialize(name, custom_objects=None):
    from tinyflow.api.keras.generic_utils import deserialize_keras_object
    return deserialize_keras_object(name, module_objects=_BY_NAME, custom_objects=custom_objects,
                                    printable_module_name="activation function")
