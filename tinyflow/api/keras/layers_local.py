"""tf.keras.layers LocallyConnected1D / 2D (a convolution whose kernel differs at each output position, as
K.local_conv computes it) and the dense attention layers Attention / AdditiveAttention (TF 1.15)."""
from tinyflow.api import nn
from tinyflow.api.keras import activations, initializers, regularizers
from tinyflow.api.keras import backend as K
from tinyflow.api.keras.engine import Layer
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core import array_ops, math_ops, sequence_ops


def _tuple(value, n):
    return (int(value),) * n if isinstance(value, int) else tuple(int(v) for v in value)


def _output_length(length, size, stride):
    return None if length is None else (length - size + stride) // stride


class _LocallyConnected(Layer):
    _rank = None

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, activation=None,
                 use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros", kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 implementation=1, **kwargs):
        super().__init__(activity_regularizer=regularizers.get(activity_regularizer), **kwargs)
        if padding.lower() != "valid":
            raise ValueError("Invalid border mode for LocallyConnected%dD (only \"valid\" is supported): %s"
                             % (self._rank, padding))
        if implementation not in (1, 2, 3):
            raise ValueError("Unrecognized implementation mode: %d." % implementation)
        self.filters, self.kernel_size = int(filters), _tuple(kernel_size, self._rank)
        self.strides, self.padding = _tuple(strides, self._rank), padding.lower()
        self.data_format = K._data_format(data_format)
        self.activation, self.use_bias = activations.get(activation), use_bias
        self.kernel_initializer, self.bias_initializer = (initializers.get(kernel_initializer),
                                                          initializers.get(bias_initializer))
        self.kernel_regularizer, self.bias_regularizer = (regularizers.get(kernel_regularizer),
                                                          regularizers.get(bias_regularizer))
        self.kernel_constraint, self.bias_constraint = kernel_constraint, bias_constraint
        self.implementation = implementation

    def _spatial(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        first = self.data_format == "channels_first"
        return (dims[2:] if first else dims[1:-1]), (dims[1] if first else dims[-1])

    def build(self, input_shape):
        spatial, channels = self._spatial(input_shape)
        if None in spatial or channels is None:
            raise ValueError("The spatial dimensions and the channels of the inputs to LocallyConnected%dD must be "
                             "defined. Found input shape: %s" % (self._rank, TensorShape(input_shape)))
        self.output_dims = tuple(_output_length(n, k, s) for n, k, s in zip(spatial, self.kernel_size, self.strides))
        positions = 1
        for d in self.output_dims:
            positions *= d
        window = channels
        for k in self.kernel_size:
            window *= k
        self.kernel = self.add_weight("kernel", shape=[positions, window, self.filters],
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=list(self.output_dims) + [self.filters],
                                        initializer=self.bias_initializer, regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)
        else:
            self.bias = None
        self.built = True

    def call(self, inputs):
        out = K.local_conv(inputs, self.kernel, self.kernel_size, self.strides, self.output_dims, self.data_format)
        if self.use_bias:
            out = K.bias_add(out, self.bias, data_format=self.data_format)
        return self.activation(out)

    def compute_output_shape(self, input_shape):
        batch = TensorShape(input_shape).as_list()[0]
        spatial, _ = self._spatial(input_shape)
        dims = [_output_length(n, k, s) for n, k, s in zip(spatial, self.kernel_size, self.strides)]
        if self.data_format == "channels_first":
            return TensorShape([batch, self.filters] + dims)
        return TensorShape([batch] + dims + [self.filters])


class LocallyConnected1D(_LocallyConnected):
    """Like Conv1D with a different kernel at each output step: kernel (output_length, kernel_size * channels,
    filters), bias (output_length, filters)."""

    _rank = 1


class LocallyConnected2D(_LocallyConnected):
    """Like Conv2D with a different kernel at each output position: kernel (rows * cols, kh * kw * channels,
    filters), bias (rows, cols, filters)."""

    _rank = 2


class _DenseAttention(Layer):
    """Scores of queries against keys, softmax over the (unmasked) values, the values' weighted sum;
    inputs [query, value] or [query, value, key], mask [query_mask, value_mask]."""

    supports_masking = True

    def __init__(self, causal=False, **kwargs):
        super().__init__(**kwargs)
        self.causal = causal

    def _inputs(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) not in (2, 3):
            raise ValueError("%s layer must be called on a list of inputs, namely [query, value] or "
                             "[query, value, key]." % type(self).__name__)
        return inputs[0], inputs[1], inputs[2] if len(inputs) == 3 else inputs[1]

    def call(self, inputs, mask=None):
        query, value, key = self._inputs(inputs)
        q_mask, v_mask = (mask[0], mask[1]) if mask else (None, None)
        scores = self._score(query, key)
        big = math_ops.cast(1e9, scores.dtype)
        if v_mask is not None:
            scores -= big * (1.0 - math_ops.cast(array_ops.expand_dims(v_mask, -2), scores.dtype))
        if self.causal:
            tq, tv = array_ops.shape(scores)[-2], array_ops.shape(scores)[-1]
            rows = array_ops.expand_dims(sequence_ops.range(tq), -1)
            cols = array_ops.expand_dims(sequence_ops.range(tv), 0)
            scores -= big * (1.0 - math_ops.cast(math_ops.greater_equal(rows, cols), scores.dtype))
        result = math_ops.matmul(nn.softmax(scores), value)
        if q_mask is not None:
            result *= math_ops.cast(array_ops.expand_dims(q_mask, -1), result.dtype)
        return result

    def compute_mask(self, inputs, mask=None):
        return None if not mask or mask[0] is None else mask[0]

    def compute_output_shape(self, input_shape):
        query, value = TensorShape(input_shape[0]).as_list(), TensorShape(input_shape[1]).as_list()
        return TensorShape(query[:-1] + value[-1:])


class Attention(_DenseAttention):
    """Dot-product attention: scores query . key (times a learned scalar "scale" when use_scale)."""

    def __init__(self, use_scale=False, **kwargs):
        super().__init__(**kwargs)
        self.use_scale = use_scale

    def build(self, input_shape):
        self.scale = self.add_weight("scale", shape=(), initializer=initializers.get("ones")) if self.use_scale \
            else None
        self.built = True

    def _score(self, query, key):
        scores = math_ops.matmul(query, key, transpose_b=True)
        return scores * self.scale if self.scale is not None else scores


class AdditiveAttention(_DenseAttention):
    """Bahdanau attention: scores sum(scale * tanh(query + key)) over the features (scale learned when
    use_scale)."""

    def __init__(self, use_scale=True, **kwargs):
        super().__init__(**kwargs)
        self.use_scale = use_scale

    def build(self, input_shape):
        dim = TensorShape(input_shape[0]).as_list()[-1]
        self.scale = self.add_weight("scale", shape=[dim], initializer=initializers.get("glorot_uniform")) \
            if self.use_scale else None
        self.built = True

    def _score(self, query, key):
        q, k = array_ops.expand_dims(query, -2), array_ops.expand_dims(key, -3)
        hidden = math_ops.tanh(q + k)
        return math_ops.reduce_sum(self.scale * hidden if self.scale is not None else hidden, axis=-1)


class DenseFeatures(Layer):
    """The dense tensor of a dict of features through `feature_columns` (tf.feature_column.input_layer in
    the layer's scope): its embeddings and the like are the layer's weights."""

    def __init__(self, feature_columns, trainable=True, name=None, **kwargs):
        super().__init__(name=name, trainable=trainable, **kwargs)
        self._feature_columns = list(feature_columns)
        if not self._feature_columns:
            raise ValueError("feature_columns must not be empty.")

    def build(self, input_shape):
        self.built = True

    def call(self, features, cols_to_output_tensors=None):
        from tinyflow.api import feature_column
        if not isinstance(features, dict):
            raise ValueError("We expected a dictionary here. Instead we got: {}".format(features))
        return self._tracking(lambda: feature_column._dense_columns(
            features, self._feature_columns, self.trainable, cols_to_output_tensors=cols_to_output_tensors))

    def _tracking(self, build):
        """build()'s result; the variables it made (embeddings, ...) become the layer's weights."""
        from tinyflow.graph.core import GraphKeys, get_default_graph
        graph = get_default_graph()
        before = list(graph.get_collection(GraphKeys.GLOBAL_VARIABLES))
        out = build()
        trainables = graph.get_collection(GraphKeys.TRAINABLE_VARIABLES)
        for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES):
            if any(v is b for b in before):
                continue
            weights = self._trainable_weights if any(v is t for t in trainables) else self._non_trainable_weights
            if not any(v is w for w in weights):
                weights.append(v)
        return out

    def compute_output_shape(self, input_shape):
        return TensorShape([None, None])


class SequenceFeatures(DenseFeatures):
    """tf.keras.experimental.SequenceFeatures: (the sequence columns' per-step values [batch, steps, d],
    the sequence lengths [batch]) of a dict of dense features (ids -1 where a step is missing), for an
    RNN; embedding tables are the layer's weights."""

    def call(self, features, training=None):
        from tinyflow.api import feature_column
        if not isinstance(features, dict):
            raise ValueError("We expected a dictionary here. Instead we got: {}".format(features))
        return self._tracking(lambda: feature_column.sequence_input(features, self._feature_columns))
