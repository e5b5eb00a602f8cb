"""More of tf.keras.layers as TF 1.15 has them: LayerNormalization, PReLU, ELU, ThresholdedReLU, Dot (and
`dot`), SpatialDropout1D/2D/3D, GaussianNoise, GaussianDropout, AlphaDropout, ActivityRegularization.

Names, defaults, weights ("layer_normalization/gamma", "p_re_lu/alpha") and configs are TF 1.15's; the
noise layers act in the training phase only (Keras' learning phase unless `training` is given), and the
layers with an `input_spec` refuse inputs of the wrong rank with TF's ValueError.
"""
import math

import numpy as np

from tinyflow.api import layers as tf_layers
from tinyflow.api import nn
from tinyflow.api.keras import constraints, initializers, regularizers
from tinyflow.api.keras import backend as K
from tinyflow.api.keras.engine import Layer
from tinyflow.api.layers import InputSpec, in_train_phase
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops import random_ops
from tinyflow.ops.core import array_ops, math_ops
from tinyflow.ops.core.indexing_ops import where


def _phase(training):
    """`training` as given, or Keras' learning phase (a layer's call made directly, not through __call__)."""
    return K.learning_phase() if training is None else training


class LayerNormalization(Layer):
    """Normalizes each sample over `axis` (mean 0, variance 1, epsilon added), then gamma * x + beta;
    weights "layer_normalization/gamma" and ".../beta" of the normalized axes' sizes."""

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, trainable=True, name=None, **kwargs):
        super().__init__(name=name, trainable=trainable, **kwargs)
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise ValueError("Expected an int or a list/tuple of ints for the argument 'axis', but received instead: "
                             "%s" % (axis,))
        self.epsilon, self.center, self.scale = epsilon, center, scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)

    def build(self, input_shape):
        ndims = TensorShape(input_shape).ndims
        if ndims is None:
            raise ValueError("Input shape %s has undefined rank." % (input_shape,))
        axis = [self.axis] if isinstance(self.axis, int) else list(self.axis)
        axis = [a + ndims if a < 0 else a for a in axis]
        for a in axis:
            if a < 0 or a >= ndims:
                raise ValueError("Invalid axis: %d" % a)
        if len(axis) != len(set(axis)):
            raise ValueError("Duplicate axis: {}".format(tuple(axis)))
        self.axis = axis
        shape = [TensorShape(input_shape)[a].value for a in axis]
        self.gamma = self.add_weight("gamma", shape, initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer, constraint=self.gamma_constraint) \
            if self.scale else None
        self.beta = self.add_weight("beta", shape, initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer, constraint=self.beta_constraint) \
            if self.center else None
        self.built = True

    def call(self, inputs):
        ndims = inputs.shape.ndims
        broadcast = [1] * ndims
        for a in self.axis:
            broadcast[a] = inputs.shape[a].value

        def expand(v):   # gamma / beta over several (or not the last) axes: shaped to broadcast
            if v is None or (v.shape.ndims == ndims or self.axis == [ndims - 1]):
                return v
            return array_ops.reshape(v, broadcast)
        mean, variance = nn.moments(inputs, self.axis, keep_dims=True)
        out = nn.batch_normalization(inputs, mean, variance, offset=expand(self.beta), scale=expand(self.gamma),
                                     variance_epsilon=self.epsilon)
        out.set_shape(inputs.shape)
        return out


class PReLU(Layer):
    """max(x, 0) + alpha * min(x, 0) with a learned alpha ("p_re_lu/alpha") per input position, shared
    (size 1) along `shared_axes`."""

    def __init__(self, alpha_initializer="zeros", alpha_regularizer=None, alpha_constraint=None, shared_axes=None,
                 **kwargs):
        super().__init__(**kwargs)
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        elif not isinstance(shared_axes, (list, tuple)):
            self.shared_axes = [shared_axes]
        else:
            self.shared_axes = list(shared_axes)

    def build(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        shape = list(dims[1:])
        for i in self.shared_axes or ():
            shape[i - 1] = 1
        self.alpha = self.add_weight("alpha", shape, initializer=self.alpha_initializer,
                                     regularizer=self.alpha_regularizer, constraint=self.alpha_constraint)
        axes = {i: dims[i] for i in range(1, len(dims)) if i not in self.shared_axes} if self.shared_axes else {}
        self.input_spec = InputSpec(ndim=len(dims), axes=axes)
        self.built = True

    def call(self, inputs):
        return nn.relu(inputs) + (-self.alpha.value()) * nn.relu(-inputs)


class ELU(Layer):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = float(np.float32(alpha))   # (TF keeps it as floatx)

    def call(self, inputs):
        out = nn.elu(inputs)
        return out if self.alpha == 1 else where(inputs > 0, out, self.alpha * out)


class ThresholdedReLU(Layer):
    """x where x > theta, else 0."""

    def __init__(self, theta=1.0, **kwargs):
        super().__init__(**kwargs)
        self.theta = float(np.float32(theta))

    def call(self, inputs):
        return inputs * math_ops.cast(math_ops.greater(inputs, self.theta), inputs.dtype)


class Dot(Layer):
    """The dot product of two batches of tensors along `axes` (K.batch_dot); `normalize=True` takes
    the cosine (both L2-normalized along those axes first)."""

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        self.axes, self.normalize = axes, normalize

    def _axes(self, ndims):
        axes = [self.axes] * 2 if isinstance(self.axes, int) else list(self.axes)
        return [a % n if a < 0 else a for a, n in zip(axes, ndims)]

    def build(self, input_shape):
        if not isinstance(input_shape, (list, tuple)) or len(input_shape) != 2:
            raise ValueError("A `Dot` layer should be called on a list of 2 inputs.")
        shape1, shape2 = (TensorShape(s) for s in input_shape)
        if shape1.ndims is None or shape2.ndims is None:
            return
        a1, a2 = self._axes([shape1.ndims, shape2.ndims])
        if shape1[a1].value != shape2[a2].value:
            raise ValueError("Dimension incompatibility %s != %s. Layer shapes: %s, %s"
                             % (shape1[a1].value, shape2[a2].value, tuple(shape1.as_list()),
                                tuple(shape2.as_list())))
        self.built = True

    def call(self, inputs):
        if len(inputs) != 2:
            raise ValueError("A `Dot` layer should be called on exactly 2 inputs")
        x1, x2 = inputs
        axes = self._axes([x1.shape.ndims, x2.shape.ndims])
        if self.normalize:
            x1, x2 = nn.l2_normalize(x1, axis=axes[0]), nn.l2_normalize(x2, axis=axes[1])
        return K.batch_dot(x1, x2, axes)


def dot(inputs, axes, normalize=False, **kwargs):
    """Functional interface to the `Dot` layer."""
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)


class SpatialDropout1D(tf_layers.Dropout, Layer):
    """Dropout of whole feature maps: a channel is dropped for all steps of a sample."""

    _config_skip = ("data_format",)   # (TF 1.15's config is Dropout's: rate, noise_shape, seed)
    _ndim = 3

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(rate, noise_shape=noise_shape, seed=seed, **kwargs)
        self.input_spec = InputSpec(ndim=self._ndim)

    def call(self, inputs, training=None):
        shape, ones = array_ops.shape(inputs), [1] * (self._ndim - 2)
        if getattr(self, "data_format", "channels_last") == "channels_first":
            noise = [shape[0], shape[1]] + ones
        else:
            noise = [shape[0]] + ones + [shape[self._ndim - 1]]
        return in_train_phase(lambda: nn.dropout(inputs, noise_shape=array_ops.stack(noise), seed=self.seed,
                                                 rate=self.rate), inputs, _phase(training))


class SpatialDropout2D(SpatialDropout1D):
    """Dropout of whole 2-D feature maps (channels_last: [batch, rows, cols, channels])."""

    _ndim = 4

    def __init__(self, rate, data_format=None, **kwargs):
        super().__init__(rate, **kwargs)
        self.data_format = data_format or K.image_data_format()
        if self.data_format not in ("channels_last", "channels_first"):
            raise ValueError("data_format must be in {\"channels_last\", \"channels_first\"}")


class SpatialDropout3D(SpatialDropout2D):
    """Dropout of whole 3-D feature maps."""

    _ndim = 5


class GaussianNoise(Layer):
    """inputs + N(0, stddev) noise while training; the inputs as they are otherwise."""

    def __init__(self, stddev, **kwargs):
        super().__init__(**kwargs)
        self.stddev = stddev

    def call(self, inputs, training=None):
        return in_train_phase(lambda: inputs + random_ops.random_normal(array_ops.shape(inputs), 0.0, self.stddev,
                                                                         dtype=inputs.dtype), inputs, _phase(training))


class GaussianDropout(Layer):
    """inputs * N(1, sqrt(rate / (1 - rate))) noise while training (when 0 < rate < 1)."""

    def __init__(self, rate, **kwargs):
        super().__init__(**kwargs)
        self.rate = rate

    def call(self, inputs, training=None):
        if not 0 < self.rate < 1:
            return inputs
        stddev = math.sqrt(self.rate / (1.0 - self.rate))
        return in_train_phase(lambda: inputs * random_ops.random_normal(array_ops.shape(inputs), 1.0, stddev,
                                                                         dtype=inputs.dtype), inputs, _phase(training))


class AlphaDropout(Layer):
    """Dropout that keeps SELU's self-normalization while training: dropped inputs are set to SELU's
    negative saturation value and the result is affinely rescaled to keep mean and variance."""

    _config_skip = ("noise_shape", "seed")   # (TF 1.15's config has the rate only)

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate, self.noise_shape, self.seed = rate, noise_shape, seed

    def call(self, inputs, training=None):
        if not 0 < self.rate < 1:
            return inputs
        alpha_p = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946
        a = ((1 - self.rate) * (1 + self.rate * alpha_p ** 2)) ** -0.5
        b = -a * alpha_p * self.rate

        def dropped():
            shape = self.noise_shape if self.noise_shape is not None else array_ops.shape(inputs)
            kept = math_ops.cast(random_ops.random_uniform(shape, seed=self.seed) >= self.rate, inputs.dtype)
            return a * (inputs * kept + alpha_p * (1 - kept)) + b
        return in_train_phase(dropped, inputs, _phase(training))


class ActivityRegularization(Layer):
    """The inputs as they are; adds l1 * sum(|x|) + l2 * sum(x**2) (per sample of the batch) to the losses."""

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.l1, self.l2 = l1, l2

    def call(self, inputs):
        return inputs


__all__ = ["LayerNormalization", "PReLU", "ELU", "ThresholdedReLU", "Dot", "dot", "SpatialDropout1D",
           "SpatialDropout2D", "SpatialDropout3D", "GaussianNoise", "GaussianDropout", "AlphaDropout",
           "ActivityRegularization", "InputSpec"]
