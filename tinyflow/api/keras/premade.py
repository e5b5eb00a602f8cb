"""TF 1.15's premade Keras models (tf.keras.experimental): LinearModel (one bias-free Dense per input, summed,
plus one bias) and WideDeepModel (the mean of a linear and a deep model's outputs, each trained by its own
optimizer when compile gets two). Their weights are ordered as TF's: the Dense kernels, then the bias."""
from tinyflow.api import nn
from tinyflow.api.keras import activations, initializers, regularizers
from tinyflow.api.keras import layers as keras_layers
from tinyflow.api.keras import optimizers
from tinyflow.api.keras.config import base_config, serialize_value
from tinyflow.api.keras.models import Model, _unique


class LinearModel(Model):
    """activation(sum_i Dense_i(inputs_i) + bias): a Dense without bias per input (a list of inputs, or one)."""

    def __init__(self, units=1, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, **kwargs):
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        super().__init__(**kwargs)
        self.dense_layers, self.bias = [], None

    def build(self, input_shape):
        if self.built:
            return
        shapes = input_shape if isinstance(input_shape, list) else [input_shape]
        self.dense_layers = [keras_layers.Dense(units=self.units, use_bias=False,
                                                kernel_initializer=self.kernel_initializer,
                                                kernel_regularizer=self.kernel_regularizer) for _ in shapes]
        self._tracked.extend(self.dense_layers)
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=[self.units], initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer)
        self.built = True

    def call(self, inputs):
        inputs = list(inputs) if isinstance(inputs, (tuple, list)) else [inputs]
        if len(inputs) != len(self.dense_layers):
            raise ValueError("Expected {} inputs, but got {} inputs".format(len(self.dense_layers), len(inputs)))
        result = None
        for x, layer in zip(inputs, self.dense_layers):
            out = layer(x)
            result = out if result is None else result + out
        if self.use_bias:
            result = nn.bias_add(result, self.bias)
        return self.activation(result) if self.activation is not None else result

    # the model's own bias joins its layers' weights (after them, as TF orders it)
    @property
    def trainable_weights(self):
        own = list(self._trainable_weights) if self.trainable else []
        return _unique(Model.trainable_weights.fget(self) + own)

    @property
    def weights(self):
        return _unique(Model.weights.fget(self) + list(self._trainable_weights) + list(self._non_trainable_weights))

    trainable_variables = trainable_weights
    variables = weights

    def get_config(self):
        config = base_config(self)
        config.update(units=self.units, activation=serialize_value("activation", self.activation),
                      use_bias=self.use_bias)
        config.update((k, serialize_value(k, getattr(self, k))) for k in (
            "kernel_initializer", "bias_initializer", "kernel_regularizer", "bias_regularizer"))
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**config)


class _TwoOptimizers:
    """compile(optimizer=[linear's, dnn's]): each updates its own model's weights (TF's WideDeepModel)."""

    def __init__(self, model, linear_optimizer, dnn_optimizer):
        self.model = model
        self.optimizers = (optimizers.get(linear_optimizer), optimizers.get(dnn_optimizer))

    def get_updates(self, loss, params):
        linear = self.model.linear_model.trainable_weights
        dnn = [p for p in params if not any(p is w for w in linear)]
        return (list(self.optimizers[0].get_updates(loss, [p for p in params if any(p is w for w in linear)]))
                + list(self.optimizers[1].get_updates(loss, dnn)))

    @property
    def weights(self):
        return [w for o in self.optimizers for w in getattr(o, "weights", [])]


class WideDeepModel(Model):
    """activation(0.5 * (linear_model(linear inputs) + dnn_model(dnn inputs))); inputs is [linear, dnn]
    or one input both models read."""

    def __init__(self, linear_model, dnn_model, activation=None, **kwargs):
        super().__init__(**kwargs)
        self.linear_model = linear_model
        self.dnn_model = dnn_model
        self.activation = activations.get(activation)

    def call(self, inputs):
        if not isinstance(inputs, (tuple, list)) or len(inputs) != 2:
            linear_inputs = dnn_inputs = inputs
        else:
            linear_inputs, dnn_inputs = inputs
        output = .5 * (self.linear_model(linear_inputs) + self.dnn_model(dnn_inputs))
        return self.activation(output) if self.activation else output

    def compile(self, optimizer="rmsprop", loss=None, metrics=None, **kwargs):
        pair = optimizer if isinstance(optimizer, (list, tuple)) else None
        super().compile(optimizer=pair[0] if pair else optimizer, loss=loss, metrics=metrics, **kwargs)
        if pair:
            self.optimizer = _TwoOptimizers(self, pair[0], pair[1])

    def get_config(self):
        config = base_config(self)
        config.update(linear_model={"class_name": type(self.linear_model).__name__,
                                    "config": self.linear_model.get_config()},
                      dnn_model={"class_name": type(self.dnn_model).__name__, "config": self.dnn_model.get_config()},
                      activation=serialize_value("activation", self.activation))
        return config
