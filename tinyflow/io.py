"""tf.io: the file functions (tf.io.gfile); tinyflow has no string tensors, so none of TF's parsers."""
from . import gfile  # noqa: F401
from .tf_files.graph_util import write_graph  # noqa: E402,F401 (tf.io.write_graph)
