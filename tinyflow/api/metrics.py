"""tf.metrics: streaming metrics as TF 1.15 builds them. Each returns (value, update_op): update_op
adds a batch to local variables ("accuracy/total", "accuracy/count", in LOCAL_VARIABLES and
METRIC_VARIABLES, reset by tf.local_variables_initializer()), value reads the running result."""
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import GraphKeys, get_default_graph
from tinyflow.ops import state_ops
from tinyflow.ops.core import array_ops, math_ops
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.core.base import convert_to_tensor

__all__ = ["accuracy", "false_negatives", "false_positives", "mean", "mean_absolute_error", "mean_squared_error",
           "precision", "recall", "root_mean_squared_error", "true_negatives", "true_positives"]


def _local(name, dtype=dt.float32):
    """A zero scalar local variable of a metric (TF's metric_variable)."""
    return state_ops.Variable(array_ops.zeros([], dtype), trainable=False, name=name,
                              collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES])


def _safe_div(num, den, name):
    return math_ops.where_v2(math_ops.greater(den, 0), math_ops.div_no_nan(num, den), 0.0 * num, name=name)


def _collect(value, update, metrics_collections, updates_collections):
    graph = get_default_graph()
    for key in metrics_collections or []:
        graph.add_to_collection(key, value)
    for key in updates_collections or []:
        graph.add_to_collection(key, update)
    return value, update


def mean(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The running (weighted) mean of `values`."""
    with vs.variable_scope(name, default_name="mean"):
        values = math_ops.to_float(convert_to_tensor(values))
        total, count = _local("total"), _local("count")
        if weights is None:
            num, den = math_ops.reduce_sum(values), math_ops.to_float(array_ops.size(values))
        else:
            w = math_ops.to_float(convert_to_tensor(weights)) * array_ops.ones_like(values)
            num, den = math_ops.reduce_sum(values * w), math_ops.reduce_sum(w)
        with get_default_graph().control_dependencies([values]):
            update_total, update_count = state_ops.assign_add(total, num), state_ops.assign_add(count, den)
        value = _safe_div(total.value(), count.value(), "value")
        update = _safe_div(update_total, update_count, "update_op")
        return _collect(value, update, metrics_collections, updates_collections)


def accuracy(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The running fraction of predictions equal to labels."""
    labels = convert_to_tensor(labels)
    predictions = math_ops.cast(convert_to_tensor(predictions), labels.dtype)
    correct = math_ops.to_float(math_ops.equal(predictions, labels))
    return mean(correct, weights, metrics_collections, updates_collections, name or "accuracy")


def mean_squared_error(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                       name=None):
    """The running mean of (predictions - labels)**2."""
    err = math_ops.squared_difference(math_ops.to_float(predictions), math_ops.to_float(labels))
    return mean(err, weights, metrics_collections, updates_collections, name or "mean_squared_error")


def mean_absolute_error(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                        name=None):
    """The running mean of |predictions - labels|."""
    err = math_ops.abs(math_ops.to_float(predictions) - math_ops.to_float(labels))
    return mean(err, weights, metrics_collections, updates_collections, name or "mean_absolute_error")


def root_mean_squared_error(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                            name=None):
    """The square root of the running mean squared error."""
    mse, update = mean_squared_error(labels, predictions, weights, None, None, name or "root_mean_squared_error")
    return _collect(math_ops.sqrt(mse), math_ops.sqrt(update), metrics_collections, updates_collections)


def _count(kind, labels, predictions, weights, metrics_collections, updates_collections, name):
    """A running count of the (label, prediction) pairs of one kind, both read as booleans."""
    with vs.variable_scope(name, default_name=kind):
        labels = math_ops.cast(convert_to_tensor(labels), dt.bool_)
        predictions = math_ops.cast(convert_to_tensor(predictions), dt.bool_)
        want_label, want_pred = {"true_positives": (True, True), "false_positives": (False, True),
                                 "true_negatives": (False, False), "false_negatives": (True, False)}[kind]
        hit = math_ops.logical_and(math_ops.equal(labels, want_label), math_ops.equal(predictions, want_pred))
        hit = math_ops.to_float(hit)
        if weights is not None:
            hit = hit * math_ops.to_float(convert_to_tensor(weights))
        count = _local("count")
        update = state_ops.assign_add(count, math_ops.reduce_sum(hit))
        return _collect(array_ops.identity(count.value(), name="value"), update, metrics_collections,
                        updates_collections)


def true_positives(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    return _count("true_positives", labels, predictions, weights, metrics_collections, updates_collections, name)


def false_positives(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    return _count("false_positives", labels, predictions, weights, metrics_collections, updates_collections, name)


def true_negatives(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    return _count("true_negatives", labels, predictions, weights, metrics_collections, updates_collections, name)


def false_negatives(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    return _count("false_negatives", labels, predictions, weights, metrics_collections, updates_collections, name)


def _ratio(labels, predictions, weights, other, metrics_collections, updates_collections, name):
    with vs.variable_scope(name):
        tp, tp_update = true_positives(labels, predictions, weights)
        fx, fx_update = other(labels, predictions, weights)
        value = _safe_div(tp, tp + fx, "value")
        update = _safe_div(tp_update, tp_update + fx_update, "update_op")
        return _collect(value, update, metrics_collections, updates_collections)


def precision(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """true_positives / (true_positives + false_positives), running."""
    return _ratio(labels, predictions, weights, false_positives, metrics_collections, updates_collections,
                  name or "precision")


def recall(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """true_positives / (true_positives + false_negatives), running."""
    return _ratio(labels, predictions, weights, false_negatives, metrics_collections, updates_collections,
                  name or "recall")


from tinyflow.api.metrics_curves import auc  # noqa: E402 (tf.metrics.auc: ROC / PR areas over fixed thresholds)

__all__ += ["auc"]
from tinyflow.api.metrics_extra import mean_iou, precision_at_k, recall_at_k, sparse_precision_at_k  # noqa: E402

__all__ += ["mean_iou", "precision_at_k", "recall_at_k", "sparse_precision_at_k"]
from tinyflow.api.metrics_thresholds import (average_precision_at_k, false_negatives_at_thresholds,  # noqa: E402
                                             false_positives_at_thresholds, mean_cosine_distance,
                                             mean_per_class_accuracy, mean_relative_error, mean_tensor,
                                             percentage_below, precision_at_thresholds, precision_at_top_k,
                                             recall_at_thresholds, recall_at_top_k, sensitivity_at_specificity,
                                             sparse_average_precision_at_k, specificity_at_sensitivity,
                                             true_negatives_at_thresholds, true_positives_at_thresholds)

__all__ += ["average_precision_at_k", "false_negatives_at_thresholds", "false_positives_at_thresholds",
            "mean_cosine_distance", "mean_per_class_accuracy", "mean_relative_error", "mean_tensor",
            "percentage_below", "precision_at_thresholds", "precision_at_top_k", "recall_at_thresholds",
            "recall_at_top_k", "sensitivity_at_specificity", "sparse_average_precision_at_k",
            "specificity_at_sensitivity", "true_negatives_at_thresholds", "true_positives_at_thresholds"]
