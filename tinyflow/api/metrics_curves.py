"""tf.metrics.auc as TF 1.15 computes it: confusion counts at num_thresholds fixed thresholds in local
variables, then the ROC curve by the trapezoidal rule or the PR curve by careful interpolation."""
import numpy as np

from tinyflow.api import tf_names as _tf

_EPSILON = 1e-7  # TF's kepsilon: thresholds just below 0 and above 1, and the rate denominators


def _local_vector(name, n):
    return _tf.Variable(_tf.zeros([n], _tf.float32), trainable=False, name=name,
                        collections=[_tf.GraphKeys.LOCAL_VARIABLES, _tf.GraphKeys.METRIC_VARIABLES])


def _confusion_update(labels, predictions, weights, thresholds):
    """[T] counts of (tp, fn, tn, fp) in this batch at each threshold (prediction > threshold)."""
    pred = _tf.reshape(_tf.cast(predictions, _tf.float32), [1, -1])
    lab = _tf.reshape(_tf.cast(labels, _tf.bool), [1, -1])
    w = _tf.ones_like(pred) if weights is None else \
        _tf.reshape(_tf.cast(weights, _tf.float32) * _tf.ones_like(_tf.cast(predictions, _tf.float32)), [1, -1])
    above = _tf.greater(pred, _tf.constant(np.reshape(thresholds, [-1, 1]), _tf.float32))   # [T, N]
    pos, neg = _tf.cast(lab, _tf.float32) * w, _tf.cast(_tf.logical_not(lab), _tf.float32) * w
    above = _tf.cast(above, _tf.float32)
    return (_tf.reduce_sum(above * pos, 1), _tf.reduce_sum((1 - above) * pos, 1),
            _tf.reduce_sum((1 - above) * neg, 1), _tf.reduce_sum(above * neg, 1))


def _area(tp, fn, tn, fp, curve, summation_method, n):
    if curve == "ROC":
        x = _tf.div(fp, fp + tn + _EPSILON)
        y = _tf.div(tp + _EPSILON, tp + fn + _EPSILON)
    elif summation_method == "careful_interpolation":
        dtp = tp[:n - 1] - tp[1:]
        p = tp + fp
        slope = _tf.div_no_nan(dtp, p[:n - 1] - p[1:])
        intercept = tp[1:] - slope * p[1:]
        both = _tf.logical_and(_tf.greater(p[:n - 1], 0), _tf.greater(p[1:], 0))
        ratio = _tf.where_v2(both, _tf.div_no_nan(p[:n - 1], _tf.maximum(p[1:], 0)), _tf.ones_like(p[1:]))
        return _tf.reduce_sum(_tf.div_no_nan(slope * (dtp + intercept * _tf.log(ratio)), tp[1:] + fn[1:]))
    else:
        x = _tf.div(tp + _EPSILON, tp + fn + _EPSILON)
        y = _tf.div(tp + _EPSILON, tp + fp + _EPSILON)
    if summation_method in ("trapezoidal", "careful_interpolation"):
        return _tf.reduce_sum((x[:n - 1] - x[1:]) * (y[:n - 1] + y[1:]) / 2.0)
    if summation_method == "minoring":
        return _tf.reduce_sum((x[:n - 1] - x[1:]) * _tf.minimum(y[:n - 1], y[1:]))
    return _tf.reduce_sum((x[:n - 1] - x[1:]) * _tf.maximum(y[:n - 1], y[1:]))


def auc(labels, predictions, weights=None, num_thresholds=200, metrics_collections=None, updates_collections=None,
        curve="ROC", name=None, summation_method="trapezoidal", thresholds=None):
    """The running area under the ROC (or PR) curve of predictions in [0, 1] against boolean labels."""
    if curve not in ("ROC", "PR"):
        raise ValueError('curve must be either ROC or PR, %s unknown' % curve)
    if summation_method not in ("trapezoidal", "careful_interpolation", "minoring", "majoring"):
        raise ValueError("Invalid summation_method: %s" % summation_method)
    if thresholds is None:
        inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        thresholds = [0.0 - _EPSILON] + inner + [1.0 + _EPSILON]
    else:
        thresholds = [0.0 - _EPSILON] + list(thresholds) + [1.0 + _EPSILON]
    n = len(thresholds)
    with _tf.variable_scope(name, default_name="auc"):
        counts = [_local_vector(k, n) for k in ("true_positives", "false_negatives", "true_negatives",
                                                "false_positives")]
        batch = _confusion_update(labels, predictions, weights, np.asarray(thresholds, np.float32))
        updates = [_tf.assign_add(v, b) for v, b in zip(counts, batch)]
        value = _tf.identity(_area(*[v.value() for v in counts], curve, summation_method, n), name="value")
        update = _tf.identity(_area(*updates, curve, summation_method, n), name="update_op")
    for key in metrics_collections or []:
        _tf.add_to_collection(key, value)
    for key in updates_collections or []:
        _tf.add_to_collection(key, update)
    return value, update
