"""model.save_weights(path) / load_weights(path) without an .h5 suffix: TF's object-based checkpoint, as
TF 1.15's tf.keras writes it (its default format there).

Each variable is stored under the path that leads to it from the model through TF's checkpoint
dependencies, walked breadth first: a Sequential or functional model's layers are "layer-<i>" (every
layer, the InputLayer included) and "layer_with_weights-<k>" (those with weights), a subclassed model's
are its attribute names, a layer's weights their own names ("kernel"), the compiled optimizer is
"optimizer" (its "iter" and hyperparameters; a tf.train optimizer's own variables) and an optimizer's
slots hang off the variable they belong to:

    layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE
    layer_with_weights-0/kernel/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE
    optimizer/iter/.ATTRIBUTES/VARIABLE_VALUE

The walk itself is stored as the TrackableObjectGraph proto `_CHECKPOINTABLE_OBJECT_GRAPH`, so that TF
1.15's load_weights (which follows that graph) reads what tinyflow writes. Loading here matches the
keys; what the checkpoint has of the model is restored, as TF restores it.
"""
import os

import numpy as np

from tinyflow.api.keras import backend as K
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import get_default_graph

_VALUE = "/.ATTRIBUTES/VARIABLE_VALUE"
GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


def _escape(name):
    """TF's escaping of a local name inside a path ('.' -> '..', '/' -> '.S')."""
    return name.replace(".", "..").replace("/", ".S")


def _network_layers(model):
    """The layers TF tracks for a Sequential / functional model (a Sequential's InputLayer first)."""
    if hasattr(model, "_seq_layers"):   # a Sequential
        first = [model._input_tensor._keras_history[0]] if model._input_tensor is not None else []
        return first + list(model.layers)
    return list(model.layers)


def _weight_name(layer, v):
    """A weight's name inside its layer: "kernel" for "dense/kernel" (add_weight's name)."""
    scope = getattr(getattr(layer, "_scope", None), "name", None)
    name = v.op.name
    if scope and name.startswith(scope + "/"):
        return name[len(scope) + 1:]
    return name.rpartition("/")[2]


def _children(obj):
    """[(local name, object)] of obj's checkpoint dependencies, in TF 1.15's order."""
    from tinyflow.api import layers as tf_layers
    from tinyflow.api.keras.optimizers import Optimizer, TFOptimizer
    from tinyflow.api.train.optimizer import Optimizer as TrainOptimizer
    if isinstance(obj, tf_layers.Layer) and hasattr(obj, "_is_graph_network"):   # a Model
        if obj._is_graph_network:
            deps, with_weights = [], 0
            for i, layer in enumerate(_network_layers(obj)):
                if layer.weights:
                    deps.append(("layer_with_weights-%d" % with_weights, layer))
                    with_weights += 1
                deps.append(("layer-%d" % i, layer))
        else:   # a subclassed model: the layers it holds as attributes
            deps = [(k, v) for k, v in vars(obj).items() if isinstance(v, tf_layers.Layer) and not k.startswith("_")]
        if obj.optimizer is not None and getattr(obj.optimizer, "iterations", None) is not None:
            deps.append(("optimizer", obj.optimizer))
        return deps
    if isinstance(obj, Optimizer):
        return ([("iter", obj.iterations)] + sorted(obj._hyper_vars.items())
                + list(getattr(obj, "_extra", {}).items()))
    if isinstance(obj, TFOptimizer):
        return [("optimizer", obj.optimizer), ("global_step", obj.iterations)]
    if isinstance(obj, TrainOptimizer):
        graph = get_default_graph()   # (its variables of this graph, by the names it keeps them under)
        return sorted(((name, v) for (name, g), v in obj._non_slot.items() if g is graph), key=lambda item: item[0])
    if isinstance(obj, tf_layers.Layer):
        deps = [(_weight_name(obj, v), v) for v in obj.weights]
        from tinyflow.api.keras.layers import BatchNormalization, LayerNormalization
        if isinstance(obj, (BatchNormalization, LayerNormalization)):
            # TF tracks their list attributes too (empty nodes of the graph): `axis`, set before the
            # weights are made, and BatchNormalization's `_updates`, set when it is called
            deps.insert(0, ("axis", _Empty()))
            if isinstance(obj, BatchNormalization) and obj._inbound_nodes:
                deps.append(("_updates", _Empty()))
        return deps
    return []


class _Empty:
    """A node of the object graph with nothing to save (a list TF tracks)."""


def _slots(opt):
    """(slot names in TF's order, get(variable, slot name) -> its slot or None) of an optimizer."""
    from tinyflow.api.keras.optimizers import Optimizer
    from tinyflow.api.train.optimizer import Optimizer as TrainOptimizer
    if isinstance(opt, Optimizer):
        table = {(s, id(p)): v for s, p, v in opt._slot_vars}
        return list(opt._slots), lambda var, s: table.get((s, id(var)))
    if isinstance(opt, TrainOptimizer):
        return sorted(opt._slots), lambda var, s: opt._slots[s].get(var)
    return [], None


def object_graph(model):
    """(TrackableObjectGraph proto, {checkpoint key: variable}) of the model, as TF 1.15 builds them."""
    from tinyflow.formats.tf_protos import TrackableObjectGraph
    from tinyflow.ops.state_ops import Variable
    objects, ids, paths, refs = [model], {id(model): 0}, {id(model): ""}, []
    i = 0
    while i < len(objects):   # breadth first: a node's id is its place in the walk, its path the first found
        obj, own = objects[i], []
        for name, child in _children(obj):
            if id(child) not in ids:
                ids[id(child)] = len(objects)
                paths[id(child)] = (paths[id(obj)] + "/" if paths[id(obj)] else "") + _escape(name)
                objects.append(child)
            own.append((ids[id(child)], name))
        refs.append(own)
        i += 1
    slot_refs, originals = {}, list(objects)
    for opt in originals:
        names, get = _slots(opt)
        for slot_name in names:
            for original_id, original in enumerate(originals):
                slot = get(original, slot_name) if isinstance(original, Variable) else None
                if slot is None:
                    continue
                paths[id(slot)] = "%s/.OPTIMIZER_SLOT/%s/%s" % (paths[id(original)], paths[id(opt)], _escape(slot_name))
                slot_refs.setdefault(id(opt), []).append((original_id, slot_name, len(objects)))
                objects.append(slot)
                refs.append([])
    proto, keys = TrackableObjectGraph(), {}
    for obj, own in zip(objects, refs):
        node = proto.nodes.add()
        for node_id, name in own:
            node.children.add(node_id=node_id, local_name=name)
        if isinstance(obj, Variable):
            key = paths[id(obj)] + _VALUE
            node.attributes.add(name="VARIABLE_VALUE", full_name=obj.op.name, checkpoint_key=key)
            keys[key] = obj
        for original_id, slot_name, slot_id in slot_refs.get(id(obj), ()):
            node.slot_variables.add(original_variable_node_id=original_id, slot_name=slot_name,
                                    slot_variable_node_id=slot_id)
    return proto, keys


def save_weights(model, filepath):
    """Writes the model's variables (and its optimizer's) as the object-based checkpoint `filepath`
    and makes it the latest of its directory's `checkpoint` file, as TF 1.15 does."""
    from tinyflow.api.train.tf_checkpoint import write_bundle
    from tinyflow.formats.checkpoint import update_checkpoint_state
    proto, keys = object_graph(model)
    values = K.batch_get_value(list(keys.values()))
    named = {k: (v.dtype.base_dtype, value) for (k, v), value in zip(keys.items(), values)}
    named[GRAPH_KEY] = (dt.string, np.array(proto.SerializeToString(), object))
    if os.path.dirname(filepath):
        os.makedirs(os.path.dirname(filepath), exist_ok=True)   # (TF's bundle writer makes the folder)
    write_bundle(filepath, named)
    update_checkpoint_state(os.path.dirname(filepath) or ".", filepath, [filepath], save_relative_paths=True)


def load_weights(model, filepath):
    """Restores what the object-based checkpoint `filepath` holds of the model's variables (matched by
    their keys); False when the checkpoint has no object graph (a name-based one: the caller reads it)."""
    from tinyflow.api.train.tf_checkpoint import open_reader
    reader = open_reader(filepath)
    if getattr(reader, "object_graph", lambda: None)() is None:
        return False
    _, keys = object_graph(model)
    stored = reader.get_variable_to_shape_map()
    found = [(k, v) for k, v in keys.items() if k in stored]
    if not found:
        raise AssertionError("Nothing except the root object matched a checkpointed value. Typically this means that "
                             "the checkpoint does not match the Python program. The following objects have no "
                             "matching checkpointed value: %s" % sorted(keys))
    for k, v in found:
        if list(stored[k]) != v.shape.as_list():
            raise ValueError("Checkpoint %s: %s has shape %s, but the model's variable %s has shape %s"
                             % (filepath, k, stored[k], v.op.name, v.shape.as_list()))
    K.batch_set_value([(v, reader.get_tensor(k)) for k, v in found])
    return True
