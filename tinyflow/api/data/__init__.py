"""tf.data (TF 1.15's input pipeline): Dataset, Iterator and the tf.compat.v1.data functions.

Datasets run on the host in Python (dataset_ops.py, transformations.py); an iterator's
`get_next()` tensors are fed into each Session.run that needs them (iterator_ops.py).
"""
import types as _types

from tinyflow.api.data.dataset_ops import Dataset  # noqa: F401
from tinyflow.api.data.readers import FixedLengthRecordDataset, TextLineDataset, TFRecordDataset  # noqa: F401
from tinyflow.api.data.iterator_ops import (Iterator, get_output_classes, get_output_shapes, get_output_types,  # noqa: F401
                                            make_initializable_iterator, make_one_shot_iterator)

AUTOTUNE = -1


def _shuffle_and_repeat(buffer_size, count=None, seed=None):
    """tf.data.experimental.shuffle_and_repeat: `ds.shuffle(buffer_size, seed).repeat(count)`."""
    return lambda ds: ds.shuffle(buffer_size, seed).repeat(count)


def _map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False, num_parallel_calls=None):
    """tf.data.experimental.map_and_batch: `ds.map(map_func).batch(batch_size, drop_remainder)`."""
    return lambda ds: ds.map(map_func).batch(batch_size, drop_remainder)


experimental = _types.SimpleNamespace(AUTOTUNE=AUTOTUNE, shuffle_and_repeat=_shuffle_and_repeat,
                                      map_and_batch=_map_and_batch, unbatch=lambda: (lambda ds: ds.unbatch()))
