"""tf.keras.metrics: per-sample metric functions (fit reports their mean over the epoch, as TF 1.15's
stateful metrics do), under the names TF 1.15 logs them ('acc', 'mean_absolute_error', ...)."""
from tinyflow.api.keras import losses as _losses
from tinyflow.api.keras.losses import (binary_crossentropy, categorical_crossentropy, cosine_similarity,  # noqa: F401
                                       hinge, kullback_leibler_divergence, mean_absolute_error,
                                       mean_absolute_percentage_error, mean_squared_error,
                                       mean_squared_logarithmic_error, poisson, sparse_categorical_crossentropy,
                                       squared_hinge, mse, mae, mape, msle, MSE, MAE, MAPE, MSLE, KLD, kld,
                                       logcosh, categorical_hinge)
from tinyflow.ops.core import array_ops, math_ops


def _float(x, like):
    return math_ops.cast(x, like.dtype.base_dtype)


def binary_accuracy(y_true, y_pred, threshold=0.5):
    pred = _float(math_ops.greater(y_pred, threshold), y_pred)
    return math_ops.reduce_mean(_float(math_ops.equal(_float(y_true, y_pred), pred), y_pred), axis=-1)


def categorical_accuracy(y_true, y_pred):
    return _float(math_ops.equal(math_ops.argmax(y_true, -1), math_ops.argmax(y_pred, -1)), y_pred)


def sparse_categorical_accuracy(y_true, y_pred):
    y_true = math_ops.cast(y_true, y_pred.dtype.base_dtype)
    if y_true.shape.ndims is not None and y_pred.shape.ndims is not None and y_true.shape.ndims == y_pred.shape.ndims:
        y_true = array_ops.squeeze(y_true, [-1])
    pred = math_ops.cast(math_ops.argmax(y_pred, -1), y_pred.dtype.base_dtype)
    return _float(math_ops.equal(y_true, pred), y_pred)


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    from tinyflow.api import nn
    return _float(nn.in_top_k(y_pred, math_ops.argmax(y_true, -1), k), y_pred)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    from tinyflow.api import nn
    return _float(nn.in_top_k(y_pred, math_ops.cast(array_ops.reshape(y_true, [-1]), "int32"), k), y_pred)


cosine_proximity = cosine = cosine_similarity
acc = accuracy = None   # resolved by `resolve` from the loss and the output's shape (TF 1.15's rule)


def resolve(metric, loss_fn, output_shape):
    """(name, function) of a compile() metric: 'accuracy' / 'acc' picks binary, sparse or categorical
    accuracy from the loss and the output, logged as 'acc' (TF 1.15); other names log as the function."""
    if metric in ("accuracy", "acc"):
        last = output_shape[-1].value if output_shape.ndims else None
        if last == 1 or loss_fn is _losses.binary_crossentropy:
            return "acc", binary_accuracy
        if loss_fn is _losses.sparse_categorical_crossentropy:
            return "acc", sparse_categorical_accuracy
        return "acc", categorical_accuracy
    if isinstance(metric, MeanMetricWrapper):   # a metric object: its per-sample function, under its name
        fn, kwargs = metric._fn, metric._fn_kwargs
        return metric.name, (lambda t, p: fn(t, p, **kwargs))
    fn = get(metric)
    return getattr(fn, "__name__", str(metric)), fn


def get(identifier):
    if isinstance(identifier, str):
        fn = globals().get(identifier)
        if fn is None or not callable(fn) or identifier.startswith("_") or identifier in (
                "get", "resolve", "serialize", "deserialize"):
            raise ValueError("Unknown metric function:%s" % identifier)
        return fn
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError("Could not interpret metric function identifier: %s" % (identifier,))


from tinyflow.api.keras.metrics_base import (Mean, MeanMetricWrapper, Metric, Sum, _to_tensor,  # noqa: E402,F401
                                             match_weights)


def _wrapper(fn, default_name, doc):
    class Wrapped(MeanMetricWrapper):
        def __init__(self, name=default_name, dtype=None, **kwargs):
            super().__init__(fn, name=name, dtype=dtype, **kwargs)
    Wrapped.__doc__ = doc
    return Wrapped


Accuracy = _wrapper(lambda t, p: _float(math_ops.equal(t, p), p), "accuracy", "How often y_pred equals y_true.")
BinaryAccuracy = _wrapper(binary_accuracy, "binary_accuracy", "How often y_pred > 0.5 matches y_true.")
CategoricalAccuracy = _wrapper(categorical_accuracy, "categorical_accuracy",
                               "How often argmax(y_pred) equals argmax(y_true).")
SparseCategoricalAccuracy = _wrapper(sparse_categorical_accuracy, "sparse_categorical_accuracy",
                                     "How often argmax(y_pred) equals the integer label y_true.")
MeanSquaredError = _wrapper(mean_squared_error, "mean_squared_error", "The mean of (y_true - y_pred)^2.")
MeanAbsoluteError = _wrapper(mean_absolute_error, "mean_absolute_error", "The mean of |y_true - y_pred|.")
for _name in ("Accuracy", "BinaryAccuracy", "CategoricalAccuracy", "SparseCategoricalAccuracy", "MeanSquaredError",
              "MeanAbsoluteError"):
    globals()[_name].__name__ = globals()[_name].__qualname__ = _name


def _wrapper_with_kwargs(class_name, fn, default_name, doc, **defaults):
    """A MeanMetricWrapper class whose fn takes the keyword arguments `defaults` (TF's constructor arguments)."""
    def __init__(self, name=default_name, dtype=None, **kwargs):
        unknown = set(kwargs) - set(defaults)
        if unknown:
            raise TypeError("__init__() got an unexpected keyword argument %r" % sorted(unknown)[0])
        MeanMetricWrapper.__init__(self, fn, name=name, dtype=dtype, **dict(defaults, **kwargs))
    return type(class_name, (MeanMetricWrapper,), {"__init__": __init__, "__doc__": doc, "__module__": __name__,
                                                   "get_config": lambda self: dict(Metric.get_config(self),
                                                                                   **self._fn_kwargs)})


BinaryCrossentropy = _wrapper_with_kwargs("BinaryCrossentropy", binary_crossentropy, "binary_crossentropy",
                                          "The mean binary cross-entropy.", from_logits=False, label_smoothing=0)
CategoricalCrossentropy = _wrapper_with_kwargs("CategoricalCrossentropy", categorical_crossentropy,
                                               "categorical_crossentropy", "The mean categorical cross-entropy.",
                                               from_logits=False, label_smoothing=0)
SparseCategoricalCrossentropy = _wrapper_with_kwargs("SparseCategoricalCrossentropy", sparse_categorical_crossentropy,
                                                     "sparse_categorical_crossentropy",
                                                     "The mean cross-entropy of integer labels.", from_logits=False,
                                                     axis=-1)
CosineSimilarity = _wrapper_with_kwargs("CosineSimilarity", cosine_similarity, "cosine_similarity",
                                        "The mean cosine of the angle between y_true and y_pred.", axis=-1)
Hinge = _wrapper_with_kwargs("Hinge", hinge, "hinge", "The mean hinge loss.")
SquaredHinge = _wrapper_with_kwargs("SquaredHinge", squared_hinge, "squared_hinge", "The mean squared hinge loss.")
CategoricalHinge = _wrapper_with_kwargs("CategoricalHinge", categorical_hinge, "categorical_hinge",
                                        "The mean categorical hinge loss.")
KLDivergence = _wrapper_with_kwargs("KLDivergence", kullback_leibler_divergence, "kullback_leibler_divergence",
                                    "The mean Kullback-Leibler divergence.")
LogCoshError = _wrapper_with_kwargs("LogCoshError", logcosh, "logcosh", "The mean log(cosh(y_pred - y_true)).")
Poisson = _wrapper_with_kwargs("Poisson", poisson, "poisson", "The mean Poisson loss.")
MeanAbsolutePercentageError = _wrapper_with_kwargs("MeanAbsolutePercentageError", mean_absolute_percentage_error,
                                                   "mean_absolute_percentage_error",
                                                   "The mean of 100 |y_true - y_pred| / |y_true|.")
MeanSquaredLogarithmicError = _wrapper_with_kwargs("MeanSquaredLogarithmicError", mean_squared_logarithmic_error,
                                                   "mean_squared_logarithmic_error",
                                                   "The mean of (log(y_pred + 1) - log(y_true + 1))^2.")


class TopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the true class (one-hot) is among the k highest predictions."""

    def __init__(self, k=5, name="top_k_categorical_accuracy", dtype=None):
        super().__init__(top_k_categorical_accuracy, name=name, dtype=dtype, k=k)


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the integer label is among the k highest predictions."""

    def __init__(self, k=5, name="sparse_top_k_categorical_accuracy", dtype=None):
        super().__init__(sparse_top_k_categorical_accuracy, name=name, dtype=dtype, k=k)


from tinyflow.api.keras.metrics_confusion import (AUC, FalseNegatives, FalsePositives, MeanIoU,  # noqa: E402,F401
                                                  MeanRelativeError, MeanTensor, Precision, Recall,
                                                  RootMeanSquaredError, SensitivityAtSpecificity,
                                                  SpecificityAtSensitivity, TrueNegatives, TruePositives)


def serialize(metric):
    from tinyflow.api.keras.generic_utils import serialize_keras_object
    return serialize_keras_object(metric)


def deserialize(config, custom_objects=None):
    from tinyflow.api.keras.generic_utils import deserialize_keras_object
    return deserialize_keras_object(config, module_objects=globals(), custom_objects=custom_objects,
                                    printable_module_name="metric function")
