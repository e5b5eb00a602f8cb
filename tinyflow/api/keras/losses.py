"""tf.keras.losses: per-sample loss functions (mean over the last axis), as TF 1.15's Keras computes
them: with a Softmax / Sigmoid output the cross-entropies use its logits, else the clipped probabilities."""
from tinyflow.api import nn
from tinyflow.api.keras import backend as K
from tinyflow.ops.core import array_ops, math_ops


def _eps(output):
    return math_ops.cast(K.epsilon(), output.dtype.base_dtype)


def mean_squared_error(y_true, y_pred):
    return math_ops.reduce_mean(math_ops.square(y_pred - math_ops.cast(y_true, y_pred.dtype)), axis=-1)


def mean_absolute_error(y_true, y_pred):
    return math_ops.reduce_mean(math_ops.abs(y_pred - math_ops.cast(y_true, y_pred.dtype)), axis=-1)


def mean_absolute_percentage_error(y_true, y_pred):
    y_true = math_ops.cast(y_true, y_pred.dtype)
    diff = math_ops.abs((y_true - y_pred) / math_ops.maximum(math_ops.abs(y_true), _eps(y_pred)))
    return 100.0 * math_ops.reduce_mean(diff, axis=-1)


def mean_squared_logarithmic_error(y_true, y_pred):
    y_true = math_ops.cast(y_true, y_pred.dtype)
    first = math_ops.log(math_ops.maximum(y_pred, _eps(y_pred)) + 1.0)
    second = math_ops.log(math_ops.maximum(y_true, _eps(y_pred)) + 1.0)
    return math_ops.reduce_mean(math_ops.square(first - second), axis=-1)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0):
    y_true = math_ops.cast(y_true, y_pred.dtype)
    if from_logits or y_pred.op.type == "Softmax":
        logits = y_pred if from_logits else y_pred.op.inputs[0]
        return nn.softmax_cross_entropy_with_logits_v2(labels=y_true, logits=logits)
    output = y_pred / math_ops.reduce_sum(y_pred, axis=-1, keepdims=True)
    output = math_ops.clip_by_value(output, _eps(y_pred), 1.0 - _eps(y_pred))
    return -math_ops.reduce_sum(y_true * math_ops.log(output), axis=-1)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1):
    if from_logits or y_pred.op.type == "Softmax":
        logits = y_pred if from_logits else y_pred.op.inputs[0]
    else:
        logits = math_ops.log(math_ops.clip_by_value(y_pred, _eps(y_pred), 1.0 - _eps(y_pred)))
    target = math_ops.cast(y_true, "int64")
    rank = logits.shape.ndims
    if target.shape.ndims != rank - 1:   # labels [batch, 1]: flattened, as TF 1.15's backend does
        target = array_ops.reshape(target, [-1])
        if rank > 2:
            logits_shape = array_ops.shape(logits)
            flat = array_ops.reshape(logits, [-1, logits.shape[-1].value])
            out = nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=flat)
            return array_ops.reshape(out, logits_shape[:-1])
    return nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=logits)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0):
    y_true = math_ops.cast(y_true, y_pred.dtype)
    if from_logits or y_pred.op.type == "Sigmoid":
        logits = y_pred if from_logits else y_pred.op.inputs[0]
        per = nn.sigmoid_cross_entropy_with_logits(labels=y_true, logits=logits)
    else:
        eps = _eps(y_pred)
        output = math_ops.clip_by_value(y_pred, eps, 1.0 - eps)
        per = -(y_true * math_ops.log(output + eps) + (1.0 - y_true) * math_ops.log(1.0 - output + eps))
    return math_ops.reduce_mean(per, axis=-1)


def hinge(y_true, y_pred):
    y_true = math_ops.cast(y_true, y_pred.dtype)
    return math_ops.reduce_mean(math_ops.maximum(1.0 - y_true * y_pred, 0.0), axis=-1)


def squared_hinge(y_true, y_pred):
    y_true = math_ops.cast(y_true, y_pred.dtype)
    return math_ops.reduce_mean(math_ops.square(math_ops.maximum(1.0 - y_true * y_pred, 0.0)), axis=-1)


def kullback_leibler_divergence(y_true, y_pred):
    y_true = math_ops.clip_by_value(math_ops.cast(y_true, y_pred.dtype), _eps(y_pred), 1.0)
    y_pred = math_ops.clip_by_value(y_pred, _eps(y_pred), 1.0)
    return math_ops.reduce_sum(y_true * math_ops.log(y_true / y_pred), axis=-1)


def poisson(y_true, y_pred):
    y_true = math_ops.cast(y_true, y_pred.dtype)
    return math_ops.reduce_mean(y_pred - y_true * math_ops.log(y_pred + _eps(y_pred)), axis=-1)


def logcosh(y_true, y_pred):
    x = y_pred - math_ops.cast(y_true, y_pred.dtype)
    return math_ops.reduce_mean(x + nn.softplus(-2.0 * x) - math_ops.log(math_ops.cast(2.0, x.dtype)), axis=-1)


def cosine_similarity(y_true, y_pred, axis=-1):
    y_true = nn.l2_normalize(math_ops.cast(y_true, y_pred.dtype), axis=axis)
    return -math_ops.reduce_sum(y_true * nn.l2_normalize(y_pred, axis=axis), axis=axis)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence
cosine_proximity = cosine = cosine_similarity


class Loss:
    """A loss object: __call__(y_true, y_pred) is the mean over the batch of `fn`'s per-sample values."""

    fn = None

    def __init__(self, reduction="auto", name=None, **kwargs):
        self.reduction, self.name, self._kwargs = reduction, name, kwargs

    def call(self, y_true, y_pred):
        return type(self).fn(y_true, y_pred, **self._kwargs)

    def __call__(self, y_true, y_pred, sample_weight=None):
        return math_ops.reduce_mean(self.call(y_true, y_pred))


def _loss_class(name, fn):
    return type(name, (Loss,), {"fn": staticmethod(fn), "__doc__": "The %s loss as an object." % fn.__name__})


MeanSquaredError = _loss_class("MeanSquaredError", mean_squared_error)
MeanAbsoluteError = _loss_class("MeanAbsoluteError", mean_absolute_error)
CategoricalCrossentropy = _loss_class("CategoricalCrossentropy", categorical_crossentropy)
SparseCategoricalCrossentropy = _loss_class("SparseCategoricalCrossentropy", sparse_categorical_crossentropy)
BinaryCrossentropy = _loss_class("BinaryCrossentropy", binary_crossentropy)
Hinge = _loss_class("Hinge", hinge)
KLDivergence = _loss_class("KLDivergence", kullback_leibler_divergence)


def get(identifier):
    """A loss function by name ('mse', 'categorical_crossentropy', ...), a Loss object, or a callable."""
    if isinstance(identifier, str):
        fn = globals().get(identifier)
        if fn is None or not callable(fn) or isinstance(fn, type) or identifier.startswith("_") or identifier == "get":
            raise ValueError("Unknown loss function:%s" % identifier)
        return fn
    if callable(identifier):
        return identifier
    raise ValueError("Could not interpret loss function identifier: %s" % (identifier,))
