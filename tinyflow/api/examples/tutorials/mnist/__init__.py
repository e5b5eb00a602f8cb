"""tensorflow.examples.tutorials.mnist: `from tensorflow.examples.tutorials.mnist import input_data`."""
from tinyflow.api.examples.tutorials.mnist import input_data  # noqa: F401
