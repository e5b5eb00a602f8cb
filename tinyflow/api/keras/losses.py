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
    if label_smoothing:   # towards the uniform distribution over the classes
        classes = math_ops.cast(array_ops.shape(y_true)[-1], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / classes
    return K.categorical_crossentropy(y_true, y_pred, from_logits=from_logits)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1):
    return K.sparse_categorical_crossentropy(y_true, y_pred, from_logits=from_logits, axis=axis)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0):
    y_true = math_ops.cast(y_true, y_pred.dtype)
    if label_smoothing:   # towards 0.5
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    return math_ops.reduce_mean(K.binary_crossentropy(y_true, y_pred, from_logits=from_logits), axis=-1)


def _maybe_convert_labels(y_true):
    """Labels all 0 or 1 become -1 / 1 (TF 1.15 decides on the values, when run)."""
    from tinyflow.ops.core.indexing_ops import where
    binary = math_ops.reduce_all(math_ops.logical_or(math_ops.equal(y_true, 0), math_ops.equal(y_true, 1)))
    return where(binary, 2.0 * y_true - 1.0, y_true)


def hinge(y_true, y_pred):
    y_true = _maybe_convert_labels(math_ops.cast(y_true, y_pred.dtype))
    return math_ops.reduce_mean(math_ops.maximum(1.0 - y_true * y_pred, 0.0), axis=-1)


def squared_hinge(y_true, y_pred):
    y_true = _maybe_convert_labels(math_ops.cast(y_true, y_pred.dtype))
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


def categorical_hinge(y_true, y_pred):
    y_true = math_ops.cast(y_true, y_pred.dtype)
    pos = math_ops.reduce_sum(y_true * y_pred, axis=-1)
    neg = math_ops.reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return math_ops.maximum(0.0, neg - pos + 1.0)


def huber_loss(y_true, y_pred, delta=1.0):
    """0.5 * err^2 where |err| <= delta, else delta * (|err| - 0.5 * delta), element-wise (no mean)."""
    y_pred, y_true = math_ops.cast(y_pred, K.floatx()), math_ops.cast(y_true, K.floatx())
    abs_error = math_ops.abs(y_pred - y_true)
    quadratic = math_ops.minimum(abs_error, delta)
    return 0.5 * quadratic * quadratic + delta * (abs_error - quadratic)


def cosine_similarity(y_true, y_pred, axis=-1):
    """The cosine of the angle between y_true and y_pred (positive: TF 1.15's v1 cosine_proximity)."""
    y_true = nn.l2_normalize(math_ops.cast(y_true, y_pred.dtype), axis=axis)
    return math_ops.reduce_sum(y_true * nn.l2_normalize(y_pred, axis=axis), axis=axis)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence
cosine_proximity = cosine = cosine_similarity


class Loss:
    """A loss object: __call__(y_true, y_pred, sample_weight) weighs the per-sample values of `call` and
    reduces them as `reduction` says: 'auto' / 'sum_over_batch_size' (sum / number of values), 'sum', 'none'."""

    def __init__(self, reduction="auto", name=None):
        if reduction not in ("auto", "none", "sum", "sum_over_batch_size"):
            raise ValueError("Invalid Reduction Key %s." % reduction)
        self.reduction, self.name = reduction, name

    def call(self, y_true, y_pred):
        raise NotImplementedError("Must be implemented in subclasses.")

    def __call__(self, y_true, y_pred, sample_weight=None):
        from tinyflow.ops.core.base import convert_to_tensor
        y_pred = convert_to_tensor(y_pred)
        with K.name_scope(self.name or type(self).__name__):
            losses = self.call(convert_to_tensor(y_true), y_pred)
            if sample_weight is not None:
                weight = math_ops.cast(sample_weight, losses.dtype)
                if weight.shape.ndims is not None and losses.shape.ndims is not None and \
                        weight.shape.ndims == losses.shape.ndims + 1 and weight.shape[-1].value == 1:
                    weight = array_ops.squeeze(weight, [-1])   # [batch, 1] weights for [batch] losses
                elif weight.shape.ndims is not None and weight.shape.ndims == (losses.shape.ndims or 0) - 1 > 0:
                    weight = array_ops.expand_dims(weight, -1)   # [batch] weights for [batch, n] losses
                losses = losses * weight
            if self.reduction == "none":
                return losses
            total = math_ops.reduce_sum(losses)
            if self.reduction == "sum":
                return total
            return math_ops.div_no_nan(total, math_ops.cast(array_ops.size(losses), losses.dtype))

    def get_config(self):
        return {"reduction": self.reduction, "name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class LossFunctionWrapper(Loss):
    """A Loss computing fn(y_true, y_pred, **kwargs) per sample."""

    def __init__(self, fn, reduction="auto", name=None, **kwargs):
        super().__init__(reduction=reduction, name=name)
        self.fn, self._fn_kwargs = fn, kwargs

    def call(self, y_true, y_pred):
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self):
        return dict(super().get_config(), **self._fn_kwargs)


def _loss_class(class_name, fn, default_name, **defaults):
    def __init__(self, reduction="auto", name=default_name, **kwargs):
        unknown = set(kwargs) - set(defaults)
        if unknown:
            raise TypeError("__init__() got an unexpected keyword argument %r" % sorted(unknown)[0])
        LossFunctionWrapper.__init__(self, fn, reduction=reduction, name=name, **dict(defaults, **kwargs))
    return type(class_name, (LossFunctionWrapper,), {"__init__": __init__, "__module__": __name__,
                                                     "__doc__": "The %s loss as an object." % default_name})


MeanSquaredError = _loss_class("MeanSquaredError", mean_squared_error, "mean_squared_error")
MeanAbsoluteError = _loss_class("MeanAbsoluteError", mean_absolute_error, "mean_absolute_error")
MeanAbsolutePercentageError = _loss_class("MeanAbsolutePercentageError", mean_absolute_percentage_error,
                                          "mean_absolute_percentage_error")
MeanSquaredLogarithmicError = _loss_class("MeanSquaredLogarithmicError", mean_squared_logarithmic_error,
                                          "mean_squared_logarithmic_error")
CategoricalCrossentropy = _loss_class("CategoricalCrossentropy", categorical_crossentropy, "categorical_crossentropy",
                                      from_logits=False, label_smoothing=0)
SparseCategoricalCrossentropy = _loss_class("SparseCategoricalCrossentropy", sparse_categorical_crossentropy,
                                            "sparse_categorical_crossentropy", from_logits=False)
BinaryCrossentropy = _loss_class("BinaryCrossentropy", binary_crossentropy, "binary_crossentropy",
                                 from_logits=False, label_smoothing=0)
Hinge = _loss_class("Hinge", hinge, "hinge")
SquaredHinge = _loss_class("SquaredHinge", squared_hinge, "squared_hinge")
CategoricalHinge = _loss_class("CategoricalHinge", categorical_hinge, "categorical_hinge")
Poisson = _loss_class("Poisson", poisson, "poisson")
LogCosh = _loss_class("LogCosh", logcosh, "logcosh")
KLDivergence = _loss_class("KLDivergence", kullback_leibler_divergence, "kullback_leibler_divergence")
Huber = _loss_class("Huber", huber_loss, "huber_loss", delta=1.0)
CosineSimilarity = _loss_class("CosineSimilarity", cosine_similarity, "cosine_similarity", axis=-1)


def serialize(loss):
    from tinyflow.api.keras.generic_utils import serialize_keras_object
    return serialize_keras_object(loss)


def deserialize(name, custom_objects=None):
    from tinyflow.api.keras.generic_utils import deserialize_keras_object
    return deserialize_keras_object(name, module_objects=globals(), custom_objects=custom_objects,
                                    printable_module_name="loss function")


def get(identifier):
    """A loss function by name ('mse', 'categorical_crossentropy', ...), a config dict, a Loss object, or a
    callable."""
    if identifier is None:
        return None
    if isinstance(identifier, (str, dict)):
        if isinstance(identifier, str) and identifier in ("get", "serialize", "deserialize"):
            raise ValueError("Unknown loss function:%s" % identifier)
        try:
            return deserialize(identifier)
        except ValueError:
            raise ValueError("Unknown loss function:%s" % (identifier,)) from None
    if callable(identifier):
        return identifier
    raise ValueError("Could not interpret loss function identifier: %s" % (identifier,))
