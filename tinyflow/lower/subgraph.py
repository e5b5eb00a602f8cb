"""A branch or loop body (a SubFn: a FuncGraph with chosen inputs and outputs) -> a JAX function.

tf.cond / tf.while_loop trace their Python functions once into FuncGraphs (ops/control_flow_ops.py).
Their lowering rules call `as_function(subfn)` to get `f(key, *inputs) -> tuple of outputs`, which
they hand to lax.cond / lax.switch / lax.while_loop / lax.scan. The body is lowered exactly like a
fetch set (one generated line per op), with the inputs as its feeds and the
outputs as its fetches, through the same pipeline (pipeline.compile_fetch_set); a body holds no
variables (outer variables are captured as inputs), so its rw/ro arguments are empty. The lowering
rules reach this module through graph/backend.py, so ops/ never imports lower/.
"""
import functools
import threading
import weakref

import jax
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import backend as graph_backend
from tinyflow.graph.registry import get_op_def
from tinyflow.lower import consteval, pipeline

_CACHE = weakref.WeakKeyDictionary()  # SubFn -> Lowered: made once, dropped with its graph
_JITTED = weakref.WeakKeyDictionary()  # SubFn -> jax.jit(as_function(SubFn)): a host-driven loop's body


def lowered(subfn):
    """The Lowered (jax_backend) form of a SubFn; `.source` shows its generated code."""
    low = _CACHE.get(subfn)
    if low is None:
        low = _CACHE[subfn] = pipeline.compile_fetch_set(list(subfn.outputs), list(subfn.inputs), checks=False,
                                                         segments=False)
    return low


def as_function(subfn, flags=False):
    """`f(key, *inputs) -> tuple of outputs` for lax control flow; key is None or a uint32 run counter.
    flags=True: one more output, the body's error flag: -1, or the id of the error of a tf.cond branch
    in it that could not be traced at these shapes and was taken (ops/control_flow_ops.py)."""
    low = lowered(subfn)
    dtypes = [t.dtype.np for t in subfn.outputs]

    def f(key, *args):
        _TRACING.bodies.append([] if flags else None)
        try:
            _, outs = low.fn((), (), tuple(args), key if low.needs_key else None)
        finally:
            found = _TRACING.bodies.pop()
        # lax control flow wants every branch to give exactly the declared dtypes
        outs = tuple(jnp.asarray(o, d) for o, d in zip(outs, dtypes))
        return outs + (functools.reduce(jnp.maximum, found, jnp.int64(-1)),) if flags else outs
    return f


class _Tracing(threading.local):
    def __init__(self):
        self.bodies = []   # per body being traced now: the error flags it carries out (None: it cannot)


_TRACING = _Tracing()


def carries():
    """Whether the body being traced hands an error flag out (as_function(flags=True)): then a tf.cond
    in it whose branch cannot be traced gives zeros and `report`s the error's id when that branch is
    taken. Elsewhere in a body no run-time check runs: such a branch fails the trace (never zeros)."""
    return bool(_TRACING.bodies) and _TRACING.bodies[-1] is not None


def report(flag):
    """Adds an error flag (see as_function) to the body being traced (where `carries()`)."""
    _TRACING.bodies[-1].append(flag)


def iteration_key(key, i):
    """A distinct uint32 per (run counter, loop iteration), so random ops in a loop body draw new
    numbers each iteration and a gradient's recomputation draws the same ones again."""
    if key is None:
        return None
    key = jnp.asarray(key, jnp.uint32)   # random_ops.run_key's [counter, salt, salt]: a new counter
    counter = key if key.ndim == 0 else key[0]
    new = jax.random.bits(jax.random.fold_in(jax.random.PRNGKey(counter), i), (), np.uint32)
    return new if key.ndim == 0 else key.at[0].set(new)


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


# ---- the hooks graph/ and ops/ call (graph/backend.py) ------------------------------------------------
def jitted(subfn):
    """as_function(subfn) jitted on its own (JAX compiles it once per new input shapes): the body of a
    tf.while_loop whose loop variables change shape, driven from the host (ops/control_flow_ops.py)."""
    f = _JITTED.get(subfn)
    if f is None:
        f = _JITTED[subfn] = jax.jit(as_function(subfn))
    return f


class Backend:
    """What graph/ and ops/ ask of the layer that owns JAX."""

    def fold(self, op, values):
        """op's outputs from constant input values (numpy), or NotFoldable."""
        opdef = get_op_def(op.type)
        if opdef.lower is None or opdef.stateful or opdef.needs_key or opdef.host is not None:
            raise graph_backend.NotFoldable(op.name)
        try:   # by the op's numpy rule, or one cached jitted program (lower/consteval.py)
            out = opdef.numpy and opdef.numpy(op.attrs, *values)
            if out is None:
                with jax.ensure_compile_time_eval():
                    out = consteval.jitted_value(opdef.lower, op.attrs, values)
        except (TypeError, ValueError, IndexError, ArithmeticError) as e:  # the values do not fit the op
            raise graph_backend.NotFoldable(str(e)) from None
        return [np.asarray(o) for o in (out if isinstance(out, (list, tuple)) else [out])]

    function = staticmethod(as_function)
    carries = staticmethod(carries)
    report = staticmethod(report)
    jitted = staticmethod(jitted)
    iteration_key = staticmethod(iteration_key)


graph_backend.install(Backend())
