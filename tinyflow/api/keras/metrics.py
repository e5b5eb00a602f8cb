"""tf.keras.metrics: per-sample metric functions (fit reports their mean over the epoch, as TF 1.15's
stateful metrics do), under the names TF 1.15 logs them ('acc', 'mean_absolute_error', ...)."""
from tinyflow.api.keras import losses as _losses
from tinyflow.api.keras.losses import (binary_crossentropy, categorical_crossentropy, cosine_similarity,  # noqa: F401
                                       hinge, kullback_leibler_divergence, mean_absolute_error,
                                       mean_absolute_percentage_error, mean_squared_error,
                                       mean_squared_logarithmic_error, poisson, sparse_categorical_crossentropy,
                                       squared_hinge, mse, mae, mape, msle)
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
    fn = get(metric)
    return getattr(fn, "__name__", str(metric)), fn


def get(identifier):
    if isinstance(identifier, str):
        fn = globals().get(identifier)
        if fn is None or not callable(fn) or identifier.startswith("_") or identifier in ("get", "resolve"):
            raise ValueError("Unknown metric function:%s" % identifier)
        return fn
    if callable(identifier):
        return identifier
    raise ValueError("Could not interpret metric function identifier: %s" % (identifier,))
