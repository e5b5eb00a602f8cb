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
from tinyflow.api.metrics_per_class import mean_iou, precision_at_k, recall_at_k, sparse_precision_at_k  # noqa: E402

__all__ += ["mean_iou", "precision_at_k", "recall_at_k", "sparse_precision_at_k"]


# ---- confusion counts and ratios at thresholds, sensitivity / specificity, the means, top-k indices --------------
import numpy as np  # noqa: E402

from tinyflow.api import tf_names as _tf  # noqa: E402
from tinyflow.api.metrics_curves import _confusion_update, _local_vector  # noqa: E402

_KEPSILON = 1e-7
_KINDS = ("tp", "fn", "tn", "fp")


def _counts_at(labels, predictions, thresholds, weights, includes):
    """{kind: (running value, update)} of the confusion counts at each threshold (prediction > threshold)."""
    thresholds = np.asarray(thresholds, np.float32)
    names = {"tp": "true_positives", "fn": "false_negatives", "tn": "true_negatives", "fp": "false_positives"}
    batch = dict(zip(_KINDS, _confusion_update(labels, predictions, weights, thresholds)))
    out = {}
    for kind in includes:
        var = _local_vector(names[kind], len(thresholds))
        out[kind] = (var.value(), _tf.assign_add(var, batch[kind]))
    return out


def _count_at_thresholds(kind, labels, predictions, thresholds, weights, metrics_collections, updates_collections,
                         name):
    with _tf.variable_scope(name, default_name=kind):
        value, update = _counts_at(labels, predictions, thresholds, weights, (kind,))[kind]
        return _collect(value, update, metrics_collections, updates_collections)


def true_positives_at_thresholds(labels, predictions, thresholds, weights=None, metrics_collections=None,
                                 updates_collections=None, name=None):
    return _count_at_thresholds("tp", labels, predictions, thresholds, weights, metrics_collections,
                                updates_collections, name or "true_positives")


def false_positives_at_thresholds(labels, predictions, thresholds, weights=None, metrics_collections=None,
                                  updates_collections=None, name=None):
    return _count_at_thresholds("fp", labels, predictions, thresholds, weights, metrics_collections,
                                updates_collections, name or "false_positives")


def true_negatives_at_thresholds(labels, predictions, thresholds, weights=None, metrics_collections=None,
                                 updates_collections=None, name=None):
    return _count_at_thresholds("tn", labels, predictions, thresholds, weights, metrics_collections,
                                updates_collections, name or "true_negatives")


def false_negatives_at_thresholds(labels, predictions, thresholds, weights=None, metrics_collections=None,
                                  updates_collections=None, name=None):
    return _count_at_thresholds("fn", labels, predictions, thresholds, weights, metrics_collections,
                                updates_collections, name or "false_negatives")


def _ratio_at(other, labels, predictions, thresholds, weights, metrics_collections, updates_collections, name,
              default):
    with _tf.variable_scope(name, default_name=default):
        counts = _counts_at(labels, predictions, thresholds, weights, ("tp", other))
        (tp, tp_up), (ox, ox_up) = counts["tp"], counts[other]
        value = _tf.div(tp, _KEPSILON + tp + ox, name=default.split("_")[0] + "_value")
        update = _tf.div(tp_up, _KEPSILON + tp_up + ox_up, name=default.split("_")[0] + "_update_op")
        return _collect(value, update, metrics_collections, updates_collections)


def precision_at_thresholds(labels, predictions, thresholds, weights=None, metrics_collections=None,
                            updates_collections=None, name=None):
    """tp / (tp + fp) at each threshold, running."""
    return _ratio_at("fp", labels, predictions, thresholds, weights, metrics_collections, updates_collections, name,
                     "precision_at_thresholds")


def recall_at_thresholds(labels, predictions, thresholds, weights=None, metrics_collections=None,
                         updates_collections=None, name=None):
    """tp / (tp + fn) at each threshold, running."""
    return _ratio_at("fn", labels, predictions, thresholds, weights, metrics_collections, updates_collections, name,
                     "recall_at_thresholds")


def _even_thresholds(num_thresholds, last):
    inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - _KEPSILON] + inner + [last]


def sensitivity_at_specificity(labels, predictions, specificity, weights=None, num_thresholds=200,
                               metrics_collections=None, updates_collections=None, name=None):
    """The sensitivity at the threshold whose specificity is closest to `specificity`, running."""
    if specificity < 0 or specificity > 1:
        raise ValueError("`specificity` must be in the range [0, 1].")
    with _tf.variable_scope(name, default_name="sensitivity_at_specificity"):
        counts = _counts_at(labels, predictions, _even_thresholds(num_thresholds, 1.0 + _KEPSILON), weights, _KINDS)

        def compute(tp, fn, tn, fp, name):
            rates = _tf.div(tn, tn + fp + _KEPSILON)
            index = _tf.cast(_tf.argmin(_tf.abs(rates - specificity), 0), _tf.int32)
            return _tf.div(tp[index], tp[index] + fn[index] + _KEPSILON, name=name)
        value = compute(*[counts[k][0] for k in _KINDS], "value")
        update = compute(*[counts[k][1] for k in _KINDS], "update_op")
        return _collect(value, update, metrics_collections, updates_collections)


def specificity_at_sensitivity(labels, predictions, sensitivity, weights=None, num_thresholds=200,
                               metrics_collections=None, updates_collections=None, name=None):
    """The specificity at the (last) threshold whose sensitivity is closest to `sensitivity`, running."""
    if sensitivity < 0 or sensitivity > 1:
        raise ValueError("`sensitivity` must be in the range [0, 1].")
    with _tf.variable_scope(name, default_name="specificity_at_sensitivity"):
        counts = _counts_at(labels, predictions, _even_thresholds(num_thresholds, 1.0 - _KEPSILON), weights, _KINDS)

        def compute(tp, fn, tn, fp, name):
            gaps = _tf.abs(_tf.div(tp, tp + fn + _KEPSILON) - sensitivity)
            at_min = _tf.cast(_tf.equal(gaps, _tf.reduce_min(gaps)), _tf.int64)
            index = _tf.cast(_tf.argmax(_tf.cumsum(at_min), 0), _tf.int32)   # TF: the last of the ties
            return _tf.div(tn[index], tn[index] + fp[index] + _KEPSILON, name=name)
        value = compute(*[counts[k][0] for k in _KINDS], "value")
        update = compute(*[counts[k][1] for k in _KINDS], "update_op")
        return _collect(value, update, metrics_collections, updates_collections)


# ---- the means -----------------------------------------------------------------------------------------------
def mean_per_class_accuracy(labels, predictions, num_classes, weights=None, metrics_collections=None,
                            updates_collections=None, name=None):
    """The mean over classes of the running accuracy of the examples of each class."""
    with _tf.variable_scope(name, default_name="mean_accuracy"):
        labels = _tf.reshape(_tf.cast(labels, _tf.int64), [-1])
        predictions = _tf.cast(_tf.reshape(_tf.convert_to_tensor(predictions), [-1]), _tf.int64)
        total, count = _local_vector("total", num_classes), _local_vector("count", num_classes)
        ones = _tf.cast(_tf.ones_like(labels), _tf.float32)
        correct = _tf.cast(_tf.equal(predictions, labels), _tf.float32)
        if weights is not None:
            w = _tf.reshape(_tf.cast(weights, _tf.float32), [-1])
            correct, ones = correct * w, ones * w
        up_total = _tf.scatter_add(total, labels, ones)
        up_count = _tf.scatter_add(count, labels, correct)
        value = _tf.reduce_mean(_tf.div_no_nan(count.value(), _tf.maximum(total.value(), 0)), name="mean_accuracy")
        update = _tf.div_no_nan(up_count, _tf.maximum(up_total, 0), name="update_op")
        return _collect(value, update, metrics_collections, updates_collections)


def mean_cosine_distance(labels, predictions, dim, weights=None, metrics_collections=None, updates_collections=None,
                         name=None):
    """1 - the running mean of sum(labels * predictions) along `dim` (unit vectors' cosine distance)."""
    radial = _tf.reduce_sum(_tf.cast(predictions, _tf.float32) * _tf.cast(labels, _tf.float32), axis=[dim],
                            keepdims=True)
    value, update = mean(radial, weights, None, None, name or "mean_cosine_distance")
    return _collect(1.0 - value, 1.0 - update, metrics_collections, updates_collections)


def mean_relative_error(labels, predictions, normalizer, weights=None, metrics_collections=None,
                        updates_collections=None, name=None):
    """The running mean of |labels - predictions| / normalizer (0 where the normalizer is 0)."""
    labels, predictions = _tf.cast(labels, _tf.float32), _tf.cast(predictions, _tf.float32)
    normalizer = _tf.cast(normalizer, _tf.float32)
    errors = _tf.where_v2(_tf.equal(normalizer, 0.0), _tf.zeros_like(labels),
                          _tf.div(_tf.abs(labels - predictions), normalizer))
    return mean(errors, weights, metrics_collections, updates_collections, name or "mean_relative_error")


def mean_tensor(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The element-wise running (weighted) mean of `values` (of a fixed shape)."""
    with _tf.variable_scope(name, default_name="mean"):
        values = _tf.cast(values, _tf.float32)
        shape = values.shape.as_list()
        total = _tf.Variable(_tf.zeros(shape, _tf.float32), trainable=False, name="total_tensor",
                             collections=[_tf.GraphKeys.LOCAL_VARIABLES, _tf.GraphKeys.METRIC_VARIABLES])
        count = _tf.Variable(_tf.zeros(shape, _tf.float32), trainable=False, name="count_tensor",
                             collections=[_tf.GraphKeys.LOCAL_VARIABLES, _tf.GraphKeys.METRIC_VARIABLES])
        num = _tf.ones_like(values)
        if weights is not None:
            w = _tf.cast(weights, _tf.float32) * num
            values, num = values * w, num * w
        up_total = _tf.assign_add(total, values)
        with _tf.control_dependencies([values]):
            up_count = _tf.assign_add(count, num)
        value = _tf.div_no_nan(total.value(), _tf.maximum(count.value(), 0), name="value")
        update = _tf.div_no_nan(up_total, _tf.maximum(up_count, 0), name="update_op")
        return _collect(value, update, metrics_collections, updates_collections)


def percentage_below(values, threshold, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The running fraction of values below threshold."""
    below = _tf.cast(_tf.less(values, threshold), _tf.float32)
    return mean(below, weights, metrics_collections, updates_collections, name or "percentage_below_threshold")


# ---- of given top-k indices -------------------------------------------------------------------------------------
def _label_hits(labels, predictions_idx):
    """[batch, k] float64: is the prediction at each rank one of the row's labels; and the rows' label counts."""
    idx = _tf.cast(_tf.convert_to_tensor(predictions_idx), _tf.int64)
    labels = _tf.cast(_tf.convert_to_tensor(labels), _tf.int64)
    if labels.shape.ndims == idx.shape.ndims - 1:
        labels = _tf.expand_dims(labels, -1)
    hits = _tf.reduce_any(_tf.equal(_tf.expand_dims(idx, -1), _tf.expand_dims(labels, -2)), axis=-1)
    # a row's labels are a set (TF's): a label equal to an earlier one of its row does not count again
    n = labels.shape[-1].value
    earlier = _tf.constant(np.tril(np.ones((n, n), bool), -1))
    repeated = _tf.reduce_any(_tf.logical_and(_tf.equal(_tf.expand_dims(labels, -1), _tf.expand_dims(labels, -2)),
                                              earlier), axis=-1)
    valid = _tf.logical_and(_tf.greater_equal(labels, 0), _tf.logical_not(repeated))
    return _tf.cast(hits, _tf.float64), _tf.reduce_sum(_tf.cast(valid, _tf.float64), -1)


def _top_k_ratio(kind, labels, predictions_idx, k, class_id, weights, metrics_collections, updates_collections,
                 name):
    idx = _tf.convert_to_tensor(predictions_idx)
    k = idx.shape[-1].value if k is None else k
    suffix = "at_%d" % k if class_id is None else "at_%d_class%d" % (k, class_id)
    with _tf.variable_scope(name, default_name="%s_%s" % (kind, suffix)):
        idx = _tf.cast(idx, _tf.int64)   # (k only names the metric, as in TF)
        labels = _tf.cast(_tf.convert_to_tensor(labels), _tf.int64)
        if labels.shape.ndims == idx.shape.ndims - 1:
            labels = _tf.expand_dims(labels, -1)
        if class_id is not None:
            top = _tf.reduce_any(_tf.equal(idx, class_id), -1)
            lab = _tf.reduce_any(_tf.equal(labels, class_id), -1)
            hits = _tf.cast(_tf.logical_and(top, lab), _tf.float64)
            misses = _tf.cast(_tf.logical_and(top, _tf.logical_not(lab)) if kind == "precision"
                              else _tf.logical_and(lab, _tf.logical_not(top)), _tf.float64)
        else:
            hit_per_rank, n_labels = _label_hits(labels, idx)
            hits = _tf.reduce_sum(hit_per_rank, -1)
            ranks = _tf.cast(_tf.shape(idx)[-1], _tf.float64)
            misses = (ranks - hits) if kind == "precision" else (n_labels - hits)
        if weights is not None:
            w = _tf.cast(weights, _tf.float64)
            w = _tf.reshape(w, [-1]) if w.shape.ndims and w.shape.ndims > 1 else w
            hits, misses = hits * w, misses * w
        tp = _tf.Variable(_tf.zeros([], _tf.float64), trainable=False, name="true_positive_" + suffix,
                          collections=[_tf.GraphKeys.LOCAL_VARIABLES, _tf.GraphKeys.METRIC_VARIABLES])
        other = _tf.Variable(_tf.zeros([], _tf.float64), trainable=False,
                             name=("false_positive_" if kind == "precision" else "false_negative_") + suffix,
                             collections=[_tf.GraphKeys.LOCAL_VARIABLES, _tf.GraphKeys.METRIC_VARIABLES])
        up_tp, up_other = _tf.assign_add(tp, _tf.reduce_sum(hits)), _tf.assign_add(other, _tf.reduce_sum(misses))
        value = _tf.div(tp.value(), tp.value() + other.value(), name=kind)
        update = _tf.div(up_tp, up_tp + up_other, name="update")
        return _collect(value, update, metrics_collections, updates_collections)


def precision_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None, metrics_collections=None,
                       updates_collections=None, name=None):
    """The running fraction of the given top-k class ids that are labels."""
    return _top_k_ratio("precision", labels, predictions_idx, k, class_id, weights, metrics_collections,
                        updates_collections, name)


def recall_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None, metrics_collections=None,
                    updates_collections=None, name=None):
    """The running fraction of labels among the given top-k class ids."""
    return _top_k_ratio("recall", labels, predictions_idx, k, class_id, weights, metrics_collections,
                        updates_collections, name)


def _average_precision(labels, predictions_idx, k, weights, metrics_collections, updates_collections, name):
    with _tf.variable_scope(name, default_name="average_precision_at_%d" % k):
        hits, _ = _label_hits(labels, predictions_idx)
        labels = _tf.convert_to_tensor(labels)
        n_labels = _tf.cast(1 if labels.shape.ndims == hits.shape.ndims - 1 else _tf.shape(labels)[-1], _tf.float64)
        n_labels = n_labels * _tf.ones_like(hits[..., 0])   # TF: a dense row's label count is its width
        ranks = _tf.cumsum(_tf.ones_like(hits), axis=-1)
        precision_sum = _tf.reduce_sum(_tf.cumsum(hits, axis=-1) / ranks * hits, -1)
        average = _tf.div(precision_sum, _tf.minimum(n_labels, _tf.cast(k, _tf.float64)))
        w = _tf.ones_like(average) if weights is None else _tf.cast(weights, _tf.float64) * _tf.ones_like(average)
        total = _tf.Variable(_tf.zeros([], _tf.float64), trainable=False, name="total",
                             collections=[_tf.GraphKeys.LOCAL_VARIABLES, _tf.GraphKeys.METRIC_VARIABLES])
        count = _tf.Variable(_tf.zeros([], _tf.float64), trainable=False, name="max",
                             collections=[_tf.GraphKeys.LOCAL_VARIABLES, _tf.GraphKeys.METRIC_VARIABLES])
        up_total = _tf.assign_add(total, _tf.reduce_sum(average * w))
        up_count = _tf.assign_add(count, _tf.reduce_sum(w))
        value = _tf.div(total.value(), count.value(), name="mean")
        update = _tf.div(up_total, up_count, name="update")
        return _collect(value, update, metrics_collections, updates_collections)


def sparse_average_precision_at_k(labels, predictions, k, weights=None, metrics_collections=None,
                                  updates_collections=None, name=None):
    """The running mean over rows of the average precision of the top k predictions against the labels."""
    from tinyflow.api import nn
    if k < 1:
        raise ValueError("Invalid k=%s." % k)
    _, idx = nn.top_k(predictions, k)
    return _average_precision(labels, idx, k, weights, metrics_collections, updates_collections,
                              name or "average_precision_at_%d" % k)


average_precision_at_k = sparse_average_precision_at_k

__all__ += ["average_precision_at_k", "false_negatives_at_thresholds", "false_positives_at_thresholds",
            "mean_cosine_distance", "mean_per_class_accuracy", "mean_relative_error", "mean_tensor",
            "percentage_below", "precision_at_thresholds", "precision_at_top_k", "recall_at_thresholds",
            "recall_at_top_k", "sensitivity_at_specificity", "sparse_average_precision_at_k",
            "specificity_at_sensitivity", "true_negatives_at_thresholds", "true_positives_at_thresholds"]
