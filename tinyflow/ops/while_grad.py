"""The gradient of tf.while_loop: per-step values saved by the forward loop, then a reverse scan.

This is what JAX does for lax.scan and what TF2's while_v2 does for While ops. When tf.gradients
reaches a while loop, the body's gradient is built (tf.gradients inside the body's FuncGraph) and
split in two:
  * forward tensors of the body that the gradient ops read and that change from one iteration to
    the next ("residuals": e.g. an LSTM's gate activations, the step index) are SAVED: the forward
    While op gets one more output per residual, stacked over iterations ([T, ...]), plus the
    number of iterations run. Its lowering becomes a `lax.scan` of T steps (T = the constant
    `maximum_iterations`) whose steps after the loop's end do nothing.
  * the gradient ops become the backward body, whose inputs are the residuals (no recomputation
    of the forward body), the captured tensors and the output gradients; the WhileGrad op runs it
    in a reverse `lax.scan` over the saved values.
Forward tensors that do not vary across iterations (computed from captured tensors and constants
only) are recomputed by the backward body rather than saved T times.

Without a constant `maximum_iterations` no static bound exists for the saved stacks, so the loop
only reports its iteration count n and the gradient recomputes: a binary "checkpoint and bisect"
reversal keeps at most log2(n)+1 loop states and runs O(n log n) body steps (not O(n^2)).

The forward op is changed in place (new outputs and attrs; attrs is a new dict so a function
lowered before keeps its own). Its earlier outputs keep their indices.
"""
from tinyflow.graph import dtypes as dt
from tinyflow.graph.backend import backend
from tinyflow.graph.core import Tensor
from tinyflow.graph.func_graph import SubFn
from tinyflow.graph.registry import get_op_def
from tinyflow.graph.shapes import TensorShape
from tinyflow.passes import prune as prune_pass
from tinyflow.passes.gradients import gradients
from tinyflow.ops.core.array_ops import zeros_like

_STACK = 33  # checkpoint slots of the bisection: enough for 2**32 iterations


# ---- graph side: which body values the gradient needs -----------------------------------------------
def _varying(body, n_vars, n_fwd):
    """Forward ops of the body whose value may change between iterations (they read a loop variable
    or draw random numbers)."""
    g = body.graph
    loop_phs = set(body.inputs[:n_vars])
    varying = set()
    for op in g._ops[:n_fwd]:  # creation order is a topological order
        if op.type == "Placeholder":
            if op.outputs[0] in loop_phs:
                varying.add(op)
        elif get_op_def(op.type).needs_key or any(t.op in varying for t in op._inputs) or \
                any(c in varying for c in op._control_inputs):
            varying.add(op)
    return varying


def residuals(body, bgrad, n_vars, n_fwd):
    """The varying forward tensors of `body` that the gradient SubFn `bgrad` reads, in graph order."""
    varying = _varying(body, n_vars, n_fwd)
    found, seen = set(), set()
    stack = []
    for t in bgrad.outputs:
        if t.op._id < n_fwd:
            found.add(t) if t.op in varying else None
        else:
            stack.append(t.op)
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        for t in op._inputs:
            if t.op._id < n_fwd:
                if t.op in varying:
                    found.add(t)
            elif t.op not in seen:
                stack.append(t.op)
        stack.extend(c for c in op._control_inputs if c._id >= n_fwd and c not in seen)
    res = sorted(found, key=lambda t: (t.op._id, t.value_index))
    # a gradient op ordered after a forward op by a control dependency pulls that op in: whatever
    # loop variable it reads must then be saved too
    loop_phs = set(body.inputs[:n_vars])
    while True:
        sub = prune_pass.prune(list(bgrad.outputs), res + list(body.inputs[n_vars:]) + bgrad.inputs[len(body.inputs):])
        missing = [op.outputs[0] for op in sub.ops if op.type == "Placeholder" and op.outputs[0] in loop_phs]
        if not missing:
            return res
        res += missing


def _ensure_outputs(op, saves):
    """Gives the forward While op its iteration-count output (index n_vars) and one stacked output
    per tensor of `saves` not saved yet. Returns the output index of each of `saves`."""
    attrs = dict(op.attrs)
    n = attrs["n_vars"]
    if not attrs.get("count"):
        assert len(op._outputs) == n
        attrs["count"] = True
        attrs["saves"] = []
        attrs["Tout"] = list(attrs["Tout"]) + [dt.int32]
        attrs["output_shapes"] = list(attrs["output_shapes"]) + [TensorShape([])]
        op._outputs += (Tensor(op, n, dt.int32, TensorShape([])),)
    saved = list(attrs["saves"])
    for t in saves:
        if t not in saved:
            saved.append(t)
            shape = TensorShape([max(attrs["max_static"], 0)]).concatenate(t.shape)
            attrs["Tout"] = attrs["Tout"] + [t.dtype]
            attrs["output_shapes"] = attrs["output_shapes"] + [shape]
            op._outputs += (Tensor(op, len(op._outputs), t.dtype, shape),)
    body = attrs["body"]
    attrs["saves"] = saved
    attrs["body_save"] = SubFn(body.graph, body.inputs, body.outputs + saved)
    op.attrs = attrs  # a new dict: rules bound to the old one (functions lowered before) keep theirs
    return [n + 1 + saved.index(t) for t in saves]


def while_grad(op, *grads):
    """The gradient rule of While/StatelessWhile: a WhileGrad op (see the module docstring)."""
    attrs = op.attrs
    if not attrs["back_prop"]:
        return [None] * len(op.inputs)
    if op.graph.finalized:  # before the loop op is changed
        raise RuntimeError("Graph is finalized and cannot be modified.")
    n, nc = attrs["n_vars"], attrs["n_captured"]
    fv = [k for k in range(n) if op.inputs[k].dtype.is_floating]
    fc = [j for j in range(nc) if op.inputs[n + j].dtype.is_floating]
    if not fv:
        return [None] * len(op.inputs)
    body = attrs["body"]
    bgrad = grad_fn(body, fv, fv + [n + j for j in fc])
    gys = bgrad.inputs[len(body.inputs):]
    caps, cap_phs = list(op.inputs[n:n + nc]), list(body.inputs[n:])
    bounded = attrs["max_static"] is not None
    if bounded:
        res = residuals(body, bgrad, n, attrs["n_fwd_ops"])
        index = _ensure_outputs(op, res)
        bwd = SubFn(body.graph, res + cap_phs + gys, bgrad.outputs)
        state = [op.outputs[i] for i in index]
    else:  # recomputation from the initial values
        _ensure_outputs(op, [])
        bwd = bgrad
        state = op.inputs[:n]
    gattrs = {"body_grad": bwd, "body": body, "cond": attrs["cond"], "bounded": bounded, "n_state": len(state),
              "n_captured": nc, "n_vars": n, "max_static": attrs["max_static"], "fv": fv, "fc": fc,
              "full": _full(attrs),
              "Tout": [op.inputs[k].dtype for k in fv] + [op.inputs[n + j].dtype for j in fc],
              "output_shapes": [op.inputs[k].shape for k in fv] + [op.inputs[n + j].shape for j in fc]}
    gtype = "WhileGrad" if op.type == "While" else "StatelessWhileGrad"
    gop = op.graph.create_op(gtype, [op.outputs[n], *state, *caps] + [grads[k] for k in fv], gattrs,
                             name=op.name + "_grad")
    out = [None] * len(op.inputs)
    for j, k in enumerate(fv):
        out[k] = gop.outputs[j]
    for j, c in enumerate(fc):
        out[n + c] = gop.outputs[len(fv) + j]
    return out


# ---- lowering ------------------------------------------------------------------------------------------
def _fns(attrs, *names, flags=False):
    return [backend().function(attrs[k], flags) for k in names]   # the one place this module lowers bodies


def _full(attrs):
    """Whether a bounded loop is known to run all its max_static iterations (a counted loop:
    control_flow_ops._trip_count): then each step of its scans runs the body, with no lax.cond
    (whose predicate a GPU reads back to the host at every iteration)."""
    return attrs["max_static"] is not None and attrs.get("trip_count") == max(attrs["max_static"], 0)


def _may_fail(body):
    """Whether a tf.cond in the body may take a branch that cannot be traced (its op's check would run)."""
    return any(get_op_def(op.type).check_of_run and get_op_def(op.type).check_when(op) for op in body.graph.ops)


def forward(attrs, key, vars_, caps, mx, flags=False):
    """The forward While once a gradient needs its count (and saved values): final loop vars, the
    number of iterations, then each saved tensor stacked over iterations; with `flags`, last the
    highest error flag of a tf.cond in the body (ops/control_flow_ops.py; a while_loop stops at one)."""
    import jax
    import jax.numpy as jnp
    iteration_key = backend().iteration_key
    (cond_f,), (body_f,) = _fns(attrs, "cond"), _fns(attrs, "body_save", flags=flags)
    n, flag0 = attrs["n_vars"], ((jnp.int64(-1),) if flags else ())

    def running(i, v, flag=()):
        ok = cond_f(iteration_key(key, i), *v, *caps)[0]
        ok = ok if mx is None else jnp.logical_and(ok, i < mx)
        return jnp.logical_and(ok, flag[0] < 0) if flags else ok

    def step(i, v, flag=()):   # ((new loop vars, saved values), the highest error flag so far)
        outs = body_f(iteration_key(key, i), *v, *caps)
        if flags:
            return (tuple(outs[:n]), tuple(outs[n:-1])), (jnp.maximum(flag[0], outs[-1]),)
        return (tuple(outs[:n]), tuple(outs[n:])), ()

    if attrs["max_static"] is None:
        def b(c):
            (new, _), flag = step(*c)
            return c[0] + 1, new, flag
        count, out, flag = jax.lax.while_loop(lambda c: running(*c), b, (jnp.int32(0), vars_, flag0))
        return tuple(out) + (count,) + flag

    if _full(attrs):
        def full(c, i):
            (new, saved), flag = step(i, *c)
            return (new, flag), saved
        (out, flag), saved = jax.lax.scan(full, (vars_, flag0), jnp.arange(attrs["max_static"], dtype=jnp.int32))
        return tuple(out) + (jnp.int32(attrs["max_static"]),) + tuple(saved) + flag

    def fwd(carry, i):
        v, count, done, flag = carry
        act = jnp.logical_and(jnp.logical_not(done), running(i, v, flag))
        shapes = jax.eval_shape(step, i, v, flag)[0][1]
        (new, saved), flag = jax.lax.cond(act, lambda v: step(i, v, flag),
                                          lambda v: ((v, tuple(jnp.zeros(s.shape, s.dtype) for s in shapes)), flag), v)
        return (new, count + act.astype(jnp.int32), jnp.logical_not(act), flag), saved
    steps = jnp.arange(max(attrs["max_static"], 0), dtype=jnp.int32)
    (out, count, _, flag), saved = jax.lax.scan(fwd, (vars_, jnp.int32(0), jnp.bool_(False), flag0), steps)
    return tuple(out) + (count,) + tuple(saved) + flag


def backward(attrs, key, args):
    """WhileGrad: gradients wrt the initial floating loop vars and captured tensors. A tf.cond in the
    body whose branch cannot be traced gives zeros here: the forward loop, in the same step, ran the
    same branches and hands their error to its check (the flag here is left out)."""
    import jax
    import jax.numpy as jnp
    iteration_key = backend().iteration_key
    ns, nc = attrs["n_state"], attrs["n_captured"]
    count, state, caps, gys = args[0], tuple(args[1:1 + ns]), tuple(args[1 + ns:1 + ns + nc]), args[1 + ns + nc:]
    nfv = len(attrs["fv"])
    flags = _may_fail(attrs["body"])
    grad_f, = _fns(attrs, "body_grad", flags=flags)
    gcaps0 = tuple(jnp.zeros(jnp.shape(caps[j]), attrs["Tout"][nfv + i].np) for i, j in enumerate(attrs["fc"]))
    g0 = (tuple(jnp.asarray(g) for g in gys), gcaps0)

    def back(i, ins, g):  # one iteration backwards
        gv, gc = g
        outs = grad_f(iteration_key(key, i), *ins, *caps, *gv)
        return tuple(outs[:nfv]), tuple(a + b for a, b in zip(gc, outs[nfv:len(outs) - flags]))

    if attrs["bounded"]:
        def bwd(g, x):
            i, res = x
            if attrs.get("full"):   # every iteration ran (see _full)
                return back(i, res, g), None
            return jax.lax.cond(i < count, lambda g: back(i, res, g), lambda g: g, g), None
        steps = jnp.arange(max(attrs["max_static"], 0), dtype=jnp.int32)
        (gv, gc), _ = jax.lax.scan(bwd, g0, (steps, state), reverse=True)
        return tuple(gv) + tuple(gc)
    gv, gc = _bisect(attrs, key, count, tuple(jnp.asarray(x) for x in state), caps, g0, back, flags)
    return tuple(gv) + tuple(gc)


def _bisect(attrs, key, count, init, caps, g0, back, flags):
    """Reverse iterations count-1 .. 0 from the initial loop state with O(log n) saved states:
    the top checkpoint (index s, state before iteration s) is either the iteration to
    differentiate next (s == end - 1) or is advanced to the middle of [s, end), pushed."""
    import jax
    import jax.numpy as jnp
    iteration_key = backend().iteration_key
    body_f, = _fns(attrs, "body", flags=flags)   # its flag left out: see backward
    n = attrs["n_vars"]
    stk = tuple(jnp.zeros((_STACK,) + jnp.shape(x), x.dtype).at[0].set(x) for x in init)
    idx = jnp.zeros(_STACK, jnp.int32)

    def advance(s, e, v):
        return jax.lax.fori_loop(s, e, lambda j, v: tuple(body_f(iteration_key(key, j), *v, *caps)[:n]), v)

    def step(c):
        end, sp, idx, stk, g = c
        s = idx[sp - 1]
        v = tuple(x[sp - 1] for x in stk)

        def leaf(c):
            return s, sp - 1, idx, stk, back(s, v, g)

        def split(c):
            mid = (s + end) // 2
            vm = advance(s, mid, v)
            return end, sp + 1, idx.at[sp].set(mid), tuple(x.at[sp].set(y) for x, y in zip(stk, vm)), g
        return jax.lax.cond(end - s == 1, leaf, split, c)
    *_, g = jax.lax.while_loop(lambda c: c[0] > 0, step, (count, jnp.int32(1), idx, stk, g0))
    return g


def grad_fn(subfn, ys, xs):
    """A SubFn computing d(outputs[ys] . g)/d(inputs[xs]) in subfn's own graph; inputs + one g per y."""
    g = subfn.graph
    with g.as_default(), g.name_scope(None):
        gys = [g.create_op("Placeholder", [], {"dtype": subfn.outputs[k].dtype, "shape": subfn.outputs[k].shape},
                           name="grad_y%d" % k).outputs[0] for k in ys]
        x_ts = [subfn.inputs[i] for i in xs]
        gx = gradients([subfn.outputs[k] for k in ys], x_ts, grad_ys=gys)
        gx = [zeros_like(x) if d is None else d for x, d in zip(x_ts, gx)]
    return SubFn(g, subfn.inputs + gys, gx)
