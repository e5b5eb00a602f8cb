"""reference: a fetch set run op by op inside a memory plan's arena -- the plan, executed.

The lowering's generated source (`Lowered.source`, one line per op) is exec'd again with a
different `op` table: each entry calls the op's own lowering rule eagerly and copies its result
into the plan's arena, one numpy byte buffer, at the planned offset; the next ops read their inputs
from those views. If a plan lets two live values share bytes, a later op reads overwritten data and
the fetches differ from the jitted function's (`verify`). Feeds and variables stay outside the
arena, as in the plan.

`concrete_shapes` runs the same source under `jax.eval_shape` (the way jit traces it) and records
each op's output shapes and dtypes for the given arguments: the sizes the planner needs.
"""
import contextlib

import jax
import jax.numpy as jnp
import numpy as np

from ..graph.registry import get_op_def
from ..passes import memory as memory_pass
from .jax_backend import _wrap, check_table, namespace


def _no_scope(name=None):
    return contextlib.nullcontext()


def _function(lowered, table):
    """The fetch set's generated function with `table` as its op table (checks run as they do in jit)."""
    ns = namespace(table, check_table(lowered.checks))
    ns["scope"] = _no_scope
    exec(compile(lowered.source, "<tinyflow reference>", "exec"), ns)
    return ns["fetch_set"]


def _fetched(lowered, fetches):
    """The fetched values as numpy, without the trailing check entry (see jax_backend)."""
    return tuple(np.array(v) for v in fetches[:len(lowered.sub.fetches)])


def _outputs(op, out):
    """An op's result as a list, one entry per output (`_wrap` unwraps single results)."""
    return list(out) if len(op.outputs) > 1 else [out]


def concrete_shapes(lowered, args):
    """{Tensor: (shape tuple, numpy dtype)} of every value the fetch set computes, for `args`
    (the argument tuple of `lowered.fn`, see jax_backend.example_args). Nothing is computed."""
    found = {}
    table = {}
    for op in memory_pass.executed_ops(lowered.sub):
        rule = _wrap(get_op_def(op.type), op, op.attrs)

        def record(*a, _op=op, _rule=rule):
            out = _rule(*a)
            if not get_op_def(_op.type).ref_inputs:
                for t, v in zip(_op.outputs, _outputs(_op, out)):
                    found[t] = (tuple(v.shape), np.dtype(v.dtype))
            return out
        table[op.name] = record
    jax.eval_shape(_function(lowered, table), *args)
    return found


def _view(arena, offset, shape, dtype):
    n = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    return arena[offset:offset + n].view(dtype).reshape(shape)


def execute(lowered, plan, args):
    """Runs the fetch set in `plan`'s arena; returns (fetch values, new variable values) as numpy,
    the same structure as `lowered.fn`. Raises if a result does not fit its planned buffer."""
    arena = np.zeros(plan.planned_bytes, np.uint8)
    table = {}
    for op in plan.steps:
        rule = _wrap(get_op_def(op.type), op, op.attrs)

        def run(*a, _op=op, _rule=rule):
            # copies in: the rule must not see (or alias) arena bytes that a later write changes
            out = _rule(*[jnp.asarray(np.array(x)) if isinstance(x, np.ndarray) else x for x in a])
            if get_op_def(_op.type).ref_inputs:   # new variable values: outside the arena
                return tuple(np.array(v) for v in out) if isinstance(out, tuple) else np.array(out)
            results = []
            for t, v in zip(_op.outputs, _outputs(_op, out)):
                v = np.asarray(v)
                if t not in plan.live:            # a fed output of a partly fed op
                    results.append(v)
                    continue
                b = plan.buffer_of(t)
                if v.nbytes > b.size or v.dtype != t.dtype.np:
                    raise ValueError("%s: result %s %s does not fit its planned buffer of %d bytes"
                                     % (t.name, v.dtype, v.shape, b.size))
                view = _view(arena, b.offset, v.shape, v.dtype)
                np.copyto(view, v)
                results.append(view)
            return tuple(results) if len(results) > 1 else results[0]
        table[op.name] = run
    rw, ro, feeds, key = args
    host = lambda vals: tuple(np.array(v) for v in vals)
    fetches, finals = _function(lowered, table)(host(rw), host(ro), host(feeds), key)
    return _fetched(lowered, fetches), tuple(np.array(v) for v in finals)


def run_jitted(lowered, args):
    """The jitted function's results for `args`, without donating the caller's variable buffers."""
    rw, ro, feeds, key = args
    rw = tuple(jnp.array(v, copy=True) for v in rw)
    fetches, finals = lowered.jitted(rw, ro, feeds, key)
    return _fetched(lowered, fetches), tuple(np.array(v) for v in finals)


def _same(a, b, rtol, atol):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in "fc":
        return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))
    return bool(np.array_equal(a, b))


def verify(lowered, plan, args, rtol=1e-4, atol=1e-5, expected=None):
    """True when the plan, executed, gives exactly what the same ops give with every value in its own
    bytes (a plan that shares live storage changes some result), and that agrees with the jitted
    function within rtol/atol (fusion may round differently). A result that does not fit its
    planned buffer counts as not verified."""
    expected = expected if expected is not None else run_jitted(lowered, args)
    naive = memory_pass.plan_memory(lowered.sub, plan.sizes(), planner=memory_pass.side_by_side, inplace=False)
    try:
        got = execute(lowered, plan, args)
    except ValueError:
        return False
    alone = execute(lowered, naive, args)
    pairs = [(g, a, e) for gs, as_, es in zip(got, alone, expected) for g, a, e in zip(gs, as_, es)]
    return all(_same(g, a, 0, 0) and _same(a, e, rtol, atol) for g, a, e in pairs)
