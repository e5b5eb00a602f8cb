"""slim.losses (tf.contrib.losses, TF 1.15): the deprecated loss functions with their own argument
order (logits/predictions first), mapped to tf.losses; each adds its loss to the LOSSES collection."""
from tinyflow.api import losses as _tf

add_loss = _tf.add_loss
get_losses = _tf.get_losses
get_regularization_losses = _tf.get_regularization_losses


def get_total_loss(add_regularization_losses=True, name="total_loss"):
    """The sum of the LOSSES collection, plus the regularization losses."""
    return _tf.get_total_loss(add_regularization_losses=add_regularization_losses, name=name)


def compute_weighted_loss(losses, weights=1.0, scope=None):
    return _tf.compute_weighted_loss(losses, weights, scope=scope)


def softmax_cross_entropy(logits, onehot_labels, weights=1.0, label_smoothing=0, scope=None):
    return _tf.softmax_cross_entropy(onehot_labels, logits, weights, label_smoothing, scope=scope)


def sparse_softmax_cross_entropy(logits, labels, weights=1.0, scope=None):
    return _tf.sparse_softmax_cross_entropy(labels, logits, weights, scope=scope)


def sigmoid_cross_entropy(logits, multi_class_labels, weights=1.0, label_smoothing=0, scope=None):
    return _tf.sigmoid_cross_entropy(multi_class_labels, logits, weights, label_smoothing, scope=scope)


def mean_squared_error(predictions, labels=None, weights=1.0, scope=None):
    return _tf.mean_squared_error(labels, predictions, weights, scope=scope)


def absolute_difference(predictions, labels=None, weights=1.0, scope=None):
    return _tf.absolute_difference(labels, predictions, weights, scope=scope)


def log_loss(predictions, labels=None, weights=1.0, epsilon=1e-7, scope=None):
    return _tf.log_loss(labels, predictions, weights, epsilon, scope=scope)


def hinge_loss(logits, labels=None, scope=None):
    return _tf.hinge_loss(labels, logits, scope=scope)


def cosine_distance(predictions, labels=None, axis=None, weights=1.0, scope=None, dim=None):
    return _tf.cosine_distance(labels, predictions, axis if axis is not None else dim, weights, scope=scope)


__all__ = ["add_loss", "get_losses", "get_regularization_losses", "get_total_loss", "compute_weighted_loss",
           "softmax_cross_entropy", "sparse_softmax_cross_entropy", "sigmoid_cross_entropy", "mean_squared_error",
           "absolute_difference", "log_loss", "hinge_loss", "cosine_distance"]
