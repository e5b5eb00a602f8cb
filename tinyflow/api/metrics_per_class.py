"""tf.metrics.mean_iou and the top-k metrics (precision_at_k, recall_at_k and their sparse_ names) as
TF 1.15 builds them: float64 local counts, update ops that return what TF's return (mean_iou's: the
running confusion matrix). Labels are dense class ids, [batch] or [batch, num_labels]; a row's labels
count once each (TF's sets)."""
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import GraphKeys, get_default_graph
from tinyflow.ops import state_ops
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.core import array_ops, math_ops
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.core.sequence_ops import one_hot, top_k
from tinyflow.ops.matrix_ops import matrix_diag_part
from tinyflow.ops.segment_ops import confusion_matrix

__all__ = ["mean_iou", "precision_at_k", "recall_at_k", "sparse_precision_at_k"]


def _local(name, shape=(), dtype=dt.float64):
    return state_ops.Variable(array_ops.zeros(list(shape), dtype), trainable=False, name=name,
                              collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES])


def _collect(value, update, metrics_collections, updates_collections):
    graph = get_default_graph()
    for key in metrics_collections or []:
        graph.add_to_collection(key, value)
    for key in updates_collections or []:
        graph.add_to_collection(key, update)
    return value, update


def mean_iou(labels, predictions, num_classes, weights=None, metrics_collections=None, updates_collections=None,
             name=None):
    """The mean over classes (those seen in labels or predictions) of intersection over union; the update
    op adds the batch's confusion matrix and returns the running one."""
    with vs.variable_scope(name, default_name="mean_iou"):
        labels, predictions = convert_to_tensor(labels), convert_to_tensor(predictions)
        if not predictions.shape.is_compatible_with(labels.shape):
            raise ValueError("Shapes %s and %s are incompatible" % (predictions.shape, labels.shape))
        total_cm = _local("total_confusion_matrix", [num_classes, num_classes])
        flat = [array_ops.reshape(math_ops.cast(t, dt.int64), [-1]) for t in (labels, predictions)]
        w = None if weights is None else array_ops.reshape(convert_to_tensor(weights), [-1])
        update = state_ops.assign_add(total_cm, confusion_matrix(flat[0], flat[1], num_classes, weights=w,
                                                                 dtype=dt.float64))
        cm = total_cm.value()
        rows = math_ops.cast(math_ops.reduce_sum(cm, 0), dt.float32)
        cols = math_ops.cast(math_ops.reduce_sum(cm, 1), dt.float32)
        diag = math_ops.cast(matrix_diag_part(cm), dt.float32)
        den = rows + cols - diag
        valid = math_ops.reduce_sum(math_ops.cast(math_ops.not_equal(den, 0), dt.float32))
        den = math_ops.where_v2(math_ops.greater(den, 0), den, array_ops.ones_like(den))
        iou = math_ops.reduce_sum(diag / den)
        value = math_ops.where_v2(math_ops.greater(valid, 0), iou / math_ops.maximum(valid, 1.0), 0.0)
        return _collect(value, update, metrics_collections, updates_collections)


def _masks(labels, predictions, k, class_id):
    """[batch, classes] float64 masks of the top k predictions and of the labels of each row."""
    predictions = convert_to_tensor(predictions)
    n = predictions.shape[-1].value
    if n is None:
        raise ValueError("the number of classes (last axis of %s) must be known" % predictions.name)
    _, top = top_k(predictions, k)
    top = math_ops.reduce_max(one_hot(top, n, dtype=dt.float64), axis=-2)
    labels = math_ops.cast(convert_to_tensor(labels), dt.int64)
    if labels.shape.ndims == predictions.shape.ndims - 1:
        labels = array_ops.expand_dims(labels, -1)
    lab = math_ops.reduce_max(one_hot(labels, n, dtype=dt.float64), axis=-2)
    if class_id is not None:
        top, lab = top[..., class_id:class_id + 1], lab[..., class_id:class_id + 1]
    return top, lab


def _at_k(kind, labels, predictions, k, class_id, weights, metrics_collections, updates_collections, name):
    suffix = "at_%d" % k if class_id is None else "at_%d_class%d" % (k, class_id)
    with vs.variable_scope(name, default_name="%s_%s" % (kind, suffix)):
        top, lab = _masks(labels, predictions, k, class_id)
        hits = math_ops.reduce_sum(top * lab, -1)
        misses = math_ops.reduce_sum(top * (1 - lab) if kind == "precision" else lab * (1 - top), -1)
        if weights is not None:
            w = math_ops.cast(convert_to_tensor(weights), dt.float64)
            w = array_ops.reshape(w, [-1]) if w.shape.ndims and w.shape.ndims > 1 else w
            hits, misses = hits * w, misses * w
        tp = _local("true_positive_" + suffix)
        other = _local(("false_positive_" if kind == "precision" else "false_negative_") + suffix)
        up_tp = state_ops.assign_add(tp, math_ops.reduce_sum(hits))
        up_other = state_ops.assign_add(other, math_ops.reduce_sum(misses))
        value = math_ops.divide(tp.value(), tp.value() + other.value(), name=kind)
        update = math_ops.divide(up_tp, up_tp + up_other, name="update")
        return _collect(value, update, metrics_collections, updates_collections)


def precision_at_k(labels, predictions, k, class_id=None, weights=None, metrics_collections=None,
                   updates_collections=None, name=None):
    """The running fraction of the top-k predictions (of class_id only, if given) that are labels."""
    return _at_k("precision", labels, predictions, k, class_id, weights, metrics_collections, updates_collections,
                 name)


sparse_precision_at_k = precision_at_k


def recall_at_k(labels, predictions, k, class_id=None, weights=None, metrics_collections=None,
                updates_collections=None, name=None):
    """The running fraction of labels (of class_id only, if given) among the top-k predictions."""
    return _at_k("recall", labels, predictions, k, class_id, weights, metrics_collections, updates_collections, name)
