"""Layer configs as TF 1.15's Keras writes them (get_config; the layers of `model.to_json()` and of
a .h5 file's model_config) and the constructor arguments a config gives back (from_config).

A layer's config is its constructor's arguments: the arguments it was created with (defaults filled
in from the signatures of the Keras classes it derives from), with the normalized value the layer
keeps where it keeps one (kernel_size 3 -> [3, 3]), objects as {"class_name", "config"} records.
"""
import inspect

import numpy as np

_DATA_FORMATS = {"NHWC": "channels_last", "NWC": "channels_last", "NDHWC": "channels_last",
                 "NCHW": "channels_first", "NCW": "channels_first", "NCDHW": "channels_first"}
_HANDLED = ("self", "name", "trainable", "dtype", "batch_input_shape", "_reuse")
_SIMPLE = (type(None), bool, int, float, str, np.integer, np.floating, np.bool_)


_KERAS_PACKAGE = __name__.rpartition(".")[0]


def _is_keras_class(cls):
    return cls.__module__.startswith(_KERAS_PACKAGE)


def _init_params(layer):
    """(name, default) of the constructor arguments of the layer's Keras classes, most derived
    first. NotImplementedError for a user's subclass with arguments of its own and no get_config
    (TF 1.15's rule: such a layer must say how to recreate itself)."""
    params = {}
    for cls in type(layer).__mro__:
        if "_keras_base" in cls.__dict__ or (cls.__module__.startswith("tinyflow.") and not _is_keras_class(cls)):
            break   # Keras' base Layer, or tf.layers' classes under Keras' own
        if "__init__" not in cls.__dict__:
            continue
        sig = inspect.signature(cls.__dict__["__init__"])
        own = [p for p in sig.parameters.values()
               if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) and p.name not in _HANDLED]
        if not _is_keras_class(cls):
            if own:
                raise NotImplementedError("Layer %s has arguments in `__init__` and therefore must override "
                                          "`get_config`." % type(layer).__name__)
            continue
        for p in own:
            params.setdefault(p.name, p.default)
        if not any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()):
            break
    return params


def base_config(layer):
    """What every layer's TF 1.15 config starts with: name, trainable, [batch_input_shape], dtype."""
    config = {"name": layer.name, "trainable": bool(layer.trainable)}
    if getattr(layer, "_batch_input_shape", None) is not None:
        config["batch_input_shape"] = list(layer._batch_input_shape)
    config["dtype"] = layer.dtype.name if getattr(layer, "_dtype", None) is not None else None
    return config


def layer_config(layer):
    """The layer's TF 1.15 config: name, trainable, [batch_input_shape], dtype, then its arguments."""
    config = base_config(layer)
    params = _init_params(layer)
    args, kwargs = layer.__dict__.get("_init_call", ((), {}))
    bound = dict(zip(params, args))
    bound.update((k, v) for k, v in kwargs.items() if k in params)
    skip = getattr(layer, "_config_skip", ())
    for name, default in params.items():
        if name in skip:
            continue
        # the value the layer keeps (normalized: kernel_size 3 -> (3, 3)) over the argument given
        value = layer.__dict__[name] if name in layer.__dict__ else bound.get(name, default)
        config[name] = serialize_value(name, value)
    return config


def serialize_value(name, value):
    """A constructor argument as JSON data: objects as {"class_name", "config"}, activations by name."""
    if name == "activation" or name.endswith("_activation"):
        from tinyflow.api.keras import activations
        return activations.serialize(activations.get(value))
    if name == "padding" and isinstance(value, str):
        return value.lower()
    if name == "data_format" and isinstance(value, str):
        return _DATA_FORMATS.get(value, value)
    if isinstance(value, (tuple, list)):
        return [serialize_value("", v) for v in value]
    if isinstance(value, dict):
        return {k: serialize_value(k, v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, _SIMPLE):
        return value
    if hasattr(value, "get_config"):
        return {"class_name": type(value).__name__, "config": _json_ready(value.get_config())}
    if callable(value):
        return getattr(value, "__name__", str(value))
    if hasattr(value, "as_list"):   # a TensorShape
        return value.as_list()
    return value


def _json_ready(config):
    out = {}
    for k, v in config.items():
        if isinstance(v, np.ndarray):
            v = v.tolist()
        out[k] = serialize_value(k, v) if not isinstance(v, float) else v
    return out


def serialize(layer):
    """{"class_name": ..., "config": ...} of a layer or model."""
    return {"class_name": type(layer).__name__, "config": layer.get_config()}


def _object(kind, record, custom_objects):
    """An initializer / regularizer / constraint from its {"class_name", "config"} record (or name)."""
    from tinyflow.api.keras import constraints, initializers, regularizers
    if record is None:
        return None
    module = {"initializer": initializers, "regularizer": regularizers, "constraint": constraints}[kind]
    if isinstance(record, str):
        return module.get(record)
    if not isinstance(record, dict) or "class_name" not in record:
        raise ValueError("Could not interpret %s identifier: %r" % (kind, record))
    name = record["class_name"]
    cls = (custom_objects or {}).get(name) or getattr(module, name, None)
    if not isinstance(cls, type):
        raise ValueError("Unknown %s: %s" % (kind, name))
    return cls(**dict(record.get("config") or {}))


def _arguments(config, custom_objects):
    """The config's values as constructor arguments (records to objects)."""
    out = {}
    for k, v in config.items():
        for kind in ("initializer", "regularizer", "constraint"):
            if k.endswith("_" + kind) or (kind == "regularizer" and k == "activity_regularizer"):
                v = _object(kind, v, custom_objects)
                break
        out[k] = v
    return out
