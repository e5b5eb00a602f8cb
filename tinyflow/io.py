"""tf.io: the file functions (tf.io.gfile); tinyflow has no string tensors, so none of TF's parsers."""
from . import gfile  # noqa: F401
