"""Array ops: placeholders, identity, shapes, fill/zeros/ones, reshape, stack, transpose, concat/split,
tile/pad, broadcast_to, and the helpers the other array-op modules share. Indexing ops live in
indexing_ops.py, one_hot/range/reverse/cumsum/unique... in sequence_ops.py, diagonals/tensordot/einsum in
matrix_ops.py. Each op: one register_op with all its rules, next to its TF-style builder.

Lowering rules read shape-like inputs (perm, axis, paddings, begin/end, multiples, ...) as concrete
values: they are computed from constants and shapes only, which the backend evaluates while tracing.
Ops whose output *shape* depends on input *values* (tf.where(c), boolean_mask, unique, x[i:i + 2])
are registered with `dynamic_shape`: with run-time values they run between jitted segments
(lower/segments.py, docs/dynamic_shapes.md). A run-time tensor index (x[i]) stays inside one jit:
it becomes a dynamic index.
"""

import jax
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import ShapeError, Tensor, constant_value, constant_value_as_shape, get_default_graph
from tinyflow.graph.registry import from_attr, register_op, same_as_input, shape_of_input
from tinyflow.graph.shapes import TensorShape, as_shape
from tinyflow.ops import back_shapes
from tinyflow.ops.core import math_ops
from tinyflow.ops.core.base import (broadcast_shapes, constant, constant_value_of, convert_n, convert_to_tensor,
                                    make_op, normalize_axis)
from tinyflow.ops.core.util import convert_same, int_tensor, ints, name_scope, pyrange

__all__ = [
    'broadcast_to',
    'concat',
    'expand_dims',
    'fill',
    'identity',
    'invert_permutation',
    'newaxis',
    'no_op',
    'ones',
    'ones_like',
    'pad',
    'placeholder',
    'placeholder_with_default',
    'rank',
    'reshape',
    'shape',
    'shape_n',
    'size',
    'split',
    'squeeze',
    'stack',
    'stop_gradient',
    'tile',
    'transpose',
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
            fold=lambda op, values: values[0], infer_back=back_shapes.same_shape,
            lower=lambda a, x: x, inplace=((0, 0),))
register_op("StopGradient", shape=shape_of_input(0), dtype=same_as_input(0), grad=None,
            lower=lambda a, x: x, inplace=((0, 0),))
register_op("IdentityN", shape=lambda shapes, a, v: list(shapes), dtype=lambda dtypes, a: list(dtypes),
            grad=lambda op, *grads: list(grads), lower=lambda a, *xs: list(xs))
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


def _fold_shape(op, values):
    """Shape, Size and Rank of a statically known shape, in numpy."""
    s = op.inputs[0].shape
    if op.type == "Shape":
        return np.array(s.as_list(), op.attrs["out_type"].np) if s.is_fully_defined() else None
    if op.type == "Size":
        return np.array(s.num_elements(), op.attrs["out_type"].np) if s.is_fully_defined() else None
    return np.array(s.ndims, np.int32) if s.ndims is not None else None


register_op("Shape", fold=_fold_shape, shape=_shape_shape, dtype=from_attr("out_type"), grad=None, static=True,
            lower=lambda a, x: np.asarray(x.shape, a["out_type"].np))
register_op("Size", shape=lambda s, a, v: [TensorShape([])], dtype=from_attr("out_type"), grad=None, static=True,
            fold=_fold_shape,
            lower=lambda a, x: np.asarray(int(np.prod(x.shape)), a["out_type"].np))
register_op("Rank", shape=lambda s, a, v: [TensorShape([])], dtype=lambda d, a: [dt.int32], grad=None, static=True,
            fold=_fold_shape,
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
def fill_shape(shapes, attrs, values):
    dims = values[0]
    if dims is None:
        n = shapes[0][0].value if shapes[0].ndims == 1 else None
        return [TensorShape(None if n is None else [None] * n)]
    return [TensorShape([int(d) for d in np.asarray(dims).reshape(-1)])]


def dims_at_run_time(op, known):
    """A shape that is input 0's value, fed or computed at run time: the op runs between segments."""
    return not known[0]


register_op("Fill", fold=True, shape=fill_shape, dtype=same_as_input(1),
            grad=lambda op, g: [None, make_op("Sum", [g], {"axis": None, "keep_dims": False})],
            lower=lambda a, dims, value: jnp.full(tuple(int(d) for d in np.asarray(dims)), value, dtype=value.dtype),
            numpy=lambda a, dims, value: np.full(tuple(ints(dims)), value),
            dynamic_shape=dims_at_run_time)


def fill(dims, value, name=None):
    """A tensor of shape `dims` filled with scalar `value`."""
    dims = shape_tensor(dims)
    return with_shape_of(make_op("Fill", [dims, convert_to_tensor(value)], name=name or "Fill"), dims)


def with_shape_of(out, shape_t):
    """`out`, an op's result of shape `shape_t`, given the dims of shape_t known while building even
    when its value is not: tf.zeros([n, 3]) with n fed is (?, 3), as in TF."""
    out.set_shape(constant_value_as_shape(shape_t))
    return out


def shape_tensor(shape, name=None):
    """A shape argument (list, tuple, TensorShape or int tensor) as an int32 tensor."""
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    if isinstance(shape, (list, tuple)) and not any(hasattr(s, "graph") for s in shape):
        return constant(np.asarray([int(s) for s in shape], np.int32).reshape(len(shape)), dtype=dt.int32,
                        name=name or "Const")
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
    from tinyflow.ops.core.math_ops import cast
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
    if -1 in target and n_in == 0 and known == 0 and x.is_fully_defined():
        return [TensorShape(_empty_target(x.as_list(), target))]
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


def _empty_target(dims, target):
    """TF's -1 for an empty tensor reshaped to a shape holding a 0: the product of the input's nonzero
    dims over the target's nonzero known dims ([0, 3] -> [0, -1] is [0, 3])."""
    nonzero_in = int(np.prod([d for d in dims if d]))
    nonzero_known = int(np.prod([d for d in target if d not in (0, -1)]))
    return [nonzero_in // nonzero_known if d == -1 else d for d in target]


def _reshape_lower(a, x, s):
    target = [int(d) for d in np.asarray(s).reshape(-1)]
    if x.size == 0 and -1 in target and 0 in target:
        target = _empty_target(list(x.shape), target)
    return jnp.reshape(x, tuple(target))


def _reshape_grad(op, g):
    return [make_op("Reshape", [g, shape(op.inputs[0])]), None]


register_op("Reshape", shape=_reshape_shape, dtype=same_as_input(0), grad=_reshape_grad, inplace=((0, 0),),
            fold=True, infer_back=back_shapes.reshape,
            lower=_reshape_lower, dynamic_shape=lambda op, known: not known[1])   # a shape of run-time values


def reshape(tensor, shape, name=None):
    """Reshapes to `shape` (one -1 is inferred); ValueError at build time when sizes cannot match."""
    shape = shape_tensor(shape)
    return with_shape_of(make_op("Reshape", [convert_to_tensor(tensor), shape], name=name or "Reshape"), shape)


def _expand_shape(shapes, attrs, values):
    s = shapes[0]
    if s.ndims is None:
        return [TensorShape(None)]
    ax = normalize_axis(attrs["axis"], s.ndims + 1)
    dims = s.as_list()
    return [TensorShape(dims[:ax] + [1] + dims[ax:])]


register_op("ExpandDims", fold=True, shape=_expand_shape, dtype=same_as_input(0), inplace=((0, 0),),
            grad=lambda op, g: [make_op("Reshape", [g, shape(op.inputs[0])])],
            lower=lambda a, x: jnp.expand_dims(x, a["axis"] if a["axis"] >= 0 else x.ndim + 1 + a["axis"]))


def expand_dims(input, axis=None, name=None, dim=None):
    """Inserts a dimension of size 1 at `axis`."""
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    value = np.asarray(constant_value_of(axis))
    if value.size != 1:   # TF accepts a scalar or a 1-element list ([-1]), nothing longer
        raise ValueError("'dim' input must be a tensor with a single value for '%s' (op: 'ExpandDims')"
                         % (name or "ExpandDims"))
    return make_op("ExpandDims", [convert_to_tensor(input)], {"axis": int(value.reshape(()))},
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
    axes = tuple(_squeeze_axes(TensorShape(x.shape), a["axis"])) if a["axis"] else None  # TF's error if not 1
    return jnp.squeeze(x, axis=axes)


register_op("Squeeze", fold=True, shape=_squeeze_shape, dtype=same_as_input(0), inplace=((0, 0),),
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


def _fold_pack(op, values):
    return None if any(v is None for v in values) else np.stack(values, axis=op.attrs.get("axis", 0))


register_op("Pack", fold=_fold_pack, shape=_pack_shape, dtype=same_as_input(0), grad=_pack_grad,
            lower=lambda a, *xs: jnp.stack(xs, axis=a["axis"]), numpy=lambda a, *xs: np.stack(xs, axis=a["axis"]))


def stack(values, axis=0, name="stack"):
    """Stacks rank-R tensors into one rank-(R+1) tensor along `axis`."""
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


# ---- helpers of the ops below ---------------------------------------------------------------------
newaxis = None











def _vector_len(shape):
    return shape[0].value if shape.ndims == 1 else None


def _unknown(n):
    """One output of n unknown dimensions (unknown rank when n is None)."""
    return [TensorShape(None if n is None else [None] * n)]


# ---- transpose ------------------------------------------------------------------------------------
def _transpose_shape(shapes, attrs, values):
    x, perm = shapes[0], values[1]
    if perm is None:
        return _unknown(x.ndims if x.ndims is not None else _vector_len(shapes[1]))
    perm = ints(perm)
    if x.ndims is None:
        return [TensorShape([None] * len(perm))]
    if len(perm) != x.ndims:
        raise ShapeError("Dimension must be %d but is %d" % (x.ndims, len(perm)))
    if sorted(perm) != list(pyrange(x.ndims)):
        raise ShapeError("%s is not a valid permutation of [0, %d)" % (perm, x.ndims))
    dims = x.as_list()
    return [TensorShape([dims[p] for p in perm])]


register_op("Transpose", fold=True, infer_back=back_shapes.transpose, shape=_transpose_shape, dtype=same_as_input(0),
            grad=lambda op, g: [transpose(g, invert_permutation(op.inputs[1])), None],
            lower=lambda a, x, perm: jnp.transpose(x, tuple(ints(perm))))
register_op("InvertPermutation", fold=True, shape=shape_of_input(0), dtype=same_as_input(0), grad=None,
            lower=lambda a, p: jnp.argsort(p).astype(p.dtype),
            numpy=lambda a, p: np.argsort(p, kind="stable").astype(p.dtype))





def invert_permutation(x, name=None):
    """The inverse permutation of the 1-D int tensor `x`."""
    return make_op("InvertPermutation", [int_tensor(x, "x")], name=name or "InvertPermutation")


def transpose(a, perm=None, name="transpose", conjugate=False):
    """Permutes the dimensions of `a` by `perm` (default: reversed, a matrix transpose)."""
    with name_scope(name) as scope:
        x = convert_to_tensor(a, name="a")
        if perm is None:
            if x.shape.ndims is not None:
                perm = constant(np.arange(x.shape.ndims)[::-1].astype(np.int32), name="perm")
            else:
                r = rank(x)
                from tinyflow.ops.core.sequence_ops import range  # sequence_ops imports this module
                perm = math_ops.subtract(math_ops.subtract(r, 1), range(0, r, 1))
        return make_op("Transpose", [x, int_tensor(perm, "perm")], name=scope)


# ---- concat and split -----------------------------------------------------------------------------
def _concat_shape(shapes, attrs, values):
    ins, axis = shapes[:-1], values[-1]
    known = [s for s in ins if s.ndims is not None]
    if not known:
        return [TensorShape(None)]
    rank_ = known[0].ndims
    for s in known[1:]:
        if s.ndims != rank_:
            raise ShapeError("Shape must be rank %d but is rank %d" % (rank_, s.ndims))
    if axis is None:
        return [TensorShape([None] * rank_)]
    axis = int(axis)
    if not -rank_ <= axis < rank_:
        raise ShapeError("ConcatOp : Expected concatenating dimensions in the range [%d, %d), but got %d"
                         % (-rank_, rank_, axis))
    ax = axis % rank_
    out, prev, total = None, None, 0
    for s in known:
        d = s.as_list()
        total = None if total is None or d[ax] is None else total + d[ax]
        if out is None:
            out, prev = d[:], s
            continue
        for i, (x, y) in enumerate(zip(out, d)):
            if i == ax:
                continue
            if x is not None and y is not None and x != y:
                raise ShapeError("Dimension %d in both shapes must be equal, but are %d and %d. Shapes are %s and %s."
                                 % (i, x, y, prev.as_proto_str(), s.as_proto_str()))
            out[i] = x if x is not None else y
        prev = s
    out[ax] = total if len(known) == len(ins) else None
    return [TensorShape(out)]


def _concat_grad(op, g):
    xs, axis_t = op.inputs[:-1], op.inputs[-1]
    axis, n = constant_value(axis_t), xs[0].shape.ndims
    ax = int(axis) % n if axis is not None and n is not None else math_ops.floormod(axis_t, rank(xs[0]))
    sizes = [x.shape[ax].value if isinstance(ax, int) and x.shape.ndims is not None else None for x in xs]
    if None in sizes:
        from tinyflow.ops.core.indexing_ops import gather  # indexing_ops imports this module
        sizes = stack([gather(shape(x), ax) for x in xs])
    return split(g, sizes, axis=ax) + [None]


def _concat_numpy(a, *xs):
    """ConcatV2's value by numpy (a fold, a static step: no XLA program compiled for it); numbers only."""
    if any(x.dtype.kind not in "biufc" or x.dtype != xs[0].dtype for x in xs[:-1]):
        return None
    return np.concatenate(xs[:-1], axis=int(xs[-1]))


register_op("ConcatV2", fold=True, shape=_concat_shape, dtype=same_as_input(0), grad=_concat_grad,
            lower=lambda a, *xs: jnp.concatenate(xs[:-1], axis=int(xs[-1])), numpy=_concat_numpy)




def concat(values, axis, name="concat"):
    """Joins tensors along `axis` (negative counts from the end); other dimensions must match."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:
        with name_scope(name) as scope:
            return identity(values[0], name=scope)
    values = convert_same(values, "ConcatV2")
    with name_scope(name) as scope:
        return make_op("ConcatV2", values + [convert_to_tensor(axis, dtype=dt.int32, name="axis")], name=scope)


def _split_dims(x, axis, n):
    """Split's and SplitV's input dims and axis, or the n outputs' shapes when the rank or axis is unknown."""
    if x.ndims is None:
        return [TensorShape(None)] * n, None
    if axis is None:
        return [TensorShape([None] * x.ndims)] * n, None
    return x.as_list(), normalize_axis(int(axis), x.ndims)


def _split_shape(shapes, attrs, values):
    n = attrs["num_split"]
    d, ax = _split_dims(shapes[1], values[0], n)
    if ax is None:
        return d
    if d[ax] is not None and d[ax] % n:
        raise ShapeError("Dimension size must be evenly divisible by %d but is %d" % (n, d[ax]))
    d[ax] = None if d[ax] is None else d[ax] // n
    return [TensorShape(d)] * n


def _split_grad_of(value_index, axis_index):
    """Split's and SplitV's gradient: the output gradients concatenated (zeros for missing ones)."""
    def grad(op, *gs):
        gs = [g if g is not None else zeros_like(t) for g, t in zip(gs, op.outputs)]
        out = [None] * len(op.inputs)
        out[value_index] = concat(gs, op.inputs[axis_index])
        return out
    return grad


register_op("Split", shape=_split_shape, dtype=lambda d, a: [d[1]] * a["num_split"], grad=_split_grad_of(1, 0),
            fold=True,
            lower=lambda a, axis, x: jnp.split(x, a["num_split"], axis=int(axis)))


def _resolve_sizes(sizes, total):
    """size_splits with its one -1 filled in from `total` (None when unknown)."""
    if sizes.count(-1) > 1:
        raise ShapeError("Cannot infer multiple unknown dimensions in size_splits")
    if -1 in sizes:
        if total is None:
            return [None if s == -1 else s for s in sizes]
        rest = total - sum(s for s in sizes if s != -1)
        if rest < 0:
            raise ShapeError("Determined shape must either match input shape along split_dim exactly if fully "
                             "specified, or be less than the size of the input along split_dim if not fully "
                             "specified.  Got: %d" % (total - rest))
        return [rest if s == -1 else s for s in sizes]
    if total is not None and sum(sizes) != total:
        raise ShapeError("Determined shape must either match input shape along split_dim exactly if fully "
                         "specified, or be less than the size of the input along split_dim if not fully "
                         "specified.  Got: %d" % sum(sizes))
    return sizes


def _splitv_shape(shapes, attrs, values):
    n, sizes = attrs["num_split"], values[1]
    d, ax = _split_dims(shapes[0], values[2], n)
    if ax is None:
        return d
    sizes = [None] * n if sizes is None else _resolve_sizes(ints(sizes), d[ax])
    return [TensorShape(d[:ax] + [s] + d[ax + 1:]) for s in sizes]


def _splitv_lower(a, x, sizes, axis):
    ax = normalize_axis(int(axis), x.ndim)
    sizes = _resolve_sizes(ints(sizes), x.shape[ax])
    return jnp.split(x, np.cumsum(sizes)[:-1].tolist(), axis=ax)


register_op("SplitV", shape=_splitv_shape, dtype=lambda d, a: [d[0]] * a["num_split"], grad=_split_grad_of(0, 2),
            fold=True,
            lower=_splitv_lower)


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Splits `value` along `axis` into `num_or_size_splits` equal parts, or parts of the given sizes
    (one size may be -1). Returns a list of tensors."""
    x = convert_to_tensor(value)
    if isinstance(num_or_size_splits, (int, np.integer)) and not isinstance(num_or_size_splits, bool):
        with name_scope(name) as scope:
            axis_t = convert_to_tensor(axis, dtype=dt.int32, name="split_dim")
            op = get_default_graph().create_op("Split", [axis_t, x], {"num_split": int(num_or_size_splits)},
                                               name=scope)
        return op.outputs
    with name_scope(name) as scope:
        sizes = int_tensor(num_or_size_splits, "size_splits")
        if sizes.shape.ndims == 0:
            raise ValueError("Rank-0 tensors are not supported as the num_or_size_splits argument to split. "
                             "Argument provided: %s" % (num_or_size_splits,))
        if num is None:
            num = _vector_len(sizes.shape)
            if num is None:
                raise ValueError("Cannot infer num from shape %s" % (num_or_size_splits,))
        axis_t = convert_to_tensor(axis, dtype=dt.int32, name="split_dim")
        op = get_default_graph().create_op("SplitV", [x, sizes, axis_t], {"num_split": int(num)}, name=scope)
    return op.outputs


# ---- tile and pad ---------------------------------------------------------------------------------
def _tile_shape(shapes, attrs, values):
    x, m = shapes[0], values[1]
    n = x.ndims if x.ndims is not None else _vector_len(shapes[1])
    if m is None:
        return _unknown(n)
    m = ints(m)
    if x.ndims is None:
        return [TensorShape([None] * len(m))]
    if len(m) != x.ndims:
        raise ShapeError("Shape must be rank %d but is rank %d" % (len(m), x.ndims))
    return [TensorShape([None if d is None else d * k for d, k in zip(x.as_list(), m)])]


def _tile_grad(op, g):
    # TF's: view g as [m0, d0, m1, d1, ...] and sum over the m axes
    x, multiples = op.inputs
    split_shape = reshape(transpose(stack([multiples, shape(x, out_type=multiples.dtype)])), [-1])
    n = x.shape.ndims if x.shape.ndims is not None else _vector_len(multiples.shape)
    dx = math_ops.reduce_sum(reshape(g, split_shape), axis=list(pyrange(0, 2 * n, 2)))
    return [dx, None]


register_op("Tile", fold=True, shape=_tile_shape, dtype=same_as_input(0), grad=_tile_grad,
            lower=lambda a, x, m: jnp.tile(x, tuple(ints(m))))


def tile(input, multiples, name=None):
    """`input` repeated multiples[i] times along dimension i."""
    with name_scope(name or "Tile") as scope:
        return make_op("Tile", [convert_to_tensor(input, name="input"), int_tensor(multiples, "multiples")],
                       name=scope)


def _pad_shape(shapes, attrs, values):
    x, p = shapes[0], values[1]
    if p is None:
        return _unknown(x.ndims if x.ndims is not None else (shapes[1][0].value if shapes[1].ndims else None))
    p = np.asarray(p).reshape(-1, 2)
    if x.ndims is None:
        return [TensorShape([None] * len(p))]
    if len(p) != x.ndims:
        raise ShapeError("Dimension 0 in both shapes must be equal, but are %d and %d. Shapes are [%d,2] and [%d,2]."
                         % (len(p), x.ndims, len(p), x.ndims))
    if (p < 0).any():
        raise ShapeError("Paddings must be non-negative")
    mode = attrs.get("mode")
    for i, (d, (lo, hi)) in enumerate(zip(x.as_list(), p)):
        limit = None if d is None or mode is None else (d - 1 if mode == "REFLECT" else d)
        if limit is not None and (lo > limit or hi > limit):
            raise ShapeError("paddings must be less than%s the dimension size: %d, %d not less than %d"
                             % (" or equal to" if mode == "SYMMETRIC" else "", lo, hi, d))
    return [TensorShape([None if d is None else d + int(lo) + int(hi) for d, (lo, hi) in zip(x.as_list(), p)])]


def _pad_widths(p):
    return [tuple(int(v) for v in row) for row in np.asarray(p).reshape(-1, 2)]


def _pad_grad(op, g):
    x, p = op.inputs[0], op.inputs[1]
    from tinyflow.ops.core.indexing_ops import slice  # indexing_ops imports this module
    begin = reshape(slice(p, [0, 0], [-1, 1]), [-1])
    dx = slice(g, begin, shape(x, out_type=p.dtype))
    return [dx] + [None] * (len(op.inputs) - 1)


def _paddings_at_run_time(op, known):
    """Run-time paddings (the gradient of a slice with a run-time begin) decide the output shape."""
    return not known[1]


register_op("Pad", fold=True, shape=_pad_shape, dtype=same_as_input(0), grad=_pad_grad,
            lower=lambda a, x, p: jnp.pad(x, _pad_widths(p)), dynamic_shape=_paddings_at_run_time)
register_op("PadV2", shape=_pad_shape, dtype=same_as_input(0), grad=_pad_grad,
            lower=lambda a, x, p, c: jnp.pad(x, _pad_widths(p), constant_values=c), dynamic_shape=_paddings_at_run_time)
register_op("MirrorPad", shape=_pad_shape, dtype=same_as_input(0), dynamic_shape=_paddings_at_run_time,
            grad=lambda op, g: [make_op("MirrorPadGrad", [g, op.inputs[1]], {"mode": op.attrs["mode"]}), None],
            lower=lambda a, x, p: jnp.pad(x, _pad_widths(p), mode=a["mode"].lower()))


def _mirror_pad_grad_shape(shapes, attrs, values):
    g, p = shapes[0], values[1]
    if g.ndims is None or p is None:
        return _unknown(g.ndims)
    p = np.asarray(p).reshape(-1, 2)
    return [TensorShape([None if d is None else d - int(lo) - int(hi) for d, (lo, hi) in zip(g.as_list(), p)])]


def _mirror_pad_grad_lower(a, g, p):
    widths = _pad_widths(p)
    x0 = jnp.zeros(tuple(d - lo - hi for d, (lo, hi) in zip(g.shape, widths)), g.dtype)
    _, vjp = jax.vjp(lambda x: jnp.pad(x, widths, mode=a["mode"].lower()), x0)
    return vjp(g)[0]


register_op("MirrorPadGrad", shape=_mirror_pad_grad_shape, dtype=same_as_input(0), lower=_mirror_pad_grad_lower,
            grad=lambda op, g: [make_op("MirrorPad", [g, op.inputs[1]], {"mode": op.attrs["mode"]}), None])


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0):
    """Pads `tensor` by paddings [[before, after], ...] per dimension; mode CONSTANT (with
    constant_values), REFLECT or SYMMETRIC."""
    mode = mode.upper()
    x = convert_to_tensor(tensor, name="tensor")
    p = int_tensor(paddings, "paddings")
    if mode == "CONSTANT":
        if not isinstance(constant_values, Tensor) and np.all(np.asarray(constant_values) == 0):
            return make_op("Pad", [x, p], name=name or "Pad")
        c = convert_to_tensor(constant_values, dtype=x.dtype, name="constant_values")
        return make_op("PadV2", [x, p, c], name=name or "PadV2")
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise ValueError("Unknown padding mode: %s" % mode)
    return make_op("MirrorPad", [x, p], {"mode": mode}, name=name or "MirrorPad")


# ---- broadcast_to, shape_n --------------------------------------------------------------------------
def _broadcast_to_shape(shapes, attrs, values):
    target = fill_shape(shapes[1:], attrs, values[1:])[0]
    try:
        out = broadcast_shapes(shapes[0], target)
    except ShapeError:
        out = None
    if out is None or (out.ndims is not None and target.ndims is not None and out.ndims != target.ndims):
        raise ShapeError("Incompatible shapes: %s vs. %s" % (shapes[0].as_proto_str(), target.as_proto_str()))
    return [target.merge_with(out) if target.ndims is not None else out]


register_op("BroadcastTo", shape=_broadcast_to_shape, dtype=same_as_input(0),
            grad=lambda op, g: [math_ops.sum_to(g, op.inputs[0]), None],
            lower=lambda a, x, s: jnp.broadcast_to(x, tuple(ints(s))))


def broadcast_to(input, shape, name=None):
    """`input` broadcast (numpy rules) to `shape`."""
    shape = shape_tensor(shape, name="shape")
    return with_shape_of(make_op("BroadcastTo", [convert_to_tensor(input, name="input"), shape],
                                 name=name or "BroadcastTo"), shape)


register_op("ShapeN", fold=True, shape=lambda s, a, v: [TensorShape([x.ndims]) for x in s],
            dtype=lambda d, a: [a["out_type"]] * len(d), grad=None, static=True,
            lower=lambda a, *xs: tuple(np.asarray(x.shape, a["out_type"].np) for x in xs))


def shape_n(input, out_type=dt.int32, name=None):
    """The shapes of a list of tensors (one ShapeN op)."""
    xs = [convert_to_tensor(x) for x in input]
    op = get_default_graph().create_op("ShapeN", xs, {"out_type": dt.as_dtype(out_type)}, name=name or "ShapeN")
    return op.outputs
