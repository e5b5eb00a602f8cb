"""A tf.while_loop whose loop variables grow, run inside XLA: each growing variable padded to a
capacity that doubles, so a loop of n iterations compiles O(log n) programs, not one per length.

The body graph is evaluated op by op (its lowering rules) on values of three kinds besides arrays:
  Padded(arr, axis, n)   an array whose axis `axis` (counted from the end) holds `n` valid entries
                         (a traced int) of a capacity arr.shape[axis]; the entries past n are zero
  DynScalar(n, cap)      a scalar known only at run time (a padded dimension's length, tf.shape(x)[i])
  DynShape(dims, pos, n) a shape vector whose entry `pos` is such a length (tf.shape of a Padded)
An op reading one of them has a rule here that gives what the op gives on the real, unpadded
values (a concat writes at n; a matmul contracting the padded axis sums only the valid entries, the
zeros adding nothing; a softmax over it masks the padding; tf.range(n) is a Padded arange). A body
with an op outside these rules raises Unsupported while tracing, and the loop runs from the host
as before (control_flow_ops._host_loop: one compile per length).

The loop runs in phases: a jitted lax.while_loop at the current capacities until cond fails or an
iteration would outgrow a capacity (that iteration's results are dropped: the iteration reruns,
with the same iteration key, at twice the capacity). With maximum_iterations the first capacity
holds them all (the first iteration's growth times the bound): one phase.

Values: the valid entries are what the unpadded ops compute, up to the order XLA sums a longer
axis in (a matmul over 64 entries of which 40 are valid may round differently from one over 40).
"""
import weakref

import jax
import jax.numpy as jnp
import numpy as np

from tinyflow.graph.backend import backend
from tinyflow.graph.registry import get_op_def

__all__ = ['Unsupported', 'run']

TRACES = [0]   # phases traced (tests: O(log n) per loop)


class Unsupported(Exception):
    """The body reads a padded value with an op that has no rule here."""


class Padded:
    def __init__(self, arr, axis, n):
        self.arr, self.axis, self.n = arr, axis, n   # axis < 0

    def mask(self, arr=None, axis=None):
        """Zeros past n along the padded axis of `arr` (default: this array)."""
        arr = self.arr if arr is None else arr
        axis = self.axis if axis is None else axis
        cap = arr.shape[axis]
        shape = [1] * arr.ndim
        shape[axis] = cap
        keep = (jnp.arange(cap) < self.n).reshape(shape)
        return jnp.where(keep, arr, jnp.zeros((), arr.dtype))


class DynScalar:
    def __init__(self, n, cap):
        self.n, self.cap = n, cap


class DynShape:
    def __init__(self, dims, pos, n):
        self.dims, self.pos, self.n = np.asarray(dims), pos, n


_ELEMENTWISE = frozenset("""Add AddV2 Sub Mul RealDiv Div Maximum Minimum Neg Exp Log Tanh Sigmoid Sqrt Rsqrt Pow Square
    Cast GreaterEqual Greater Less LessEqual Equal NotEqual LogicalAnd LogicalOr LogicalNot Select SelectV2 Identity
    Abs Erf Relu Relu6 Elu Softplus SquaredDifference FloorDiv FloorMod Floor Round StopGradient""".split())


def _plain(v):
    """A value an ordinary rule can take: a DynScalar is its traced length."""
    return v.n if isinstance(v, DynScalar) else v


def _special(v):
    return isinstance(v, (Padded, DynScalar, DynShape))


def _call(op, attrs, key, args):
    opdef = get_op_def(op.type)
    if all(isinstance(a, np.ndarray) or np.isscalar(a) for a in args) and opdef.numpy is not None:
        try:
            with np.errstate(all="ignore"):
                out = opdef.numpy(attrs, *[np.asarray(a) for a in args])
        except Exception:   # noqa: BLE001 (its lowering rule says why, below)
            out = None
        if out is not None:
            return out
    if opdef.needs_key:
        out = opdef.lower(attrs, key, *args)
    elif opdef.stateful or any(isinstance(a, jax.core.Tracer) for a in args):
        out = opdef.lower(attrs, *args)
    else:   # a value known while tracing (a shape computation): computed now, as the jitted program does
        with jax.ensure_compile_time_eval():
            out = opdef.lower(attrs, *args)
    if len(op.outputs) == 1 and isinstance(out, (list, tuple)):
        return out[0]
    return out


def _elementwise(op, attrs, key, ins):
    pads = [v for v in ins if isinstance(v, Padded)]
    rank = max(np.ndim(v.arr if isinstance(v, Padded) else _plain(v)) for v in ins)
    axis = pads[0].axis
    for v in ins:
        if isinstance(v, Padded):
            if v.axis != axis or v.arr.ndim < -axis:
                raise Unsupported(op.type)
        elif np.ndim(_plain(v)) >= -axis and np.shape(_plain(v))[axis] != 1:
            raise Unsupported(op.type)   # a full-size dimension against a padded one
    out = _call(op, attrs, key, [v.arr if isinstance(v, Padded) else _plain(v) for v in ins])
    assert np.ndim(out) == rank
    return Padded(pads[0].mask(jnp.asarray(out), axis), axis, pads[0].n)


def _concat(op, attrs, key, ins):
    values, axis = ins[:-1], int(np.asarray(ins[-1]))
    first = values[0]
    if not isinstance(first, Padded) or any(isinstance(v, Padded) for v in values[1:]):
        if all(isinstance(v, Padded) and v.axis == values[0].axis for v in values):   # along another axis
            rank = values[0].arr.ndim
            if axis % rank - rank == values[0].axis:
                raise Unsupported(op.type)
            return Padded(jnp.concatenate([v.arr for v in values], axis), values[0].axis, values[0].n)
        raise Unsupported(op.type)
    rank = first.arr.ndim
    if axis % rank - rank != first.axis:
        raise Unsupported(op.type)
    arr, n = first.arr, first.n
    for v in values[1:]:   # written at the valid length; past the capacity it is dropped (the phase ends)
        v = jnp.asarray(_plain(v), arr.dtype)
        start = [0] * rank
        start[first.axis] = n
        arr = jax.lax.dynamic_update_slice(arr, v, [jnp.asarray(s, np.int32) for s in start])
        n = n + v.shape[first.axis]
    return Padded(arr, first.axis, n)


def _matmul(op, attrs, key, ins):
    a, b = ins[0], ins[1]
    ta = attrs.get("transpose_a", attrs.get("adj_x", False))
    tb = attrs.get("transpose_b", attrs.get("adj_y", False))
    out = _call(op, attrs, key, [v.arr if isinstance(v, Padded) else v for v in ins])
    contracted_a, contracted_b = (-2 if ta else -1), (-1 if tb else -2)
    axes = []
    for v, con, free in ((a, contracted_a, -1 if ta else -2), (b, contracted_b, -2 if tb else -1)):
        if not isinstance(v, Padded):
            continue
        if v.axis == con:
            if not (isinstance(a, Padded) and isinstance(b, Padded) and a.axis == contracted_a
                    and b.axis == contracted_b):
                raise Unsupported(op.type)   # the other side's padding must be zero too: both padded
            continue
        axes.append((v, -2 if v is a and v.axis == free else -1 if v.axis == free else v.axis))
    if not axes:
        return out
    if len(axes) > 1:
        raise Unsupported(op.type)
    v, axis = axes[0]
    return Padded(v.mask(out, axis), axis, v.n)


def _softmax(op, attrs, key, ins):
    x = ins[0]
    if x.axis != -1:
        return _elementwise(op, attrs, key, ins)
    cap = x.arr.shape[-1]
    valid = jnp.arange(cap) < x.n
    logits = jnp.where(valid, x.arr, -jnp.inf)   # exp(-inf) = 0: the padding takes no share
    return Padded(x.mask(_call(op, attrs, key, [logits])), -1, x.n)


def _shape(op, attrs, key, ins):
    x = ins[0]
    dims = np.array(x.arr.shape, attrs["out_type"].np)
    return DynShape(dims, x.arr.ndim + x.axis, jnp.asarray(x.n, attrs["out_type"].np))


def _strided_slice(op, attrs, key, ins):
    x = ins[0]
    if not isinstance(x, DynShape) or any(_special(v) for v in ins[1:]):
        raise Unsupported(op.type)
    picked = np.asarray(_call(op, attrs, key, [np.arange(len(x.dims))] + list(ins[1:])))
    values = np.asarray(_call(op, attrs, key, [x.dims] + list(ins[1:])))
    if x.pos not in picked.reshape(-1):
        return values
    if picked.ndim == 0:
        return DynScalar(x.n, int(x.dims[x.pos]))
    raise Unsupported(op.type)


def _range(op, attrs, key, ins):
    start, limit, delta = ins
    if not isinstance(limit, DynScalar) or _special(start) or _special(delta) or int(start) != 0 or int(delta) != 1:
        raise Unsupported(op.type)
    dtype = attrs.get("Tidx", None)
    arr = jnp.arange(limit.cap, dtype=dtype.np if dtype is not None else np.int32)
    v = Padded(arr, -1, limit.n)
    return Padded(v.mask(), -1, limit.n)


def _pack(op, attrs, key, ins):
    axis = attrs["axis"]
    if all(np.ndim(_plain(v)) == 0 for v in ins) and sum(isinstance(v, DynScalar) for v in ins) == 1:   # a shape
        pos = next(i for i, v in enumerate(ins) if isinstance(v, DynScalar))
        dims = [ins[pos].cap if i == pos else int(np.asarray(v)) for i, v in enumerate(ins)]
        return DynShape(dims, pos, ins[pos].n)
    if not all(isinstance(v, Padded) and v.axis == ins[0].axis for v in ins):
        raise Unsupported(op.type)
    rank = ins[0].arr.ndim
    axis = axis % (rank + 1)
    pos = rank + ins[0].axis
    new = pos + 1 if axis <= pos else pos
    return Padded(jnp.stack([v.arr for v in ins], axis), new - (rank + 1), ins[0].n)


def _unpack(op, attrs, key, ins):
    x = ins[0]
    rank = x.arr.ndim
    axis, pos = attrs["axis"] % rank, rank + x.axis
    if axis == pos:
        raise Unsupported(op.type)
    new = (pos - 1 if axis < pos else pos) - (rank - 1)
    return [Padded(a, new, x.n) for a in _call(op, attrs, key, [x.arr])]


def _transpose(op, attrs, key, ins):
    x, perm = ins
    perm = [int(p) for p in np.asarray(perm)]
    rank = x.arr.ndim
    return Padded(jnp.transpose(x.arr, perm), perm.index(rank + x.axis) - rank, x.n)


def _expand_dims(op, attrs, key, ins):
    x = ins[0]
    rank = x.arr.ndim
    axis = attrs["axis"] % (rank + 1)
    pos = rank + x.axis
    return Padded(jnp.expand_dims(x.arr, axis), (pos + 1 if axis <= pos else pos) - (rank + 1), x.n)


def _reshape(op, attrs, key, ins):
    """Only adding or dropping size-1 dimensions around the padded one."""
    x, shape = ins
    if not isinstance(x, Padded) or not isinstance(shape, DynShape):
        raise Unsupported(op.type)
    pos = x.arr.ndim + x.axis
    before = [(d, i == pos) for i, d in enumerate(x.arr.shape) if d != 1 or i == pos]
    after = [(int(d), i == shape.pos) for i, d in enumerate(shape.dims) if d != 1 or i == shape.pos]
    if before != after:
        raise Unsupported(op.type)
    return Padded(jnp.reshape(x.arr, [int(d) for d in shape.dims]), shape.pos - len(shape.dims), x.n)


def _with_lengths(op, attrs, key, ins):
    return _call(op, attrs, key, [_plain(v) for v in ins])


_RULES = {"ConcatV2": _concat, "MatMul": _matmul, "BatchMatMul": _matmul, "BatchMatMulV2": _matmul,
          "Softmax": _softmax, "LogSoftmax": _softmax, "Shape": _shape, "StridedSlice": _strided_slice,
          "Range": _range, "Pack": _pack, "Unpack": _unpack, "Transpose": _transpose, "ExpandDims": _expand_dims,
          "Reshape": _reshape}


def _needed(fn):
    """The ops of the SubFn `fn` its outputs depend on, in graph order."""
    want, stack = set(), [t.op for t in fn.outputs]
    while stack:
        op = stack.pop()
        if op in want:
            continue
        want.add(op)
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return [op for op in fn.graph.get_operations() if op in want]


def evaluate(fn, key, args):
    """The outputs of the SubFn `fn` on `args` (arrays or Padded values)."""
    env = dict(zip(fn.inputs, args))
    for op in _needed(fn):
        if op.outputs and all(t in env for t in op.outputs):
            continue
        ins = [env[t] for t in op.inputs]
        attrs = op.attrs
        if any(_special(v) for v in ins):
            rule = _RULES.get(op.type)
            if rule is None and op.type in _ELEMENTWISE and any(isinstance(v, Padded) for v in ins):
                rule = _elementwise
            elif rule is None and not any(isinstance(v, (Padded, DynShape)) for v in ins):
                rule = _with_lengths   # a run-time length as an ordinary traced scalar
            if rule is None:
                raise Unsupported(op.type)
            try:
                out = rule(op, attrs, key, ins)
            except Unsupported:
                raise
            except Exception as e:   # noqa: BLE001 (the host loop runs it and says what is wrong, if anything)
                raise Unsupported("%s: %s" % (op.type, e)) from e
        else:
            if get_op_def(op.type).lower is None:
                raise Unsupported(op.type)
            try:
                out = _call(op, attrs, key, ins)
            except Exception as e:   # noqa: BLE001 (as above: the host loop says it in the op's words)
                raise Unsupported("%s: %s" % (op.type, e)) from e
        outs = out if len(op.outputs) != 1 else [out]
        for t, v in zip(op.outputs, outs):
            env[t] = v
    return [env[t] for t in fn.outputs]


_PHASES = weakref.WeakKeyDictionary()   # body SubFn -> its jitted phase


def _phase(attrs, growing):
    """The jitted loop at fixed capacities: (i, vars, lengths) -> (i, vars, lengths, outgrown)."""
    cond_fn, body_fn = attrs["cond"], attrs["body"]
    iteration_key = backend().iteration_key

    def wrap(vars_, ns):
        return [Padded(v, growing[k], ns[k]) if k in growing else v for k, v in enumerate(vars_)]

    def phase(key, i, vars_, ns, caps, mx):
        TRACES[0] += 1
        ns = dict(zip(sorted(growing), ns))

        def cond(state):
            i, vars_, ns_, over = state
            ok = evaluate(cond_fn, iteration_key(key, i), wrap(vars_, dict(zip(sorted(growing), ns_))) + list(caps))[0]
            if _special(ok):
                raise Unsupported("cond")
            ok = jnp.logical_and(jnp.asarray(ok), jnp.logical_not(over))
            return ok if mx is None else jnp.logical_and(ok, i < mx)

        def body(state):
            i, vars_, ns_, _ = state
            outs = evaluate(body_fn, iteration_key(key, i), wrap(vars_, dict(zip(sorted(growing), ns_))) + list(caps))
            new, lens = [], []
            for k, (v, o) in enumerate(zip(vars_, outs)):
                if k in growing:
                    if not isinstance(o, Padded) or o.axis != growing[k]:
                        raise Unsupported("a growing loop variable's new value")
                    new.append(o.arr)
                    lens.append(jnp.asarray(o.n, np.int32))
                else:
                    if _special(o):
                        raise Unsupported("a loop variable that does not grow became padded")
                    new.append(jnp.asarray(o, v.dtype))
            fits = jnp.all(jnp.stack([n <= v.shape[growing[k]] for k, v, n in
                                      zip(sorted(growing), [new[k] for k in sorted(growing)], lens)]))
            keep = lambda a, b: jnp.where(fits, a, b)  # noqa: E731
            return (keep(i + 1, i), tuple(keep(a, b) for a, b in zip(new, vars_)),
                    tuple(keep(a, b) for a, b in zip(lens, ns_)), jnp.logical_not(fits))

        state = (i, tuple(vars_), tuple(ns[k] for k in sorted(growing)), jnp.asarray(False))
        return jax.lax.while_loop(cond, body, state)

    return jax.jit(phase)


def run(attrs, key, vars_, caps, mx, shapes):
    """The final loop variables of a growing loop on concrete values (see the module docstring);
    `shapes`: those of one iteration's results (jax.eval_shape). Raises Unsupported before running
    anything when the body has an op without a rule."""
    invariants = attrs["output_shapes"]
    vars_ = [jnp.asarray(v) for v in vars_]
    growing = {}
    for k, (v, s) in enumerate(zip(vars_, invariants)):
        if s is None or s.ndims is None:
            raise Unsupported("a loop variable of unknown rank")
        unknown = [i for i, d in enumerate(s.as_list()) if d is None]
        if len(unknown) > 1:
            raise Unsupported("two unknown dimensions")
        if unknown:
            growing[k] = unknown[0] - v.ndim
    if not growing:
        raise Unsupported("nothing grows")
    fn = _PHASES.get(attrs["body"])
    if fn is None:
        fn = _PHASES[attrs["body"]] = _phase(attrs, growing)
    ns = [jnp.int32(vars_[k].shape[growing[k]]) for k in sorted(growing)]
    padded = list(vars_)
    for k in growing:   # room for every iteration when maximum_iterations says how many: one compile
        n0 = vars_[k].shape[growing[k]]
        want = n0 + int(mx) * max(0, shapes[k].shape[growing[k]] - n0) if mx is not None else 2 * n0
        padded[k] = _grow(vars_[k], growing[k], max(16, 1 << max(0, int(want) - 1).bit_length()))
    i = jnp.int32(0)
    limit = None if mx is None else jnp.asarray(mx, np.int32)
    key = None if key is None else jnp.asarray(key)
    while True:
        i, padded, ns, over = fn(key, i, tuple(padded), tuple(ns), tuple(jnp.asarray(c) for c in caps), limit)
        padded = list(padded)
        if not bool(over):
            break
        for k in growing:   # the iteration that outgrew a capacity runs again at twice every capacity
            padded[k] = _grow(padded[k], growing[k], 2 * padded[k].shape[growing[k]])
    out = list(padded)
    for k, n in zip(sorted(growing), ns):   # cut on the host: an eager slice would compile
        index = [slice(None)] * padded[k].ndim
        index[growing[k]] = slice(0, int(n))
        out[k] = np.asarray(padded[k])[tuple(index)]
    return tuple(out)


def _grow(arr, axis, cap):
    """`arr` padded with zeros to `cap` along `axis`, on the host (an eager jnp.pad compiles)."""
    widths = [(0, 0)] * arr.ndim
    widths[axis] = (0, cap - arr.shape[axis])
    return np.pad(np.asarray(arr), widths)
