"""tf.data (TF 1.15's input pipeline): Dataset, Iterator, Options and the tf.compat.v1.data functions.

Datasets run on the host in Python (dataset_ops.py); an iterator's `get_next()` tensors are fed
into each Session.run that needs them (iterator_ops.py). tf.data.experimental: experimental.py.
"""
from tinyflow.api.data.dataset_ops import Dataset  # noqa: F401
from tinyflow.api.data.readers import FixedLengthRecordDataset, TextLineDataset, TFRecordDataset  # noqa: F401
from tinyflow.api.data.iterator_ops import (Iterator, get_output_classes, get_output_shapes, get_output_types,  # noqa: F401
                                            make_initializable_iterator, make_one_shot_iterator)
from tinyflow.api.data.options import Options  # noqa: F401
from tinyflow.api.data import experimental  # noqa: F401
from tinyflow.api.framework import DatasetSpec  # noqa: F401 (tf.data.DatasetSpec: the TypeSpec of a Dataset)

AUTOTUNE = experimental.AUTOTUNE
