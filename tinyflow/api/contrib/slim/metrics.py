"""slim.metrics: tf.contrib.metrics itself (TF's slim module imports contrib.metrics)."""
from tinyflow.api.contrib.metrics import *  # noqa: F401,F403
from tinyflow.api.contrib.metrics import __all__  # noqa: F401
