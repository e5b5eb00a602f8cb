"""Keras' object (de)serialization and custom objects (tf.keras.utils.serialize_keras_object,
custom_object_scope, ...) as TF 1.15 has them: every module's serialize / deserialize goes through here."""
import inspect

_GLOBAL_CUSTOM_OBJECTS = {}


class CustomObjectScope:
    """Inside the block, the given {name: object} dicts are known to deserialization by name."""

    def __init__(self, *args):
        self.custom_objects, self.backup = args, None

    def __enter__(self):
        self.backup = _GLOBAL_CUSTOM_OBJECTS.copy()
        for objects in self.custom_objects:
            _GLOBAL_CUSTOM_OBJECTS.update(objects)
        return self

    def __exit__(self, *args, **kwargs):
        _GLOBAL_CUSTOM_OBJECTS.clear()
        _GLOBAL_CUSTOM_OBJECTS.update(self.backup)


def custom_object_scope(*args):
    return CustomObjectScope(*args)


def get_custom_objects():
    """The global {name: object} dict deserialization also looks names up in (it may be edited)."""
    return _GLOBAL_CUSTOM_OBJECTS


def serialize_keras_object(instance):
    """{'class_name', 'config'} of an object with get_config, else its __name__."""
    if instance is None:
        return None
    if hasattr(instance, "get_config"):
        return {"class_name": instance.__class__.__name__, "config": instance.get_config()}
    if hasattr(instance, "__name__"):
        return instance.__name__
    raise ValueError("Cannot serialize", instance)


def _lookup(name, module_objects, custom_objects, printable_module_name):
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    if name in _GLOBAL_CUSTOM_OBJECTS:
        return _GLOBAL_CUSTOM_OBJECTS[name]
    obj = (module_objects or {}).get(name)
    if obj is None or name.startswith("_"):
        raise ValueError("Unknown " + printable_module_name + ": " + name)
    return obj


def deserialize_keras_object(identifier, module_objects=None, custom_objects=None,
                             printable_module_name="object"):
    """The object a serialized form names: a dict {'class_name', 'config'} is instantiated (from_config
    when the class has one), a string is the function or class of that name."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        if "class_name" not in identifier or "config" not in identifier:
            raise ValueError("Improper config format: " + str(identifier))
        cls = _lookup(identifier["class_name"], module_objects, custom_objects, printable_module_name)
        config = identifier["config"]
        if hasattr(cls, "from_config"):
            params = inspect.signature(cls.from_config).parameters
            if "custom_objects" in params:
                return cls.from_config(config, custom_objects=dict(list(_GLOBAL_CUSTOM_OBJECTS.items()) +
                                                                   list((custom_objects or {}).items())))
            with CustomObjectScope(custom_objects or {}):
                return cls.from_config(config)
        with CustomObjectScope(custom_objects or {}):
            return cls(**config)
    if isinstance(identifier, str):
        return _lookup(identifier, module_objects, custom_objects, "function" if printable_module_name ==
                       "object" else printable_module_name)
    raise ValueError("Could not interpret serialized " + printable_module_name + ": " + str(identifier))
