"""tf.estimator.inputs: input_fns over numpy arrays and pandas DataFrames.

The arrays become a tf.data pipeline (from_tensor_slices, shuffle, repeat(num_epochs), batch) read
through a one-shot iterator. tinyflow has no string tensors: a numpy string feature is turned into
int64 ids on the host here, by the string categorical column of the estimator that calls the
input_fn (premade estimators know their feature columns), or by `feature_columns=` given to the
input_fn itself.
"""
import contextlib

import numpy as np

from tinyflow.api import feature_column
from tinyflow.api import tf_names as _tf

_ACTIVE_COLUMNS = []  # the feature columns of the Estimator call in progress (for string features)
_ACTIVE_LABELS = []   # its label_vocabulary (for string labels)


@contextlib.contextmanager
def string_columns(feature_columns, label_vocabulary=None):
    """While an Estimator calls an input_fn: the feature columns whose string features to encode, and
    the label vocabulary that turns string labels into class ids."""
    _ACTIVE_COLUMNS.append(feature_columns)
    _ACTIVE_LABELS.append(label_vocabulary)
    try:
        yield
    finally:
        _ACTIVE_COLUMNS.pop()
        _ACTIVE_LABELS.pop()


def _encode_labels(y):
    """String labels -> int64 class ids by the calling estimator's label_vocabulary (on the host)."""
    if isinstance(y, dict) or y is None or np.asarray(y).dtype.kind not in "USO":
        return y
    vocab = next((v for v in reversed(_ACTIVE_LABELS) if v is not None), None)
    if vocab is None:
        raise ValueError("Labels hold strings, and tinyflow has no string tensors: give the estimator a "
                         "label_vocabulary, or give the labels as class ids.")
    index = {(v.decode() if isinstance(v, bytes) else v): i for i, v in enumerate(vocab)}
    out = np.empty(np.shape(y), np.int64)
    for pos, v in np.ndenumerate(np.asarray(y)):
        v = v.decode() if isinstance(v, bytes) else str(v)
        if v not in index:
            raise ValueError("Label {!r} is not in label_vocabulary {}.".format(v, list(vocab)))
        out[pos] = index[v]
    return out


def _encode(features, feature_columns):
    columns = feature_columns if feature_columns is not None else \
        next((c for c in reversed(_ACTIVE_COLUMNS) if c is not None), None)
    has_strings = any(np.asarray(v).dtype.kind in "USO" for v in features.values())
    if not has_strings:
        return features
    if columns is None:
        bad = sorted(k for k, v in features.items() if np.asarray(v).dtype.kind in "USO")
        raise ValueError("Features %s hold strings, and tinyflow has no string tensors: give the input_fn "
                         "feature_columns= (the string categorical columns that read them), or use a premade "
                         "estimator, whose columns turn them into ids." % bad)
    return feature_column.encode_strings(features, columns)


def _as_arrays(x, what):
    if isinstance(x, dict):
        return {k: np.asarray(v) for k, v in x.items()}
    return np.asarray(x)


def numpy_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None, queue_capacity=1000, num_threads=1,
                   feature_columns=None):
    """An input_fn giving (features, labels) batches of the arrays in dict `x` (and array or dict `y`),
    `num_epochs` times (None: forever), shuffled with a buffer of queue_capacity when shuffle."""
    if not isinstance(shuffle, bool):
        raise ValueError("shuffle must be provided and explicitly set as boolean (it is recommended to set it as "
                         "True for training); got {}".format(shuffle))
    if not isinstance(x, dict) and not hasattr(x, "shape"):
        raise TypeError("x must be a dict or array; got {}".format(type(x).__name__))
    if isinstance(y, dict) and isinstance(x, dict):
        overlap = set(x) & set(y)
        if overlap:
            raise ValueError("{} duplicate keys are found in both x and y: {}".format(len(overlap), overlap))
    x, y = _as_arrays(x, "x"), (None if y is None else _as_arrays(y, "y"))
    lengths = {len(v) for v in (list(x.values()) if isinstance(x, dict) else [x])}
    lengths |= {len(v) for v in (list(y.values()) if isinstance(y, dict) else [] if y is None else [y])}
    if len(lengths) != 1:
        raise ValueError("Length of tensors in x and y is mismatched. All elements in x and y must have the same "
                         "length.")
    if num_epochs is not None and num_epochs <= 0:
        raise ValueError("num_epochs must be > 0 or None; got {}".format(num_epochs))

    def input_fn():
        features = _encode(x, feature_columns) if isinstance(x, dict) else x
        data = (features,) if y is None else (features, _encode_labels(y))
        ds = _tf.data.Dataset.from_tensor_slices(data)
        if shuffle:
            ds = ds.shuffle(queue_capacity)
        ds = ds.repeat(num_epochs).batch(batch_size)
        batch = ds.make_one_shot_iterator().get_next()
        return batch[0] if y is None else (batch[0], batch[1])
    return input_fn


def pandas_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None, queue_capacity=1000, num_threads=1,
                    target_column="target", feature_columns=None):
    """numpy_input_fn over a pandas DataFrame's columns (and a Series of labels)."""
    try:
        import pandas as pd
    except ImportError:
        raise TypeError("pandas_input_fn should not be called without pandas installed (pip install pandas)") from None
    if not isinstance(x, pd.DataFrame):
        raise TypeError("x must be a pandas DataFrame; got {}".format(type(x).__name__))
    if y is not None:
        if target_column in x:
            raise ValueError("Cannot use name {} for target column: DataFrame already has a column with that name: "
                             "{}".format(target_column, list(x)))
        if not np.array_equal(x.index, y.index):
            raise ValueError("Index for x and y are mismatched.\nIndex for x: {}\nIndex for y: {}\n".format(
                x.index, y.index))
        y = y.to_dict("series") if isinstance(y, pd.DataFrame) else y
        y = {k: v.values for k, v in y.items()} if isinstance(y, dict) else y.values
    features = {k: x[k].values for k in x.columns}
    return numpy_input_fn(features, y, batch_size, num_epochs, shuffle, queue_capacity, num_threads, feature_columns)
