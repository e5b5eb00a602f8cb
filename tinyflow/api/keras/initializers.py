"""tf.keras.initializers: TF's initializer classes under Keras' names, and `get` for strings."""
from tinyflow.ops import init_ops
from tinyflow.ops.init_ops import (Constant, GlorotNormal, GlorotUniform, Identity, Initializer, Ones,  # noqa: F401
                                   Orthogonal, RandomNormal, RandomUniform, TruncatedNormal, VarianceScaling, Zeros)

glorot_uniform, glorot_normal, zeros, ones, constant = GlorotUniform, GlorotNormal, Zeros, Ones, Constant
random_uniform, random_normal, truncated_normal, orthogonal, identity = (RandomUniform, RandomNormal, TruncatedNormal,
                                                                         Orthogonal, Identity)
uniform, normal = RandomUniform, RandomNormal


def he_normal(seed=None):
    return VarianceScaling(2.0, "fan_in", "truncated_normal", seed=seed)


def he_uniform(seed=None):
    return VarianceScaling(2.0, "fan_in", "uniform", seed=seed)


def lecun_normal(seed=None):
    return VarianceScaling(1.0, "fan_in", "truncated_normal", seed=seed)


def lecun_uniform(seed=None):
    return VarianceScaling(1.0, "fan_in", "uniform", seed=seed)


_BY_NAME = {"glorot_uniform": GlorotUniform, "glorot_normal": GlorotNormal, "zeros": Zeros, "zero": Zeros,
            "ones": Ones, "one": Ones, "random_uniform": RandomUniform, "random_normal": RandomNormal,
            "truncated_normal": TruncatedNormal, "orthogonal": Orthogonal, "identity": Identity,
            "uniform": RandomUniform, "normal": RandomNormal,
            "he_normal": he_normal, "he_uniform": he_uniform, "lecun_normal": lecun_normal,
            "lecun_uniform": lecun_uniform, "constant": Constant}


def get(identifier):
    """A name ('glorot_uniform', 'zeros', ...) -> an initializer; an initializer or callable as is."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        key = identifier if identifier in _BY_NAME else identifier.lower()
        if key not in _BY_NAME:
            raise ValueError("Unknown initializer: %s" % identifier)
        return _BY_NAME[key]()
    if isinstance(identifier, type) and issubclass(identifier, init_ops.Initializer):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError("Could not interpret initializer identifier: %s" % (identifier,))


# Keras' own defaults for the random initializers (TF's classes draw from [0, 1) / stddev 1).
class RandomUniform(init_ops.RandomUniform):  # noqa: F811
    def __init__(self, minval=-0.05, maxval=0.05, seed=None, dtype=None):
        super().__init__(minval=minval, maxval=maxval, seed=seed, **({"dtype": dtype} if dtype else {}))


class RandomNormal(init_ops.RandomNormal):  # noqa: F811
    def __init__(self, mean=0.0, stddev=0.05, seed=None, dtype=None):
        super().__init__(mean=mean, stddev=stddev, seed=seed, **({"dtype": dtype} if dtype else {}))


class TruncatedNormal(init_ops.TruncatedNormal):  # noqa: F811
    def __init__(self, mean=0.0, stddev=0.05, seed=None, dtype=None):
        super().__init__(mean=mean, stddev=stddev, seed=seed, **({"dtype": dtype} if dtype else {}))


random_uniform = uniform = _BY_NAME["random_uniform"] = _BY_NAME["uniform"] = RandomUniform
random_normal = normal = _BY_NAME["random_normal"] = _BY_NAME["normal"] = RandomNormal
truncated_normal = _BY_NAME["truncated_normal"] = TruncatedNormal


def serialize(initializer):
    from tinyflow.api.keras.generic_utils import serialize_keras_object
    return serialize_keras_object(initializer)


def deserialize(config, custom_objects=None):
    from tinyflow.api.keras.generic_utils import deserialize_keras_object
    return deserialize_keras_object(config, module_objects=globals(), custom_objects=custom_objects,
                                    printable_module_name="initializer")
