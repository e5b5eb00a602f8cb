"""Keras' engine on tinyflow's graph: the Keras Layer (a tf.layers Layer that records where it was
called, takes lists of inputs and Keras' learning phase), InputLayer / Input, and the graph network
behind the functional Model and Sequential.

In TF 1.15 graph mode a Keras layer called on a tensor adds its ops to the default graph at once;
a functional Model is the record of those calls (one Node per call), so the model's outputs are
ordinary graph tensors that fit / evaluate / predict fetch with the inputs fed. Calling a model on
new tensors replays its nodes on them (a nested model, shared layers).
"""
import contextlib
import inspect
import weakref

from tinyflow.api import layers as tf_layers
from tinyflow.api.keras import backend as K
from tinyflow.graph import dtypes as dt
from tinyflow.graph import nest
from tinyflow.graph.core import Tensor, get_default_graph
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.core import array_ops, math_ops
from tinyflow.ops.core.base import convert_to_tensor


class Node:
    """One call of a layer: its input tensors (as passed), its output tensors and keyword arguments."""

    def __init__(self, layer, inputs, outputs, kwargs):
        self.layer, self.inputs, self.outputs, self.kwargs = layer, inputs, outputs, kwargs
        self.input_tensors = nest.flatten(inputs)
        self.output_tensors = nest.flatten(outputs)


_SCOPES_SEEN = weakref.WeakKeyDictionary()   # graph -> [its variables list, how many seen, their scopes]


def _variable_scopes(graph):
    """Every scope that holds a variable of the graph ("a" and "a/b" for "a/b/c"), kept up to date as
    variables are added: a model of 1,000 layers asks for each layer (scanning all names was quadratic)."""
    variables = graph.get_collection_ref("variables")
    seen = _SCOPES_SEEN.get(graph)
    if seen is None or seen[0] is not variables or seen[1] > len(variables):
        seen = _SCOPES_SEEN[graph] = [variables, 0, set()]
    for v in variables[seen[1]:]:
        parts = v.op.name.split("/")
        seen[2].update("/".join(parts[:i]) for i in range(1, len(parts)))
    seen[1] = len(variables)
    return seen[2]


class Layer(tf_layers.Layer):
    """tf.keras.layers.Layer: subclass it with `build(input_shape)` (creating weights with
    `add_weight`) and `call(inputs)`; the variables are named "<layer name>/<weight name>"."""

    _keras_base = True   # where a layer's config stops collecting constructor arguments
    input_spec = None    # an InputSpec (or a list of them, one per input) that calls are checked against
    supports_masking = False   # True: the input mask passes through to the outputs (compute_mask)

    def __new__(cls, *args, **kwargs):
        # the constructor's arguments, for get_config (TF's configs are the constructor's arguments)
        obj = super().__new__(cls)
        obj.__dict__["_init_call"] = (args, dict(kwargs))
        return obj

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        if hasattr(dtype, "compute_dtype"):   # a mixed precision Policy: variables in its variable dtype
            self._mixed_precision_policy = dtype
            dtype = dtype.variable_dtype
        batch_input_shape = kwargs.pop("batch_input_shape", None)
        input_shape = kwargs.pop("input_shape", None)
        input_dim = kwargs.pop("input_dim", None)
        batch_size = kwargs.pop("batch_size", None)
        if input_dim is not None and input_shape is None:
            input_shape = (input_dim,)
        if batch_input_shape is None and input_shape is not None:
            batch_input_shape = (batch_size,) + tuple(input_shape)
        self._batch_input_shape = tuple(batch_input_shape) if batch_input_shape is not None else None
        super().__init__(trainable=trainable, name=name, dtype=dtype, **kwargs)
        self._inbound_nodes = []
        params = inspect.signature(self.call).parameters
        self._expects_training = "training" in params
        self._expects_mask = "mask" in params

    # Keras layers open the variable scope of their unique name (a subclassed model's layers end up
    # under the model's scope: "my_model/dense/kernel").
    def _set_scope(self, scope=None):
        if self._scope is None:
            outer = get_default_graph().get_name_scope()
            # inside a tf.name_scope, TF 1.15's Keras names the variables after it ("foo/dense/kernel")
            under = (vs.variable_scope(vs.VariableScope(None, name=outer, name_scope=outer + "/"),
                                       auxiliary_name_scope=False)
                     if scope is None and outer != vs.get_variable_scope().name else contextlib.nullcontext())
            with under, vs.variable_scope(scope if scope is not None else self._free_name()) as captured:
                self._scope = captured

    def _free_name(self):
        """The layer's name, or name_1, name_2, ... where variables of that name exist in the graph
        already (a model rebuilt from its config next to the original: TF 1.15 names them so too)."""
        prefix = vs.get_variable_scope().name
        prefix = prefix + "/" if prefix else ""
        taken = _variable_scopes(get_default_graph())
        candidate, i = self._name, 0
        while prefix + candidate in taken:
            i += 1
            candidate = "%s_%d" % (self._name, i)
        return candidate

    def __call__(self, inputs, *args, **kwargs):
        """Builds the layer on its first call (from the inputs' shapes), applies it, records the call."""
        self._set_scope(kwargs.pop("scope", None))
        if self._expects_training and kwargs.get("training") is None:
            kwargs["training"] = K.learning_phase()
        graph = get_default_graph()
        inputs = _map(_to_tensor, inputs)
        # the mask: passed explicitly, else the `_keras_mask` the inputs carry (TF 1.15's propagation)
        mask_given = "mask" in kwargs
        masks = kwargs["mask"] if mask_given else _input_masks(inputs)
        if self._expects_mask and not mask_given and masks is not None:
            kwargs["mask"] = masks
        reuse = True if self.built else self._reuse
        with vs.variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as scope:
            self._current_scope = scope
            with graph.name_scope(scope.original_name_scope or None):
                if not self.built:
                    assert_input_compatibility(self.input_spec, inputs, self.name)
                    first = nest.flatten(inputs)[0]
                    if self._dtype is None:
                        self._dtype = first.dtype.base_dtype if first.dtype.is_floating else dt.as_dtype(K.floatx())
                    shapes = _map(lambda t: t.shape, inputs)
                    self.build(shapes if isinstance(inputs, (list, tuple)) else shapes)
                    self.built = True
                assert_input_compatibility(self.input_spec, inputs, self.name)   # (build may set it)
                policy = _policy(self, inputs)
                if policy is None:
                    outputs = self.call(inputs, *args, **kwargs)
                else:   # floating inputs and weights in the compute dtype (keras/mixed_precision.py)
                    from tinyflow.api.keras.mixed_precision import cast_weights
                    cast = _map(lambda t: math_ops.cast(t, policy.compute_dtype) if t.dtype.is_floating else t,
                                inputs)
                    with cast_weights(self, policy.compute_dtype):
                        outputs = self.call(cast, *args, **kwargs)
                if self.activity_regularizer is not None:
                    with graph.name_scope("ActivityRegularizer"):
                        for out in nest.flatten(outputs):
                            # TF 1.15: the penalty per sample (divided by the batch size)
                            loss = self.activity_regularizer(out)
                            self._losses.append(loss / math_ops.cast(array_ops.shape(out)[0], loss.dtype))
                # an output that is an input, unmodified (a linear Activation): a copy, as TF 1.15 makes,
                # so that the input keeps its own Keras history
                given = {id(t) for t in nest.flatten(inputs)}
                outputs = _map(lambda t: array_ops.identity(t) if id(t) in given else t, outputs)
                _set_output_masks(self, inputs, outputs, masks)
        node_kwargs = {k: v for k, v in kwargs.items()
                       if (k != "training" or v is not K.learning_phase()) and (k != "mask" or mask_given)}
        node = Node(self, inputs, outputs, node_kwargs)
        self._inbound_nodes.append(node)
        for i, t in enumerate(node.output_tensors):
            if isinstance(t, Tensor):
                t._keras_history = (self, len(self._inbound_nodes) - 1, i)
        return outputs

    apply = __call__

    def add_weight(self, name=None, shape=None, dtype=None, initializer=None, regularizer=None, trainable=None,
                   constraint=None, **kwargs):
        """A weight "<layer>/<name>" (initializer, regularizer and constraint by Keras name or object); the
        regularizer's penalty joins the layer's `losses`, which fit adds to the loss."""
        from tinyflow.api.keras import constraints, initializers, regularizers
        shape = [d.value if hasattr(d, "value") else d for d in TensorShape(shape).as_list()] if shape is not None \
            else []
        init = initializers.get(initializer) if initializer is not None else None
        if init is None and (dtype is None or dt.as_dtype(dtype).is_floating):
            init = initializers.get("glorot_uniform")
        regularizer = regularizers.get(regularizer)
        v = super().add_weight(name, shape, dtype=dtype, initializer=init,
                               trainable=True if trainable is None else trainable,
                               constraint=constraints.get(constraint), **kwargs)
        if regularizer is not None:
            with get_default_graph().name_scope(None), get_default_graph().name_scope(v.op.name + "/Regularizer"):
                self._losses.append(regularizer(v.value()))
        return v

    # ---- what Keras asks of a layer ---------------------------------------------------------------
    def get_weights(self):
        return K.batch_get_value(self.weights)

    def set_weights(self, weights):
        params = self.weights
        if len(params) != len(weights):
            raise ValueError('You called `set_weights(weights)` on layer "%s" with a weight list of length %d, but '
                             "the layer was expecting %d weights. Provided weights: %s..."
                             % (self.name, len(weights), len(params), str(weights)[:50]))
        for p, w in zip(params, weights):
            if not p.shape.is_compatible_with(TensorShape(getattr(w, "shape", ()))):
                raise ValueError("Layer weight shape %s not compatible with provided weight shape %s"
                                 % (tuple(p.shape.as_list()), tuple(w.shape)))
        K.batch_set_value(zip(params, weights))

    def count_params(self):
        return int(sum(int(TensorShape(w.shape).num_elements()) for w in self.weights))

    @property
    def input(self):
        return self._node(0).inputs

    @property
    def output(self):
        return self._node(0).outputs

    @property
    def input_shape(self):
        return _map(lambda t: tuple(t.shape.as_list()), self.input)

    @property
    def output_shape(self):
        return _map(lambda t: tuple(t.shape.as_list()), self.output)

    def _node(self, i):
        if not self._inbound_nodes:
            raise AttributeError("Layer %s is not connected, no input to return." % self.name)
        return self._inbound_nodes[i]

    def get_config(self):
        """The layer's config as TF 1.15 writes it (name, trainable, dtype and its constructor's arguments)."""
        from tinyflow.api.keras.config import layer_config
        return layer_config(self)

    @classmethod
    def from_config(cls, config):
        """The layer a get_config() describes (initializer / regularizer / constraint records as objects)."""
        from tinyflow.api.keras.config import _arguments
        return cls(**_arguments(dict(config), None))

    def compute_mask(self, inputs, mask=None):
        """The output mask: the input mask for a layer that supports masking, else None (TypeError
        when a mask is passed to a layer that does not support one)."""
        if not self.supports_masking:
            if any(m is not None for m in nest.flatten(mask)):
                raise TypeError("Layer " + self.name + " does not support masking, but was passed an input_mask: "
                                + str(mask))
            return None
        return mask


def _input_masks(inputs):
    """The `_keras_mask` of each input (None when no input carries one)."""
    masks = _map(lambda t: getattr(t, "_keras_mask", None), inputs)
    return None if all(m is None for m in nest.flatten(masks)) else masks


def _set_output_masks(layer, inputs, outputs, masks):
    """Sets `_keras_mask` on the outputs: what compute_mask gives for a layer that supports masking or
    computes its own mask, else None (TF 1.15's _set_mask_metadata)."""
    flat = [t for t in nest.flatten(outputs) if isinstance(t, Tensor)]
    if flat and all(getattr(t, "_keras_mask", None) is not None for t in flat):
        return   # the call set them
    computes = layer.supports_masking or type(layer).compute_mask is not Layer.compute_mask
    out = layer.compute_mask(inputs, masks) if computes else None
    flat_masks = [None] * len(flat) if out is None else nest.flatten(out)
    for t, m in zip(flat, flat_masks):
        t._keras_mask = m


def assert_input_compatibility(input_spec, inputs, layer_name):
    """ValueError (TF 1.15's messages) when `inputs` do not meet the layer's InputSpec(s)."""
    if not input_spec:
        return
    specs, inputs = nest.flatten(input_spec), nest.flatten(inputs)
    if len(inputs) != len(specs):
        raise ValueError("Layer %s expects %d inputs, but it received %d input tensors. Inputs received: %s"
                         % (layer_name, len(specs), len(inputs), inputs))
    for index, (x, spec) in enumerate(zip(inputs, specs)):
        if spec is None:
            continue
        where = "Input %d of layer %s is incompatible with the layer: " % (index, layer_name)
        ndim, shape = x.shape.ndims, x.shape.as_list() if x.shape.ndims is not None else None
        if spec.ndim is not None and ndim != spec.ndim:
            raise ValueError(where + "expected ndim=%s, found ndim=%s. Full shape received: %s" % (spec.ndim, ndim,
                                                                                                   shape))
        if spec.max_ndim is not None and ndim is not None and ndim > spec.max_ndim:
            raise ValueError(where + "expected max_ndim=%s, found ndim=%s" % (spec.max_ndim, ndim))
        if spec.min_ndim is not None and ndim is not None and ndim < spec.min_ndim:
            raise ValueError(where + ": expected min_ndim=%s, found ndim=%s. Full shape received: %s"
                             % (spec.min_ndim, ndim, shape))
        if spec.dtype is not None and x.dtype.base_dtype.name != spec.dtype:
            raise ValueError(where + "expected dtype=%s, found dtype=%s" % (spec.dtype, x.dtype))
        for axis, value in (spec.axes or {}).items() if shape is not None else ():
            if value is not None and shape[int(axis)] not in (value, None):
                raise ValueError("Input %d of layer %s is incompatible with the layer: expected axis %s of input "
                                 "shape to have value %s but received input with shape %s"
                                 % (index, layer_name, axis, value, shape))
        for spec_dim, dim in zip(spec.shape or (), shape or ()):
            if spec_dim is not None and dim is not None and spec_dim != dim:
                raise ValueError("Input %d is incompatible with layer %s: expected shape=%s, found shape=%s"
                                 % (index, layer_name, spec.shape, shape))


def _map(fn, x):
    """fn applied to each tensor of a list / tuple / dict of them (or to x itself)."""
    if isinstance(x, (list, tuple)):
        return type(x)(_map(fn, v) for v in x)
    if isinstance(x, dict):
        return {k: _map(fn, v) for k, v in x.items()}
    return fn(x)


def _policy(layer, inputs):
    """The layer's mixed precision policy when it casts (None for plain Keras, the common case)."""
    if getattr(layer, "_mixed_precision_policy", None) is None:
        from sys import modules
        if "tinyflow.api.keras.mixed_precision" not in modules:   # no policy can have been set
            return None
    from tinyflow.api.keras.mixed_precision import layer_policy
    return layer_policy(layer, nest.flatten(inputs)[0].dtype.base_dtype)


def _to_tensor(x):
    if isinstance(x, Tensor):
        return x
    if hasattr(x, "_variable"):   # a Variable: its value
        return x.value()
    return convert_to_tensor(x)


class InputLayer(Layer):
    """The layer an `Input` is: a placeholder named as the layer ("input_1")."""

    def __init__(self, input_shape=None, batch_size=None, dtype=None, input_tensor=None, sparse=False, name=None,
                 **kwargs):
        batch_input_shape = kwargs.pop("batch_input_shape", None)
        if sparse or kwargs.pop("ragged", False):
            raise NotImplementedError("sparse and ragged Keras inputs are not supported yet")
        if name is None:   # TF 1.15 counts inputs from 1: input_1, input_2, ...
            tf_layers._unique_layer_name("input")
            name = "input_%d" % tf_layers._NAME_UIDS[get_default_graph()]["input"]
        super().__init__(name=name, dtype=dtype or K.floatx())
        if batch_input_shape is None:
            batch_input_shape = (batch_size,) + tuple(input_shape or ())
        self._batch_input_shape = tuple(batch_input_shape)
        if input_tensor is None:
            with get_default_graph().name_scope(None):
                input_tensor = K.placeholder(shape=self._batch_input_shape, dtype=self.dtype, name=name)
        self.built = True
        node = Node(self, [], input_tensor, {})
        self._inbound_nodes.append(node)
        input_tensor._keras_history = (self, 0, 0)

    def get_config(self):
        return {"batch_input_shape": list(self._batch_input_shape), "dtype": self.dtype.name, "sparse": False,
                "ragged": False, "name": self.name}


def Input(shape=None, batch_size=None, name=None, dtype=None, sparse=False, tensor=None, batch_shape=None,
          **kwargs):
    """A Keras input: a placeholder [batch_size, *shape] to build a functional Model from."""
    if shape is None and batch_shape is None and tensor is None:
        raise ValueError("Please provide to Input either a `shape` or a `tensor` argument. Note that `shape` does "
                         "not include the batch dimension.")
    if batch_shape is None and shape is not None:
        batch_shape = (batch_size,) + tuple(shape if isinstance(shape, (list, tuple)) else (shape,))
    layer = InputLayer(batch_input_shape=batch_shape, dtype=dtype, input_tensor=tensor, name=name)
    return layer._inbound_nodes[0].outputs


def network_nodes(inputs, outputs):
    """The nodes between `inputs` and `outputs`, in an order that computes each before its use, and
    the layers they call (each once, in first-use order). ValueError for an output the inputs do not
    reach ("Graph disconnected")."""
    input_ids = {id(t) for t in inputs}
    nodes, seen = [], set()

    def visit(t):
        history = getattr(t, "_keras_history", None)
        if history is None:
            raise ValueError("Output tensors to a Model must be the output of a TensorFlow `Layer` (thus holding "
                             "past layer metadata). Found: %s" % (t,))
        layer, node_index, _ = history
        node = layer._inbound_nodes[node_index]
        if id(node) in seen:
            return
        seen.add(id(node))
        if id(t) not in input_ids:
            if isinstance(layer, InputLayer):
                raise ValueError("Graph disconnected: cannot obtain value for tensor %s at layer \"%s\". The "
                                 "following previous layers were accessed without issue: %s"
                                 % (t, layer.name, [n.layer.name for n in nodes]))
            for x in node.input_tensors:
                visit(x)
        nodes.append(node)

    for t in inputs:
        visit(t)
    for t in outputs:
        visit(t)
    return nodes, _layers_by_depth(nodes, inputs, outputs)


def _layers_by_depth(nodes, inputs, outputs):
    """The network's layers in TF 1.15's order (model.layers, the weights' order, a .h5 file's layer_names):
    by decreasing depth from the outputs (inputs first); at one depth, in the order a depth-first walk from
    the outputs first meets them."""
    in_net, input_ids = {id(n) for n in nodes}, {id(t) for t in inputs}
    index, done, post = {}, set(), []

    def inbound(node):
        if any(id(t) in input_ids for t in node.output_tensors):
            return []
        hist = [getattr(t, "_keras_history", None) for t in node.input_tensors]
        return [n for n in (h[0]._inbound_nodes[h[1]] for h in hist if h) if id(n) in in_net]

    def walk(node):
        if id(node) in done:
            return
        index.setdefault(id(node.layer), len(index))
        for n in inbound(node):
            walk(n)
        done.add(id(node))
        post.append(node)

    for t in outputs:
        layer, node_index, _ = t._keras_history
        walk(layer._inbound_nodes[node_index])
    node_depth, layer_depth, layers = {}, {}, {}
    for node in reversed(post):   # a node is deeper than every node it feeds; a layer as deep as its deepest node
        depth = max(node_depth.get(id(node), 0), layer_depth.get(id(node.layer), 0))
        layer_depth[id(node.layer)] = node_depth[id(node)] = depth
        layers[id(node.layer)] = node.layer
        for n in inbound(node):
            node_depth[id(n)] = max(depth + 1, node_depth.get(id(n), 0))
    for n in nodes:   # an input the outputs do not use still counts
        if id(n.layer) not in layers:
            layers[id(n.layer)], layer_depth[id(n.layer)], index[id(n.layer)] = n.layer, 0, -1
    return sorted(layers.values(), key=lambda la: (-layer_depth[id(la)], index[id(la)]))


def run_nodes(nodes, inputs, new_inputs, outputs):
    """The `outputs` of the network, recomputed from `new_inputs` in place of `inputs` (the layers
    called again, on the new tensors, with their weights shared)."""
    values = {id(a): b for a, b in zip(inputs, new_inputs)}
    for node in nodes:
        if isinstance(node.layer, InputLayer) or all(id(t) in values for t in node.output_tensors):
            continue
        args = _map(lambda t: values[id(t)], node.inputs)
        result = node.layer(args, **node.kwargs)
        for a, b in zip(node.output_tensors, nest.flatten(result)):
            values[id(a)] = b
    return [values[id(t)] for t in outputs]
