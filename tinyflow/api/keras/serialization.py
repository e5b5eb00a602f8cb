"""Models and layers rebuilt from their configs (tf.keras.models.model_from_config / model_from_json,
the model_config of a .h5 file).

Reading a config builds data only: class names are looked up in tf.keras' own tables (and the
custom_objects the caller passes), never imported; a Lambda layer's Python bytecode is refused.
`classes` is {"Model": Model, "Sequential": Sequential} (models.py passes its classes).
"""
import json

from tinyflow.api.keras import layers as layers_mod
from tinyflow.api.keras.config import _arguments
from tinyflow.api.keras.engine import Layer


def _layer_classes(classes):
    table = {k: v for k, v in vars(layers_mod).items() if isinstance(v, type)}
    table.update(classes)
    return table


def deserialize(record, classes, custom_objects=None, source=None):
    """The layer (or nested model) of a {"class_name", "config"} record; `source` names the file in errors."""
    if not isinstance(record, dict) or "class_name" not in record:
        raise ValueError("Improper config format: %r" % (record,))
    name, config = record["class_name"], dict(record.get("config") or {})
    custom_objects = custom_objects or {}
    table = _layer_classes(classes)
    cls = custom_objects.get(name) or table.get(name)
    if cls is None:
        raise ValueError("Unknown layer: %s%s" % (name, " (in %s)" % source if source else ""))
    if name in ("Model", "Sequential") and cls is table.get(name):
        return model_from_config(record, classes, custom_objects, source)
    if name == "Lambda" and cls is layers_mod.Lambda:
        return _lambda(config, custom_objects, source)
    if cls.__module__.startswith("tinyflow."):
        if getattr(cls.from_config, "__func__", None) is not Layer.from_config.__func__:
            # layers holding layers (an RNN's cells, a wrapper's layer): those are rebuilt first
            for key in ("cell", "layer", "backward_layer"):
                if isinstance(config.get(key), dict):
                    config[key] = deserialize(config[key], classes, custom_objects, source)
            if isinstance(config.get("cells"), list):
                config["cells"] = [deserialize(c, classes, custom_objects, source) for c in config["cells"]]
            return cls.from_config(config, custom_objects)
        return cls(**_arguments(config, custom_objects))
    return cls.from_config(config)   # a custom layer of the caller's



def _lambda(config, custom_objects, source):
    """A Lambda layer: its function from custom_objects only. TF writes a lambda's Python bytecode
    (marshal) into the file; running code from a file is refused."""
    layer_name = config.get("name")
    function = custom_objects.get(layer_name)
    kind = config.get("function_type")
    if function is None and kind == "function":
        function = custom_objects.get(config.get("function"))
    if function is None:
        what = ("Python bytecode (a lambda)" if kind == "lambda"
                else "a reference to the Python function %r" % (config.get("function"),))
        raise ValueError("Lambda layer %r in %s holds %s: tinyflow does not run code read from a file. Pass the "
                         "function as custom_objects={%r: function} to load it."
                         % (layer_name, source or "the model config", what,
                            layer_name if kind == "lambda" else config.get("function")))
    return layers_mod.Lambda(function, arguments=config.get("arguments") or None, name=layer_name,
                  trainable=config.get("trainable", True))


def model_from_config(config, classes, custom_objects=None, source=None):
    """A Sequential or functional Model from its {"class_name", "config"} record."""
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError("`model_from_config` expects a dictionary with a class_name, got %r" % (type(config),))
    name = config["class_name"]
    body = config.get("config")
    if name == "Sequential":
        layers_config = body["layers"] if isinstance(body, dict) else body   # Keras 2.1 wrote a bare list
        model = classes["Sequential"](name=body.get("name") if isinstance(body, dict) else None)
        for record in layers_config:
            model.add(deserialize(record, classes, custom_objects, source))
        return model
    if name == "Model" or (name in (custom_objects or {}) and isinstance(body, dict) and "input_layers" in body):
        return _functional_from_config(body, classes, custom_objects, source)
    return deserialize(config, classes, custom_objects, source)


def _functional_from_config(config, classes, custom_objects, source):
    """Recreates the layers, then replays their calls (inbound_nodes) as soon as each call's inputs exist."""
    layers, pending = [], {}
    for record in config["layers"]:
        layer = deserialize(record, classes, custom_objects, source)
        layers.append(layer)
        pending[layer.name] = list(record.get("inbound_nodes") or [])
    outputs = {}   # (layer name, node index in the file) -> the call's output tensors
    by_name = {layer.name: layer for layer in layers}
    for layer in layers:
        if type(layer).__name__ == "InputLayer":
            outputs[(layer.name, 0)] = [layer._inbound_nodes[0].outputs]
    done = {name: 0 for name in by_name}
    progress = True
    while progress:
        progress = False
        for layer in layers:
            nodes = pending[layer.name]
            while done[layer.name] < len(nodes):
                node = nodes[done[layer.name]]
                refs = [(r[0], r[1], r[2], r[3] if len(r) > 3 else {}) for r in node]
                if not all((r[0], r[1]) in outputs for r in refs):
                    break
                args = [outputs[(r[0], r[1])][r[2]] for r in refs]
                kwargs = refs[0][3] or {}
                result = layer(args[0] if len(args) == 1 else args, **kwargs)
                flat = list(result) if isinstance(result, (list, tuple)) else [result]
                first = 1 if hasattr(layer, "_is_graph_network") else 0   # a model's calls count from 1 (TF)
                outputs[(layer.name, first + done[layer.name])] = flat
                done[layer.name] += 1
                progress = True
    for layer in layers:
        if done[layer.name] < len(pending[layer.name]):
            raise ValueError("Could not rebuild the model of %s: the inputs of layer %r are never computed"
                             % (source or "the config", layer.name))

    def tensors(refs):
        return [outputs[(r[0], r[1])][r[2]] for r in refs]
    inputs, outs = tensors(config["input_layers"]), tensors(config["output_layers"])
    return classes["Model"](inputs=inputs, outputs=outs if len(outs) > 1 else outs[0], name=config.get("name"))


def model_from_json(json_string, classes, custom_objects=None):
    """tf.keras.models.model_from_json: the model `model.to_json()` describes (weights freshly initialized)."""
    return model_from_config(json.loads(json_string), classes, custom_objects)


def model_from_yaml(yaml_string, classes, custom_objects=None):
    """tf.keras.models.model_from_yaml (needs PyYAML; read with yaml.safe_load: data only)."""
    try:
        import yaml
    except ImportError:
        raise ImportError("Requires yaml module installed (`pip install pyyaml`).") from None
    return model_from_config(yaml.safe_load(yaml_string), classes, custom_objects)
