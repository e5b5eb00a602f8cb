"""Helpers several op families share: Python's range/slice (tf.range and tf.slice shadow them where
those are defined), constant values as ints, name scopes, int32 tensors from shape-like arguments,
dtype-checked conversion of a list, the keepdims/keep_dims argument pair, and the run-time index
check's result. They depend on base only."""
import builtins

import jax
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import Tensor, get_default_graph
from tinyflow.ops.core.base import convert_n, convert_to_tensor

pyslice, pyrange = builtins.slice, builtins.range


def ints(value):
    """A constant (numpy or concrete jax) value as a list of Python ints."""
    return [int(i) for i in np.asarray(value).reshape(-1)]


def is_concrete(x):
    """False for a JAX tracer (a value only known when the function runs)."""
    return not isinstance(x, jax.core.Tracer)


def name_scope(name):
    """The graph's name scope `name`: inputs made inside are named `name/...`; the op takes `name/`."""
    return get_default_graph().name_scope(name)


def int_tensor(x, name):
    return convert_to_tensor(x, preferred_dtype=dt.int32, name=name)


def convert_same(values, op_type, what="values"):
    """convert_n, with TF's TypeError when the tensors among `values` have different dtypes."""
    types = [v.dtype for v in values if isinstance(v, Tensor)]
    if any(t != types[0] for t in types):
        raise TypeError("Tensors in list passed to '%s' of '%s' Op have types [%s] that don't all match."
                        % (what, op_type, ", ".join(t.name for t in types)))
    return convert_n(list(values))


def keep_arg(keepdims, keep_dims):
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'")
    return bool(keepdims if keepdims is not None else keep_dims)


def first_bad(bad, rows):
    """A run-time index check's result: (no index is bad, where the first bad one is in `bad`'s
    shape as a flat position, the shape, the bad index itself (a row of `rows`))."""
    flat, rows = jnp.reshape(bad, -1), jnp.asarray(rows)
    pos = jnp.argmax(flat) if flat.size else jnp.int64(0)
    row = rows[pos] if flat.size else jnp.zeros(rows.shape[1:], rows.dtype)
    return ~jnp.any(flat), pos, jnp.array(bad.shape, np.int64), row


def position_text(pos, dims):
    return ",".join(str(int(d)) for d in np.unravel_index(int(pos), tuple(int(d) for d in dims))) if len(dims) else ""
