"""tf.data.experimental.Optional and get_next_as_optional (TF 1.15's optional_ops): a value that may be
absent. `get_next_as_optional(iterator)` never raises at the end of the dataset: its `has_value()` is
False there (and stays False), and `get_value()` of an absent value raises InvalidArgumentError when it runs.
Its op, `IteratorGetNextAsOptional`, is fed like `IteratorGetNext` (iterator_ops.py): [has_value] + the
element's components, zeros of the element's shape (unknown dimensions 0) past the end."""
import numpy as np

from tinyflow.api.data import structure as nest
from tinyflow.api.data.iterator_ops import _get_next
from tinyflow.graph import dtypes as dt
from tinyflow.graph import errors
from tinyflow.graph.core import control_dependencies, get_default_graph
from tinyflow.graph.registry import Fed, register_op
from tinyflow.graph.shapes import TensorShape


def _get_next_as_optional(session, op, inputs):
    try:
        return [np.array(True)] + _get_next(session, op, inputs)
    except errors.OutOfRangeError:
        empty = [np.zeros([d or 0 for d in (s.as_list() or [])], dtype=object if t is dt.string else t.np)
                 for t, s in zip(op.attrs["output_types"], op.attrs["output_shapes"])]
        for a in (a for a in empty if a.dtype == object):
            a.fill(b"")
        return [np.array(False)] + empty


register_op("IteratorGetNextAsOptional", shape=lambda s, a, v: [TensorShape([])] + list(a["output_shapes"]),
            dtype=lambda d, a: [dt.bool_] + list(a["output_types"]), grad=None, stateful=True,
            host=Fed(_get_next_as_optional))


def _specs(types, shapes):
    from tinyflow.api.aliases import TensorSpec
    return nest.pack_as(types, [TensorSpec(s, t) for t, s in zip(nest.flatten(types), nest.flatten(shapes))])


class Optional:
    """A value that may be absent: `has_value()` a scalar bool tensor, `get_value()` the value's tensors
    (InvalidArgumentError "The optional does not have a value" when run without one)."""

    def __init__(self, has_value, value, value_structure):
        self._has_value, self._value, self._value_structure = has_value, value, value_structure

    value_structure = property(lambda self: self._value_structure, doc="The nested TensorSpecs of the value.")

    def has_value(self, name=None):
        from tinyflow.ops.core.array_ops import identity
        return identity(self._has_value, name=name or "OptionalHasValue")

    def get_value(self, name=None):
        from tinyflow.ops.core.array_ops import identity
        from tinyflow.ops.logging_ops import Assert
        with get_default_graph().name_scope(name or "OptionalGetValue"):
            check = Assert(self._has_value, ["The optional does not have a value"])
            with control_dependencies([check]):
                return nest.map_structure(identity, self._value)

    @staticmethod
    def from_value(value):
        """An Optional holding `value` (a nested structure of tensors)."""
        from tinyflow.ops.core.base import constant, convert_to_tensor
        value = nest.map_structure(convert_to_tensor, value)
        flat = nest.flatten(value)
        specs = _specs(nest.pack_as(value, [t.dtype for t in flat]), nest.pack_as(value, [t.shape for t in flat]))
        return Optional(constant(True), value, specs)

    @staticmethod
    def none_from_structure(value_structure):
        """An Optional without a value, of the given nested TensorSpecs."""
        from tinyflow.ops.core.base import constant
        from tinyflow.ops.core.array_ops import zeros
        value = nest.map_structure(
            lambda s: constant(b"", shape=[d or 0 for d in s.shape.as_list() or []]) if s.dtype is dt.string
            else zeros([d or 0 for d in s.shape.as_list() or []], s.dtype), value_structure)
        return Optional(constant(False), value, value_structure)


def get_next_as_optional(iterator):
    """The iterator's next element as an Optional, absent past the end of its dataset."""
    op = get_default_graph().create_op(
        "IteratorGetNextAsOptional", [],
        {"iterator": iterator, "output_types": nest.flatten(iterator._types),
         "output_shapes": [TensorShape(s) for s in nest.flatten(iterator._shapes)]}, name="IteratorGetNextAsOptional")
    return Optional(op.outputs[0], nest.pack_as(iterator._types, op.outputs[1:]),
                    _specs(iterator._types, iterator._shapes))
