"""tf.keras.layers' wrappers as TF 1.15 has them: Wrapper, TimeDistributed (a layer applied to every
time step: its weights in the wrapper's scope, "time_distributed/kernel") and Bidirectional (an RNN
layer run forwards and backwards: "bidirectional/forward_lstm/kernel", "bidirectional/backward_lstm/...",
the outputs merged by merge_mode). Masks pass through both.
"""
import inspect

from tinyflow.api.keras.config import base_config
from tinyflow.api.keras.engine import Layer
from tinyflow.api.keras.recurrent import _Nested, _state_sizes, from_record
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core import array_ops, sequence_ops


class Wrapper(_Nested, Layer):
    """A layer that wraps another one (`layer`); its weights are the wrapped layer's."""

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError("Please initialize `%s` layer with a `Layer` instance. You passed: %s"
                             % (type(self).__name__, layer))
        super().__init__(**kwargs)
        self.layer = layer

    def _sublayers(self):
        return [self.layer]

    def get_config(self):
        return dict(base_config(self), layer={"class_name": type(self.layer).__name__,
                                               "config": self.layer.get_config()})

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        layer = from_record(config.pop("layer"), custom_objects)
        if config.get("backward_layer") is not None:
            config["backward_layer"] = from_record(config["backward_layer"], custom_objects)
        return cls(layer, **config)


def _passes(layer, name):
    return name in inspect.signature(layer.call).parameters


class TimeDistributed(Wrapper):
    """Applies `layer` to each slice [:, t] of [batch, time, ...] (as one call on [batch * time, ...])."""

    supports_masking = True

    def build(self, input_shape):
        if TensorShape(input_shape).ndims is not None and TensorShape(input_shape).ndims < 3:
            raise ValueError("`TimeDistributed` Layer should be passed an `input_shape ` with at least 3 dimensions, "
                             "received: %s" % (input_shape,))
        if self.layer._scope is None:   # TF 1.15 builds the wrapped layer in the wrapper's scope
            self.layer._scope = self._scope
        self.built = True

    def _flat(self, x):
        shape = x.shape.as_list()
        inner = [-1] + [d if d is not None else -1 for d in shape[2:]]
        if inner.count(-1) > 1:
            inner = array_ops.concat([[-1], array_ops.shape(x)[2:]], 0)
        out = array_ops.reshape(x, inner)
        out.set_shape([None] + shape[2:])
        return out

    def _unflat(self, y, steps, like):
        shape = y.shape.as_list()
        if steps is not None and None not in shape[1:]:
            out = array_ops.reshape(y, [-1, steps] + shape[1:])
        else:
            out = array_ops.reshape(y, array_ops.concat([array_ops.shape(like)[:2], array_ops.shape(y)[1:]], 0))
        out.set_shape([like.shape[0].value, steps] + shape[1:])
        return out

    def call(self, inputs, training=None, mask=None):
        kwargs = {}
        if _passes(self.layer, "training"):
            kwargs["training"] = training
        if mask is not None and _passes(self.layer, "mask"):
            kwargs["mask"] = self._flat(mask)
        steps = inputs.shape[1].value
        y = self.layer(self._flat(inputs), **kwargs)
        return self._unflat(y, steps, inputs)

    def compute_mask(self, inputs, mask=None):
        inner = self.layer.compute_mask(self._flat(inputs), None if mask is None else self._flat(mask))
        if inner is None:
            return mask
        return self._unflat(inner, inputs.shape[1].value, inputs)


class Bidirectional(Wrapper):
    """`layer` (an RNN layer) run forwards and a copy of it backwards (or `backward_layer`); the two
    outputs concatenated, summed, multiplied, averaged or returned both (merge_mode None)."""

    supports_masking = True

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError("Please initialize `Bidirectional` layer with a `Layer` instance. You passed: %s"
                             % (layer,))
        if backward_layer is not None and not isinstance(backward_layer, Layer):
            raise ValueError("`backward_layer` need to be a `Layer` instance. You passed: %s" % (backward_layer,))
        if merge_mode not in ["sum", "mul", "ave", "concat", None]:
            raise ValueError('Invalid merge mode. Merge mode should be one of {"sum", "mul", "ave", "concat", None}')
        super().__init__(layer, **kwargs)
        # TF 1.15: both directions are new layers from the layer's config
        self.forward_layer = _recreate(layer)
        if backward_layer is None:
            self.backward_layer = _recreate(layer, go_backwards=True)
            self._backward_config = None
        else:
            self.backward_layer = backward_layer
            self._backward_config = backward_layer.get_config()
        self.forward_layer._name = "forward_" + self.forward_layer.name
        self.backward_layer._name = "backward_" + self.backward_layer.name
        if self.forward_layer.go_backwards == self.backward_layer.go_backwards:
            raise ValueError("Forward layer and backward layer should have different `go_backwards` value.")
        for a in ("stateful", "return_sequences", "return_state"):
            if getattr(self.forward_layer, a) != getattr(self.backward_layer, a):
                raise ValueError("Forward layer and backward layer are expected to have the same value for attribute "
                                 "%s, got %s and %s" % (a, getattr(self.forward_layer, a),
                                                        getattr(self.backward_layer, a)))
        for direction in (self.forward_layer, self.backward_layer):
            if hasattr(direction, "zero_output_for_mask"):   # masked steps output zeros when returning sequences
                direction.zero_output_for_mask = direction.return_sequences
        self.merge_mode = merge_mode
        self.stateful, self.return_sequences = layer.stateful, layer.return_sequences
        self.return_state = layer.return_state
        self._initial_weights = weights

    def _sublayers(self):
        return [self.forward_layer, self.backward_layer]

    def __call__(self, inputs, initial_state=None, **kwargs):
        if initial_state is not None:
            initial_state = list(initial_state) if isinstance(initial_state, (list, tuple)) else [initial_state]
            if len(initial_state) % 2:
                raise ValueError("When passing `initial_state` to a Bidirectional RNN, the state should be a list "
                                 "containing the states of the underlying RNNs. Found: %s" % (initial_state,))
            inputs = [inputs] + initial_state
        out = super().__call__(inputs, **kwargs)
        if self._initial_weights:
            weights, self._initial_weights = self._initial_weights, None
            self.set_weights(weights)
        return out

    def call(self, inputs, training=None, mask=None):
        forward_inputs = backward_inputs = inputs
        if isinstance(inputs, (list, tuple)):   # [inputs, forward states..., backward states...]
            half = (len(inputs) - 1) // 2 + 1
            forward_inputs, backward_inputs = list(inputs[:half]), [inputs[0]] + list(inputs[half:])
        kwargs = {}
        if _passes(self.forward_layer, "training"):
            kwargs["training"] = training
        if _passes(self.forward_layer, "mask"):
            kwargs["mask"] = mask[0] if isinstance(mask, (list, tuple)) else mask
        y = self.forward_layer(forward_inputs, **kwargs)
        y_rev = self.backward_layer(backward_inputs, **kwargs)
        states = []
        if self.return_state:
            states = list(y[1:]) + list(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            y_rev = sequence_ops.reverse(y_rev, [1])
        if self.merge_mode == "concat":
            output = array_ops.concat([y, y_rev], -1)
        elif self.merge_mode == "sum":
            output = y + y_rev
        elif self.merge_mode == "ave":
            output = (y + y_rev) / 2
        elif self.merge_mode == "mul":
            output = y * y_rev
        else:
            output = [y, y_rev]
        if self.return_state:
            return (output if self.merge_mode is None else [output]) + states
        return output

    def compute_mask(self, inputs, mask):
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        if self.return_sequences:
            out = [mask, mask] if not self.merge_mode else mask
        else:
            out = [None, None] if not self.merge_mode else None
        if self.return_state:
            n = 2 * len(_state_sizes(self.forward_layer.cell))
            return (out if isinstance(out, list) else [out]) + [None] * n
        return out

    def reset_states(self):
        self.forward_layer.reset_states()
        self.backward_layer.reset_states()

    def get_config(self):
        config = dict(super().get_config(), merge_mode=self.merge_mode)
        if self._backward_config is not None:
            config["backward_layer"] = {"class_name": type(self.backward_layer).__name__,
                                        "config": self._backward_config}
        return config


def _recreate(layer, go_backwards=False):
    """A new layer from `layer`'s config (go_backwards flipped for the backward direction)."""
    config = layer.get_config()
    if go_backwards:
        config["go_backwards"] = not config["go_backwards"]
    return type(layer).from_config(config)
