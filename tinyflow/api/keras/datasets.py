"""tf.keras.datasets: the loaders read the files Keras caches in ~/.keras/datasets (tinyflow never
downloads); a missing file is a NotFoundError naming it."""
import os
import types

import numpy as np

from tinyflow.api.keras.utils import get_file


def _npz(fname):
    path = get_file(fname, origin="https://storage.googleapis.com/tensorflow/tf-keras-datasets/" + fname)
    with np.load(path, allow_pickle=False) as f:
        return {k: f[k] for k in f.files}


def _mnist_load_data(path="mnist.npz"):
    """((x_train, y_train), (x_test, y_test)): 28x28 uint8 digits and their labels."""
    d = _npz(os.path.basename(path))
    return (d["x_train"], d["y_train"]), (d["x_test"], d["y_test"])


def _boston_load_data(path="boston_housing.npz", test_split=0.2, seed=113):
    d = _npz(os.path.basename(path))
    x, y = d["x"], d["y"]
    rng = np.random.RandomState(seed)
    order = rng.permutation(len(x))
    x, y = x[order], y[order]
    split = int(len(x) * (1 - test_split))
    return (x[:split], y[:split]), (x[split:], y[split:])


mnist = types.SimpleNamespace(load_data=_mnist_load_data)
boston_housing = types.SimpleNamespace(load_data=_boston_load_data)
