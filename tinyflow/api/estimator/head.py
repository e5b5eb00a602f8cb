"""The heads of TF 1.15's premade estimators: logits -> loss, train_op, predictions and eval metrics.

- multi-class (n_classes > 2): sparse softmax cross entropy;
- binary (n_classes == 2): sigmoid cross entropy on one logit;
- regression: squared error on label_dimension logits.

The training loss is the per-example loss times its weight, reduced by `loss_reduction`: TF 1.15's
v1 estimators default to SUM (tf.losses.Reduction.SUM, "weighted_sum"). The eval metric
"average_loss" is the weighted mean of the per-example loss; the Estimator adds "loss", the mean of
the training loss over eval batches.
"""
import numpy as np

from tinyflow.api import metrics
from tinyflow.api import tf_names as _tf
from tinyflow.api.metrics_curves import auc
from tinyflow.api.estimator.model_fn import EstimatorSpec, ModeKeys

_REDUCTIONS = ("weighted_sum", "weighted_sum_over_batch_size", "weighted_mean", "weighted_sum_by_nonzero_weights",
               "weighted_sum_over_nonzero_weights", "weighted_mean", "sum_over_batch_size")


def _weights(features, weight_column, logits):
    if weight_column is None:
        return 1.0
    key = weight_column if isinstance(weight_column, str) else weight_column.key
    w = _tf.cast(features[key], _tf.float32)
    return _tf.reshape(w, [-1, 1]) if w.shape.ndims == 1 else w


def _labels_2d(labels, logits, dimension):
    if labels is None:
        raise ValueError("You must provide a labels Tensor. Given: None. Suggested troubleshooting steps: Check "
                         "that your data contain your label feature. Check that your input_fn properly parses and "
                         "returns labels.")
    if isinstance(labels, dict):
        raise ValueError("labels must be a Tensor, not a dict, for a premade estimator's head.")
    labels = _tf.convert_to_tensor(labels)
    if labels.shape.ndims == 1:
        labels = _tf.expand_dims(labels, -1)
    last = labels.shape.as_list()[-1] if labels.shape.ndims else None
    if last is not None and last != dimension:
        raise ValueError("Mismatched label shape. Expected labels dimension={}.  Received {}. Suggested Fix:If your "
                         "classifier expects one-hot encoding label,check your n_classes argument to the estimator "
                         "and/or the shape of your label.Otherwise, check the shape of your label.".format(dimension,
                                                                                                         last))
    return labels


def _reduce(loss, weights, reduction):
    """tf.losses.compute_weighted_loss without adding to the LOSSES collection."""
    return _tf.losses.compute_weighted_loss(loss, weights, reduction=reduction, loss_collection=None)


def _as_bytes(vocabulary):
    """Class names as TF's string tensors give them: bytes."""
    return [v if isinstance(v, bytes) else str(v).encode() for v in vocabulary]


def _classes_fn(vocabulary):
    def classes(batch):
        ids = np.asarray(batch["class_ids"])
        if vocabulary is None:
            return np.vectorize(lambda i: str(i).encode())(ids).astype(object)
        return np.asarray(_as_bytes(vocabulary), dtype=object)[ids]
    classes.needs = ("class_ids",)
    return classes


def _all_classes_fn(vocabulary, n):
    def all_classes(batch):
        names = _as_bytes(vocabulary) if vocabulary is not None else [str(i).encode() for i in range(n)]
        return np.tile(np.asarray(names, dtype=object)[None], [len(batch["all_class_ids"]), 1])
    all_classes.needs = ("all_class_ids",)
    return all_classes


class Head:
    """One head: `create_estimator_spec(features, mode, logits, labels, optimizer / train_op_fn)`."""

    def __init__(self, kind, n_classes=None, label_dimension=1, weight_column=None, label_vocabulary=None,
                 loss_reduction="weighted_sum"):
        if loss_reduction not in _REDUCTIONS or loss_reduction == "none":
            raise ValueError("Invalid loss_reduction: {}".format(loss_reduction))
        if label_vocabulary is not None and n_classes is not None and len(label_vocabulary) != n_classes:
            raise ValueError("label_vocabulary does not have enough elements: {}".format(label_vocabulary))
        self._kind, self._n_classes, self._weight_column = kind, n_classes, weight_column
        self._label_dimension, self._vocabulary, self._reduction = label_dimension, label_vocabulary, loss_reduction

    label_vocabulary = property(lambda self: self._vocabulary)

    @property
    def logits_dimension(self):
        if self._kind == "multi_class":
            return self._n_classes
        return 1 if self._kind == "binary" else self._label_dimension

    # ---- per-kind pieces -----------------------------------------------------------------------------
    def _predictions(self, logits):
        if self._kind == "regression":
            return {"predictions": logits}
        with _tf.name_scope("predictions"):
            if self._kind == "binary":
                logistic = _tf.sigmoid(logits, name="logistic")
                probabilities = _tf.nn.softmax(_tf.concat([_tf.zeros_like(logits), logits], 1), name="probabilities")
                class_ids = _tf.expand_dims(_tf.argmax(_tf.concat([_tf.zeros_like(logits), logits], 1), 1), -1)
                out = {"logits": logits, "logistic": logistic, "probabilities": probabilities, "class_ids": class_ids}
            else:
                out = {"logits": logits, "probabilities": _tf.nn.softmax(logits, name="probabilities"),
                       "class_ids": _tf.expand_dims(_tf.argmax(logits, 1, name="class_ids"), -1)}
            n = 2 if self._kind == "binary" else self._n_classes
            out["all_class_ids"] = _tf.tile(_tf.expand_dims(_tf.range(n), 0), [_tf.shape(logits)[0], 1])
            out["classes"] = _classes_fn(self._vocabulary)
            out["all_classes"] = _all_classes_fn(self._vocabulary, n)
            return out

    def _unreduced_loss(self, labels, logits):
        if self._kind == "multi_class":
            if not labels.dtype.is_integer:
                raise ValueError("Labels dtype should be integer. Instead got {}.".format(labels.dtype))
            ids = _tf.reshape(labels, [-1])
            loss = _tf.nn.sparse_softmax_cross_entropy_with_logits(labels=ids, logits=logits)
            return _tf.expand_dims(loss, -1), labels
        if self._kind == "binary":
            labels = _tf.cast(labels, _tf.float32)
            return _tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits), labels
        labels = _tf.cast(labels, _tf.float32)
        return _tf.squared_difference(logits, labels), labels

    def _metrics(self, labels, predictions, unreduced, weights):
        w = None if isinstance(weights, float) else weights
        out = {"average_loss": metrics.mean(unreduced, w, name="average_loss")}
        if self._kind == "regression":
            out["label/mean"] = metrics.mean(labels, w, name="label/mean")
            out["prediction/mean"] = metrics.mean(predictions["predictions"], w, name="prediction/mean")
            return out
        out["accuracy"] = metrics.accuracy(labels, predictions["class_ids"], w, name="accuracy")
        if self._kind == "binary":
            probs = predictions["logistic"]
            label_mean = metrics.mean(labels, w, name="label/mean")
            out["label/mean"] = label_mean
            out["prediction/mean"] = metrics.mean(probs, w, name="prediction/mean")
            out["accuracy_baseline"] = (_tf.maximum(label_mean[0], 1 - label_mean[0]),
                                        _tf.maximum(label_mean[1], 1 - label_mean[1]))
            out["precision"] = metrics.precision(labels, predictions["class_ids"], w, name="precision")
            out["recall"] = metrics.recall(labels, predictions["class_ids"], w, name="recall")
            out["auc"] = auc(labels, probs, w, curve="ROC", name="auc")
            out["auc_precision_recall"] = auc(labels, probs, w, curve="PR", name="auc_precision_recall",
                                              summation_method="careful_interpolation")
        return out

    def _export_outputs(self, predictions):
        """TF's export outputs of the head: Classify (and, binary, Regress) signatures, and Predict of
        every prediction (the class names made string tensors in the graph, as TF's head makes them)."""
        from tinyflow.api.estimator.export import ClassificationOutput, PredictOutput, RegressionOutput
        if self._kind == "regression":
            out = RegressionOutput(predictions["predictions"])
            return {"serving_default": out, "regression": out, "predict": PredictOutput(predictions)}
        n = 2 if self._kind == "binary" else self._n_classes
        names = _tf.constant(_as_bytes(self._vocabulary) if self._vocabulary is not None
                             else [str(i).encode() for i in range(n)])
        tensors = dict(predictions)
        tensors["classes"] = (_tf.as_string(predictions["class_ids"]) if self._vocabulary is None
                              else _tf.gather(names, predictions["class_ids"]))
        tensors["all_classes"] = _tf.tile(_tf.expand_dims(names, 0), [_tf.shape(predictions["logits"])[0], 1])
        classify = ClassificationOutput(scores=predictions["probabilities"], classes=tensors["all_classes"])
        out = {"serving_default": classify, "classification": classify, "predict": PredictOutput(tensors)}
        if self._kind == "binary":
            out["regression"] = RegressionOutput(predictions["logistic"])
        return out

    # ---- the spec ------------------------------------------------------------------------------------
    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None, train_op_fn=None,
                              regularization_losses=None):
        """The EstimatorSpec of `mode` for these logits."""
        with _tf.name_scope("head"):
            predictions = self._predictions(logits)
            if mode == ModeKeys.PREDICT:
                return EstimatorSpec(mode, predictions=predictions, export_outputs=self._export_outputs(predictions))
            labels = _labels_2d(labels, logits, 1 if self._kind not in ("regression", "multi_label")
                               else self._label_dimension)
            unreduced, labels = self._unreduced_loss(labels, logits)
            weights = _weights(features, self._weight_column, logits)
            training_loss = _reduce(unreduced, weights, self._reduction)
            if regularization_losses:
                training_loss = _tf.add_n([training_loss] + list(regularization_losses))
            if mode == ModeKeys.EVAL:
                return EstimatorSpec(mode, predictions=predictions, loss=training_loss,
                                     eval_metric_ops=self._metrics(labels, predictions, unreduced, weights))
            if optimizer is not None:
                if train_op_fn is not None:
                    raise ValueError("train_op_fn and optimizer cannot both be set.")
                train_op = optimizer.minimize(training_loss, global_step=_tf.train.get_global_step())
            elif train_op_fn is not None:
                train_op = train_op_fn(training_loss)
            else:
                raise ValueError("train_op_fn and optimizer cannot both be None.")
            update_ops = _tf.get_collection(_tf.GraphKeys.UPDATE_OPS)
            if update_ops:
                train_op = _tf.group(train_op, *update_ops)
        with _tf.name_scope(""):  # TF's tags, whatever scope the model_fn calls the head in
            _tf.summary.scalar("loss", training_loss)
            _tf.summary.scalar("average_loss", _tf.losses.compute_weighted_loss(
                unreduced, weights, reduction=_tf.losses.Reduction.MEAN, loss_collection=None))
        return EstimatorSpec(mode, predictions=predictions, loss=training_loss, train_op=train_op)
