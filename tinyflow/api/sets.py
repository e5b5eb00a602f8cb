"""tf.sets: set operations over the last dimension (ops/set_ops.py), under TF 1.15's long and short names."""
from tinyflow.ops.set_ops import set_difference, set_intersection, set_size, set_union  # noqa: F401

difference, intersection, size, union = set_difference, set_intersection, set_size, set_union
