"""slim.metrics (tf.contrib.metrics, TF 1.15): the streaming_* metrics with contrib's argument order
(predictions before labels), mapped to tf.metrics, and aggregate_metrics / aggregate_metric_map."""
from tinyflow.api import metrics as _m


def streaming_mean(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    return _m.mean(values, weights, metrics_collections, updates_collections, name)


def _swapped(fn):
    def metric(predictions, labels, weights=None, metrics_collections=None, updates_collections=None, name=None):
        return fn(labels, predictions, weights, metrics_collections, updates_collections, name)
    metric.__doc__ = "tf.metrics.%s with (predictions, labels), as tf.contrib.metrics orders them." % fn.__name__
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
