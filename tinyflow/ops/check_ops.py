"""TF 1.15's assertions (tf.assert_equal, tf.assert_positive, tf.assert_rank, ...), built the way TF
builds them: a comparison reduced with reduce_all, then an Assert op (ops/logging_ops.py) whose data
is the message, the condition in words and the tensors. Use them through tf.control_dependencies
or fetch them; a failed one raises InvalidArgumentError when it runs. What is known while the graph
is built is checked then: ranks (ValueError), dtypes (TypeError), assert_equal of two constants.
"""
import numpy as np

from tinyflow.graph import errors
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import constant_value, get_default_graph
from tinyflow.ops.core import math_ops as m
from tinyflow.ops.core.array_ops import no_op, rank as rank_op
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.logging_ops import Assert, check_numerics
from tinyflow.ops.state_ops import group

__all__ = [
    "add_check_numerics_ops", "assert_equal", "assert_greater", "assert_greater_equal", "assert_integer",
    "assert_less", "assert_less_equal", "assert_near", "assert_negative", "assert_non_negative",
    "assert_non_positive", "assert_none_equal", "assert_positive", "assert_proper_iterable", "assert_rank",
    "assert_rank_at_least", "assert_rank_in", "assert_same_float_dtype", "assert_scalar", "assert_type",
    "is_non_decreasing", "is_numeric_tensor", "is_strictly_increasing", "verify_tensor_all_finite",
]


def _binary(sym, compare, x, y, data, summarize, message, name, default_name):
    with get_default_graph().name_scope(name or default_name):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype)
        if data is None:
            data = [message or "", "Condition x %s y did not hold element-wise:" % sym,
                    "x (%s) = " % x.name, x, "y (%s) = " % y.name, y]
        condition = m.reduce_all(compare(x, y))
        if sym == "==":  # TF 1.15 checks assert_equal of two constants while building the graph
            xs, ys = constant_value(x), constant_value(y)
            if xs is not None and ys is not None and not np.all(xs == ys):
                raise errors.InvalidArgumentError(None, None, "\n".join(
                    str(constant_value(d)) if hasattr(d, "op") else str(d) for d in data))
        return Assert(condition, data, summarize=summarize)


def assert_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An Assert op checking x == y elementwise (with broadcasting)."""
    return _binary("==", m.equal, x, y, data, summarize, message, name, "assert_equal")


def assert_none_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An Assert op checking x != y elementwise."""
    return _binary("!=", m.not_equal, x, y, data, summarize, message, name, "assert_none_equal")


def assert_less(x, y, data=None, summarize=None, message=None, name=None):
    """An Assert op checking x < y elementwise."""
    return _binary("<", m.less, x, y, data, summarize, message, name, "assert_less")


def assert_less_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An Assert op checking x <= y elementwise."""
    return _binary("<=", m.less_equal, x, y, data, summarize, message, name, "assert_less_equal")


def assert_greater(x, y, data=None, summarize=None, message=None, name=None):
    """An Assert op checking x > y elementwise."""
    return _binary(">", m.greater, x, y, data, summarize, message, name, "assert_greater")


def assert_greater_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An Assert op checking x >= y elementwise."""
    return _binary(">=", m.greater_equal, x, y, data, summarize, message, name, "assert_greater_equal")


def _against_zero(sym, compare, x, data, summarize, message, name, default_name):
    """assert_positive and its kin: x compared with 0 of its dtype."""
    with get_default_graph().name_scope(name or default_name):
        x = convert_to_tensor(x, name="x")
        if data is None:
            data = [message or "", "Condition x %s 0 did not hold element-wise:" % sym, "x (%s) = " % x.name, x]
        zero = convert_to_tensor(0, dtype=x.dtype)
        return Assert(m.reduce_all(compare(x, zero)), data, summarize=summarize)


def assert_positive(x, data=None, summarize=None, message=None, name=None):
    """An Assert op checking x > 0 elementwise."""
    return _against_zero(">", m.greater, x, data, summarize, message, name, "assert_positive")


def assert_negative(x, data=None, summarize=None, message=None, name=None):
    """An Assert op checking x < 0 elementwise."""
    return _against_zero("<", m.less, x, data, summarize, message, name, "assert_negative")


def assert_non_negative(x, data=None, summarize=None, message=None, name=None):
    """An Assert op checking x >= 0 elementwise."""
    return _against_zero(">=", m.greater_equal, x, data, summarize, message, name, "assert_non_negative")


def assert_non_positive(x, data=None, summarize=None, message=None, name=None):
    """An Assert op checking x <= 0 elementwise."""
    return _against_zero("<=", m.less_equal, x, data, summarize, message, name, "assert_non_positive")


def assert_near(x, y, rtol=None, atol=None, data=None, summarize=None, message=None, name=None):
    """An Assert op checking |x - y| <= atol + rtol * |y| elementwise (defaults: 10 * eps of the dtype)."""
    with get_default_graph().name_scope(name or "assert_near"):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype)
        eps = float(np.finfo(x.dtype.np).eps) if x.dtype.is_floating else 0.0
        rtol = convert_to_tensor(10 * eps if rtol is None else rtol, dtype=x.dtype, name="rtol")
        atol = convert_to_tensor(10 * eps if atol is None else atol, dtype=x.dtype, name="atol")
        if data is None:
            data = [message or "", "x and y not equal to tolerance rtol = %s, atol = %s" % (rtol.name, atol.name),
                    "x (%s) = " % x.name, x, "y (%s) = " % y.name, y]
        tol = atol + rtol * m.abs(y)
        return Assert(m.reduce_all(m.less_equal(m.abs(x - y), tol)), data, summarize=summarize)


# ---- ranks and dtypes: checked while building when they are known --------------------------------
def _rank_assert(x, holds, words, data, summarize, message, name, default_name):
    with get_default_graph().name_scope(name or default_name):
        x = convert_to_tensor(x, name="x")
        if x.shape.ndims is not None:
            if not holds(x.shape.ndims):
                raise ValueError("%s.  Tensor %s must have rank %s.  Received rank %d, shape %s"
                                 % (message or "", x.name, words, x.shape.ndims, x.shape))
            return no_op(name="static_checks_determined_all_ok")
        if data is None:
            data = [message or "", "Tensor %s must have rank %s." % (x.name, words), "Received shape: ", x]
        return Assert(holds(rank_op(x)), data, summarize=summarize)


def assert_rank(x, rank, data=None, summarize=None, message=None, name=None):
    """x has rank `rank`: a ValueError now when x's rank is known, else an Assert op."""
    return _rank_assert(x, lambda r: r == rank if isinstance(r, int) else m.equal(r, rank),
                        "%d" % rank, data, summarize, message, name, "assert_rank")


def assert_rank_at_least(x, rank, data=None, summarize=None, message=None, name=None):
    """x has rank >= `rank`: a ValueError now when x's rank is known, else an Assert op."""
    return _rank_assert(x, lambda r: r >= rank if isinstance(r, int) else m.greater_equal(r, rank),
                        "at least %d" % rank, data, summarize, message, name, "assert_rank_at_least")


def assert_rank_in(x, ranks, data=None, summarize=None, message=None, name=None):
    """x's rank is one of `ranks`: a ValueError now when x's rank is known, else an Assert op."""
    ranks = [int(r) for r in ranks]

    def holds(r):
        if isinstance(r, int):
            return r in ranks
        out = m.equal(r, ranks[0])
        for k in ranks[1:]:
            out = m.logical_or(out, m.equal(r, k))
        return out
    return _rank_assert(x, holds, "in %s" % ranks, data, summarize, message, name, "assert_rank_in")


def assert_scalar(tensor, name=None, message=None):
    """The tensor, after checking it is a scalar (ValueError when its rank is known and not 0)."""
    with get_default_graph().name_scope(name or "assert_scalar"):
        tensor = convert_to_tensor(tensor, name="tensor")
        if tensor.shape.ndims not in (None, 0):
            raise ValueError("%sExpected scalar shape for %s, saw shape: %s."
                             % (message + " " if message else "", tensor.name, tensor.shape))
        return tensor


def assert_type(tensor, tf_type, message=None, name=None):
    """TypeError unless tensor's dtype is tf_type; returns a no_op."""
    tensor = convert_to_tensor(tensor)
    tf_type = dt.as_dtype(tf_type)
    if tensor.dtype != tf_type:
        raise TypeError("%s%s must be of type %s" % (message + " " if message else "", tensor.name, tf_type))
    return no_op(name or "statically_determined_correct_type")


def assert_integer(x, message=None, name=None):
    """TypeError unless x has an integer dtype; returns a no_op."""
    x = convert_to_tensor(x)
    if not x.dtype.is_integer:
        raise TypeError("%sExpected \"x\" to be integer type.  Found: %s of dtype %s"
                        % (message + " " if message else "", x.name, x.dtype))
    return no_op(name or "statically_determined_was_integer")


def assert_same_float_dtype(tensors=None, dtype=None):
    """The one floating dtype of `tensors` (and `dtype`); ValueError if they differ, float32 if none."""
    dtypes = [convert_to_tensor(t).dtype for t in (tensors or [])] + ([dt.as_dtype(dtype)] if dtype else [])
    for d in dtypes:
        if d != dtypes[0]:
            raise ValueError("Expected %s, got %s." % (dtypes[0], d))
    if dtypes and not dtypes[0].is_floating:
        raise ValueError("Expected floating point type, got %s." % dtypes[0])
    return dtypes[0] if dtypes else dt.float32


def assert_proper_iterable(values):
    """TypeError if `values` is a tensor, an array or a string rather than a list-like of them."""
    from tinyflow.graph.core import Tensor
    if isinstance(values, (Tensor, np.ndarray, str, bytes)):
        raise TypeError("Expected argument \"values\" to be a \"proper\" iterable.  Found: %s" % type(values))
    if not hasattr(values, "__iter__"):
        raise TypeError("Expected argument \"values\" to be iterable.  Found: %s" % type(values))


def is_numeric_tensor(tensor):
    """Whether `tensor` is a Tensor of a numeric dtype."""
    from tinyflow.graph.core import Tensor
    return isinstance(tensor, Tensor) and (tensor.dtype.is_floating or tensor.dtype.is_integer)


def _monotone(x, compare, name, default_name):
    with get_default_graph().name_scope(name or default_name):
        from tinyflow.ops.core.array_ops import reshape
        flat = reshape(convert_to_tensor(x, name="x"), [-1])
        return m.reduce_all(compare(flat[:-1], flat[1:]))


def is_non_decreasing(x, name=None):
    """A bool tensor: x[i] <= x[i + 1] for x flattened."""
    return _monotone(x, m.less_equal, name, "is_non_decreasing")


def is_strictly_increasing(x, name=None):
    """A bool tensor: x[i] < x[i + 1] for x flattened."""
    return _monotone(x, m.less, name, "is_strictly_increasing")


# ---- numerics ------------------------------------------------------------------------------------
def verify_tensor_all_finite(t, msg, name=None, x=None, message=None):
    """t, checked to hold no NaN or Inf when it is computed (InvalidArgumentError with `msg`)."""
    t = x if t is None else t
    msg = message if msg is None else msg
    with get_default_graph().name_scope(name or "VerifyFinite"):
        return check_numerics(convert_to_tensor(t, name="x"), message=msg)


def add_check_numerics_ops():
    """One op that checks every floating-point tensor of the default graph for NaN and Inf when run
    (variables and their updates, TF's reference tensors, are left out as TF leaves them out)."""
    from tinyflow.graph.registry import get_op_def
    graph = get_default_graph()
    checks = []
    for op in list(graph.get_operations()):
        if op.type in ("VariableV2", "CheckNumerics") or get_op_def(op.type).ref_inputs:
            continue
        for t in op.outputs:
            if t.dtype.is_floating:
                with graph.control_dependencies(None):
                    checks.append(check_numerics(t, "%s:%d" % (op.name, t.value_index)).op)
    return group(*checks)
