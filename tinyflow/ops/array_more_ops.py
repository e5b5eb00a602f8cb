"""More array ops of TF 1.15's `tf.`: tensor_scatter_update/add/sub (copies with rows replaced or added),
space_to_batch(_nd) / batch_to_space(_nd) and required_space_to_batch_paddings, unravel_index, setdiff1d,
repeat, parallel_stack, broadcast_dynamic_shape. Each op: one register_op with all its rules."""
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import ShapeError, get_default_graph
from tinyflow.graph.registry import register_op, same_as_input
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core import array_ops as A
from tinyflow.ops.core import math_ops as M
from tinyflow.ops.core.base import constant, constant_value_of, convert_to_tensor, make_op
from tinyflow.ops.core.indexing_ops import gather_nd
from tinyflow.ops.core.util import int_tensor, is_concrete

__all__ = ["batch_to_space", "batch_to_space_nd", "broadcast_dynamic_shape", "parallel_stack", "repeat",
           "required_space_to_batch_paddings", "setdiff1d", "space_to_batch", "space_to_batch_nd",
           "tensor_scatter_add", "tensor_scatter_nd_add", "tensor_scatter_nd_sub", "tensor_scatter_nd_update",
           "tensor_scatter_sub", "tensor_scatter_update", "unravel_index"]


# ---- tensor_scatter_*: a copy of `tensor` with updates at indices (scatter_nd's indexing) ----------------
def _index(i):
    return tuple(jnp.moveaxis(i, -1, 0))


def _tensor_scatter_shape(shapes, attrs, values):
    t, i, u = shapes
    if t.ndims is not None and i.ndims is not None and u.ndims is not None and i[-1].value is not None:
        k = i[-1].value
        want = TensorShape(i.as_list()[:-1] + t.as_list()[k:])
        if not u.is_compatible_with(want):
            raise ShapeError("Dimensions mismatch: updates has shape %s, %s expects %s"
                             % (u.as_proto_str(), attrs.get("_type", "TensorScatter"), want.as_proto_str()))
    return [t]


def _ts_grad(kind):
    def grad(op, g):
        idx = op.inputs[1]
        gu = gather_nd(g, idx)
        if kind == "Update":   # the replaced entries get no gradient in the tensor
            return [make_op("TensorScatterUpdate", [g, idx, M.zeros_like(gu)]), None, gu]
        return [g, None, M.negative(gu) if kind == "Sub" else gu]
    return grad


_TS = {"Update": lambda t, i, u: t.at[_index(i)].set(u), "Add": lambda t, i, u: t.at[_index(i)].add(u),
       "Sub": lambda t, i, u: t.at[_index(i)].add(-u)}
for _k, _fn in _TS.items():
    register_op("TensorScatter" + _k, shape=_tensor_scatter_shape, dtype=same_as_input(0), grad=_ts_grad(_k),
                lower=lambda a, t, i, u, _fn=_fn: _fn(jnp.asarray(t), i, jnp.asarray(u, t.dtype)))


def _tensor_scatter(kind, tensor, indices, updates, name):
    tensor = convert_to_tensor(tensor, name="tensor")
    indices = convert_to_tensor(indices, name="indices")
    if indices.dtype not in (dt.int32, dt.int64):
        raise TypeError("Value passed to parameter 'indices' has DataType %s not in list of allowed values: "
                        "int32, int64" % indices.dtype.name)
    updates = convert_to_tensor(updates, dtype=tensor.dtype, name="updates")
    return make_op("TensorScatter" + kind, [tensor, indices, updates], {"_type": "TensorScatter" + kind},
                   name=name or "TensorScatter" + kind)


def tensor_scatter_update(tensor, indices, updates, name=None):
    """A copy of `tensor` with tensor[indices[..., 0], indices[..., 1], ...] = updates."""
    return _tensor_scatter("Update", tensor, indices, updates, name)


def tensor_scatter_add(tensor, indices, updates, name=None):
    """A copy of `tensor` with updates added at indices (duplicates add up)."""
    return _tensor_scatter("Add", tensor, indices, updates, name)


def tensor_scatter_sub(tensor, indices, updates, name=None):
    """A copy of `tensor` with updates subtracted at indices (duplicates add up)."""
    return _tensor_scatter("Sub", tensor, indices, updates, name)


tensor_scatter_nd_update, tensor_scatter_nd_add, tensor_scatter_nd_sub = (
    tensor_scatter_update, tensor_scatter_add, tensor_scatter_sub)


# ---- space_to_batch / batch_to_space --------------------------------------------------------------
def _consts(op, block_shape, other, what):
    b, o = constant_value_of(block_shape), constant_value_of(other)
    if b is None or o is None:
        raise ValueError("tinyflow's %s needs block_shape and %s known when the graph is built" % (op, what))
    return np.asarray(b, np.int64).reshape(-1), np.asarray(o, np.int64).reshape(-1, 2)


def _s2b_shape(shapes, attrs, values):
    x = shapes[0]
    block, pads = np.asarray(values[1]).reshape(-1), np.asarray(values[2]).reshape(-1, 2)
    if x.ndims is None:
        return [TensorShape(None)]
    m = len(block)
    dims = x.as_list()
    spatial = []
    for d, b, (lo, hi) in zip(dims[1:m + 1], block, pads):
        if d is not None and (d + lo + hi) % b:
            raise ShapeError("padded_shape[%d]=%d is not divisible by block_shape[%d]=%d"
                             % (len(spatial), d + lo + hi, len(spatial), b))
        spatial.append(None if d is None else (d + lo + hi) // b)
    batch = None if dims[0] is None else dims[0] * int(np.prod(block))
    return [TensorShape([batch] + spatial + dims[m + 1:])]


def _s2b_lower(a, x, block, pads):
    block, pads = [int(b) for b in np.asarray(block).reshape(-1)], np.asarray(pads).reshape(-1, 2)
    m = len(block)
    x = jnp.pad(x, [(0, 0)] + [(int(lo), int(hi)) for lo, hi in pads] + [(0, 0)] * (x.ndim - m - 1))
    n, rest = x.shape[0], x.shape[m + 1:]
    split = [n]
    for d, b in zip(x.shape[1:m + 1], block):
        split += [d // b, b]
    x = x.reshape(split + list(rest))
    # [n, d1/b1, b1, d2/b2, b2, ..., rest] -> [b1, b2, ..., n, d1/b1, d2/b2, ..., rest]
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + list(range(1 + 2 * m, x.ndim))
    x = jnp.transpose(x, perm)
    return x.reshape([n * int(np.prod(block))] + split[1::2] + list(rest))


def _b2s_shape(shapes, attrs, values):
    x = shapes[0]
    block, crops = np.asarray(values[1]).reshape(-1), np.asarray(values[2]).reshape(-1, 2)
    if x.ndims is None:
        return [TensorShape(None)]
    m = len(block)
    dims = x.as_list()
    prod = int(np.prod(block))
    if dims[0] is not None and dims[0] % prod:
        raise ShapeError("Input batch dimension (%d) is not divisible by product of block sizes (%d)"
                         % (dims[0], prod))
    spatial = [None if d is None else d * b - lo - hi for d, b, (lo, hi) in zip(dims[1:m + 1], block, crops)]
    return [TensorShape([None if dims[0] is None else dims[0] // prod] + spatial + dims[m + 1:])]


def _b2s_lower(a, x, block, crops):
    block, crops = [int(b) for b in np.asarray(block).reshape(-1)], np.asarray(crops).reshape(-1, 2)
    m = len(block)
    n = x.shape[0] // int(np.prod(block))
    spatial, rest = x.shape[1:m + 1], x.shape[m + 1:]
    x = x.reshape(list(block) + [n] + list(spatial) + list(rest))
    # [b1, ..., bm, n, d1, ..., dm, rest] -> [n, d1, b1, d2, b2, ..., rest]
    perm = [m] + [v for i in range(m) for v in (m + 1 + i, i)] + list(range(2 * m + 1, x.ndim))
    x = jnp.transpose(x, perm).reshape([n] + [d * b for d, b in zip(spatial, block)] + list(rest))
    index = tuple([slice(None)] + [slice(int(lo), x.shape[i + 1] - int(hi)) for i, (lo, hi) in enumerate(crops)])
    return x[index]


register_op("SpaceToBatchND", shape=_s2b_shape, dtype=same_as_input(0), lower=_s2b_lower,
            grad=lambda op, g: [make_op("BatchToSpaceND", [g, op.inputs[1], op.inputs[2]]), None, None])
register_op("BatchToSpaceND", shape=_b2s_shape, dtype=same_as_input(0), lower=_b2s_lower,
            grad=lambda op, g: [make_op("SpaceToBatchND", [g, op.inputs[1], op.inputs[2]]), None, None])


def space_to_batch_nd(input, block_shape, paddings, name=None):
    """Zero-pads the spatial dims 1..M of `input` by `paddings` and moves blocks of block_shape into the
    batch: [batch * prod(block_shape), padded_i / block_shape[i], ..., remaining dims]."""
    block, pads = _consts("space_to_batch_nd", block_shape, paddings, "paddings")
    x = convert_to_tensor(input, name="input")
    return make_op("SpaceToBatchND", [x, constant(block.astype(np.int32)), constant(pads.astype(np.int32))],
                   name=name or "SpaceToBatchND")


def batch_to_space_nd(input, block_shape, crops, name=None):
    """The inverse of space_to_batch_nd: blocks of the batch back into the spatial dims, then `crops` cut."""
    block, crops = _consts("batch_to_space_nd", block_shape, crops, "crops")
    x = convert_to_tensor(input, name="input")
    return make_op("BatchToSpaceND", [x, constant(block.astype(np.int32)), constant(crops.astype(np.int32))],
                   name=name or "BatchToSpaceND")


def space_to_batch(input, paddings, block_size=None, name=None, block_shape=None):
    """space_to_batch_nd of a 4-D NHWC tensor with a square block."""
    block_size = block_size if block_size is not None else block_shape
    return space_to_batch_nd(input, [int(block_size)] * 2, paddings, name=name or "SpaceToBatchND")


def batch_to_space(input, crops, block_size, name=None, block_shape=None):
    """batch_to_space_nd of a 4-D NHWC tensor with a square block."""
    block_size = block_size if block_size is not None else block_shape
    return batch_to_space_nd(input, [int(block_size)] * 2, crops, name=name or "BatchToSpaceND")


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """(paddings, crops) that make input_shape (plus base_paddings) divisible by block_shape, as TF computes:
    the extra padding goes at the end, and crops undo it."""
    with get_default_graph().name_scope(name or "required_space_to_batch_paddings"):
        input_shape = int_tensor(input_shape, "input_shape")
        block_shape = int_tensor(block_shape, "block_shape")
        m = block_shape.shape[0].value
        if base_paddings is None:
            base_paddings = constant(np.zeros((m, 2), np.int32))
        base = M.cast(convert_to_tensor(base_paddings, name="base_paddings"), dt.int32)
        block = M.cast(block_shape, dt.int32)
        start, end = base[:, 0], base[:, 1]
        full = M.add(M.add(M.cast(input_shape, dt.int32), start), end)
        extra_end = M.floormod(M.subtract(block, M.floormod(full, block)), block)
        pad_end = M.add(end, extra_end)
        paddings = A.stack([start, pad_end], axis=1, name="paddings")
        crops = A.stack([M.multiply(start, M.zeros_like(start)), extra_end], axis=1, name="crops")
        return paddings, crops


# ---- indices, sets and repeats ----------------------------------------------------------------------
register_op("UnravelIndex", shape=lambda s, a, v: [TensorShape([None]).concatenate(s[0]) if s[1].ndims == 1
                                                   and s[1][0].value is None else
                                                   TensorShape([s[1][0].value]).concatenate(s[0])],
            dtype=same_as_input(0), grad=None,
            lower=lambda a, i, d: _unravel(i, d))


def _unravel(i, d):
    """Coordinate j of flat index i in shape d: (i // the stride of j) % d[j] (d may be a run-time value)."""
    strides = jnp.concatenate([jnp.cumprod(d[::-1])[::-1][1:], jnp.ones([1], d.dtype)])
    at = (-1,) + (1,) * i.ndim
    return (i[None] // strides.reshape(at) % d.reshape(at)).astype(i.dtype)


def unravel_index(indices, dims, name=None):
    """The coordinates in an array of shape `dims` of each flat index: [len(dims)] + indices.shape."""
    indices = convert_to_tensor(indices, name="indices")
    dims = convert_to_tensor(dims, dtype=indices.dtype, name="dims")
    return make_op("UnravelIndex", [indices, dims], name=name or "UnravelIndex")


def _setdiff_lower(a, x, y):
    if not is_concrete(x) or not is_concrete(y):
        raise ValueError("tf.setdiff1d has a shape that depends on the values of its inputs; inside tf.cond / "
                         "tf.while_loop bodies tinyflow needs them known at compile time")
    x, y = np.asarray(x), np.asarray(y)
    keep = ~np.isin(x, y)
    return x[keep], np.nonzero(keep)[0].astype(a["out_idx"].np)


register_op("ListDiff", shape=lambda s, a, v: [TensorShape([None]), TensorShape([None])],
            dtype=lambda d, a: [d[0], a["out_idx"]], grad=None, lower=_setdiff_lower, dynamic_shape=True)


def setdiff1d(x, y, index_dtype=dt.int32, name=None):
    """(out, idx): the values of 1-D x not in y, in x's order, and their positions in x."""
    x = convert_to_tensor(x, name="x")
    y = convert_to_tensor(y, dtype=x.dtype, name="y")
    return tuple(make_op("ListDiff", [x, y], {"out_idx": dt.as_dtype(index_dtype)}, name=name or "ListDiff"))


def repeat(input, repeats, axis=None, name=None):
    """Each element (or slice along `axis`) of input repeated `repeats` times (a scalar or one per slice);
    axis None flattens first. Fed repeats size the output at run time."""
    from tinyflow.ops.core.indexing_ops import gather, where
    from tinyflow.ops.core.sequence_ops import sequence_mask
    with get_default_graph().name_scope(name or "Repeat"):
        x = convert_to_tensor(input, name="input")
        reps_t = convert_to_tensor(repeats, name="repeats")
        reps = constant_value_of(reps_t)
        if axis is None:
            x, axis = A.reshape(x, [-1]), 0
        axis = axis % x.shape.ndims if axis < 0 and x.shape.ndims else axis
        n = x.shape[axis].value
        if reps is not None and n is not None:
            reps = np.broadcast_to(np.asarray(reps, np.int64), [n])
            return gather(x, constant(np.repeat(np.arange(n), reps).astype(np.int32)), axis=axis)
        # the slice indices, each repeated: the rows of the True places of a mask [n, max(repeats)] (TF's way)
        reps_t = A.broadcast_to(M.cast(A.reshape(reps_t, [-1]), dt.int32), A.shape(x)[axis:axis + 1])
        top = M.maximum(M.reduce_max(A.concat([reps_t, constant([0])], 0)), constant(0))
        rows = where(sequence_mask(reps_t, top))[:, 0]
        return gather(x, rows, axis=axis)


def parallel_stack(values, name="parallel_stack"):
    """tf.stack along a new first axis (TF's parallel form: the same values)."""
    return A.stack(values, axis=0, name=name)


def broadcast_dynamic_shape(shape_x, shape_y):
    """The broadcast shape of two shape vectors, as a tensor (TF's BroadcastArgs)."""
    x = int_tensor(shape_x, "shape_x")
    y = M.cast(int_tensor(shape_y, "shape_y"), x.dtype)
    nx, ny = x.shape[0].value, y.shape[0].value
    if nx is None or ny is None:
        raise ValueError("tinyflow's broadcast_dynamic_shape needs the ranks (lengths of the shape vectors) known")
    n = max(nx, ny)
    x = A.concat([constant(np.ones(n - nx, x.dtype.np)), x], 0) if nx < n else x
    y = A.concat([constant(np.ones(n - ny, x.dtype.np)), y], 0) if ny < n else y
    return M.where_v2(M.equal(x, M.scalar_like(1, x)), y, x)
