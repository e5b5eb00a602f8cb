"""tf.keras.Model and Sequential: the functional model (Model(inputs, outputs)), the subclassed model
(a Model with `call`) and Sequential, with what they hold (layers, weights, summary) and how they are
saved. Training (compile / fit / evaluate / predict) is in training.py."""
import numpy as np

from tinyflow.api import layers as tf_layers
from tinyflow.api.keras import backend as K
from tinyflow.api.keras.engine import InputLayer, Layer, network_nodes, run_nodes
from tinyflow.api.keras.training import TrainingMixin
from tinyflow.graph import nest
from tinyflow.graph.shapes import TensorShape


def _unique(items):
    """The items in order, each object once (by identity: a model's thousand weights)."""
    out, seen = [], set()
    for x in items:
        if id(x) not in seen:
            seen.add(id(x))
            out.append(x)
    return out


class Model(TrainingMixin, Layer):
    """Model(inputs, outputs) groups the layers between Keras inputs and outputs; a subclass defines
    its layers in __init__ and the forward pass in `call(inputs)`."""

    def __init__(self, *args, **kwargs):
        inputs = kwargs.pop("inputs", args[0] if len(args) > 0 else None)
        outputs = kwargs.pop("outputs", args[1] if len(args) > 1 else None)
        self.__dict__.setdefault("_tracked", [])
        Layer.__init__(self, name=kwargs.pop("name", None), trainable=kwargs.pop("trainable", True), **kwargs)
        self._is_graph_network = False
        self.inputs = self.outputs = None
        self._init_training()
        if inputs is not None and outputs is not None:
            self._init_graph_network(inputs, outputs)

    def __setattr__(self, name, value):
        # a subclassed model's layers are the Layer attributes it sets (in that order)
        if isinstance(value, tf_layers.Layer) and not name.startswith("_"):
            tracked = self.__dict__.setdefault("_tracked", [])
            if not any(value is t for t in tracked):
                tracked.append(value)
        object.__setattr__(self, name, value)

    def _init_graph_network(self, inputs, outputs):
        self._nested_inputs, self._nested_outputs = inputs, outputs
        self.inputs, self.outputs = list(nest.flatten(inputs)), list(nest.flatten(outputs))
        self._nodes, self._network_layers = network_nodes(self.inputs, self.outputs)
        self._is_graph_network = True
        self.built = True
        self.input_names = [t._keras_history[0].name for t in self.inputs]
        self.output_names = [t._keras_history[0].name for t in self.outputs]
        self._compile_if_pending()

    # ---- what the model holds -----------------------------------------------------------------------
    # A functional model's input/output (and so input_shape/output_shape) are its own tensors, called or
    # not: TF 1.15's Network is its own first node.
    @property
    def input(self):
        if self._is_graph_network:
            return self.inputs[0] if len(self.inputs) == 1 else list(self.inputs)
        return Layer.input.fget(self)

    @property
    def output(self):
        if self._is_graph_network:
            return self.outputs[0] if len(self.outputs) == 1 else list(self.outputs)
        return Layer.output.fget(self)

    @property
    def layers(self):
        if self._is_graph_network:
            return list(self._network_layers)
        return [t for t in self._tracked if isinstance(t, tf_layers.Layer)]

    def _all_layers(self):
        return [layer for layer in self.layers if layer is not self]

    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        return _unique(w for layer in self._all_layers() for w in layer.trainable_weights)

    @property
    def non_trainable_weights(self):
        if not self.trainable:
            return _unique(w for layer in self._all_layers() for w in layer.weights)
        return _unique(w for layer in self._all_layers() for w in layer.non_trainable_weights)

    @property
    def weights(self):
        return _unique(w for layer in self._all_layers() for w in layer.weights)

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights

    @property
    def updates(self):
        return [u for layer in self._all_layers() for u in layer.updates]

    @property
    def losses(self):
        return list(self._losses) + [loss for layer in self._all_layers() for loss in layer.losses]

    @property
    def state_updates(self):
        """The updates of the stateful layers (their states' assignments), which evaluate and predict run too."""
        return [u for layer in self._all_layers() if getattr(layer, "stateful", False) for u in layer.updates]

    def reset_states(self):
        """Sets the states of the model's stateful layers to zeros."""
        for layer in self._all_layers():
            if getattr(layer, "stateful", False) and hasattr(layer, "reset_states"):
                layer.reset_states()

    def get_layer(self, name=None, index=None):
        """The layer named `name`, or at position `index` (ValueError when there is none)."""
        if index is not None:
            if len(self.layers) <= index:
                raise ValueError("Was asked to retrieve layer at index %d but model only has %d layers."
                                 % (index, len(self.layers)))
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError("No such layer: " + str(name))

    def get_weights(self):
        return K.batch_get_value(self.weights)

    def set_weights(self, weights):
        params = self.weights
        if len(params) != len(weights):
            raise ValueError("You called `set_weights(weights)` on model %s with a weight list of length %d, but the "
                             "model was expecting %d weights." % (self.name, len(weights), len(params)))
        for p, w in zip(params, weights):
            if tuple(p.shape.as_list()) != tuple(np.shape(w)):
                raise ValueError("Layer weight shape %s not compatible with provided weight shape %s"
                                 % (tuple(p.shape.as_list()), tuple(np.shape(w))))
        K.batch_set_value(zip(params, weights))

    # ---- calling ----------------------------------------------------------------------------------
    def build(self, input_shape):
        """Called by the user on a subclassed model (`model.build((None, 3))`): creates its weights by
        calling it on placeholders of that shape (a list of shapes for several inputs)."""
        if self._is_graph_network or self.__dict__.get("_in_call") or self.outputs is not None:
            self.built = True
            return
        shapes = input_shape if isinstance(input_shape, list) else [input_shape]
        self._set_inputs([np.zeros([d or 1 for d in TensorShape(sh).as_list()], K.floatx()) for sh in shapes])

    def __call__(self, inputs, *args, **kwargs):
        self._in_call = True
        try:
            return Layer.__call__(self, inputs, *args, **kwargs)
        finally:
            self._in_call = False

    def call(self, inputs, training=None, mask=None):
        if not self._is_graph_network:
            raise NotImplementedError("When subclassing the `Model` class, you should implement a `call` method.")
        outs = run_nodes(self._nodes, self.inputs, nest.flatten(inputs), self.outputs)
        return outs[0] if len(outs) == 1 else outs

    def _set_inputs(self, arrays):
        """A model without Keras inputs (subclassed, Sequential without input_shape) gets placeholders
        shaped like the data's batches and is called on them."""
        arrays = arrays if isinstance(arrays, (list, tuple)) else [arrays]
        placeholders = []
        for i, a in enumerate(arrays):
            a = np.asarray(a)
            dtype = K.floatx() if a.dtype.kind == "f" else a.dtype
            placeholders.append(K.placeholder(shape=(None,) + a.shape[1:], dtype=dtype, name="input_%d" % (i + 1)))
        outputs = self(placeholders[0] if len(placeholders) == 1 else placeholders)
        self.inputs, self.outputs = placeholders, list(nest.flatten(outputs))
        self.input_names = ["input_%d" % (i + 1) for i in range(len(placeholders))]
        self.output_names = ["output_%d" % (i + 1) for i in range(len(self.outputs))]
        self._compile_if_pending()

    # ---- summary ----------------------------------------------------------------------------------
    def summary(self, line_length=None, positions=None, print_fn=None):
        """Prints the layers, their output shapes and parameter counts as TF 1.15 does."""
        print_fn = print_fn or print
        multi = self._is_graph_network and not isinstance(self, Sequential) and any(
            len(n.input_tensors) > 1 for n in self._nodes) or (self._is_graph_network and len(self.inputs) > 1)
        line_length = line_length or (98 if multi else 65)
        positions = positions or ([.33, .55, .67, 1.] if multi else [.45, .85, 1.])
        positions = [int(line_length * p) if p <= 1 else p for p in positions]
        cols = ["Layer (type)", "Output Shape", "Param #"] + (["Connected to"] if multi else [])

        def row(fields):
            line = ""
            for f, p in zip(fields, positions):
                line = (line + str(f))[:p].ljust(p)
            print_fn(line)

        print_fn('Model: "%s"' % self.name)
        print_fn("_" * line_length)
        row(cols)
        print_fn("=" * line_length)
        layers = self.layers
        for i, layer in enumerate(layers):
            try:
                shape = layer.output_shape
                shape = [tuple(shape)] if isinstance(layer, InputLayer) else shape
            except (AttributeError, ValueError):
                shape = "multiple"
            fields = ["%s (%s)" % (layer.name, type(layer).__name__), _shape_str(shape), layer.count_params()]
            if multi:
                inbound = []
                for node in layer._inbound_nodes:
                    if any(node is n for n in self._nodes):
                        for t in node.input_tensors:
                            src, ni, ti = t._keras_history
                            inbound.append("%s[%d][%d]" % (src.name, ni, ti))
                row(fields + [inbound[0] if inbound else ""])
                for extra in inbound[1:]:
                    row(["", "", "", extra])
            else:
                row(fields)
            print_fn(("=" if i == len(layers) - 1 else "_") * line_length)
        trainable = sum(int(np.prod(w.shape.as_list())) for w in self.trainable_weights)
        total = sum(int(np.prod(w.shape.as_list())) for w in self.weights)
        print_fn("Total params: {:,}".format(total))
        print_fn("Trainable params: {:,}".format(trainable))
        print_fn("Non-trainable params: {:,}".format(total - trainable))
        print_fn("_" * line_length)

    def count_params(self):
        return sum(int(np.prod(w.shape.as_list())) for w in self.weights)

    # ---- config and files ---------------------------------------------------------------------
    def get_config(self):
        """A functional model's layers and how they are called, as TF 1.15 writes it (node indices
        count the calls that belong to this model); a subclassed model has none (NotImplementedError)."""
        if not self._is_graph_network:
            raise NotImplementedError
        from tinyflow.api.keras.config import serialize
        kept = {}
        for layer in self.layers:
            mine = [n for n in layer._inbound_nodes if any(n is m for m in self._nodes)]
            start = 1 if isinstance(layer, Model) else 0   # TF: a model's node 0 links its own inputs and outputs
            for i, node in enumerate(mine):
                kept[id(node)] = start + i

        def ref(t):
            layer, node_index, tensor_index = t._keras_history
            return [layer.name, kept.get(id(layer._inbound_nodes[node_index]), 0), tensor_index]
        layer_configs = []
        for layer in self.layers:
            record = serialize(layer)
            record = {"name": layer.name, "class_name": record["class_name"], "config": record["config"]}
            nodes = []
            for node in layer._inbound_nodes:
                if id(node) in kept and not isinstance(layer, InputLayer):
                    nodes.append([ref(t) + [dict(node.kwargs)] for t in node.input_tensors])
            record["inbound_nodes"] = nodes
            layer_configs.append(record)
        return {"name": self.name, "layers": layer_configs, "input_layers": [ref(t) for t in self.inputs],
                "output_layers": [ref(t) for t in self.outputs]}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return model_from_config({"class_name": cls.__name__, "config": config}, custom_objects)

    def _updated_config(self):
        return {"class_name": type(self).__name__, "config": self.get_config(), "keras_version": "2.2.4-tf",
                "backend": "tensorflow"}

    def to_json(self, **kwargs):
        """The architecture as JSON (tf.keras.models.model_from_json rebuilds it)."""
        import json
        return json.dumps(self._updated_config(), **kwargs)

    def to_yaml(self, **kwargs):
        """The architecture as YAML (needs PyYAML)."""
        import json
        try:
            import yaml
        except ImportError:
            raise ImportError("Requires yaml module installed (`pip install pyyaml`).") from None
        return yaml.dump(json.loads(self.to_json()), **kwargs)

    def save_weights(self, filepath, overwrite=True, save_format=None):
        """The weights in Keras' HDF5 layout (a path ending in .h5 / .keras, or save_format='h5'), else
        TF's object-based checkpoint at `filepath`, as TF 1.15 writes it (object_checkpoint.py)."""
        from tinyflow.api.keras import object_checkpoint, saving
        if saving.is_h5_path(filepath, save_format):
            return saving.save_weights(self, filepath, overwrite)
        if save_format not in (None, "tf"):
            raise ValueError("Unknown format \"%s\". Was expecting one of {\"tf\", \"h5\"}." % (save_format,))
        object_checkpoint.save_weights(self, filepath)

    def load_weights(self, filepath, by_name=False):
        """Restores the weights save_weights wrote: an HDF5 file (TF 1.15's or ours; by position, or by
        layer name), or a checkpoint prefix or its directory: object-based (TF 1.15's or ours, matched
        by TF's keys) or name-based (matched by the variables' names)."""
        import os
        from tinyflow.api.keras import object_checkpoint, saving
        if saving.is_h5_path(filepath) or (os.path.isfile(filepath) and _is_hdf5(filepath)):
            return saving.load_weights(self, filepath, by_name=by_name)
        if by_name:
            raise NotImplementedError("Weights may only be loaded based on topology into Models when loading "
                                      "TensorFlow-formatted weights (got by_name=True to load_weights).")
        from tinyflow.api.train.saver import Saver
        from tinyflow.formats.checkpoint import latest_checkpoint
        if os.path.isdir(filepath):
            filepath = latest_checkpoint(filepath)
        if not object_checkpoint.load_weights(self, filepath):
            Saver(var_list=self.weights).restore(K.get_session(), filepath)

    def save(self, filepath, overwrite=True, include_optimizer=True, save_format=None):
        """The whole model (architecture, weights, optimizer state) in TF 1.15's Keras HDF5 layout (TF
        1.15's default format); tf.keras.models.load_model reads it back, and so does TF 1.15."""
        from tinyflow.api.keras import saving
        if save_format not in (None, "h5", "hdf5", "keras"):
            raise NotImplementedError("model.save(save_format=%r) is not supported yet in tinyflow: use the HDF5 "
                                      "format" % (save_format,))
        saving.save_model(self, filepath, overwrite=overwrite, include_optimizer=include_optimizer)


def _is_hdf5(path):
    with open(path, "rb") as f:
        return f.read(8) == b"\x89HDF\r\n\x1a\n"


def _shape_str(shape):
    return str(shape).replace("None", "None")


class Sequential(Model):
    """A linear stack of layers: Sequential([Dense(4, input_shape=(3,)), Dense(1)]) or .add(layer)."""

    def __init__(self, layers=None, name=None):
        super().__init__(name=name)
        self._seq_layers = []
        self._input_tensor = None
        for layer in layers or []:
            self.add(layer)

    @property
    def layers(self):
        return list(self._seq_layers)

    def add(self, layer):
        """Appends `layer`; once the first layer knows its input shape the model is built as layers are added."""
        if isinstance(layer, InputLayer):
            self._input_tensor = layer._inbound_nodes[0].outputs
            return
        if not isinstance(layer, tf_layers.Layer):
            raise TypeError("The added layer must be an instance of class Layer. Found: " + str(layer))
        if not self._seq_layers and self._input_tensor is None and getattr(layer, "_batch_input_shape", None):
            inp = InputLayer(batch_input_shape=layer._batch_input_shape, dtype=layer.dtype,
                             name=layer.name + "_input")
            self._input_tensor = inp._inbound_nodes[0].outputs
        self._seq_layers.append(layer)
        if self._input_tensor is not None:
            out = self._input_tensor
            if self.outputs:
                out = self.outputs[0]
            out = layer(out)
            self._init_graph_network([self._input_tensor], [out])

    def get_config(self):
        """{"name", "layers": [each layer's {"class_name", "config"}]}; the first holds batch_input_shape."""
        from tinyflow.api.keras.config import serialize
        layers = []
        for i, layer in enumerate(self._seq_layers):
            record = serialize(layer)
            if i == 0 and self._input_tensor is not None and "batch_input_shape" not in record["config"]:
                shape = self._input_tensor.shape.as_list()
                record["config"] = dict(record["config"], batch_input_shape=shape)
            layers.append(record)
        return {"name": self.name, "layers": layers}

    def pop(self):
        if not self._seq_layers:
            raise TypeError("There are no layers in the model.")
        self._seq_layers.pop()
        if self._input_tensor is not None:
            out = self._input_tensor
            for layer in self._seq_layers:
                out = layer._inbound_nodes[-1].outputs if layer._inbound_nodes else layer(out)
            self._init_graph_network([self._input_tensor], [out])

    def call(self, inputs, training=None, mask=None):
        out = inputs
        for layer in self._seq_layers:
            out = layer(out)
        return out

    def predict_classes(self, x, batch_size=32, verbose=0):
        proba = self.predict(x, batch_size=batch_size, verbose=verbose)
        return proba.argmax(axis=-1) if proba.shape[-1] > 1 else (proba > 0.5).astype("int32")

    def predict_proba(self, x, batch_size=32, verbose=0):
        return self.predict(x, batch_size=batch_size, verbose=verbose)


def save_model(model, filepath, overwrite=True, include_optimizer=True, save_format=None):
    """tf.keras.models.save_model: model.save(filepath) (TF 1.15's HDF5 layout)."""
    model.save(filepath, overwrite=overwrite, include_optimizer=include_optimizer, save_format=save_format)


def load_model(filepath, custom_objects=None, compile=True):  # noqa: A002 (TF's argument name)
    """tf.keras.models.load_model: a model from a Keras .h5 file (TF 1.15's or tinyflow's), compiled with
    its optimizer state when the file has a training config."""
    from tinyflow.api.keras import saving
    return saving.load_model(filepath, _CLASSES, custom_objects=custom_objects, compile=compile)


def model_from_config(config, custom_objects=None):
    """The model a {"class_name", "config"} record describes, with fresh weights."""
    from tinyflow.api.keras import serialization
    return serialization.model_from_config(config, _CLASSES, custom_objects)


def model_from_json(json_string, custom_objects=None):
    """The model `model.to_json()` describes, with fresh weights."""
    from tinyflow.api.keras import serialization
    return serialization.model_from_json(json_string, _CLASSES, custom_objects)


def model_from_yaml(yaml_string, custom_objects=None):
    """The model `model.to_yaml()` describes (needs PyYAML; read as data only)."""
    from tinyflow.api.keras import serialization
    return serialization.model_from_yaml(yaml_string, _CLASSES, custom_objects)


def clone_model(model, input_tensors=None, clone_function=None):
    """A new model with the same architecture (new layers, fresh weights) from the model's config."""
    if input_tensors is not None or clone_function is not None:
        raise NotImplementedError("clone_model(input_tensors=..., clone_function=...) is not supported yet")
    return model_from_config({"class_name": type(model).__name__, "config": model.get_config()})


_CLASSES = {"Model": Model, "Sequential": Sequential}


def serialize_layer(layer):
    """tf.keras.layers.serialize: {'class_name', 'config'} of a layer."""
    from tinyflow.api.keras.generic_utils import serialize_keras_object
    return serialize_keras_object(layer)


def deserialize_layer(config, custom_objects=None):
    """tf.keras.layers.deserialize: the layer (or model) of a serialized layer, as model_from_config reads it."""
    from tinyflow.api.keras import serialization
    from tinyflow.api.keras.generic_utils import get_custom_objects
    return serialization.deserialize(config, _CLASSES, dict(get_custom_objects(), **(custom_objects or {})))
