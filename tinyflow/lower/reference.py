"""reference: a fetch set run op by op inside a memory plan's arena -- the plan, executed or replayed.

It runs the fetch set's Program (lower/program.py), the records the jitted function was rendered
from, with a small interpreter: each step calls the op's own lowering rule eagerly (the same
`apply` the generated source calls) and copies its result into the plan's arena, one numpy byte
buffer, at the planned offset; the next ops read their inputs from those views. If a plan lets two
live values share bytes, a later op reads overwritten data and the fetches differ from the jitted
function's. Feeds and variables stay outside the arena, as in the plan. `replay` reaches the same
verdict without running an op: it writes each value, as one jitted function computed it
(`all_values`), at its offset in program order and checks that every read finds, bit for bit, what
was written; `verify` uses it (one compile instead of one per op).

`concrete_shapes` runs the same records under `jax.eval_shape` (the way jit traces them) and records
each op's output shapes and dtypes for the given arguments: the sizes the planner needs.
"""
import jax
import jax.numpy as jnp
import numpy as np

from tinyflow.passes import memory as memory_pass
from tinyflow.lower.jax_backend import apply


def interpret(program, args, call=None):
    """Runs the Program's steps in order on `args` (rw, ro, feeds, key) -> (finals, fetches), the
    structure of the generated function without its check entry. `call(step, args)` runs one step
    (default: its rule); it returns the step's result, one value per name in step.outs."""
    env = _run_steps(program, args, call)
    return tuple(env[n] for n in program.final_names), tuple(env[n] for n in program.fetch_names)


def _run_steps(program, args, call=None):
    """{name: value} of every argument and every step's result (interpret's environment)."""
    call = call or (lambda step, a: apply(step, step.op.attrs, a))
    rw, ro, feeds, key = args
    env = {"None": None, "key": key, "rand": key}   # rand: each op draws its own (the same values)
    env.update(zip([program.arg_names[v] for v in program.rw_vars], rw))
    env.update(zip([program.arg_names[v] for v in program.ro_vars], ro))
    env.update(zip([program.arg_names[t] for t in program.feeds], feeds))
    for step in program.steps:
        out = call(step, [env[a] for a in step.args])
        if step.check:
            continue
        env.update(zip(step.outs, out if len(step.outs) > 1 else [out]))
    return env


def _outputs(op, out):
    """An op's result as a list, one entry per output (`apply` unwraps single results)."""
    return list(out) if len(op.outputs) > 1 else [out]


def concrete_shapes(lowered, args):
    """{Tensor: (shape tuple, numpy dtype)} of every value the fetch set computes, for `args`
    (the argument tuple of `lowered.fn`, see jax_backend.example_args). Nothing is computed."""
    found = {}

    def record(step, a):
        out = apply(step, step.op.attrs, a)
        if not step.check and not step.opdef.ref_inputs:
            for t, v in zip(step.op.outputs, _outputs(step.op, out)):
                found[t] = (tuple(v.shape), np.dtype(v.dtype))
        return out
    jax.eval_shape(lambda *a: interpret(lowered.program, a, record), *args)
    return found


def _view(arena, offset, shape, dtype):
    n = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    return arena[offset:offset + n].view(dtype).reshape(shape)


def _kernels(lowered):
    """call(step, args): each step's rule jitted on its own (one XLA compile per op, not one per
    primitive as eager JAX would), cached on the Lowered so that every execution reuses them. Values
    computed while tracing (shapes, constants: the outputs of static steps) stay concrete: they are
    baked into the op's kernel, as jit would see them."""
    cache = lowered.__dict__.setdefault("_reference_kernels", {})
    static = {n for s in lowered.program.steps if s.static for n in s.outs}

    def call(step, args):
        if step.static or step.check:
            return apply(step, step.op.attrs, args)
        fixed = [a in static or a in ("None", "key", "rand") for a in step.args]
        consts = [x for x, f in zip(args, fixed) if f]
        key = (id(step), tuple(np.shape(x) for x in args), tuple(_value_key(c) for c in consts))
        fn = cache.get(key)
        if fn is None:

            def kernel(*dynamic):
                it, ct = iter(dynamic), iter(consts)
                return apply(step, step.op.attrs, [next(ct) if f else next(it) for f in fixed])
            fn = cache[key] = jax.jit(kernel)
        return fn(*[x for x, f in zip(args, fixed) if not f])
    return call


def _value_key(x):
    a = np.asarray(x) if x is not None else None
    return None if a is None else (a.dtype.str, a.shape, a.tobytes())


def execute(lowered, plan, args):
    """Runs the fetch set in `plan`'s arena; returns (new variable values, fetch values) as numpy,
    the structure of `lowered.fn`. Raises if a result does not fit its planned buffer."""
    arena = np.zeros(plan.planned_bytes, np.uint8)
    kernels = _kernels(lowered)

    def run(step, a):
        # copies in: the rule must not see (or alias) arena bytes that a later write changes
        out = kernels(step, [jnp.asarray(np.array(x)) if isinstance(x, np.ndarray) else x for x in a])
        if step.check or step.opdef.ref_inputs:   # check data and new variable values: outside the arena
            return tuple(np.array(v) for v in out) if isinstance(out, tuple) else np.array(out)
        results = []
        for t, v in zip(step.op.outputs, _outputs(step.op, out)):
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
        if step.with_check:   # the value its check reads: outside the arena
            results.append(np.array(out[-1]))
        return tuple(results) if len(results) > 1 else results[0]
    rw, ro, feeds, key = args
    host = lambda vals: tuple(np.array(v) for v in vals)
    finals, fetches = interpret(lowered.program, (host(rw), host(ro), host(feeds), key), run)
    return tuple(np.array(v) for v in finals), tuple(np.array(v) for v in fetches)


def run_jitted(lowered, args):
    """The jitted function's results for `args`, without donating the caller's variable buffers."""
    rw, ro, feeds, key = args
    rw = tuple(jnp.array(v, copy=True) for v in rw)
    finals, fetches = lowered.call(rw, ro, feeds, key)
    fetches = fetches[:len(lowered.sub.fetches)]   # without the trailing "all checks hold"
    return tuple(np.array(v) for v in finals), tuple(np.array(v) for v in fetches)


def _same(a, b, rtol, atol):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in "fc":
        return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))
    return bool(np.array_equal(a, b))


def all_values(lowered, args):
    """{name: numpy value} of every argument and every value the fetch set computes for `args`,
    from one jitted function that returns them all. It runs once, so XLA compiles it without its
    slow optimizations where the backend allows."""
    program = lowered.program

    def every(*a):
        env = _run_steps(program, a)
        return {n: v for n, v in env.items() if n not in ("None", "key", "rand")}
    traced = jax.jit(every).lower(*args)
    try:
        compiled = traced.compile({"xla_backend_optimization_level": 0})
    except Exception:  # a backend without this option
        compiled = traced.compile()
    return {n: np.asarray(v) for n, v in compiled(*args).items()}


def replay(lowered, plan, values):
    """Whether `plan` keeps every value intact while it is needed. The steps are replayed in one
    arena: each op's result (from `values`, see all_values) is written at its planned offset, and
    every value an op, or the caller at the end, reads from the arena is compared bit for bit with
    the op's result. Ops are deterministic, so the plan executed (`execute`) gives what every value
    in its own bytes gives exactly when every read matches; this proves it without running an op.
    Raises ValueError for a result that does not fit its planned buffer."""
    program = lowered.program
    arena = np.zeros(plan.planned_bytes, np.uint8)
    planned = {n: t for s in program.steps if not (s.check or s.opdef.ref_inputs)
               for t, n in zip(s.op.outputs, s.outs) if t in plan.live}
    value_bytes = {n: np.ascontiguousarray(values[n]).reshape(-1).view(np.uint8) for n in planned}

    def in_arena(name):   # (the arena's bytes, the value's bytes)
        v = value_bytes[name]
        return _view(arena, plan.buffer_of(planned[name]).offset, v.shape, v.dtype), v

    def intact(names):
        return all(np.array_equal(*in_arena(n)) for n in names if n in planned)

    for step in program.steps:
        if not intact(step.args):
            return False
        for n in step.outs:
            if n in planned:
                t, v = planned[n], values[n]
                if v.nbytes > plan.buffer_of(t).size or v.dtype != t.dtype.np:
                    raise ValueError("%s: result %s %s does not fit its planned buffer of %d bytes"
                                     % (t.name, v.dtype, v.shape, plan.buffer_of(t).size))
                np.copyto(*in_arena(n))
    return intact(program.final_names) and intact(program.fetch_names)


def verify(lowered, plan, args, rtol=1e-4, atol=1e-5, expected=None, execute_ops=False, values=None):
    """True when the plan, executed, gives exactly what the same ops give with every value in its own
    bytes (a plan that shares live storage changes some result), and that agrees with the jitted
    function within rtol/atol (fusion may round differently). A result that does not fit its
    planned buffer counts as not verified. The proof is `replay` (one compile for all the values,
    or `values` from all_values: several plans of one fetch set share them); `execute_ops` (and a
    fetch set run as segments) runs the ops in the arena instead."""
    expected = expected if expected is not None else run_jitted(lowered, args)
    if not (execute_ops or lowered.program.segmented):
        values = values if values is not None else all_values(lowered, args)
        try:
            if not replay(lowered, plan, values):
                return False
        except ValueError:
            return False
        got = ([values[n] for n in lowered.program.final_names], [values[n] for n in lowered.program.fetch_names])
        return all(_same(g, e, rtol, atol) for gs, es in zip(got, expected) for g, e in zip(gs, es))
    naive = memory_pass.plan_memory(lowered.sub, plan.sizes(), planner=memory_pass.side_by_side, inplace=False)
    try:
        got = execute(lowered, plan, args)
    except ValueError:
        return False
    alone = execute(lowered, naive, args)
    pairs = [(g, a, e) for gs, as_, es in zip(got, alone, expected) for g, a, e in zip(gs, as_, es)]
    return all(_same(g, a, 0, 0) and _same(a, e, rtol, atol) for g, a, e in pairs)
