"""Keras HDF5 files in TF 1.15's layout (h5py is an optional extra, imported when used).

    /                   attrs keras_version "2.2.4-tf", backend "tensorflow", model_config (JSON),
                        training_config (JSON: loss, metrics, loss_weights, optimizer_config)
    /model_weights      attrs layer_names, backend, keras_version; one group per layer with attr
                        weight_names (["dense/kernel:0", ...]) and a dataset per weight
    /optimizer_weights  attr weight_names (["training/Adam/iter:0", ...]), a dataset per weight

`save_weights(path.h5)` writes the model_weights layout at the file's root. Loading matches layers
by position (or by name with by_name=True) and weights by position, as TF does. A file is untrusted
data: every dataset's shape is checked against the weight it fills before it is read, class names
resolve only through tf.keras' tables, and Python code in a file (a Lambda's bytecode) is refused.
"""
import json
import os

import numpy as np

from tinyflow.api.keras import backend as K
from tinyflow.graph import errors

KERAS_VERSION = "2.2.4-tf"


def _h5py():
    try:
        import h5py
    except ImportError:
        raise ImportError("Saving and loading Keras .h5 files requires h5py (pip install h5py; from a "
                          "checkout: pip install -e \".[keras]\").") from None
    return h5py


def is_h5_path(filepath, save_format=None):
    if save_format is not None:
        return save_format in ("h5", "hdf5", "keras")
    return str(filepath).endswith((".h5", ".keras", ".hdf5"))


def _open(filepath, mode):
    h5py = _h5py()
    if isinstance(filepath, h5py.File):
        return filepath, False
    if mode == "r":
        if not os.path.exists(filepath):
            raise errors.NotFoundError(None, None, "Unable to open file (file %s does not exist)" % (filepath,))
        if not h5py.is_hdf5(filepath):
            raise errors.DataLossError(None, None, "Unable to open %s: not an HDF5 file" % (filepath,))
    return h5py.File(filepath, mode), True


def _legacy_weights(layer):
    """TF's order in .h5 files: trainable weights, then non-trainable ones."""
    return list(layer.trainable_weights) + list(layer.non_trainable_weights)


def _set_attr_list(group, name, data):
    group.attrs[name] = np.array([d.encode("utf8") for d in data]) if data else np.array([], dtype="S1")


def _get_attr_list(group, name):
    """A list-of-strings attribute, also when TF split a long one into name0, name1, ... chunks."""
    if name in group.attrs:
        return [_text(n) for n in group.attrs[name]]
    data, i = [], 0
    while "%s%d" % (name, i) in group.attrs:
        data.extend(_text(n) for n in group.attrs["%s%d" % (name, i)])
        i += 1
    return data


def _text(x):
    return x.decode("utf8") if isinstance(x, (bytes, np.bytes_)) else str(x)


def save_weights_to_group(group, layers):
    _set_attr_list(group, "layer_names", [layer.name for layer in layers])
    group.attrs["backend"] = b"tensorflow"
    group.attrs["keras_version"] = KERAS_VERSION.encode("utf8")
    per_layer = [_legacy_weights(layer) for layer in layers]
    values = iter(K.batch_get_value([w for weights in per_layer for w in weights]))   # one run, one program
    for layer, weights in zip(layers, per_layer):
        g = group.create_group(layer.name)
        names = [w.name for w in weights]
        _set_attr_list(g, "weight_names", names)
        for name, value in zip(names, values):
            value = np.asarray(value)
            g.create_dataset(name, data=value) if value.shape else g.create_dataset(name, data=value, shape=())


def _read(group, name, weight, where):
    """A dataset's values after checking it has the weight's shape (nothing is read otherwise)."""
    if name not in group:
        raise ValueError("%s: the file has no dataset %r" % (where, name))
    dset = group[name]
    if not hasattr(dset, "shape"):
        raise ValueError("%s: %r is not a dataset" % (where, name))
    want = tuple(weight.shape.as_list())
    if tuple(dset.shape) != want:
        raise ValueError("%s: weight %s has shape %s, but the saved weight has shape %s."
                         % (where, weight.name, want, tuple(dset.shape)))
    return np.asarray(dset[()])


def load_weights_from_group(group, layers, by_name=False, source=None):
    """The weights of `layers` from a model_weights group: layers with weights matched by position
    (or by name), weights in each layer by position."""
    names = _get_attr_list(group, "layer_names")
    pairs = []
    if by_name:
        index = {}
        for layer in layers:
            index.setdefault(layer.name, []).append(layer)
        for k, name in enumerate(names):
            for layer in index.get(name, []):
                pairs.append((k, name, layer))
    else:
        with_weights = [layer for layer in layers if _legacy_weights(layer)]
        names = [n for n in names if n in group and _get_attr_list(group[n], "weight_names")]
        if len(names) != len(with_weights):
            raise ValueError("You are trying to load a weight file containing %d layers into a model with %d layers."
                             % (len(names), len(with_weights)))
        pairs = [(k, name, layer) for k, (name, layer) in enumerate(zip(names, with_weights))]
    assignments = []
    for k, name, layer in pairs:
        if name not in group:
            raise ValueError("%s: layer %r is listed but has no group" % (source, name))
        g = group[name]
        weight_names = _get_attr_list(g, "weight_names")
        symbolic = _legacy_weights(layer)
        if len(weight_names) != len(symbolic):
            raise ValueError('Layer #%d (named "%s" in the current model) was found to correspond to layer %s in the '
                             "save file. However the new layer %s expects %d weights, but the saved weights have %d "
                             "elements." % (k, layer.name, name, layer.name, len(symbolic), len(weight_names)))
        where = "%s, layer %s" % (source or "weights file", name)
        assignments += [(w, _read(g, n, w, where)) for w, n in zip(symbolic, weight_names)]
    K.batch_set_value(assignments)


def save_weights(model, filepath, overwrite=True):
    """model.save_weights(path.h5): the layers' weights at the file's root."""
    f, opened = _open(filepath, "w")
    try:
        save_weights_to_group(f, model.layers)
        f.flush()
    finally:
        if opened:
            f.close()


def load_weights(model, filepath, by_name=False):
    f, opened = _open(filepath, "r")
    try:
        group = f["model_weights"] if "layer_names" not in f.attrs and "model_weights" in f else f
        load_weights_from_group(group, model.layers, by_name=by_name, source=str(filepath))
    finally:
        if opened:
            f.close()


def _training_config(model):
    optimizer = model.optimizer
    return {"loss": model.loss, "metrics": getattr(model, "_compile_metrics", None), "weighted_metrics": None,
            "sample_weight_mode": None, "loss_weights": getattr(model, "loss_weights", None),
            "optimizer_config": {"class_name": type(optimizer).__name__, "config": optimizer.get_config()}}


def save_model(model, filepath, overwrite=True, include_optimizer=True):
    """tf.keras.models.save_model / model.save in TF 1.15's HDF5 layout."""
    from tinyflow.api.keras.optimizers import TFOptimizer
    if not getattr(model, "_is_graph_network", False) and type(model).__name__ != "Sequential":
        raise NotImplementedError("Saving the model to HDF5 format requires the model to be a Functional model or a "
                                  "Sequential model. It does not work for subclassed models, because such models are "
                                  "defined via the body of a Python method, which isn't safely serializable. Consider "
                                  "saving to the Tensorflow SavedModel format (by setting save_format=\"tf\") or "
                                  "using `save_weights`.")
    config = {"class_name": type(model).__name__, "config": model.get_config()}
    f, opened = _open(filepath, "w")
    try:
        f.attrs["keras_version"] = KERAS_VERSION
        f.attrs["backend"] = "tensorflow"
        f.attrs["model_config"] = json.dumps(config).encode("utf8")
        optimizer = model.optimizer if include_optimizer else None
        if optimizer is not None and not isinstance(optimizer, TFOptimizer):
            f.attrs["training_config"] = json.dumps(_training_config(model)).encode("utf8")
        save_weights_to_group(f.create_group("model_weights"), model.layers)
        if optimizer is not None and not isinstance(optimizer, TFOptimizer) and optimizer.weights:
            g = f.create_group("optimizer_weights")
            names = [w.name for w in optimizer.weights]
            _set_attr_list(g, "weight_names", names)
            for name, value in zip(names, K.batch_get_value(optimizer.weights)):
                value = np.asarray(value)
                g.create_dataset(name, data=value) if value.shape else g.create_dataset(name, data=value, shape=())
        f.flush()
    finally:
        if opened:
            f.close()


def load_model(filepath, classes, custom_objects=None, compile=True):  # noqa: A002 (TF's argument name)
    """tf.keras.models.load_model of a Keras .h5 file (TF 1.15's or tinyflow's): the architecture, its
    weights, and (compile=True) the compile arguments and optimizer state. `classes`: Model and Sequential."""
    from tinyflow.api.keras.optimizers import deserialize as optimizer_from_config
    from tinyflow.api.keras.serialization import model_from_config
    f, opened = _open(filepath, "r")
    source = str(filepath)
    try:
        raw = f.attrs.get("model_config")
        if raw is None:
            raise ValueError("No model found in config file %s." % source)
        model = model_from_config(_json(raw, source, "model_config"), classes, custom_objects, source)
        if "model_weights" not in f:
            raise ValueError("%s has a model_config but no model_weights group" % source)
        load_weights_from_group(f["model_weights"], model.layers, source=source)
        raw = f.attrs.get("training_config")
        if not compile or raw is None:
            return model
        config = _json(raw, source, "training_config")
        custom_objects = custom_objects or {}

        def custom(x):
            if isinstance(x, dict):
                return {k: custom(v) for k, v in x.items()}
            if isinstance(x, list):
                return [custom(v) for v in x]
            return custom_objects.get(x, x) if isinstance(x, str) else x
        model.compile(optimizer=optimizer_from_config(config["optimizer_config"], custom_objects),
                      loss=custom(config.get("loss")), metrics=custom(config.get("metrics")),
                      loss_weights=config.get("loss_weights"))
        if "optimizer_weights" in f:
            g = f["optimizer_weights"]
            names = _get_attr_list(g, "weight_names")
            model._function("train")   # creates the optimizer's slots
            symbolic = model.optimizer.weights
            if len(symbolic) != len(names):
                import warnings
                warnings.warn("Error in loading the saved optimizer state of %s (%d weights for %d). As a result, "
                              "your model is starting with a freshly initialized optimizer."
                              % (source, len(names), len(symbolic)))
            else:
                where = source + ", optimizer_weights"
                K.batch_set_value([(w, _read(g, n, w, where)) for w, n in zip(symbolic, names)])
        return model
    finally:
        if opened:
            f.close()


def _json(raw, source, what):
    try:
        return json.loads(_text(raw))
    except ValueError as e:
        raise ValueError("%s: the %s attribute is not valid JSON (%s)" % (source, what, e)) from None
