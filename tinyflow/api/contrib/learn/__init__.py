"""tf.contrib.learn: `datasets.mnist` (TF's MNIST reader, which tensorflow.examples.tutorials.mnist.input_data
re-exports) and `datasets.base`, `preprocessing` (VocabularyProcessor: preprocessing.py), ModeKeys,
the old Estimator API (estimators.py: Estimator, ModelFnOps, RunConfig, MetricSpec, the
premade DNN / Linear estimators, Experiment, learn_runner.run, utils.make_export_strategy) and
io.read_batch_features."""
import collections
import csv
import os
import types

import numpy as np

from tinyflow.api.examples.tutorials.mnist import input_data as _mnist
from tinyflow.api.contrib.learn import preprocessing as preprocessing
from tinyflow.api.contrib.learn import estimators as _est
from tinyflow.api.contrib.learn.estimators import (DNNClassifier, DNNRegressor, Estimator, Experiment,  # noqa: F401
                                                   ExportStrategy, InputFnOps, LinearClassifier, LinearRegressor,
                                                   MetricSpec, ModelFnOps, PredictionKey, ProblemType, RunConfig)


class ModeKeys:
    """tf.contrib.learn.ModeKeys: the mode strings of TF 1.15's learn Estimators."""
    TRAIN = "train"
    EVAL = "eval"
    INFER = "infer"

    @classmethod
    def validate(cls, key):
        if key not in (cls.TRAIN, cls.EVAL, cls.INFER):
            raise ValueError("Invalid mode %s." % key)

datasets = types.ModuleType(__name__ + ".datasets", "tf.contrib.learn.datasets: mnist")
datasets.mnist = _mnist


def load_dataset(name, size="small", test_with_fake_data=False):
    """Only "mnist" (read from ./MNIST-data, as TF)."""
    if name != "mnist":
        raise ValueError("Name of dataset is not valid: %s (tinyflow has only mnist)" % name)
    return _mnist.load_mnist()


datasets.load_dataset = load_dataset

# ---- datasets.base ----------------------------------------------------------------------------------
base = types.ModuleType(__name__ + ".datasets.base", "tf.contrib.learn.python.learn.datasets.base")
base.Dataset = collections.namedtuple("Dataset", ["data", "target"])
base.Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])


def _load_csv(filename, target_dtype, features_dtype, target_column, header):
    with open(filename) as f:
        rows = list(csv.reader(f))
    if header:
        n_samples, n_features = int(rows[0][0]), int(rows[0][1])
        rows = rows[1:]
    else:
        n_samples, n_features = len(rows), (len(rows[0]) - 1 if rows else 0)
    data = np.zeros((n_samples, n_features), dtype=features_dtype)
    target = np.zeros((n_samples,), dtype=target_dtype)
    for i, row in enumerate(rows[:n_samples]):
        target[i] = np.asarray(row.pop(target_column), dtype=target_dtype)
        data[i] = np.asarray(row, dtype=features_dtype)
    return base.Dataset(data=data, target=target)


def load_csv_with_header(filename, target_dtype, features_dtype, target_column=-1):
    """A Dataset of a CSV file whose first row is "n_samples,n_features,...", the target in target_column."""
    return _load_csv(filename, target_dtype, features_dtype, target_column, True)


def load_csv_without_header(filename, target_dtype, features_dtype, target_column=-1):
    """A Dataset of a header-less CSV file, the target in target_column."""
    return _load_csv(filename, target_dtype, features_dtype, target_column, False)


def maybe_download(filename, work_directory, source_url):
    """work_directory/filename if it is there; tinyflow downloads nothing, so otherwise a clear error."""
    path = os.path.join(work_directory, filename)
    if os.path.exists(path):
        return path
    raise IOError("tinyflow does not download datasets: %s is not in %s. Fetch %s there first."
                  % (filename, work_directory, source_url))


base.load_csv_with_header, base.load_csv_without_header = load_csv_with_header, load_csv_without_header
base.maybe_download = maybe_download
datasets.base = base
datasets.load_csv_with_header, datasets.load_csv_without_header = load_csv_with_header, load_csv_without_header


# ---- io, learn_runner, utils --------------------------------------------------------------------------
def read_batch_features(file_pattern, batch_size, features, reader=None, randomize_input=True, num_epochs=None,
                        queue_capacity=10000, reader_num_threads=1, num_enqueue_threads=2, parse_fn=None, name=None,
                        feature_queue_capacity=100, num_queue_runners=None, read_batch_size=None):
    """A dict of batched features parsed (by the `features` spec) from the TFRecord files of
    file_pattern: tf.data.experimental.make_batched_features_dataset's next batch."""
    from tinyflow.api.data import experimental
    if parse_fn is not None:
        raise NotImplementedError("tinyflow: read_batch_features(parse_fn=...) is not supported")
    dataset = experimental.make_batched_features_dataset(file_pattern, batch_size, features,
                                                         shuffle=randomize_input, num_epochs=num_epochs)
    return dataset.make_one_shot_iterator().get_next()


io = types.ModuleType(__name__ + ".io", "tf.contrib.learn.io")
io.read_batch_features, io.numpy_input_fn = read_batch_features, _est.numpy_input_fn
learn_runner = types.ModuleType(__name__ + ".learn_runner", "tf.contrib.learn.learn_runner")
learn_runner.run = _est.run
utils = types.ModuleType(__name__ + ".utils", "tf.contrib.learn.utils")
utils.make_export_strategy, utils.InputFnOps = _est.make_export_strategy, InputFnOps
# tf.contrib.learn.python.learn.<module>, as attributes too
python = types.SimpleNamespace(learn=types.SimpleNamespace(
    datasets=datasets, learn_runner=learn_runner, utils=utils, preprocessing=preprocessing, estimators=_est))
