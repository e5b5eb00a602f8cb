"""Array ops: placeholders, identity, shapes, reshape, fill/zeros/ones and the shape-manipulation
and indexing ops. Each op: one register_op with all its rules, next to its TF-style builder.
"""
import jax.numpy as jnp
import numpy as np

from ..graph import dtypes as dt
from ..graph.core import ShapeError, get_default_graph
from ..graph.registry import from_attr, register_op, same_as_input, shape_of_input
from ..graph.shapes import TensorShape, as_shape
from .base import constant, constant_value_of, convert_to_tensor, make_op, normalize_axis

__all__ = [
    'expand_dims',
    'fill',
    'identity',
    'no_op',
    'ones',
    'ones_like',
    'placeholder',
    'placeholder_with_default',
    'rank',
    'reshape',
    'shape',
    'size',
    'squeeze',
    'stack',
    'stop_gradient',
    'unstack',
    'zeros',
    'zeros_like',
]



# ---- placeholders ---------------------------------------------------------------------------------
register_op("Placeholder", shape=lambda s, a, v: [a["shape"]], dtype=from_attr("dtype"), grad=None, lower=None)


def placeholder(dtype, shape=None, name=None):
    """A tensor that must be fed at run time; `shape` may be partial (None dims) or None (any shape)."""
    return get_default_graph().create_op("Placeholder", [], {"dtype": dt.as_dtype(dtype), "shape": as_shape(shape)},
                                         name=name or "Placeholder").outputs[0]


def _pwd_shape(shapes, attrs, values):
    want = attrs["shape"]
    if not shapes[0].is_compatible_with(want):
        raise ShapeError("The shape of the default %s is not compatible with %s" % (shapes[0], want))
    return [want]


register_op("PlaceholderWithDefault", shape=_pwd_shape, dtype=same_as_input(0), grad=lambda op, g: [g],
            lower=lambda a, x: x)


def placeholder_with_default(input, shape, name=None):
    """The value of `input` unless this tensor is fed."""
    x = convert_to_tensor(input)
    return make_op("PlaceholderWithDefault", [x], {"shape": as_shape(shape)}, name=name or "PlaceholderWithDefault")


# ---- identity and friends -------------------------------------------------------------------------
register_op("Identity", shape=shape_of_input(0), dtype=same_as_input(0), grad=lambda op, g: [g],
            lower=lambda a, x: x, inplace=((0, 0),))
register_op("StopGradient", shape=shape_of_input(0), dtype=same_as_input(0), grad=None,
            lower=lambda a, x: x, inplace=((0, 0),))
register_op("NoOp", shape=lambda s, a, v: [], dtype=lambda d, a: [], grad=None, lower=None)


def identity(input, name=None):
    """A new tensor with the same value (reads a variable's current value)."""
    return make_op("Identity", [convert_to_tensor(input)], name=name or "Identity")


def stop_gradient(input, name=None):
    """The same value; tf.gradients treats it as a constant."""
    return make_op("StopGradient", [convert_to_tensor(input)], name=name or "StopGradient")


def no_op(name=None):
    """An op that does nothing; control dependencies on it group others."""
    return get_default_graph().create_op("NoOp", [], name=name or "NoOp")


# ---- shapes ---------------------------------------------------------------------------------------
def _shape_shape(shapes, attrs, values):
    return [TensorShape([shapes[0].ndims])]


register_op("Shape", shape=_shape_shape, dtype=from_attr("out_type"), grad=None, static=True,
            lower=lambda a, x: np.asarray(x.shape, a["out_type"].np))
register_op("Size", shape=lambda s, a, v: [TensorShape([])], dtype=from_attr("out_type"), grad=None, static=True,
            lower=lambda a, x: np.asarray(int(np.prod(x.shape)), a["out_type"].np))
register_op("Rank", shape=lambda s, a, v: [TensorShape([])], dtype=lambda d, a: [dt.int32], grad=None, static=True,
            lower=lambda a, x: np.asarray(x.ndim, np.int32))


def shape(input, name=None, out_type=dt.int32):
    """The dynamic shape of `input` as a 1-D int32 tensor."""
    return make_op("Shape", [convert_to_tensor(input)], {"out_type": dt.as_dtype(out_type)}, name=name or "Shape")


def size(input, name=None, out_type=dt.int32):
    """The number of elements of `input`."""
    return make_op("Size", [convert_to_tensor(input)], {"out_type": dt.as_dtype(out_type)}, name=name or "Size")


def rank(input, name=None):
    """The number of dimensions of `input`."""
    return make_op("Rank", [convert_to_tensor(input)], name=name or "Rank")


# ---- fill, zeros, ones ----------------------------------------------------------------------------
def _fill_shape(shapes, attrs, values):
    dims = values[0]
    if dims is None:
        n = shapes[0][0].value if shapes[0].ndims == 1 else None
        return [TensorShape(None if n is None else [None] * n)]
    return [TensorShape([int(d) for d in np.asarray(dims).reshape(-1)])]


register_op("Fill", shape=_fill_shape, dtype=same_as_input(1),
            grad=lambda op, g: [None, make_op("Sum", [g], {"axis": None, "keep_dims": False})],
            lower=lambda a, dims, value: jnp.full(tuple(int(d) for d in np.asarray(dims)), value, dtype=value.dtype))


def fill(dims, value, name=None):
    """A tensor of shape `dims` filled with scalar `value`."""
    return make_op("Fill", [_shape_tensor(dims), convert_to_tensor(value)], name=name or "Fill")


def _shape_tensor(shape):
    """A shape argument (list, tuple, TensorShape or int tensor) as an int32 tensor."""
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    if isinstance(shape, (list, tuple)) and not any(hasattr(s, "graph") for s in shape):
        return constant(np.asarray([int(s) for s in shape], np.int32).reshape(len(shape)), dtype=dt.int32)
    if isinstance(shape, (list, tuple)):
        return stack([convert_to_tensor(s, dtype=dt.int32) if not hasattr(s, "graph") else s for s in shape])
    return convert_to_tensor(shape, preferred_dtype=dt.int32)


def _filled(shape, value, dtype, name):
    """zeros/ones as TF builds them: a Const named after the scope when small and static, else Fill."""
    dtype = dt.as_dtype(dtype)
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    with get_default_graph().name_scope(name) as scope:
        static = constant_value_of(shape) if not hasattr(shape, "graph") else None
        if static is not None and np.asarray(static).size < 1000 and np.prod(static) < 1000:
            return constant(np.full([int(d) for d in np.asarray(static).reshape(-1)], value, dtype.np), dtype=dtype,
                            name=scope)
        return fill(shape, constant(value, dtype=dtype), name=scope)


def zeros(shape, dtype=dt.float32, name=None):
    """A tensor of zeros of `shape`."""
    return _filled(shape, 0, dtype, name or "zeros")


def ones(shape, dtype=dt.float32, name=None):
    """A tensor of ones of `shape`."""
    return _filled(shape, 1, dtype, name or "ones")


register_op("ZerosLike", shape=shape_of_input(0), dtype=same_as_input(0), grad=lambda op, g: [None],
            lower=lambda a, x: jnp.zeros_like(x))
register_op("OnesLike", shape=shape_of_input(0), dtype=same_as_input(0), grad=lambda op, g: [None],
            lower=lambda a, x: jnp.ones_like(x))


def zeros_like(tensor, dtype=None, name=None, optimize=True):
    """Zeros of the shape (and dtype, unless given) of `tensor`."""
    x = convert_to_tensor(tensor)
    out = make_op("ZerosLike", [x], name=name or "zeros_like")
    return out if dtype is None or dt.as_dtype(dtype) == x.dtype else _cast(out, dtype)


def ones_like(tensor, dtype=None, name=None, optimize=True):
    """Ones of the shape (and dtype, unless given) of `tensor`."""
    x = convert_to_tensor(tensor)
    out = make_op("OnesLike", [x], name=name or "ones_like")
    return out if dtype is None or dt.as_dtype(dtype) == x.dtype else _cast(out, dtype)


def _cast(x, dtype):
    from .math_ops import cast
    return cast(x, dtype)


# ---- reshape --------------------------------------------------------------------------------------
def _reshape_shape(shapes, attrs, values):
    x, target = shapes[0], values[1]
    if target is None:
        n = shapes[1][0].value if shapes[1].ndims == 1 else None
        return [TensorShape(None if n is None else [None] * n)]
    target = [int(d) for d in np.asarray(target).reshape(-1)]
    if target.count(-1) > 1:
        raise ShapeError("Cannot infer multiple unknown dimensions in shape [%s]" % ",".join(map(str, target)))
    known = int(np.prod([d for d in target if d != -1])) if target else 1
    n_in = x.num_elements()
    if -1 in target:
        if n_in is not None:
            if known == 0 or n_in % known:
                raise ShapeError("Cannot reshape a tensor with %d elements to shape [%s] (%d elements)"
                                 % (n_in, ",".join(map(str, target)), known))
            return [TensorShape([n_in // known if d == -1 else d for d in target])]
        return [TensorShape([None if d == -1 else d for d in target])]
    if n_in is not None and n_in != known:
        raise ShapeError("Cannot reshape a tensor with %d elements to shape [%s] (%d elements)"
                         % (n_in, ",".join(map(str, target)), known))
    if n_in is None and x.ndims is not None:
        part = int(np.prod([d for d in x.as_list() if d is not None]))
        if part and known % part:
            raise ShapeError("Cannot reshape a tensor with a multiple of %d elements to shape [%s] (%d elements)"
                             % (part, ",".join(map(str, target)), known))
    return [TensorShape(target)]


def _reshape_grad(op, g):
    return [make_op("Reshape", [g, shape(op.inputs[0])]), None]


register_op("Reshape", shape=_reshape_shape, dtype=same_as_input(0), grad=_reshape_grad, inplace=((0, 0),),
            lower=lambda a, x, s: jnp.reshape(x, tuple(int(d) for d in np.asarray(s))))


def reshape(tensor, shape, name=None):
    """Reshapes to `shape` (one -1 is inferred); ValueError at build time when sizes cannot match."""
    return make_op("Reshape", [convert_to_tensor(tensor), _shape_tensor(shape)], name=name or "Reshape")


def _expand_shape(shapes, attrs, values):
    s = shapes[0]
    if s.ndims is None:
        return [TensorShape(None)]
    ax = normalize_axis(attrs["axis"], s.ndims + 1)
    dims = s.as_list()
    return [TensorShape(dims[:ax] + [1] + dims[ax:])]


register_op("ExpandDims", shape=_expand_shape, dtype=same_as_input(0), inplace=((0, 0),),
            grad=lambda op, g: [make_op("Reshape", [g, shape(op.inputs[0])])],
            lower=lambda a, x: jnp.expand_dims(x, a["axis"] if a["axis"] >= 0 else x.ndim + 1 + a["axis"]))


def expand_dims(input, axis=None, name=None, dim=None):
    """Inserts a dimension of size 1 at `axis`."""
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    return make_op("ExpandDims", [convert_to_tensor(input)], {"axis": int(constant_value_of(axis))},
                   name=name or "ExpandDims")


def _squeeze_axes(s, axis):
    dims = s.as_list()
    if axis:
        axes = [normalize_axis(a, len(dims)) for a in axis]
        for a in axes:
            if dims[a] not in (None, 1):
                raise ShapeError("Can not squeeze dim[%d], expected a dimension of 1, got %d" % (a, dims[a]))
        return axes
    return [i for i, d in enumerate(dims) if d == 1]


def _squeeze_shape(shapes, attrs, values):
    s = shapes[0]
    if s.ndims is None:
        return [TensorShape(None)]
    if not attrs["axis"] and None in s.as_list():
        return [TensorShape(None)]
    axes = _squeeze_axes(s, attrs["axis"])
    return [TensorShape([d for i, d in enumerate(s.as_list()) if i not in axes])]


def _squeeze_lower(a, x):
    axes = tuple(normalize_axis(i, x.ndim) for i in a["axis"]) if a["axis"] else None
    return jnp.squeeze(x, axis=axes)


register_op("Squeeze", shape=_squeeze_shape, dtype=same_as_input(0), inplace=((0, 0),),
            grad=lambda op, g: [make_op("Reshape", [g, shape(op.inputs[0])])], lower=_squeeze_lower)


def squeeze(input, axis=None, name=None, squeeze_dims=None):
    """Removes dimensions of size 1 (all of them, or those in `axis`)."""
    axis = squeeze_dims if axis is None else axis
    if axis is not None and np.ndim(axis) == 0:
        axis = [axis]
    return make_op("Squeeze", [convert_to_tensor(input)], {"axis": tuple(int(a) for a in axis or ())},
                   name=name or "Squeeze")


# ---- stack (needed by shape arguments; the rest of the family follows) -----------------------------
def _pack_shape(shapes, attrs, values):
    out = shapes[0]
    for s in shapes[1:]:
        if not out.is_compatible_with(s):
            raise ShapeError("Shapes %s and %s are incompatible" % (out, s))
        out = out.merge_with(s)
    if out.ndims is None:
        return [TensorShape(None)]
    ax = normalize_axis(attrs["axis"], out.ndims + 1)
    dims = out.as_list()
    return [TensorShape(dims[:ax] + [len(shapes)] + dims[ax:])]


def _pack_grad(op, g):
    return unstack(g, num=len(op.inputs), axis=op.attrs["axis"])


register_op("Pack", shape=_pack_shape, dtype=same_as_input(0), grad=_pack_grad,
            lower=lambda a, *xs: jnp.stack(xs, axis=a["axis"]))


def stack(values, axis=0, name="stack"):
    """Stacks rank-R tensors into one rank-(R+1) tensor along `axis`."""
    from .base import convert_n
    values = convert_n(list(values))
    return make_op("Pack", values, {"axis": int(axis)}, name=name)


def _unpack_shape(shapes, attrs, values):
    s = shapes[0]
    if s.ndims is None:
        return [TensorShape(None)] * attrs["num"]
    ax = normalize_axis(attrs["axis"], s.ndims)
    dims = s.as_list()
    return [TensorShape(dims[:ax] + dims[ax + 1:])] * attrs["num"]


def _unpack_lower(a, x):
    ax = normalize_axis(a["axis"], x.ndim)
    return [jnp.squeeze(p, ax) for p in jnp.split(x, a["num"], axis=ax)]


def _unpack_grad(op, *gs):
    gs = [g if g is not None else zeros_like(t) for g, t in zip(gs, op.outputs)]
    return [stack(gs, axis=op.attrs["axis"])]


register_op("Unpack", shape=_unpack_shape, dtype=lambda d, a: [d[0]] * a["num"], grad=_unpack_grad,
            lower=_unpack_lower)


def unstack(value, num=None, axis=0, name="unstack"):
    """Splits along `axis` into a list of tensors of one rank less."""
    x = convert_to_tensor(value)
    if num is None:
        if x.shape.ndims is None or x.shape[axis].value is None:
            raise ValueError("Cannot infer num from shape %s" % x.shape)
        num = x.shape[axis].value
    op = get_default_graph().create_op("Unpack", [x], {"num": int(num), "axis": int(axis)}, name=name)
    return op.outputs
