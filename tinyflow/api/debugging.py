"""tf.debugging: TF 1.15's namespace of assertions and numeric checks (ops/check_ops.py and
ops/logging_ops.py), plus is_finite / is_inf / is_nan from the math ops."""
from tinyflow.ops.check_ops import *  # noqa: F401,F403
from tinyflow.ops.check_ops import __all__ as _checks
from tinyflow.ops.logging_ops import Assert, check_numerics  # noqa: F401
from tinyflow.ops.core.math_ops import is_finite, is_inf, is_nan  # noqa: F401

__all__ = list(_checks) + ["Assert", "check_numerics", "is_finite", "is_inf", "is_nan"]

from tinyflow.ops.check_ops import verify_tensor_all_finite as assert_all_finite  # noqa: E402,F401 (TF 1.15's alias)

_log_device_placement = [False]


def set_log_device_placement(enabled):
    """Whether sessions log where each op runs (TF 1.15's eager-context switch): recorded; tinyflow
    places a fetch set as one XLA program, so there is no per-op placement to log."""
    _log_device_placement[0] = bool(enabled)


def get_log_device_placement():
    """The value set_log_device_placement last set (False at first, as TF's)."""
    return _log_device_placement[0]


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """TF 1.15's tf.debugging.assert_shapes: `shapes` pairs tensors with shape specs whose entries are
    ints (that size), symbols (str: the same size wherever the symbol appears) or None (any size), a
    leading '...' or '*' allowing any leading dimensions. Known sizes are checked while building
    (ValueError); the rest by an in-step assertion (InvalidArgumentError). Returns the assert op, or a
    no-op when everything was known."""
    from tinyflow.graph.core import name_scope
    from tinyflow.ops.core import array_ops, math_ops
    from tinyflow.ops.core.base import convert_to_tensor
    from tinyflow.ops.logging_ops import Assert
    items = shapes.items() if hasattr(shapes, "items") else shapes
    sizes, checks = {}, []   # symbol -> (static size or None, tensor size of its first use)
    with name_scope(name or "assert_shapes"):
        for x, spec in items:
            x = convert_to_tensor(x)
            spec = list(spec) if isinstance(spec, (list, tuple)) else [spec] if spec not in ("", None) else []
            prefix = bool(spec) and spec[0] in ("...", "*")
            spec = spec[1:] if prefix else spec
            rank = x.shape.ndims
            if rank is not None and (rank < len(spec) if prefix else rank != len(spec)):
                raise ValueError("%sSpecified by tensor %s dimension %d.  Tensor %s must have rank %d.  Received "
                                 "rank %d, shape %s" % (message + ".  " if message else "", x.name, -1, x.name,
                                                         len(spec), rank, x.shape))
            dynamic = array_ops.shape(x)
            for i, want in enumerate(spec):
                axis = (rank - len(spec) + i) if (prefix and rank is not None) else i if not prefix else None
                if axis is None or want is None:
                    continue
                static = x.shape[axis].value
                if isinstance(want, str):
                    if want not in sizes:
                        sizes[want] = (static, dynamic[axis])
                        continue
                    known, first = sizes[want]
                    if known is not None and static is not None:
                        if known != static:
                            raise ValueError("%sSpecified by tensor %s dimension %d.  Tensor %s dimension %d must "
                                             "have size %d.  Received size %d, shape %s"
                                             % (message + ".  " if message else "", x.name, axis, x.name, axis,
                                                known, static, x.shape))
                        continue
                    checks.append(math_ops.equal(dynamic[axis], math_ops.cast(first, dynamic.dtype)))
                elif static is not None:
                    if static != int(want):
                        raise ValueError("%sSpecified explicitly.  Tensor %s dimension %d must have size %d.  "
                                         "Received size %d, shape %s" % (message + ".  " if message else "", x.name,
                                                                         axis, int(want), static, x.shape))
                else:
                    checks.append(math_ops.equal(dynamic[axis], int(want)))
        if not checks:
            return array_ops.no_op()
        return Assert(math_ops.reduce_all(array_ops.stack(checks)),
                      list(data) if data is not None else [message or "assert_shapes failed"], summarize=summarize)


__all__ += ["assert_all_finite", "set_log_device_placement", "get_log_device_placement", "assert_shapes"]
