"""Nested element structures, as tf.data's `nest`: tuples (namedtuples too) and dicts nest; anything
else is a leaf. Unlike tf.nest, a list is a leaf: `from_tensor_slices([1, 2, 3])` is one tensor.

A dataset keeps its element's dtypes and shapes as two such structures; inside the pipeline an
element travels as a flat tuple of numpy arrays, packed back only where the user sees it.
"""
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph import nest
from tinyflow.graph.shapes import TensorShape, as_shape


def is_nested(x):
    return isinstance(x, (tuple, dict))


def flatten(x):
    """The leaves of `x` in tf.nest order (dict keys sorted; a list is a leaf)."""
    return nest.flatten(x, lists=False)


def pack_as(template, flat):
    """The leaves `flat` nested like `template`."""
    return nest.pack_as(template, flat, lists=False)


def map_structure(fn, x):
    return pack_as(x, [fn(leaf) for leaf in flatten(x)])


def flatten_up_to(template, x):
    """`x`'s items at the leaves of `template` (output_shapes=(None, 2) is one shape, not two)."""
    if isinstance(template, dict):
        if not isinstance(x, dict) or sorted(x) != sorted(template):
            raise ValueError("The two structures don't have the same keys: %r and %r" % (template, x))
        return [leaf for k in sorted(template) for leaf in flatten_up_to(template[k], x[k])]
    if isinstance(template, tuple):
        if not isinstance(x, (tuple, list)) or len(x) != len(template):
            raise ValueError("The two structures don't have the same sequence length: %r and %r" % (template, x))
        return [leaf for t, v in zip(template, x) for leaf in flatten_up_to(t, v)]
    return [x]


def normalize_types_and_shapes(output_types, output_shapes):
    """User-given nested dtypes and optional nested shapes -> (types, shapes) of the same structure."""
    types = map_structure(dt.as_dtype, output_types)
    if output_shapes is None:
        flat_shapes = [TensorShape(None)] * len(flatten(types))
    else:
        flat_shapes = [as_shape(s) for s in flatten_up_to(types, output_shapes)]
    return types, pack_as(types, flat_shapes)


def check_value(value, dtype, shape, what):
    """One component of an element as numpy of `dtype`; InvalidArgumentError if its shape is not `shape`."""
    from tinyflow.graph import errors
    if dtype.name == "string":
        from tinyflow.ops.host_ops import to_bytes_array  # str from a generator: bytes, as TF gives them
        a = to_bytes_array(value)
    else:
        a = np.asarray(value)
        if a.dtype != dtype.np:
            a = a.astype(dtype.np)
    if not shape.is_compatible_with(TensorShape(a.shape)):
        raise errors.InvalidArgumentError(None, None, "%s: expected a value of shape %s, got shape %s"
                                          % (what, shape.as_proto_str(), TensorShape(a.shape).as_proto_str()))
    return a
