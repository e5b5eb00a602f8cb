"""tf.contrib.metrics (and slim.metrics), TF 1.15: the streaming_* metrics with contrib's argument order
(predictions before labels) over tf.metrics, the ones only contrib has (streaming_covariance,
streaming_pearson_correlation, f1_score, streaming_mean_tensor, ...), and aggregate_metrics /
aggregate_metric_map. Each returns (value, update_op) over local variables, as tf.metrics does."""
import numpy as np

from tinyflow.api import metrics as _m
from tinyflow.api import metrics_curves as _curves
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import get_default_graph
from tinyflow.ops import nn_ops, state_ops
from tinyflow.ops.segment_ops import confusion_matrix  # noqa: F401 (contrib.metrics re-exports it)
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.core import array_ops, math_ops
from tinyflow.ops.core.base import convert_to_tensor

_EPSILON = 1e-7   # TF's epsilon of the rates at thresholds and of f1_score


def streaming_mean(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """tf.metrics.mean."""
    return _m.mean(values, weights, metrics_collections, updates_collections, name)


def _swapped(fn):
    def metric(predictions, labels, weights=None, metrics_collections=None, updates_collections=None, name=None):
        return fn(labels, predictions, weights, metrics_collections, updates_collections, name)
    metric.__doc__ = "tf.metrics.%s with (predictions, labels), as tf.contrib.metrics orders them." % fn.__name__
    metric.__name__ = "streaming_" + fn.__name__
    return metric


streaming_accuracy = _swapped(_m.accuracy)
streaming_mean_squared_error = _swapped(_m.mean_squared_error)
streaming_mean_absolute_error = _swapped(_m.mean_absolute_error)
streaming_root_mean_squared_error = _swapped(_m.root_mean_squared_error)
streaming_precision = _swapped(_m.precision)
streaming_recall = _swapped(_m.recall)
streaming_true_positives = _swapped(_m.true_positives)
streaming_false_positives = _swapped(_m.false_positives)
streaming_true_negatives = _swapped(_m.true_negatives)
streaming_false_negatives = _swapped(_m.false_negatives)


def streaming_auc(predictions, labels, weights=None, num_thresholds=200, metrics_collections=None,
                  updates_collections=None, curve="ROC", name=None):
    """tf.metrics.auc with (predictions, labels)."""
    return _curves.auc(labels, predictions, weights, num_thresholds, metrics_collections, updates_collections,
                       curve, name)


def accuracy(predictions, labels, weights=None, name=None):
    """The (weighted) fraction of predictions equal to labels: one tensor, not a streaming metric."""
    predictions, labels = convert_to_tensor(predictions), convert_to_tensor(labels)
    if predictions.dtype != labels.dtype:
        raise ValueError("Dtypes of predictions and labels should match. Given: predictions (%r) and labels (%r)"
                         % (predictions.dtype, labels.dtype))
    with get_default_graph().name_scope(name or "accuracy"):
        correct = math_ops.to_float(math_ops.equal(predictions, labels))
        if weights is None:
            return math_ops.reduce_mean(correct)
        w = math_ops.to_float(convert_to_tensor(weights)) * array_ops.ones_like(correct)
        return math_ops.div(math_ops.reduce_sum(correct * w), math_ops.reduce_sum(w))


def _zeros_local(name, shape, dtype=dt.float32):
    return state_ops.Variable(array_ops.zeros(shape, dtype), trainable=False, name=name,
                              collections=[_m.GraphKeys.LOCAL_VARIABLES, _m.GraphKeys.METRIC_VARIABLES])


def streaming_mean_tensor(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The element-wise running (weighted) mean of `values` (a tensor of their shape)."""
    with vs.variable_scope(name, default_name="mean"):
        values = math_ops.to_float(convert_to_tensor(values))
        if not values.shape.is_fully_defined():
            raise ValueError("streaming_mean_tensor needs values of a fully defined shape, got %s" % values.shape)
        shape = values.shape.as_list()
        total, count = _zeros_local("total_tensor", shape), _zeros_local("count_tensor", shape)
        num = array_ops.ones_like(values)
        if weights is not None:
            w = math_ops.to_float(convert_to_tensor(weights)) * num
            values, num = values * w, w
        update_total, update_count = state_ops.assign_add(total, values), state_ops.assign_add(count, num)
        value = math_ops.div_no_nan(total.value(), count.value(), name="value")
        update = math_ops.div_no_nan(update_total, update_count, name="update_op")
    return _m._collect(value, update, metrics_collections, updates_collections)


def streaming_percentage_less(values, threshold, weights=None, metrics_collections=None, updates_collections=None,
                              name=None):
    """The running (weighted) fraction of `values` below `threshold` (tf.metrics.percentage_below)."""
    with get_default_graph().name_scope(name or "percentage_below_threshold"):
        below = math_ops.to_float(math_ops.less(convert_to_tensor(values), threshold))
    return _m.mean(below, weights, metrics_collections, updates_collections, name or "percentage_below_threshold")


def streaming_mean_relative_error(predictions, labels, normalizer, weights=None, metrics_collections=None,
                                  updates_collections=None, name=None):
    """The running mean of |labels - predictions| / normalizer (0 where the normalizer is 0)."""
    predictions, labels = _float_pair(predictions, labels)
    normalizer = math_ops.to_float(convert_to_tensor(normalizer))
    zero = math_ops.equal(normalizer, 0.0)
    errors = math_ops.where_v2(zero, array_ops.zeros_like(labels),
                               math_ops.div(math_ops.abs(labels - predictions),
                                            math_ops.where_v2(zero, array_ops.ones_like(normalizer), normalizer)))
    return _m.mean(errors, weights, metrics_collections, updates_collections, name or "mean_relative_error")


def streaming_mean_cosine_distance(predictions, labels, dim, weights=None, metrics_collections=None,
                                   updates_collections=None, name=None):
    """1 - the running mean of sum(predictions * labels, dim): both are expected unit-normalized along dim."""
    products = math_ops.multiply(convert_to_tensor(predictions), convert_to_tensor(labels))
    radial = math_ops.reduce_sum(products, axis=[dim], keepdims=True)
    value, update = _m.mean(radial, weights, None, None, name or "mean_cosine_distance")
    return _m._collect(math_ops.subtract(1.0, value), math_ops.subtract(1.0, update), metrics_collections,
                       updates_collections)


def streaming_recall_at_k(predictions, labels, k, weights=None, metrics_collections=None, updates_collections=None,
                          name=None):
    """The running fraction of rows whose label is among the top `k` predictions (in_top_k)."""
    hits = nn_ops.in_top_k(predictions, labels, k)
    return _m.mean(math_ops.to_float(hits), weights, metrics_collections, updates_collections,
                   name or "recall_at_%d" % k)


def _covariance_vars(predictions, labels, weights):
    """(value, update) of the running unbiased covariance, merged batch by batch as TF does (Chan et al.)."""
    count = _m._local("count")
    mean_p, mean_l, comoment = _m._local("mean_prediction"), _m._local("mean_label"), _m._local("comoment")
    if weights is None:
        batch_count = math_ops.to_float(array_ops.size(labels))
        wp, wl = predictions, labels
    else:
        weights = math_ops.to_float(weights) * array_ops.ones_like(labels)
        batch_count = math_ops.reduce_sum(weights)
        wp, wl = predictions * weights, labels * weights
    update_count = state_ops.assign_add(count, batch_count)
    prev_count = update_count - batch_count
    batch_mean_p = math_ops.div_no_nan(math_ops.reduce_sum(wp), batch_count)
    delta_p = math_ops.div_no_nan((batch_mean_p - mean_p.value()) * batch_count, update_count)
    update_mean_p = state_ops.assign_add(mean_p, delta_p)
    prev_mean_p = update_mean_p - delta_p
    batch_mean_l = math_ops.div_no_nan(math_ops.reduce_sum(wl), batch_count)
    delta_l = math_ops.div_no_nan((batch_mean_l - mean_l.value()) * batch_count, update_count)
    update_mean_l = state_ops.assign_add(mean_l, delta_l)
    prev_mean_l = update_mean_l - delta_l
    residuals = (predictions - batch_mean_p) * (labels - batch_mean_l)
    batch_comoment = math_ops.reduce_sum(residuals if weights is None else residuals * weights)
    delta = batch_comoment + (prev_mean_p - batch_mean_p) * (prev_mean_l - batch_mean_l) * (
        prev_count * batch_count / update_count)
    update_comoment = state_ops.assign_add(comoment, delta)

    def covariance(c, n, name):
        return math_ops.where_v2(math_ops.less_equal(n, 1.0), np.float32("nan"), math_ops.div(c, n - 1), name=name)
    return (covariance(comoment.value(), count.value(), "covariance"),
            covariance(update_comoment, update_count, "update_op"))


def _float_pair(predictions, labels):
    predictions = math_ops.to_float(convert_to_tensor(predictions))
    labels = math_ops.to_float(convert_to_tensor(labels))
    predictions.shape.assert_is_compatible_with(labels.shape)
    return predictions, labels


def streaming_covariance(predictions, labels, weights=None, metrics_collections=None, updates_collections=None,
                         name=None):
    """The running unbiased (weighted) covariance of predictions and labels (NaN until 2 samples)."""
    with vs.variable_scope(name, default_name="covariance"):
        predictions, labels = _float_pair(predictions, labels)
        value, update = _covariance_vars(predictions, labels, weights)
    return _m._collect(value, update, metrics_collections, updates_collections)


def streaming_pearson_correlation(predictions, labels, weights=None, metrics_collections=None,
                                  updates_collections=None, name=None):
    """The running Pearson correlation: cov(p, l) / sqrt(var(p) var(l)), each streamed as TF streams it."""
    with vs.variable_scope(name, default_name="pearson_r"):
        predictions, labels = _float_pair(predictions, labels)
        cov, update_cov = streaming_covariance(predictions, labels, weights, name="covariance")
        var_p, update_var_p = streaming_covariance(predictions, predictions, weights, name="variance_predictions")
        var_l, update_var_l = streaming_covariance(labels, labels, weights, name="variance_labels")
        value = math_ops.div(cov, math_ops.sqrt(var_p) * math_ops.sqrt(var_l), name="pearson_r")
        update = math_ops.div(update_cov, math_ops.sqrt(update_var_p) * math_ops.sqrt(update_var_l), name="update_op")
    return _m._collect(value, update, metrics_collections, updates_collections)


def _at_thresholds(labels, predictions, weights, thresholds, default_name, name):
    """({tp, fn, tn, fp}: value [T]) and the same of update ops, counted at each threshold."""
    n = len(thresholds)
    with vs.variable_scope(name, default_name=default_name):
        keys = ("tp", "fn", "tn", "fp")
        counts = [_curves._local_vector(k, n) for k in ("true_positives", "false_negatives", "true_negatives",
                                                         "false_positives")]
        batch = _curves._confusion_update(labels, predictions, weights, np.asarray(thresholds, np.float32))
        updates = [state_ops.assign_add(v, b) for v, b in zip(counts, batch)]
        return dict(zip(keys, [v.value() for v in counts])), dict(zip(keys, updates))


def f1_score(labels, predictions, weights=None, num_thresholds=200, metrics_collections=None,
             updates_collections=None, name=None):
    """The best F1 score over num_thresholds evenly spaced thresholds (note: labels first, as in TF)."""
    thresholds = [-_EPSILON] + [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)] + \
        [1.0 + _EPSILON]
    values, updates = _at_thresholds(labels, predictions, weights, thresholds, "f1", name)

    def best(c, name):
        precision = math_ops.div(c["tp"], _EPSILON + c["tp"] + c["fp"], name="precision_" + name)
        recall = math_ops.div(c["tp"], _EPSILON + c["tp"] + c["fn"], name="recall_" + name)
        return math_ops.reduce_max(2.0 * precision * recall / (precision + recall + _EPSILON))
    return _m._collect(best(values, "value"), best(updates, "update"), metrics_collections, updates_collections)


def _rate_at_thresholds(kind):
    def metric(predictions, labels, thresholds, weights=None, metrics_collections=None, updates_collections=None,
               name=None):
        values, updates = _at_thresholds(labels, predictions, weights, thresholds, kind + "_at_thresholds", name)

        def rate(c, name):
            other = c["fp"] if kind == "precision" else c["fn"]
            return math_ops.div(c["tp"], _EPSILON + c["tp"] + other, name=name)
        return _m._collect(rate(values, kind), rate(updates, "update_op"), metrics_collections, updates_collections)
    metric.__name__ = "streaming_%s_at_thresholds" % kind
    metric.__doc__ = "The running %s at each of `thresholds` (prediction > threshold is positive)." % kind
    return metric


streaming_precision_at_thresholds = _rate_at_thresholds("precision")
streaming_recall_at_thresholds = _rate_at_thresholds("recall")


def _count_at_thresholds(key, default_name):
    def metric(predictions, labels, weights=None, thresholds=None, metrics_collections=None,
               updates_collections=None, name=None):
        values, updates = _at_thresholds(labels, predictions, weights, thresholds, default_name, name)
        return _m._collect(values[key], updates[key], metrics_collections, updates_collections)
    metric.__name__ = "streaming_%s_at_thresholds" % default_name
    metric.__doc__ = "The running weighted count of %s at each of `thresholds`." % default_name
    return metric


streaming_true_positives_at_thresholds = _count_at_thresholds("tp", "true_positives")
streaming_false_negatives_at_thresholds = _count_at_thresholds("fn", "false_negatives")
streaming_true_negatives_at_thresholds = _count_at_thresholds("tn", "true_negatives")
streaming_false_positives_at_thresholds = _count_at_thresholds("fp", "false_positives")


def _rate(kind, first, other):
    def metric(predictions, labels, weights=None, metrics_collections=None, updates_collections=None, name=None):
        with vs.variable_scope(name, default_name=kind):
            a, update_a = first(labels, predictions, weights)
            b, update_b = other(labels, predictions, weights)

            def ratio(x, y, name):
                return math_ops.where_v2(math_ops.greater(x + y, 0), math_ops.div_no_nan(x, x + y), 0.0, name=name)
            value, update = ratio(a, b, "value"), ratio(update_a, update_b, "update_op")
        return _m._collect(value, update, metrics_collections, updates_collections)
    metric.__name__ = "streaming_" + kind
    metric.__doc__ = "The running %s of boolean predictions against labels." % kind.replace("_", " ")
    return metric


streaming_false_positive_rate = _rate("false_positive_rate", _m.false_positives, _m.true_negatives)
streaming_false_negative_rate = _rate("false_negative_rate", _m.false_negatives, _m.true_positives)


def _from_tf_metrics(tf_name, contrib_name, extra):
    """A contrib metric that is tf.metrics.<tf_name> with (predictions, labels) (the op itself lives there)."""
    def metric(predictions, labels, *args, **kwargs):
        fn = getattr(_m, tf_name, None)
        if fn is None:
            raise NotImplementedError("tf.contrib.metrics.%s needs tf.metrics.%s, which tinyflow does not have yet"
                                      % (contrib_name, tf_name))
        return fn(labels, predictions, *args, **kwargs)
    metric.__name__ = contrib_name
    metric.__doc__ = "tf.metrics.%s with (predictions, labels, %s, ...)." % (tf_name, extra)
    return metric


streaming_sparse_precision_at_k = _from_tf_metrics("precision_at_k", "streaming_sparse_precision_at_k", "k")
streaming_sparse_recall_at_k = _from_tf_metrics("recall_at_k", "streaming_sparse_recall_at_k", "k")
streaming_sparse_average_precision_at_k = _from_tf_metrics("average_precision_at_k",
                                                           "streaming_sparse_average_precision_at_k", "k")
streaming_mean_iou = _from_tf_metrics("mean_iou", "streaming_mean_iou", "num_classes")


def aggregate_metrics(*value_update_tuples):
    """([values], [update ops]) of (value, update) pairs."""
    if not value_update_tuples:
        raise ValueError("Expected at least one value_tensor/update_op pair")
    values, updates = zip(*value_update_tuples)
    return list(values), list(updates)


def aggregate_metric_map(names_to_tuples):
    """({name: value}, {name: update op}) of {name: (value, update)}."""
    names = list(names_to_tuples)
    values, updates = aggregate_metrics(*[names_to_tuples[n] for n in names])
    return dict(zip(names, values)), dict(zip(names, updates))


__all__ = sorted(n for n in dir() if n.startswith("streaming_")) + [
    "accuracy", "aggregate_metric_map", "aggregate_metrics", "confusion_matrix", "f1_score"]
