"""The tf.* names that tinyflow's high-level modules (tf.estimator, tf.feature_column) are written
with, imported from the modules that define them: those modules read like the TF code they mirror
(`_tf.reshape`, `_tf.train.Saver`), and the layer check (tools/layers.py) forbids importing the
package root from inside the package."""
from tinyflow.api import data, layers, logging, losses, nn, summary, train  # noqa: F401
from tinyflow.graph import errors  # noqa: F401
from tinyflow.graph.core import (Graph, GraphKeys, Tensor, add_to_collection, control_dependencies, get_collection,  # noqa: F401
                                 name_scope)
from tinyflow.graph.dtypes import as_dtype, bool_ as bool, float32, float64, int32, int64, string  # noqa: F401
from tinyflow.ops.core.array_ops import (concat, expand_dims, identity, ones_like, placeholder, reshape, shape,  # noqa: F401
                                         tile, zeros, zeros_like, fill, no_op, split, stack)
from tinyflow.ops.core.indexing_ops import boolean_mask, gather  # noqa: F401
from tinyflow.ops.parsing_ops import FixedLenFeature  # noqa: F401
from tinyflow.graph.core import get_default_graph  # noqa: F401
from tinyflow.ops.parsing_ops import parse_example  # noqa: F401
from tinyflow.ops.string_ops import as_string  # noqa: F401
from tinyflow.api.aliases import tables_initializer  # noqa: F401
from tinyflow.runtime.session import Session  # noqa: F401
from tinyflow.ops.core.base import constant, convert_to_tensor  # noqa: F401
from tinyflow.ops.init_ops import (glorot_uniform_initializer, truncated_normal_initializer, zeros_initializer)  # noqa: F401
from tinyflow.ops.core.math_ops import (add_n, argmax, cast, div, div_no_nan, equal, floormod, greater, greater_equal,  # noqa
                                        less, log, logical_and, logical_not, logical_or, matmul, maximum, minimum,
                                        reduce_any, reduce_sum, sigmoid, sqrt, squared_difference, where_v2, exp,
                                        reduce_mean, abs, argmin, reduce_min)
from tinyflow.ops.random_ops import set_random_seed  # noqa: F401
from tinyflow.ops.core.sequence_ops import cumsum, one_hot, range  # noqa: F401
from tinyflow.ops.state_ops import (Variable, assign_add, global_variables, group, local_variables_initializer,  # noqa: F401
                                   trainable_variables, local_variables, report_uninitialized_variables,
                                   variables_initializer, scatter_add)
from tinyflow.ops.variable_scope import get_variable, get_variable_scope, variable_scope  # noqa: F401
