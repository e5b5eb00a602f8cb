"""tf.keras: TF 1.15's graph-mode Keras on tinyflow's graph.

Layers add ops to the default graph when called; Sequential, functional and subclassed models train
with compile / fit, each of train, test and predict being one fetch set (one jitted function per
step) run by the Keras session (`tf.keras.backend.get_session()`).
"""
from tinyflow.api.keras import (activations, backend, callbacks, constraints, datasets, initializers, layers, losses,  # noqa: F401
                                metrics, models, optimizers, preprocessing, regularizers, utils)
from tinyflow.api.keras.engine import Input  # noqa: F401

from tinyflow.api.keras.models import Model, Sequential  # noqa: F401
from tinyflow.api.keras import scikit_learn, wrappers
from tinyflow.api.keras.models import deserialize_layer, serialize_layer

# Names the namespace modules cannot define without importing what imports them (models imports layers):
# tf.keras.layers.serialize / deserialize, and tf.keras.wrappers.scikit_learn (wrappers.py is also
# tf.keras.wrappers).
layers.serialize, layers.deserialize = serialize_layer, deserialize_layer
wrappers.scikit_learn = scikit_learn

__version__ = "2.2.4-tf"

_LAZY = {"applications": "tinyflow.api.keras.applications", "estimator": "tinyflow.api.keras.estimator",
         "experimental": "tinyflow.api.keras.experimental", "mixed_precision": "tinyflow.api.keras.mixed_precision"}


def __getattr__(name):
    """tf.keras.applications, estimator, experimental and mixed_precision load on first use."""
    if name in _LAZY:
        import importlib
        return importlib.import_module(_LAZY[name])
    raise AttributeError("module 'tinyflow.keras' has no attribute %r" % name)
