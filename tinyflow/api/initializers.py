"""tf.initializers: the initializer classes under their short names (ops/init_ops.py), plus
tables_initializer and uniform_unit_scaling as TF 1.15 has them there."""
from tinyflow.ops.init_ops import initializers as _namespace
from tinyflow.api.aliases import tables_initializer  # noqa: F401
from tinyflow.api.core_extra import uniform_unit_scaling_initializer as uniform_unit_scaling  # noqa: F401

globals().update(vars(_namespace))
del _namespace
