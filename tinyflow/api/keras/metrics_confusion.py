"""TF 1.15's stateful Keras metrics that are not a mean of per-sample values: the confusion-matrix counts
at thresholds (TruePositives ... Precision, Recall, AUC, SensitivityAtSpecificity, SpecificityAtSensitivity),
MeanIoU, MeanTensor, and the means computed from the state (RootMeanSquaredError, MeanRelativeError).

Their variables belong to no collection, as in TF 1.15; `reset_states()` writes zeros into them (which
also initializes them), and compile(metrics=[...]) runs `update_state` in each step and logs `result()`.
"""
import numpy as np

from tinyflow.api.keras import backend as K
from tinyflow.api.keras.metrics_base import Mean, Metric, _to_tensor, match_weights
from tinyflow.graph.core import get_default_graph
from tinyflow.ops import state_ops
from tinyflow.ops.core import array_ops, math_ops

NEG_INF = -1e10


class _StateMetric(Metric):
    """A Metric whose state is the variables `_weight` made; result() is computed from them."""

    stateful = True   # compile() logs result() after the epoch's updates, not a mean of per-batch values

    def __init__(self, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._weights = []

    def _weight(self, name, shape, dtype="float32"):
        with get_default_graph().name_scope(self.name):
            var = state_ops.Variable(np.zeros(shape, dtype), name=name, trainable=False, collections=[])
        self._weights.append(var)
        return var

    @property
    def variables(self):
        return list(self._weights)

    weights = variables

    def reset_states(self):
        K.batch_set_value([(v, np.zeros(v.shape.as_list())) for v in self.variables])

    def __call__(self, *args, **kwargs):
        update = self.update_state(*args, **kwargs)
        with get_default_graph().control_dependencies([update]):
            return array_ops.identity(self.result())

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


def _group(ops):
    return state_ops.group(*ops)


def _thresholds(thresholds, default):
    thresholds = default if thresholds is None else thresholds
    thresholds = [thresholds] if isinstance(thresholds, (int, float)) else list(thresholds)
    if any(not 0 <= t <= 1 for t in thresholds if t != NEG_INF):
        raise ValueError("Threshold values must be in [0, 1]. Invalid values: {}".format(thresholds))
    return thresholds


def _filter_top_k(x, k):
    """x's entries outside its top k along the last axis set to NEG_INF."""
    from tinyflow.ops.core.sequence_ops import one_hot, top_k
    _, idx = top_k(x, k, sorted=False)
    mask = math_ops.reduce_sum(one_hot(idx, array_ops.shape(x)[-1], axis=-1), axis=-2)
    return x * mask + NEG_INF * (1 - mask)


def update_confusion_matrix_variables(variables, y_true, y_pred, thresholds, top_k=None, class_id=None,
                                      sample_weight=None):
    """Adds the (weighted) counts of true/false positives/negatives at each threshold (a prediction is positive
    when above it) to the variables given {"tp"/"fp"/"tn"/"fn": variable}; returns the grouped update."""
    y_true, y_pred = math_ops.cast(_to_tensor(y_true), "float32"), math_ops.cast(_to_tensor(y_pred), "float32")
    if top_k is not None:
        y_pred = _filter_top_k(y_pred, top_k)
    if class_id is not None:
        y_true, y_pred = y_true[..., class_id], y_pred[..., class_id]
    n = len(thresholds)
    preds = array_ops.reshape(y_pred, [1, -1])
    labels = array_ops.reshape(math_ops.cast(y_true, "bool"), [1, -1])
    count = array_ops.shape(preds)[1]
    pred_is_pos = math_ops.greater(array_ops.tile(preds, [n, 1]),
                                   array_ops.tile(np.array(thresholds, np.float32).reshape(n, 1),
                                                  array_ops.stack([1, count])))
    label_is_pos = array_ops.tile(labels, [n, 1])
    weights = None
    if sample_weight is not None:
        weights = match_weights(sample_weight, y_pred)
        weights = array_ops.tile(array_ops.reshape(weights, [1, -1]), [n, 1])
    conditions = {"tp": (label_is_pos, pred_is_pos), "fn": (label_is_pos, math_ops.logical_not(pred_is_pos)),
                  "tn": (math_ops.logical_not(label_is_pos), math_ops.logical_not(pred_is_pos)),
                  "fp": (math_ops.logical_not(label_is_pos), pred_is_pos)}
    ops = []
    for key, var in variables.items():
        hit = math_ops.cast(math_ops.logical_and(*conditions[key]), "float32")
        ops.append(state_ops.assign_add(var, math_ops.reduce_sum(hit if weights is None else hit * weights, 1)))
    return _group(ops)


class _ConfusionMatrixConditionCount(_StateMetric):
    _condition = None

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.thresholds = _thresholds(thresholds, 0.5)
        self.accumulator = self._weight("accumulator", (len(self.thresholds),))

    def update_state(self, y_true, y_pred, sample_weight=None):
        return update_confusion_matrix_variables({self._condition: self.accumulator}, y_true, y_pred,
                                                 self.thresholds, sample_weight=sample_weight)

    def result(self):
        value = self.accumulator.read_value()
        return value[0] if len(self.thresholds) == 1 else array_ops.identity(value)

    def get_config(self):
        return dict(super().get_config(), thresholds=self.init_thresholds)


def _count_class(class_name, condition, doc):
    return type(class_name, (_ConfusionMatrixConditionCount,), {"_condition": condition, "__doc__": doc,
                                                                  "__module__": __name__})


TruePositives = _count_class("TruePositives", "tp", "The (weighted) number of true positives at each threshold.")
FalsePositives = _count_class("FalsePositives", "fp", "The (weighted) number of false positives at each threshold.")
TrueNegatives = _count_class("TrueNegatives", "tn", "The (weighted) number of true negatives at each threshold.")
FalseNegatives = _count_class("FalseNegatives", "fn", "The (weighted) number of false negatives at each threshold.")


class Precision(_StateMetric):
    """tp / (tp + fp) at each threshold (0.5 by default; with `top_k`, the top k predictions count as positive),
    for the class `class_id` only when given."""

    _kinds = ("tp", "fp")

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds, self.top_k, self.class_id = thresholds, top_k, class_id
        self.thresholds = _thresholds(thresholds, 0.5 if top_k is None else NEG_INF)
        self._vars = {k: self._weight({"tp": "true_positives", "fp": "false_positives",
                                       "fn": "false_negatives"}[k], (len(self.thresholds),)) for k in self._kinds}
        self.true_positives = self._vars["tp"]

    def update_state(self, y_true, y_pred, sample_weight=None):
        return update_confusion_matrix_variables(self._vars, y_true, y_pred, self.thresholds, top_k=self.top_k,
                                                 class_id=self.class_id, sample_weight=sample_weight)

    def result(self):
        tp, other = self._vars["tp"].read_value(), self._vars[self._kinds[1]].read_value()
        value = math_ops.div_no_nan(tp, tp + other)
        return value[0] if len(self.thresholds) == 1 else value

    def get_config(self):
        return dict(super().get_config(), thresholds=self.init_thresholds, top_k=self.top_k, class_id=self.class_id)


class Recall(Precision):
    """tp / (tp + fn) at each threshold, as Precision counts them."""

    _kinds = ("tp", "fn")


def _even_thresholds(num_thresholds):
    return [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]


class _AllCounts(_StateMetric):
    def _make_counts(self, n):
        self.true_positives = self._weight("true_positives", (n,))
        self.true_negatives = self._weight("true_negatives", (n,))
        self.false_positives = self._weight("false_positives", (n,))
        self.false_negatives = self._weight("false_negatives", (n,))

    def update_state(self, y_true, y_pred, sample_weight=None):
        return update_confusion_matrix_variables({"tp": self.true_positives, "tn": self.true_negatives,
                                                  "fp": self.false_positives, "fn": self.false_negatives},
                                                 y_true, y_pred, self.thresholds, sample_weight=sample_weight)

    def _counts(self):
        return [v.read_value() for v in (self.true_positives, self.true_negatives, self.false_positives,
                                    self.false_negatives)]


class _SensitivitySpecificityBase(_AllCounts):
    def __init__(self, value, num_thresholds=200, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        if num_thresholds <= 0:
            raise ValueError("`num_thresholds` must be > 0.")
        self.value, self.num_thresholds = value, num_thresholds
        self._make_counts(num_thresholds)
        self.thresholds = [0.5] if num_thresholds == 1 else [0.0] + _even_thresholds(num_thresholds) + [1.0]

    def _at(self, rate, num, other):
        """num / (num + other) at the threshold where `rate` is closest to the target value."""
        index = math_ops.cast(math_ops.argmin(math_ops.abs(rate - self.value), 0), "int32")
        return math_ops.div_no_nan(num[index], num[index] + other[index])


class SensitivityAtSpecificity(_SensitivitySpecificityBase):
    """The sensitivity (recall) at the threshold whose specificity is closest to `specificity`."""

    def __init__(self, specificity, num_thresholds=200, name=None, dtype=None):
        if specificity < 0 or specificity > 1:
            raise ValueError("`specificity` must be in the range [0, 1].")
        self.specificity = specificity
        super().__init__(specificity, num_thresholds=num_thresholds, name=name, dtype=dtype)

    def result(self):
        tp, tn, fp, fn = self._counts()
        return self._at(math_ops.div_no_nan(tn, tn + fp), tp, fn)

    def get_config(self):
        return dict(super().get_config(), num_thresholds=self.num_thresholds, specificity=self.specificity)


class SpecificityAtSensitivity(_SensitivitySpecificityBase):
    """The specificity at the threshold whose sensitivity is closest to `sensitivity`."""

    def __init__(self, sensitivity, num_thresholds=200, name=None, dtype=None):
        if sensitivity < 0 or sensitivity > 1:
            raise ValueError("`sensitivity` must be in the range [0, 1].")
        self.sensitivity = sensitivity
        super().__init__(sensitivity, num_thresholds=num_thresholds, name=name, dtype=dtype)

    def result(self):
        tp, tn, fp, fn = self._counts()
        return self._at(math_ops.div_no_nan(tp, tp + fn), tn, fp)

    def get_config(self):
        return dict(super().get_config(), num_thresholds=self.num_thresholds, sensitivity=self.sensitivity)


class AUC(_AllCounts):
    """The area under the ROC or PR curve, a Riemann sum over `num_thresholds` thresholds ('interpolation',
    'minoring' or 'majoring'); PR with interpolation uses the Davis & Goadrich interpolation, as TF 1.15."""

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation", name=None, dtype=None,
                 thresholds=None):
        super().__init__(name=name, dtype=dtype)
        self.curve, self.summation_method = str(curve).upper(), str(summation_method).lower()
        if self.curve not in ("ROC", "PR"):
            raise ValueError('Invalid AUC curve value "%s".' % curve)
        if self.summation_method not in ("interpolation", "minoring", "majoring"):
            raise ValueError('Invalid AUC summation method value "%s".' % summation_method)
        if thresholds is not None:
            self.num_thresholds, thresholds = len(thresholds) + 2, sorted(thresholds)
        else:
            if num_thresholds <= 1:
                raise ValueError("`num_thresholds` must be > 1.")
            self.num_thresholds, thresholds = num_thresholds, _even_thresholds(num_thresholds)
        self.thresholds = [0.0 - K.epsilon()] + thresholds + [1.0 + K.epsilon()]
        self._make_counts(self.num_thresholds)

    def _interpolate_pr_auc(self, tp, fp, fn):
        n = self.num_thresholds
        dtp = tp[:n - 1] - tp[1:]
        p = tp + fp
        dp = p[:n - 1] - p[1:]
        prec_slope = math_ops.div_no_nan(dtp, math_ops.maximum(dp, 0))
        intercept = tp[1:] - prec_slope * p[1:]
        from tinyflow.ops.core.indexing_ops import where
        safe_p_ratio = where(math_ops.logical_and(p[:n - 1] > 0, p[1:] > 0),
                             math_ops.div_no_nan(p[:n - 1], math_ops.maximum(p[1:], 0)), array_ops.ones_like(p[1:]))
        return math_ops.reduce_sum(math_ops.div_no_nan(prec_slope * (dtp + intercept * math_ops.log(safe_p_ratio)),
                                                       math_ops.maximum(tp[1:] + fn[1:], 0)))

    def result(self):
        tp, tn, fp, fn = self._counts()
        n = self.num_thresholds
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self._interpolate_pr_auc(tp, fp, fn)
        recall = math_ops.div_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = math_ops.div_no_nan(fp, fp + tn), recall
        else:
            x, y = recall, math_ops.div_no_nan(tp, tp + fp)
        if self.summation_method == "interpolation":
            heights = (y[:n - 1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = math_ops.minimum(y[:n - 1], y[1:])
        else:
            heights = math_ops.maximum(y[:n - 1], y[1:])
        return math_ops.reduce_sum((x[:n - 1] - x[1:]) * heights)

    def get_config(self):
        return dict(super().get_config(), num_thresholds=self.num_thresholds, curve=self.curve,
                    summation_method=self.summation_method, thresholds=self.thresholds[1:-1])


class MeanIoU(_StateMetric):
    """The mean over classes of the intersection-over-union of the predicted and true class ids
    (classes never seen nor predicted do not count)."""

    def __init__(self, num_classes, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.num_classes = num_classes
        self.total_cm = self._weight("total_confusion_matrix", (num_classes, num_classes), "float64")

    def update_state(self, y_true, y_pred, sample_weight=None):
        from tinyflow.ops.segment_ops import confusion_matrix
        y_true = array_ops.reshape(math_ops.cast(_to_tensor(y_true), "float32"), [-1])
        y_pred = array_ops.reshape(math_ops.cast(_to_tensor(y_pred), "float32"), [-1])
        if sample_weight is not None:
            sample_weight = array_ops.reshape(_to_tensor(sample_weight), [-1])
        cm = confusion_matrix(math_ops.cast(y_true, "int64"), math_ops.cast(y_pred, "int64"),
                                      self.num_classes, weights=sample_weight, dtype="float64")
        return state_ops.assign_add(self.total_cm, cm)

    def result(self):
        cm = self.total_cm.read_value()
        rows = math_ops.cast(math_ops.reduce_sum(cm, 0), "float32")
        cols = math_ops.cast(math_ops.reduce_sum(cm, 1), "float32")
        from tinyflow.ops.matrix_ops import matrix_diag_part
        tp = math_ops.cast(matrix_diag_part(cm), "float32")
        denominator = rows + cols - tp
        valid = math_ops.reduce_sum(math_ops.cast(math_ops.not_equal(denominator, 0), "float32"))
        return math_ops.div_no_nan(math_ops.reduce_sum(math_ops.div_no_nan(tp, denominator)), valid)

    def get_config(self):
        return dict(super().get_config(), num_classes=self.num_classes)


class MeanTensor(_StateMetric):
    """The element-wise (weighted) mean of the tensors given so far (all of the first one's shape)."""

    def __init__(self, name="mean_tensor", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._shape = None

    def update_state(self, values, sample_weight=None):
        values = math_ops.cast(_to_tensor(values), "float32")
        if self._shape is None:
            self._shape = values.shape.as_list()
            self.total = self._weight("total", self._shape)
            self.count = self._weight("count", self._shape)
        elif values.shape.as_list() != self._shape:
            raise ValueError("MeanTensor input values must always have the same shape. Expected shape "
                             "(set during the first call): {}. Got: {}".format(self._shape, values.shape.as_list()))
        count = array_ops.ones_like(values)
        if sample_weight is not None:
            weight = match_weights(sample_weight, values)
            values, count = values * weight, weight
        t = state_ops.assign_add(self.total, values)
        with get_default_graph().control_dependencies([t]):
            return state_ops.assign_add(self.count, count)

    def result(self):
        if self._shape is None:
            raise ValueError("MeanTensor does not have any result yet. Please call the MeanTensor instance or use "
                             "`.update_state(value)` before retrieving the result.")
        return math_ops.div_no_nan(self.total.read_value(), self.count.read_value())


class RootMeanSquaredError(Mean):
    """sqrt of the (weighted) mean of (y_pred - y_true)^2."""

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = math_ops.cast(_to_tensor(y_pred), "float32")
        y_true = math_ops.cast(_to_tensor(y_true), "float32")
        return self._add(math_ops.square(y_pred - y_true), sample_weight)

    def _result_of(self, total, count):
        return math_ops.sqrt(math_ops.div_no_nan(total, count))


class MeanRelativeError(Mean):
    """The (weighted) mean of |y_true - y_pred| / normalizer."""

    def __init__(self, normalizer, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.normalizer = math_ops.cast(_to_tensor(normalizer), "float32")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = math_ops.cast(_to_tensor(y_pred), "float32")
        y_true = math_ops.cast(_to_tensor(y_true), "float32")
        return self._add(math_ops.div_no_nan(math_ops.abs(y_true - y_pred), self.normalizer), sample_weight)
