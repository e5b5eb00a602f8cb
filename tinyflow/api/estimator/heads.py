"""TF 1.15's public heads (tf.estimator.BinaryClassHead, MultiClassHead, RegressionHead, PoissonRegressionHead,
LogisticRegressionHead, MultiLabelHead, MultiHead): the estimator's v2 heads. They compute the same
per-example losses as the premade estimators' heads (head.py), reduced by default as SUM_OVER_BATCH_SIZE,
and evaluate with Keras metric objects (AUC over 200 thresholds, Precision, Recall, Mean), as TF 1.15's do.
"""
from tinyflow.api import tf_names as _tf
from tinyflow.api.estimator.head import Head, _labels_2d, _reduce, _weights
from tinyflow.api.estimator.model_fn import EstimatorSpec, ModeKeys

# the v2 reductions (Keras' names: tf.compat.v2.losses.Reduction) -> the v1 name compute_weighted_loss takes
_REDUCTION_V1 = {"auto": "weighted_sum_over_batch_size", "sum": "weighted_sum",
                 "sum_over_batch_size": "weighted_sum_over_batch_size"}


def _metric_op(metric, *args, **kwargs):
    """(value, update_op) of a Keras metric, its variables made local (the Scaffold initializes them)."""
    update = metric.update_state(*args, **kwargs)
    for v in metric.variables:
        for key in (_tf.GraphKeys.LOCAL_VARIABLES, _tf.GraphKeys.METRIC_VARIABLES):
            if v not in _tf.get_collection(key):
                _tf.add_to_collection(key, v)
    return metric.result(), update


class _HeadV2(Head):
    """A Head whose eval metrics are Keras metric objects and whose loss may be the user's `loss_fn`."""

    def __init__(self, kind, n_classes=None, label_dimension=1, weight_column=None, label_vocabulary=None,
                 loss_reduction="sum_over_batch_size", loss_fn=None, name=None, thresholds=None):
        if loss_reduction not in _REDUCTION_V1:
            raise ValueError("Invalid loss_reduction: {}. See `tf.losses.Reduction` for valid options."
                             .format(loss_reduction))   # (v1's "weighted_sum" and friends too, as TF 1.15)
        super().__init__(kind, n_classes=n_classes, label_dimension=label_dimension, weight_column=weight_column,
                         label_vocabulary=label_vocabulary, loss_reduction=_REDUCTION_V1[loss_reduction])
        self._loss_reduction_v2, self._loss_fn, self._name = loss_reduction, loss_fn, name
        self._thresholds = tuple(thresholds or ())
        for t in self._thresholds:
            if not 0 < t < 1:
                raise ValueError("thresholds not in (0, 1): {}.".format(self._thresholds))

    name = property(lambda self: self._name)
    loss_reduction = property(lambda self: self._loss_reduction_v2)

    def _suffix(self, key):
        return key if self._name is None else "%s/%s" % (key, self._name)

    def _unreduced_loss(self, labels, logits):
        if self._loss_fn is None:
            return super()._unreduced_loss(labels, logits)
        if self._kind == "multi_class":
            processed = labels
        else:
            processed = _tf.cast(labels, _tf.float32)
        loss = self._loss_fn(labels=processed, logits=logits)
        if loss.shape.ndims == 1:
            loss = _tf.expand_dims(loss, -1)
        return loss, processed

    def loss(self, labels, logits, features=None, mode=None, regularization_losses=None):
        """The training loss (the per-example losses weighted and reduced), plus the regularization losses."""
        labels = _labels_2d(labels, logits, 1 if self._kind not in ("regression", "multi_label")
                            else self._label_dimension)
        unreduced, _ = self._unreduced_loss(labels, logits)
        loss = _reduce(unreduced, _weights(features or {}, self._weight_column, logits), self._reduction)
        return loss if not regularization_losses else _tf.add_n([loss] + list(regularization_losses))

    def predictions(self, logits, keys=None):
        preds = self._predictions(logits)
        return preds if keys is None else {k: preds[k] for k in keys}

    def _metrics(self, labels, predictions, unreduced, weights):
        from tinyflow.api.keras import metrics as km
        w = None if isinstance(weights, float) else weights
        out = {self._suffix("average_loss"): _metric_op(km.Mean(name="average_loss"), unreduced, sample_weight=w)}
        if self._kind in ("regression",):
            out[self._suffix("prediction/mean")] = _metric_op(km.Mean(name="prediction/mean"),
                                                              predictions["predictions"], sample_weight=w)
            out[self._suffix("label/mean")] = _metric_op(km.Mean(name="label/mean"), labels, sample_weight=w)
            return out
        if self._kind == "multi_label":
            probs = predictions["probabilities"]
            out[self._suffix("auc")] = _metric_op(km.AUC(name="auc"), labels, probs, sample_weight=w)
            out[self._suffix("auc_precision_recall")] = _metric_op(km.AUC(curve="PR", name="auc_precision_recall"),
                                                                   labels, probs, sample_weight=w)
            return out
        ids = predictions["class_ids"]
        out[self._suffix("accuracy")] = _metric_op(km.Accuracy(name="accuracy"), labels, ids, sample_weight=w)
        if self._kind == "binary":
            probs = predictions["logistic"]
            label_mean = _metric_op(km.Mean(name="label/mean"), labels, sample_weight=w)
            out[self._suffix("label/mean")] = label_mean
            out[self._suffix("prediction/mean")] = _metric_op(km.Mean(name="prediction/mean"), probs, sample_weight=w)
            out[self._suffix("accuracy_baseline")] = (_tf.maximum(label_mean[0], 1 - label_mean[0]), _tf.no_op())
            out[self._suffix("precision")] = _metric_op(km.Precision(name="precision"), labels, ids, sample_weight=w)
            out[self._suffix("recall")] = _metric_op(km.Recall(name="recall"), labels, ids, sample_weight=w)
            out[self._suffix("auc")] = _metric_op(km.AUC(name="auc"), labels, probs, sample_weight=w)
            out[self._suffix("auc_precision_recall")] = _metric_op(km.AUC(curve="PR", name="auc_precision_recall"),
                                                                   labels, probs, sample_weight=w)
            for t in self._thresholds:
                out[self._suffix("accuracy/positive_threshold_%g" % t)] = _metric_op(
                    km.BinaryAccuracy(threshold=t), labels, probs, sample_weight=w)
                out[self._suffix("precision/positive_threshold_%g" % t)] = _metric_op(
                    km.Precision(thresholds=t), labels, probs, sample_weight=w)
                out[self._suffix("recall/positive_threshold_%g" % t)] = _metric_op(
                    km.Recall(thresholds=t), labels, probs, sample_weight=w)
        return out

    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None, trainable_variables=None,
                              train_op_fn=None, update_ops=None, regularization_losses=None):
        """The EstimatorSpec of `mode`; `optimizer` may be a tf.train or a Keras optimizer."""
        if optimizer is not None and not hasattr(optimizer, "minimize"):   # a Keras optimizer: its updates
            keras_opt, optimizer = optimizer, None
            if train_op_fn is not None:
                raise ValueError("train_op_fn and optimizer cannot both be set.")

            def train_op_fn(loss):
                variables = trainable_variables or _tf.trainable_variables()
                ops = keras_opt.get_updates(loss, variables)
                with _tf.control_dependencies(ops):
                    return _tf.assign_add(_tf.train.get_global_step(), 1).op
        spec = super().create_estimator_spec(features, mode, logits, labels, optimizer=optimizer,
                                             train_op_fn=train_op_fn, regularization_losses=regularization_losses)
        if update_ops and spec.train_op is not None:
            spec = spec._replace(train_op=_tf.group(spec.train_op, *update_ops))
        return spec


class BinaryClassHead(_HeadV2):
    """Sigmoid cross-entropy on one logit; labels 0 / 1 (or from label_vocabulary)."""

    def __init__(self, weight_column=None, thresholds=None, label_vocabulary=None,
                 loss_reduction="sum_over_batch_size", loss_fn=None, name=None):
        super().__init__("binary", n_classes=2, weight_column=weight_column, label_vocabulary=label_vocabulary,
                         loss_reduction=loss_reduction, loss_fn=loss_fn, name=name, thresholds=thresholds)


class MultiClassHead(_HeadV2):
    """Softmax cross-entropy over n_classes logits; integer class-id labels."""

    def __init__(self, n_classes, weight_column=None, label_vocabulary=None, loss_reduction="sum_over_batch_size",
                 loss_fn=None, name=None):
        if n_classes is None or n_classes <= 2:
            raise ValueError("n_classes must be > 2: {}.".format(n_classes))
        super().__init__("multi_class", n_classes=n_classes, weight_column=weight_column,
                         label_vocabulary=label_vocabulary, loss_reduction=loss_reduction, loss_fn=loss_fn,
                         name=name)


class RegressionHead(_HeadV2):
    """Squared error of label_dimension outputs (predictions = inverse_link_fn(logits) when given)."""

    def __init__(self, label_dimension=1, weight_column=None, loss_reduction="sum_over_batch_size", loss_fn=None,
                 inverse_link_fn=None, name=None):
        if label_dimension < 1:
            raise ValueError("Invalid label_dimension {}.".format(label_dimension))
        super().__init__("regression", label_dimension=label_dimension, weight_column=weight_column,
                         loss_reduction=loss_reduction, loss_fn=loss_fn, name=name)
        self._inverse_link_fn = inverse_link_fn

    def _predictions(self, logits):
        if self._inverse_link_fn is None:
            return {"predictions": logits}
        return {"predictions": self._inverse_link_fn(logits), "logits": logits}


class PoissonRegressionHead(RegressionHead):
    """The log-Poisson loss of counts; predictions exp(logits)."""

    def __init__(self, label_dimension=1, weight_column=None, loss_reduction="sum_over_batch_size",
                 compute_full_loss=True, name=None):
        def loss_fn(labels, logits):
            return _tf.nn.log_poisson_loss(targets=labels, log_input=logits, compute_full_loss=compute_full_loss)
        super().__init__(label_dimension, weight_column, loss_reduction, loss_fn=loss_fn, inverse_link_fn=_tf.exp,
                         name=name)


class LogisticRegressionHead(RegressionHead):
    """Sigmoid cross-entropy of labels in [0, 1]; predictions sigmoid(logits)."""

    def __init__(self, weight_column=None, loss_reduction="sum_over_batch_size", name=None):
        def loss_fn(labels, logits):
            return _tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
        super().__init__(1, weight_column, loss_reduction, loss_fn=loss_fn, inverse_link_fn=_tf.sigmoid, name=name)


class MultiLabelHead(_HeadV2):
    """n_classes independent sigmoid cross-entropies (the per-example loss their mean); labels multi-hot."""

    def __init__(self, n_classes, weight_column=None, thresholds=None, label_vocabulary=None,
                 loss_reduction="sum_over_batch_size", loss_fn=None, classes_for_class_based_metrics=None,
                 name=None):
        if n_classes is None or n_classes < 2:
            raise ValueError("n_classes must be > 1 for multi-label classification. Given: {}".format(n_classes))
        super().__init__("multi_label", n_classes=n_classes, label_dimension=n_classes, weight_column=weight_column,
                         label_vocabulary=label_vocabulary, loss_reduction=loss_reduction, loss_fn=loss_fn,
                         name=name, thresholds=thresholds)

    @property
    def logits_dimension(self):
        return self._n_classes

    def _predictions(self, logits):
        with _tf.name_scope("predictions"):
            return {"logits": logits, "probabilities": _tf.sigmoid(logits, name="probabilities")}

    def _unreduced_loss(self, labels, logits):
        labels = _tf.cast(labels, _tf.float32)
        if self._loss_fn is not None:
            loss = self._loss_fn(labels=labels, logits=logits)
        else:
            loss = _tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
        return _tf.reduce_mean(loss, axis=-1, keepdims=True), labels

    def _export_outputs(self, predictions):
        from tinyflow.api.estimator.export import ClassificationOutput, PredictOutput
        names = _tf.constant([str(i).encode() for i in range(self._n_classes)] if self._vocabulary is None
                             else [str(v).encode() for v in self._vocabulary])
        classes = _tf.tile(_tf.expand_dims(names, 0), [_tf.shape(predictions["logits"])[0], 1])
        classify = ClassificationOutput(scores=predictions["probabilities"], classes=classes)
        return {"serving_default": classify, "classification": classify, "predict": PredictOutput(predictions)}


class MultiHead:
    """Several heads over one model: logits a dict {head name: logits} (or concatenated in the heads' order);
    the loss is the weighted sum of the heads' losses, predictions and metrics keyed by head name."""

    def __init__(self, heads, head_weights=None):
        if not heads:
            raise ValueError("Must specify heads. Given: {}".format(heads))
        if head_weights and len(head_weights) != len(heads):
            raise ValueError("heads and head_weights must have the same size. Given len(heads): {}. Given "
                             "len(head_weights): {}.".format(len(heads), len(head_weights)))
        for head in heads:
            if head.name is None:
                raise ValueError("All given heads must have name specified. Given: {}".format(head))
        self._heads, self._head_weights = tuple(heads), tuple(head_weights or [1.0] * len(heads))

    name = property(lambda self: "_".join(h.name for h in self._heads))
    logits_dimension = property(lambda self: sum(h.logits_dimension for h in self._heads))
    loss_reduction = property(lambda self: self._heads[0].loss_reduction)
    label_vocabulary = None

    def _split_logits(self, logits):
        if isinstance(logits, dict):
            return [logits[h.name] for h in self._heads]
        return _tf.split(logits, [h.logits_dimension for h in self._heads], axis=-1)

    def loss(self, labels, logits, features=None, mode=None, regularization_losses=None):
        total = _tf.add_n([w * h.loss(labels[h.name], lg, features, mode)
                           for h, w, lg in zip(self._heads, self._head_weights, self._split_logits(logits))])
        return total if not regularization_losses else _tf.add_n([total] + list(regularization_losses))

    def predictions(self, logits, keys=None):
        out = {}
        for head, lg in zip(self._heads, self._split_logits(logits)):
            for key, value in head.predictions(lg, keys).items():
                out["%s/%s" % (head.name, key)] = value
        return out

    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None, trainable_variables=None,
                              train_op_fn=None, update_ops=None, regularization_losses=None):
        parts = self._split_logits(logits)
        predictions = self.predictions(logits)
        if mode == ModeKeys.PREDICT:
            exports = {}
            for head, lg in zip(self._heads, parts):
                for key, out in head._export_outputs(head._predictions(lg)).items():
                    exports[key if head is self._heads[0] and key == "serving_default" else
                            "%s/%s" % (head.name, key) if key != "serving_default" else head.name] = out
            return EstimatorSpec(mode, predictions=predictions, export_outputs=exports)
        loss = self.loss(labels, logits, features, mode, regularization_losses)
        if mode == ModeKeys.EVAL:
            metrics = {}
            for head, lg in zip(self._heads, parts):
                spec = head.create_estimator_spec(features, mode, lg, labels[head.name])
                metrics.update(spec.eval_metric_ops)
            return EstimatorSpec(mode, predictions=predictions, loss=loss, eval_metric_ops=metrics)
        if optimizer is not None:
            train_op = (optimizer.minimize(loss, global_step=_tf.train.get_global_step())
                        if hasattr(optimizer, "minimize") else None)
            if train_op is None:
                ops = optimizer.get_updates(loss, trainable_variables or _tf.trainable_variables())
                with _tf.control_dependencies(ops):
                    train_op = _tf.assign_add(_tf.train.get_global_step(), 1).op
        elif train_op_fn is not None:
            train_op = train_op_fn(loss)
        else:
            raise ValueError("train_op_fn and optimizer cannot both be None.")
        if update_ops:
            train_op = _tf.group(train_op, *update_ops)
        _tf.summary.scalar("loss", loss)
        return EstimatorSpec(mode, predictions=predictions, loss=loss, train_op=train_op)
