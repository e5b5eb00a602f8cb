"""tf.contrib.learn: `datasets.mnist` (TF's MNIST reader, which tensorflow.examples.tutorials.mnist.input_data
re-exports), `preprocessing` (VocabularyProcessor: contrib_learn_text.py) and ModeKeys. The rest of the
Estimator-era learn API is out of scope."""
import sys
import types

from tinyflow.api.examples.tutorials.mnist import input_data as _mnist
from tinyflow.api import contrib_learn_text as preprocessing


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
# real module paths under tf.contrib (`import tensorflow.contrib.learn.datasets.mnist` under the runner)
_CONTRIB = __name__.rpartition(".")[0] + ".contrib.learn"
sys.modules[_CONTRIB] = sys.modules[__name__]
sys.modules[_CONTRIB + ".datasets"] = datasets
sys.modules[_CONTRIB + ".datasets.mnist"] = _mnist
sys.modules[_CONTRIB + ".python.learn.datasets.mnist"] = _mnist
for _path in (".preprocessing", ".python.learn.preprocessing", ".python.learn.preprocessing.text"):
    sys.modules[_CONTRIB + _path] = preprocessing
