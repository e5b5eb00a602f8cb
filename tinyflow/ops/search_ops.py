"""tf.searchsorted: for each row of sorted_sequence, where each value of the same row of values would be
inserted to keep it sorted (TF's LowerBound for side="left", UpperBound for "right")."""
import jax
import jax.numpy as jnp

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import get_default_graph
from tinyflow.graph.registry import register_op
from tinyflow.ops.core import array_ops as A
from tinyflow.ops.core.base import convert_to_tensor, make_op

__all__ = ["searchsorted"]


def _bound(side):
    def lower(a, seq, vals):
        out = jax.vmap(lambda s, v: jnp.searchsorted(s, v, side=side))(seq, vals)
        if side == "left" and jnp.issubdtype(vals.dtype, jnp.inexact):   # TF's std::lower_bound: s < NaN is
            out = jnp.where(jnp.isnan(vals), 0, out)                       # false, so a NaN goes first
        return out.astype(a["out_type"].np)
    return lower


for _t, _side in (("LowerBound", "left"), ("UpperBound", "right")):
    register_op(_t, shape=lambda s, a, v: [s[1]], dtype=lambda d, a: [a["out_type"]], grad=None,
                lower=_bound(_side))


def _rows(x):
    """x [..., K] as [rows, K], K from the shape at run time when unknown (TF's searchsorted takes any)."""
    k = x.shape[-1].value
    if x.shape.ndims == 1:
        return A.expand_dims(x, 0)
    return A.reshape(x, [-1, k if k is not None else A.shape(x)[-1]])


def searchsorted(sorted_sequence, values, side="left", out_type=dt.int32, name=None):
    """Insertion indices of values [..., M] into the sorted innermost rows of sorted_sequence [..., N]."""
    if side not in ("left", "right"):
        raise ValueError("side must be either 'right' or 'left'.  Saw: %s." % side)
    with get_default_graph().name_scope(name or "searchsorted"):
        seq = convert_to_tensor(sorted_sequence, name="sorted_sequence")
        vals = convert_to_tensor(values, dtype=seq.dtype, name="values")
        seq2, vals2 = _rows(seq), _rows(vals)
        out = make_op("LowerBound" if side == "left" else "UpperBound", [seq2, vals2],
                      {"out_type": dt.as_dtype(out_type)})
        return A.reshape(out, A.shape(vals))
