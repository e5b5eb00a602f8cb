"""tf.contrib.learn: only `tf.contrib.learn.datasets.mnist` (TF's MNIST reader, which
tensorflow.examples.tutorials.mnist.input_data re-exports). The Estimator-era learn API is out of scope."""
import sys
import types

from tinyflow.api.examples.tutorials.mnist import input_data as _mnist

datasets = types.ModuleType(__name__ + ".datasets", "tf.contrib.learn.datasets: mnist")
datasets.mnist = _mnist


def load_dataset(name, size="small", test_with_fake_data=False):
    """Only "mnist" (read from ./MNIST-data, as TF)."""
    if name != "mnist":
        raise ValueError("Name of dataset is not valid: %s (tinyflow has only mnist)" % name)
    return _mnist.load_mnist()


datasets.load_dataset = load_dataset
# real module paths under tf.contrib (`import tensorflow.contrib.learn.datasets.mnist` under the runner)
_CONTRIB = __name__.rpartition(".")[0] + ".contrib.learn"
sys.modules[_CONTRIB] = sys.modules[__name__]
sys.modules[_CONTRIB + ".datasets"] = datasets
sys.modules[_CONTRIB + ".datasets.mnist"] = _mnist
sys.modules[_CONTRIB + ".python.learn.datasets.mnist"] = _mnist
