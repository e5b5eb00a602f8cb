"""tf.losses: per-example losses reduced with weights (TF's default reduction averages over the
elements whose weight is non-zero), each added to the LOSSES collection; plus get_total_loss and
the regularization losses.

Losses are computed in float32, as TF does, and cast back to the input dtype.
"""
from tinyflow.api import nn
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import GraphKeys, get_default_graph, name_scope
from tinyflow.ops.core import array_ops, math_ops
from tinyflow.ops.core.base import constant, convert_to_tensor

__all__ = ["Reduction", "absolute_difference", "add_loss", "compute_weighted_loss", "cosine_distance", "get_losses",
           "get_regularization_loss", "get_regularization_losses", "get_total_loss", "hinge_loss", "huber_loss",
           "log_loss", "mean_squared_error", "sigmoid_cross_entropy", "softmax_cross_entropy",
           "sparse_softmax_cross_entropy"]


class Reduction:
    """How compute_weighted_loss reduces the weighted per-element losses."""
    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls):
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE, cls.SUM_OVER_NONZERO_WEIGHTS,
                cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError("Invalid Reduction Key %s." % key)


def _safe_mean(total, count):
    return math_ops.div_no_nan(math_ops.reduce_sum(total), count, name="value")


def _num_present(losses, weights):
    """How many elements of `losses` have a non-zero weight (weights broadcast to the losses)."""
    with name_scope(None, "num_present") as scope:
        present = math_ops.where_v2(math_ops.equal(weights, 0.0), array_ops.zeros_like(weights),
                                    array_ops.ones_like(weights))
        present = math_ops.multiply(present, array_ops.ones_like(losses))
        return math_ops.reduce_sum(present, name=scope)


def _num_elements(losses):
    with name_scope(None, "num_elements") as scope:
        return math_ops.cast(array_ops.size(losses, name=scope), dtype=losses.dtype)


def _check_broadcastable(weights, losses):
    """TF's assert_broadcastable, at build time: weights must be scalar, or same rank with each
    dimension 1 or equal to the loss's."""
    ws, ls = weights.shape, losses.shape
    if ws.ndims is None or ls.ndims is None or ws.ndims == 0:
        return
    ok = ws.ndims == ls.ndims and all(w is None or l is None or w in (1, l)
                                      for w, l in zip(ws.as_list(), ls.as_list()))
    if not ok:
        raise ValueError("weights can not be broadcast to values. values.rank=%d. weights.rank=%d. "
                         "values.shape=%s. weights.shape=%s." % (ls.ndims, ws.ndims, ls, ws))


def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Multiplies `losses` by `weights` and reduces them as `reduction` says; adds the result to
    `loss_collection`."""
    Reduction.validate(reduction)
    with name_scope(scope, "weighted_loss"):
        losses = convert_to_tensor(losses)
        input_dtype = losses.dtype
        losses = math_ops.cast(losses, dt.float32)
        weights = math_ops.cast(convert_to_tensor(weights), dt.float32)
        _check_broadcastable(weights, losses)
        weighted = math_ops.multiply(losses, weights)
        if reduction == Reduction.NONE:
            loss = weighted
        else:
            loss = math_ops.reduce_sum(weighted)
            if reduction == Reduction.MEAN:
                loss = _safe_mean(loss, math_ops.reduce_sum(math_ops.multiply(array_ops.ones_like(losses), weights)))
            elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                loss = _safe_mean(loss, _num_present(losses, weights))
            elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                loss = _safe_mean(loss, _num_elements(losses))
        loss = math_ops.cast(loss, input_dtype)
        add_loss(loss, loss_collection)
        get_default_graph()._last_loss_reduction = reduction   # (tf.distribute.get_loss_reduction reads it)
        return loss


def _prepare(labels, predictions, what=("labels", "predictions"), to_float=True):
    """Both as tensors of one float dtype (float32, or with to_float=False the predictions' own),
    after TF's checks: neither None, shapes compatible."""
    if labels is None:
        raise ValueError("%s must not be None." % what[0])
    if predictions is None:
        raise ValueError("%s must not be None." % what[1])
    predictions = convert_to_tensor(predictions)
    if to_float:
        predictions = math_ops.to_float(predictions)
        labels = math_ops.to_float(convert_to_tensor(labels))
    else:
        labels = math_ops.cast(convert_to_tensor(labels), predictions.dtype)
    if not predictions.shape.is_compatible_with(labels.shape):
        raise ValueError("Shapes %s and %s are incompatible" % (predictions.shape, labels.shape))
    return labels, predictions


def absolute_difference(labels, predictions, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                        reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted |predictions - labels|."""
    with name_scope(scope, "absolute_difference") as scope:
        labels, predictions = _prepare(labels, predictions)
        losses = math_ops.abs(math_ops.subtract(predictions, labels))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def mean_squared_error(labels, predictions, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                       reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted (predictions - labels)**2."""
    with name_scope(scope, "mean_squared_error") as scope:
        labels, predictions = _prepare(labels, predictions)
        losses = math_ops.squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def mean_pairwise_squared_error(labels, predictions, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES):
    """The weighted sum over examples of the mean squared difference of all pairs of (prediction - label)
    of the example: 2 / (n - 1) * sum(d^2) - 2 / (n (n - 1)) * sum(d)^2 over its n present elements."""
    with name_scope(scope, "mean_pairwise_squared_error") as scope:
        labels, predictions = _prepare(labels, predictions)
        weights = math_ops.to_float(convert_to_tensor(weights))
        diffs = math_ops.subtract(predictions, labels)
        axis = list(range(1, diffs.shape.ndims))
        present = math_ops.where_v2(math_ops.equal(weights, 0.0), array_ops.zeros_like(weights),
                                    array_ops.ones_like(weights)) * array_ops.ones_like(diffs)
        n = math_ops.reduce_sum(present, axis=axis, keepdims=True)
        term1 = 2.0 * math_ops.div_no_nan(math_ops.reduce_sum(math_ops.square(diffs), axis=axis, keepdims=True),
                                          math_ops.maximum(n - 1, 0))
        term2 = 2.0 * math_ops.div_no_nan(math_ops.square(math_ops.reduce_sum(diffs, axis=axis, keepdims=True)),
                                          math_ops.maximum(n * (n - 1), 0))
        loss = math_ops.reduce_sum(math_ops.multiply(term1 - term2, weights))
        mean_loss = math_ops.where_v2(math_ops.reduce_sum(n) > 0, loss, array_ops.zeros_like(loss), name="value")
        add_loss(mean_loss, loss_collection)
        return mean_loss


def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """0.5 * e**2 where |e| <= delta, else delta * (|e| - 0.5 * delta); e = predictions - labels."""
    with name_scope(scope, "huber_loss") as scope:
        labels, predictions = _prepare(labels, predictions)
        abs_error = math_ops.abs(math_ops.subtract(predictions, labels))
        quadratic = math_ops.minimum(abs_error, delta)
        # (|e| - q) rather than max(|e| - delta, 0): the gradient at |e| == delta is then TF's.
        linear = math_ops.subtract(abs_error, quadratic)
        losses = math_ops.add(math_ops.multiply(math_ops.multiply(0.5, quadratic), quadratic),
                              math_ops.multiply(delta, linear))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def log_loss(labels, predictions, weights=1.0, epsilon=1e-7, scope=None, loss_collection=GraphKeys.LOSSES,
             reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """-labels * log(p + eps) - (1 - labels) * log(1 - p + eps) for probabilities p."""
    with name_scope(scope, "log_loss") as scope:
        labels, predictions = _prepare(labels, predictions)
        losses = math_ops.subtract(
            math_ops.negative(math_ops.multiply(labels, math_ops.log(math_ops.add(predictions, epsilon)))),
            math_ops.multiply(math_ops.subtract(1.0, labels),
                              math_ops.log(math_ops.add(math_ops.subtract(1.0, predictions), epsilon))))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def cosine_distance(labels, predictions, axis=None, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS, dim=None):
    """1 - sum(labels * predictions, axis) for unit-normalized labels and predictions."""
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("You must specify 'axis'.")
    with name_scope(scope, "cosine_distance_loss") as scope:
        labels, predictions = _prepare(labels, predictions)
        dots = math_ops.reduce_sum(math_ops.multiply(predictions, labels), axis=(axis,), keepdims=True)
        return compute_weighted_loss(math_ops.subtract(1.0, dots), weights, scope, loss_collection,
                                     reduction=reduction)


def hinge_loss(labels, logits, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """max(0, 1 - (2 * labels - 1) * logits) for labels in {0, 1}."""
    with name_scope(scope, "hinge_loss") as scope:
        labels, logits = _prepare(labels, logits, ("labels", "logits"))
        all_ones = array_ops.ones_like(labels)
        labels = math_ops.subtract(math_ops.multiply(2.0, labels), all_ones)
        losses = nn.relu(math_ops.subtract(all_ones, math_ops.multiply(labels, logits)))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Sigmoid cross entropy of logits against 0/1 labels (smoothed towards 1/2 by label_smoothing)."""
    with name_scope(scope, "sigmoid_cross_entropy_loss") as scope:
        labels, logits = _prepare(multi_class_labels, logits, ("multi_class_labels", "logits"), to_float=False)
        if label_smoothing > 0:
            labels = math_ops.add(math_ops.multiply(labels, 1 - label_smoothing), 0.5 * label_smoothing)
        losses = nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Softmax cross entropy of [batch, classes] logits against one-hot labels; label_smoothing
    moves the labels towards 1/num_classes. `weights` is a scalar or per example [batch]."""
    with name_scope(scope, "softmax_cross_entropy_loss") as scope:
        labels, logits = _prepare(onehot_labels, logits, ("onehot_labels", "logits"), to_float=False)
        if label_smoothing > 0:
            num_classes = math_ops.cast(array_ops.shape(labels)[-1], logits.dtype)
            labels = math_ops.add(math_ops.multiply(labels, 1.0 - label_smoothing),
                                  math_ops.divide(constant(label_smoothing, logits.dtype), num_classes))
        labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
        losses = nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                                 reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Softmax cross entropy of [batch, classes] logits against integer class labels [batch]
    (a trailing dimension of size 1 on labels or weights is squeezed)."""
    if labels is None:
        raise ValueError("labels must not be None.")
    if logits is None:
        raise ValueError("logits must not be None.")
    with name_scope(scope, "sparse_softmax_cross_entropy_loss") as scope:
        logits = convert_to_tensor(logits)
        labels = convert_to_tensor(labels)
        weights = convert_to_tensor(weights)
        rank = logits.shape.ndims
        if rank is not None and labels.shape.ndims == rank and labels.shape[-1].value == 1:
            labels = array_ops.squeeze(labels, [-1])
        if rank is not None and weights.shape.ndims == rank and weights.shape[-1].value == 1:
            weights = array_ops.squeeze(weights, [-1])
        losses = nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


# ---- collections ------------------------------------------------------------------------------------
def add_loss(loss, loss_collection=GraphKeys.LOSSES):
    """Adds `loss` to `loss_collection` (nothing when the collection is None)."""
    if loss_collection:
        get_default_graph().add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=GraphKeys.LOSSES):
    """The losses in `loss_collection` (whose names match `scope`)."""
    return get_default_graph().get_collection(loss_collection, scope)


def get_regularization_losses(scope=None):
    """The tensors in REGULARIZATION_LOSSES (whose names match `scope`)."""
    return get_default_graph().get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    """The sum of the regularization losses, or a 0.0 constant when there are none."""
    losses = get_regularization_losses(scope)
    if losses:
        return math_ops.add_n(losses, name=name)
    return constant(0.0)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    """The sum of get_losses() and (by default) the regularization losses."""
    losses = get_losses(scope=scope)
    if add_regularization_losses:
        losses += get_regularization_losses(scope=scope)
    return math_ops.add_n(losses, name=name)
