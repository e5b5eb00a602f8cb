"""tf.nn.max_pool_with_argmax: NHWC max pooling that also gives where each maximum came from, as the flat
index ((b * height + y) * width + x) * channels + c (without b unless include_batch_in_index), the first
position in row-major order among ties, as TF's CPU kernel. Its gradient scatters back to those positions."""
import jax
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import ShapeError
from tinyflow.graph.registry import register_op
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core import array_ops as A
from tinyflow.ops.core import math_ops as M
from tinyflow.ops.core.base import convert_to_tensor, make_op
from tinyflow.ops.core.indexing_ops import unsorted_segment_sum

__all__ = ["max_pool_with_argmax"]


def _out_dim(n, k, s, padding):
    if n is None:
        return None
    return -(-n // s) if padding == "SAME" else (n - k) // s + 1


def _shape(shapes, attrs, values):
    x = shapes[0]
    if x.ndims is not None and x.ndims != 4:
        raise ShapeError("Shape must be rank 4 but is rank %d" % x.ndims)
    if x.ndims is None:
        return [TensorShape(None)] * 2
    k, s, p = attrs["ksize"], attrs["strides"], attrs["padding"]
    dims = x.as_list()
    out = TensorShape([dims[0], _out_dim(dims[1], k[1], s[1], p), _out_dim(dims[2], k[2], s[2], p), dims[3]])
    return [out, out]


def _lower(a, x):
    n, h, w, c = x.shape
    flat = jnp.arange(h * w * c, dtype=jnp.int64).reshape(1, h, w, c)
    if a["include_batch_in_index"]:
        flat = flat + (jnp.arange(n, dtype=jnp.int64) * (h * w * c)).reshape(n, 1, 1, 1)
    idx = jnp.broadcast_to(flat, x.shape)

    def pick(p, q):
        (pv, pi), (qv, qi) = p, q
        take_q = (qv > pv) | ((qv == pv) & (qi < pi))
        return jnp.where(take_q, qv, pv), jnp.where(take_q, qi, pi)
    low = jnp.asarray(-jnp.inf if jnp.issubdtype(x.dtype, jnp.floating) else jnp.iinfo(x.dtype).min, x.dtype)
    vals, arg = jax.lax.reduce_window((x, idx), (low, jnp.asarray(np.iinfo(np.int64).max, jnp.int64)), pick,
                                      tuple(a["ksize"]), tuple(a["strides"]), a["padding"])
    return vals, arg.astype(a["Targmax"].np)


def _grad(op, g, _):
    x, arg = op.inputs[0], op.outputs[1]
    total = M.reduce_prod(A.shape(x))
    if not op.attrs["include_batch_in_index"]:   # the batch offset the indices leave out
        per = M.reduce_prod(A.shape(x)[1:])
        from tinyflow.ops.core.sequence_ops import range as _range
        batch = M.multiply(M.cast(A.reshape(_range(A.shape(x)[0]), [-1, 1, 1, 1]), dt.int64), M.cast(per, dt.int64))
        arg = M.add(M.cast(arg, dt.int64), batch)
    dx = unsorted_segment_sum(A.reshape(g, [-1]), A.reshape(M.cast(arg, dt.int64), [-1]), total)
    return [A.reshape(dx, A.shape(x))]


register_op("MaxPoolWithArgmax", shape=_shape, dtype=lambda d, a: [d[0], a["Targmax"]], grad=_grad, lower=_lower)


def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC", Targmax=None, name=None,
                         output_dtype=None, include_batch_in_index=False):
    """(output, argmax): max_pool of NHWC input and the flat index of each maximum (int64 by default)."""
    if data_format != "NHWC":
        raise ValueError("Data formats other than 'NHWC' are not yet supported")
    x = convert_to_tensor(input, name="input")
    ksize = [int(k) for k in (ksize if np.ndim(ksize) else [1, ksize, ksize, 1])]
    strides = [int(s) for s in (strides if np.ndim(strides) else [1, strides, strides, 1])]
    if len(ksize) == 2:
        ksize = [1] + ksize + [1]
    if len(strides) == 2:
        strides = [1] + strides + [1]
    targmax = dt.as_dtype(output_dtype or Targmax or dt.int64)
    attrs = {"ksize": tuple(ksize), "strides": tuple(strides), "padding": padding, "Targmax": targmax,
             "include_batch_in_index": bool(include_batch_in_index)}
    out = make_op("MaxPoolWithArgmax", [x], attrs, name=name or "MaxPoolWithArgmax")
    return tuple(out)
