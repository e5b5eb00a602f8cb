"""tf.graph_util: freezing and pruning GraphDefs (tf_files/graph_util.py)."""
from tinyflow.api.tf_files.graph_util import (convert_variables_to_constants, extract_sub_graph,  # noqa: F401
                                              remove_training_nodes)
