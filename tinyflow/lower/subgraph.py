"""A branch or loop body (a SubFn: a FuncGraph with chosen inputs and outputs) -> a JAX function.

tf.cond / tf.while_loop trace their Python functions once into FuncGraphs (ops/control_flow_ops.py).
Their lowering rules call `as_function(subfn)` to get `f(key, *inputs) -> tuple of outputs`, which
they hand to lax.cond / lax.switch / lax.while_loop / lax.scan. The body is lowered exactly like a
fetch set (jax_backend.lower: one generated line per op), with the inputs as its feeds and the
outputs as its fetches; a body holds no variables (outer variables are captured as inputs), so
its rw/ro arguments are empty.
"""
import weakref

import jax
import jax.numpy as jnp
import numpy as np

from ..passes import prune as prune_pass
from . import jax_backend

_CACHE = weakref.WeakKeyDictionary()  # SubFn -> Lowered: made once, dropped with its graph


def lowered(subfn):
    """The Lowered (jax_backend) form of a SubFn; `.source` shows its generated code."""
    low = _CACHE.get(subfn)
    if low is None:
        sub = prune_pass.prune(list(subfn.outputs), list(subfn.inputs))
        low = _CACHE[subfn] = jax_backend.lower(sub, checks=False)
    return low


def as_function(subfn):
    """`f(key, *inputs) -> tuple of outputs` for lax control flow; key is None or a uint32 run counter."""
    low = lowered(subfn)
    dtypes = [t.dtype.np for t in subfn.outputs]

    def f(key, *args):
        outs, _ = low.fn((), (), tuple(args), key if low.needs_key else None)
        # lax control flow wants every branch to give exactly the declared dtypes
        return tuple(jnp.asarray(o, d) for o, d in zip(outs, dtypes))
    return f


def iteration_key(key, i):
    """A distinct uint32 per (run counter, loop iteration), so random ops in a loop body draw new
    numbers each iteration and a gradient's recomputation draws the same ones again."""
    if key is None:
        return None
    k = jax.random.fold_in(jax.random.PRNGKey(key), i)
    return jax.random.bits(k, (), np.uint32)


def source(op):
    """The generated code of each body of a control-flow op (If/Case branches, While cond and body)."""
    parts = []
    for key in ("branches", "cond", "body", "body_grad"):
        value = op.attrs.get(key)
        fns = value if isinstance(value, list) else [value] if value is not None else []
        for i, fn in enumerate(fns):
            label = "%s[%d]" % (key, i) if isinstance(value, list) else key
            parts.append("# %s: %s\n%s" % (op.name, label, lowered(fn).source))
    return "\n".join(parts)
