"""What every op family needs: tensor conversion, the Const op, op creation and shared shape rules.

An op family file registers each op once (OpDef with all rules) next to its TF-style builder.
"""

import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import Graph, ShapeError, Tensor, get_default_graph
from tinyflow.graph.registry import register_op
from tinyflow.graph.shapes import TensorShape

_CONVERTERS = []  # (type, fn(value, dtype, name, as_ref) -> Tensor): Variables register here


def register_tensor_conversion_function(base_type, fn):
    """Teaches convert_to_tensor a new Python type (tf.Variable uses this)."""
    _CONVERTERS.append((base_type, fn))


def infer_dtype(value):
    """TF's dtype for a Python or numpy value: floats are float32, ints int32, numpy keeps its own."""
    if isinstance(value, (np.ndarray, np.generic)):
        return dt.as_dtype(value.dtype)
    a = np.asarray(value)
    if a.dtype.kind == "f":
        return dt.float32
    if a.dtype.kind in "iu":
        if a.size and (a.max() > np.iinfo(np.int32).max or a.min() < np.iinfo(np.int32).min):
            return dt.int64
        return dt.int32
    if a.dtype.kind == "b":
        return dt.bool_
    if a.dtype.kind == "c":
        return dt.complex128   # TF: a Python complex is complex128
    if a.dtype.kind in "USO":
        return dt.string
    raise TypeError("Failed to convert object of type %s to Tensor. Contents: %s." % (type(value), value))


def to_numpy(value, dtype=None):
    """A Python/numpy value as a numpy array of TF's dtype for it (or of `dtype`), TF's checks."""
    if isinstance(value, Tensor):
        raise TypeError("Expected a constant value, got a Tensor %s" % value.name)
    dtype = dt.as_dtype(dtype) if dtype is not None else infer_dtype(value)
    if dtype is dt.string:
        from tinyflow.ops.host_ops import to_bytes_array  # strings are object arrays of bytes, as TF returns them
        return to_bytes_array(value)
    if isinstance(value, (np.ndarray, np.generic)):
        return np.asarray(value).astype(dtype.np, copy=False)
    a = np.asarray(value)
    if a.dtype == object:
        raise TypeError("Failed to convert object of type %s to Tensor. Contents: %s. Consider casting "
                        "elements to a supported type." % (type(value), value))
    if dtype.is_integer and a.dtype.kind == "f":
        if not np.all(np.floor(a) == a):
            raise TypeError("Expected %s, got %s of type '%s' instead." % (dtype.name, value, type(value).__name__))
    if dtype.is_bool and a.dtype.kind != "b":
        raise TypeError("Expected bool, got %s of type '%s' instead." % (value, type(value).__name__))
    if (dtype.is_integer or dtype.is_floating) and a.dtype.kind in "USb" and a.size:
        raise TypeError("Expected %s, got %s of type '%s' instead." % (dtype.name, value, type(value).__name__))
    return a.astype(dtype.np)


def _is_text(value):
    if isinstance(value, (str, bytes)):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "SU" or (value.dtype == object and value.size and isinstance(
            value.reshape(-1)[0], (str, bytes)))
    return isinstance(value, (list, tuple)) and np.asarray(value).dtype.kind in "SU"


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """tf.constant: a Const op holding `value` (broadcast to `shape` when given)."""
    if (dtype is not None and dt.as_dtype(dtype) is dt.string) or (dtype is None and _is_text(value)):
        from tinyflow.ops.host_ops import to_bytes_array  # strings are object arrays of bytes, as TF returns them
        a = to_bytes_array(value)
    else:
        a = to_numpy(value, dtype)
    if shape is not None:
        shape = [int(d) for d in (shape if isinstance(shape, (list, tuple)) else TensorShape(shape).as_list())]
        if a.size == 1:
            a = np.full(shape, a.reshape(()), a.dtype)
        elif a.size == int(np.prod(shape)) and not verify_shape:
            a = a.reshape(shape)
        else:
            raise TypeError("Expected Tensor's shape: %s, got %s." % (tuple(shape), a.shape))
    return get_default_graph().create_op("Const", [], {"value": a, "dtype": dt.as_dtype(a.dtype)},
                                         name=name).outputs[0]


def _const_lower(attrs):
    value = attrs["value"]
    if value.dtype.kind in "USO":  # a graph may hold strings (names, messages); XLA computes numbers only
        raise TypeError("tinyflow computes numbers and booleans only; a string tensor (%r) cannot be "
                        "computed or fetched" % (value.tolist(),))
    return value


register_op("Const", shape=lambda s, a, v: [TensorShape(a["value"].shape)], dtype=lambda d, a: [a["dtype"]],
            grad=None, lower=_const_lower, numpy=_const_lower)   # (a static step's value: no trace, no program)


def convert_to_tensor(value, dtype=None, name=None, preferred_dtype=None, as_ref=False):
    """tf.convert_to_tensor: Tensors pass through (dtype checked), others become constants."""
    if isinstance(value, Tensor):
        if dtype is not None and dt.as_dtype(dtype) != value.dtype:
            raise ValueError("Tensor conversion requested dtype %s for Tensor with dtype %s: %r"
                             % (dt.as_dtype(dtype).name, value.dtype.name, value))
        return value
    for base, fn in _CONVERTERS:
        if isinstance(value, base):
            return fn(value, dtype, name, as_ref)
    if isinstance(value, (list, tuple)) and _holds_tensor(value):  # TF's auto-packing: tf.stack
        from tinyflow.ops.core.array_ops import stack
        packed = stack([convert_to_tensor(v, dtype) if isinstance(v, (list, tuple)) else v for v in value],
                       name=name or "packed")
        return convert_to_tensor(packed, dtype)
    if dtype is None and preferred_dtype is not None:
        try:
            return constant(value, preferred_dtype, name=name or "Const")
        except (TypeError, ValueError):
            pass
    return constant(value, dtype, name=name or "Const")


def _holds_tensor(value):
    return any(_holds_tensor(v) if isinstance(v, (list, tuple)) else as_tensor_or_none(v) is not None
               for v in value)


def convert_n(values, dtype=None):
    """Converts a list; the first Tensor among them sets the dtype of Python numbers."""
    if dtype is None:
        for v in values:
            t = as_tensor_or_none(v)
            if t is not None:
                dtype = t.dtype
                break
    return [convert_to_tensor(v, dtype) for v in values]


def as_tensor_or_none(v):
    if isinstance(v, Tensor):
        return v
    for base, fn in _CONVERTERS:
        if isinstance(v, base):
            return fn(v, None, None, False)
    return None


def graph_of(*values):
    """The graph the tensors among `values` belong to (the default graph if none); ValueError if mixed."""
    g = None
    for v in values:
        if isinstance(v, (list, tuple)):
            vg = graph_of(*v) if v else None
            if vg is None or (g is not None and vg is get_default_graph()):
                continue
        else:
            vg = getattr(v, "graph", None)
        if isinstance(vg, Graph):
            if g is not None and vg is not g:
                if _encloses(vg, g):  # a branch/body graph (tf.cond, tf.while_loop) and its outer graph
                    continue
                if not _encloses(g, vg):
                    raise ValueError("Tensor %s must be from the same graph as the other inputs." % v)
            g = vg
    d = get_default_graph()
    # Inside a tf.cond branch or tf.while_loop body, ops on outer tensors belong to the body graph,
    # which captures those tensors as inputs.
    return d if g is None or _encloses(g, d) else g


def _encloses(outer, inner):
    """Whether `inner` is `outer` or a body graph nested in it (FuncGraph.outer_graph chain)."""
    while inner is not None and inner is not outer:
        inner = getattr(inner, "outer_graph", None)
    return inner is outer


def make_op(op_type, inputs, attrs=None, name=None):
    """Creates an op on the inputs' graph and returns its output Tensor(s): one, or a list."""
    op = graph_of(*inputs).create_op(op_type, inputs, attrs, name=name)
    outs = op.outputs
    return outs[0] if len(outs) == 1 else (op if not outs else outs)


def make_op_raw(op_type, inputs, attrs=None, name=None):
    """Like make_op but returns the Operation."""
    return graph_of(*inputs).create_op(op_type, inputs, attrs, name=name)


# ---- shared shape rules ----------------------------------------------------------------------------
def broadcast_shapes(a, b):
    """numpy broadcasting on partial shapes; ShapeError in TF's words on a mismatch."""
    if a.ndims is None or b.ndims is None:
        return TensorShape(None)
    da, db = a.as_list(), b.as_list()
    n = max(len(da), len(db))
    da = [1] * (n - len(da)) + da
    db = [1] * (n - len(db)) + db
    out = []
    for x, y in zip(da, db):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None:
            out.append(y)
        elif y is None or x == y:
            out.append(x)
        else:
            raise ShapeError("Dimensions must be equal, but are %d and %d" % (x, y))
    return TensorShape(out)


def broadcast_rule(shapes, attrs, values):
    out = shapes[0]
    for s in shapes[1:]:
        out = broadcast_shapes(out, s)
    return [out]


def normalize_axis(axis, rank, what="axis"):
    """A possibly negative axis as 0..rank-1; ShapeError if out of range."""
    if rank is None:
        return axis
    if not -rank <= axis < rank:
        raise ShapeError("%s %d out of range for rank %d (must be in [%d, %d))" % (what.capitalize(), axis, rank,
                                                                                  -rank, rank))
    return axis % rank


def constant_value_of(x):
    """A Python value, numpy value or constant-foldable Tensor as numpy; None when only known at run time."""
    from tinyflow.graph.core import constant_value
    if isinstance(x, Tensor):
        return constant_value(x)
    t = as_tensor_or_none(x)
    if t is not None:
        return constant_value(t)
    if isinstance(x, (list, tuple)) and any(isinstance(i, Tensor) for i in x):
        vals = [constant_value_of(i) for i in x]
        return None if any(v is None for v in vals) else np.array(vals)
    return np.asarray(x)
