"""Control flow: tf.cond, tf.case, tf.switch_case and tf.while_loop as functional ops.

A branch or loop body is a Python function, traced ONCE into its own graph (a FuncGraph) whose
placeholders stand for its arguments. A tensor of an enclosing graph used inside the body is
*captured*: the body gets a placeholder for it and the control-flow op gets the outer tensor as an
extra input. So prune, the state pass (variables read in a body see the run's value) and
tf.gradients (gradients wrt captured tensors and variables) see an ordinary op with inputs.

Op types (TF2's names for its functional ops):
  StatelessIf / If        inputs [pred, *captured]            attrs branches=[then, else]
  StatelessCase / Case    inputs [branch_index, *captured]    attrs branches (last: default)
  StatelessWhile / While  inputs [*loop_vars, *captured, (maximum_iterations)]   attrs cond, body
  StatelessWhileGrad / WhileGrad: the gradient of a while loop (tinyflow's own op)
The variants without "Stateless" hold random ops in a body and get the run's PRNG counter.
Each body is a SubFn: a FuncGraph with chosen input placeholders and output tensors; lowering
(lower/subgraph.py) turns it into a JAX function for lax.cond / lax.switch / lax.while_loop.

Gradients: a branch is differentiated with tf.gradients inside its own FuncGraph (the gradient of
an If is an If over the branch gradients). A while loop's gradient (ops/while_grad.py) makes the forward
loop save the per-iteration values the body's gradient reads (a bounded lax.scan when
maximum_iterations is a constant), then runs the body's gradient backwards over them in a reverse
scan; without a constant bound it recomputes from O(log n) checkpoints (O(n log n) steps).

Variables created inside a body are lifted to the outermost graph with their initializers, as
TF1's init_scope does. Not supported: assigning variables inside a body (a clear error says so),
and loop variables whose actual shape changes across iterations (XLA needs fixed shapes).
A TensorArray (ops/functional_ops.py) can be a loop variable: its dense `flow` tensor is.
"""
import weakref

import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph import errors
from tinyflow.graph.backend import backend
from tinyflow.graph.core import Graph, Operation, Tensor, get_default_graph
from tinyflow.graph.func_graph import FuncGraph, SubFn, add_outer_controls
from tinyflow.graph.nest import flatten, pack_as
from tinyflow.graph.registry import register_op
from tinyflow.graph.shapes import TensorShape, as_shape
from tinyflow.ops.core.base import constant_value_of, convert_to_tensor, graph_of
from tinyflow.ops import padded_loop, while_grad
from tinyflow.ops.while_grad import grad_fn

__all__ = ['case', 'cond', 'switch_case', 'while_loop']


# ---- nested structures (tf.nest's rules: dicts by sorted key, namedtuples, lists, tuples) --------
def _is_seq(s):
    return isinstance(s, (list, tuple, dict))


def _signature(s):
    if isinstance(s, dict):
        return ("dict", tuple(sorted(s)), tuple(_signature(s[k]) for k in sorted(s)))
    if isinstance(s, (list, tuple)):
        return (type(s).__name__, tuple(_signature(e) for e in s))
    return "."


def assert_same_structure(a, b, what):
    if _signature(a) != _signature(b):
        raise ValueError("The two structures don't have the same nested structure.\n\nFirst structure: %s\n\n"
                         "Second structure: %s\n\nMore specifically: %s" % (_show(a), _show(b), what))


def _show(s):
    return repr(pack_as(s, ["."] * len(flatten(s))))


def _trace(outer, name, fn, args=None, specs=()):
    """Calls fn inside a new FuncGraph on placeholders of `specs` [(dtype, shape)] packed like `args`.

    A spec may instead be a function make(graph) -> the argument itself (a TensorArray whose
    placeholder is made at its first write). Returns the graph, the arguments, the structure fn
    returned and its leaves as tensors there.
    """
    g = FuncGraph(outer, name)
    with g.as_default():
        phs = [spec(g) if callable(spec) else g.create_op(
            "Placeholder", [], {"dtype": spec[0], "shape": as_shape(spec[1])}, name="arg%d" % i).outputs[0]
               for i, spec in enumerate(specs)]
        result = fn(*pack_as(args, phs)) if args is not None else fn()
        leaves = [_output_tensor(g, x) for x in flatten(result)]
    return g, phs, result, leaves


def _output_tensor(g, x):
    if isinstance(x, Operation):
        raise TypeError("tinyflow: a tf.cond branch or tf.while_loop body must return tensors, not the "
                        "operation '%s' (ops run inside a body only to compute its results)." % x.name)
    t = x.flow if _is_composite(x) else convert_to_tensor(x)
    return g.capture(t) if t.graph is not g else t


def _align(graphs, fixed):
    """The union of the graphs' captures; each graph gets a placeholder for each (unused ones too).

    `fixed[k]`: graph k's own leading placeholders (its arguments). Returns (outer tensors, inputs per graph).
    """
    union = []
    for g in graphs:
        for outer_t, _ in g.captures:
            if outer_t not in union:
                union.append(outer_t)
    inputs = []
    for g, lead in zip(graphs, fixed):
        with g.as_default():
            inputs.append(list(lead) + [g.capture(t) for t in union])
    return union, inputs


# ---- tf.cond / tf.case / tf.switch_case -----------------------------------------------------------
def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """Returns true_fn() if pred is true else false_fn(); only the taken branch's ops run."""
    true_fn = true_fn if true_fn is not None else fn1
    false_fn = false_fn if false_fn is not None else fn2
    if isinstance(pred, bool):
        raise TypeError("pred must not be a Python bool")
    if not callable(true_fn):
        raise TypeError("true_fn must be callable.")
    if not callable(false_fn):
        raise TypeError("false_fn must be callable.")
    graph = graph_of(pred)
    with graph.as_default(), graph.name_scope(name or "cond") as scope:
        pred = convert_to_tensor(pred)
        if pred.dtype != dt.bool_:
            raise ValueError("pred must be a bool tensor, got %s for '%s'" % (pred.dtype.name, scope[:-1]))
        if pred.shape.ndims not in (None, 0):
            raise ValueError("Shape must be rank 0 but is rank %d for '%s' (op: 'If') with input shapes: %s."
                             % (pred.shape.ndims, scope[:-1], pred.shape.as_proto_str()))
        return _branches_op("If", scope, pred, [true_fn, false_fn], ["true_fn", "false_fn"], strict)


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """Runs branch_fns[branch_index] (a list, or a dict of int keys 0..n-1); out of range: default."""
    if isinstance(branch_fns, dict):
        keys = sorted(branch_fns)
        if keys != list(range(len(keys))):
            raise ValueError("branch_fns dict keys must be 0..n-1, got %s" % keys)
        branch_fns = [branch_fns[k] for k in keys]
    branch_fns = [f[1] if isinstance(f, tuple) else f for f in branch_fns]
    if not branch_fns:
        raise ValueError("Must provide at least one item in branch_fns")
    for f in branch_fns + ([default] if default is not None else []):
        if not callable(f):
            raise TypeError("fn for branch must be callable.")
    fns = branch_fns + ([default] if default is not None else [])  # the last one takes out-of-range indices
    graph = graph_of(branch_index)
    with graph.as_default(), graph.name_scope(name) as scope:
        index = convert_to_tensor(branch_index)
        if not index.dtype.is_integer:
            raise TypeError("branch_index must be an integer tensor, got %s" % index.dtype.name)
        if index.dtype != dt.int32:
            from tinyflow.ops.core.math_ops import cast
            index = cast(index, dt.int32)
        return _branches_op("Case", scope, index, fns, ["branch %d" % i for i in range(len(fns))], False)


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The result of the fn of the first true pred (in order; a dict is ordered by pred name), else
    default(); with no default the last fn is the default. tinyflow does not check `exclusive`
    at run time: with several true preds it returns the first one's result."""
    if isinstance(pred_fn_pairs, dict):
        pairs = list(pred_fn_pairs.items())
        if type(pred_fn_pairs) is dict:  # TF: an unordered dict is ordered by the preds' names
            pairs.sort(key=lambda kv: kv[0].name)
    elif isinstance(pred_fn_pairs, (list, tuple)):
        pairs = list(pred_fn_pairs)
    else:
        raise TypeError("fns must be a list, tuple, or dict")
    for p in pairs:
        if not isinstance(p, tuple) or len(p) != 2:
            raise TypeError("Each entry in pred_fn_pairs must be a 2-tuple")
        if not callable(p[1]):
            raise TypeError("fn for pred %s must be callable." % getattr(p[0], "name", p[0]))
    if default is None:
        if not pairs:
            raise ValueError("Must provide at least one item in pred_fn_pairs")
        pairs, default = pairs[:-1], pairs[-1][1]
    from tinyflow.ops.core.array_ops import stack
    from tinyflow.ops.core.math_ops import argmax, cast
    graph = graph_of(*[p for p, _ in pairs])
    with graph.as_default(), graph.name_scope(name) as scope:
        preds = [convert_to_tensor(p) for p, _ in pairs]
        for p in preds:
            if p.dtype != dt.bool_:
                raise TypeError("pred must be a bool tensor, got %s" % p.dtype.name)
        fns = [f for _, f in pairs] + [default]
        if not preds:
            index = convert_to_tensor(np.int32(0))
        else:  # the first true pred; all false picks the default (argmax's first max)
            flags = stack(preds + [convert_to_tensor(True)])
            index = cast(argmax(cast(flags, dt.int32), 0), dt.int32)
        return _branches_op("Case", scope, index, fns, ["branch %d" % i for i in range(len(fns))], strict)


def _branches_op(kind, scope, selector, fns, labels, strict):
    """Traces each fn, checks they agree, and makes one If/Case op (stateful if a body is random)."""
    graph = get_default_graph()
    if getattr(graph, "_eager", False):   # eager: the selected fn alone runs (TF's eager cond; the others
        result = fns[int(_index(constant_value_of(selector), len(fns)))]()   # may not fit these shapes)
        return _unpack(result, strict)
    traced = [_trace(graph, scope[:-1], fn) for fn in fns]
    results = [r for _, _, r, _ in traced]
    leaves = [lv for _, _, _, lv in traced]
    opname = scope[:-1]
    for r, lab in zip(results[1:], labels[1:]):
        try:
            assert_same_structure(results[0], r, "%s and %s differ" % (labels[0], lab))
        except ValueError as e:
            raise ValueError("Incompatible return values of %s and %s in '%s': %s" % (labels[0], lab, opname, e)) \
                from None
    if not leaves[0]:
        raise ValueError("%s and %s must return at least one result." % (labels[0], labels[1]))
    shapes = []
    for k, t0 in enumerate(leaves[0]):
        shape = t0.shape
        for lv, lab in zip(leaves[1:], labels[1:]):
            t = lv[k]
            if t.dtype != t0.dtype:
                raise ValueError("Outputs of %s and %s must have the same type: %s, %s (output %d of '%s')"
                                 % (labels[0], lab, t0.dtype.name, t.dtype.name, k, opname))
            if not shape.is_compatible_with(t.shape):
                raise ValueError("Outputs of %s and %s must have compatible shapes: %s, %s (output %d of '%s'); "
                                 "XLA needs both branches to give the same shape"
                                 % (labels[0], lab, t0.shape, t.shape, k, opname))
            shape = shape.most_specific_compatible_shape(t.shape)   # TF: what both branches agree on
        shapes.append(shape)
    captured, inputs = _align([g for g, _, _, _ in traced], [[] for _ in traced])
    branches = [SubFn(g, ins, lv) for (g, _, _, _), ins, lv in zip(traced, inputs, leaves)]
    stateful = any(g.needs_key() for g, _, _, _ in traced)
    op_type = kind if stateful else "Stateless" + kind
    op = graph.create_op(op_type, [selector] + captured,
                         {"branches": branches, "Tout": [t.dtype for t in leaves[0]], "output_shapes": shapes},
                         name=scope)
    add_outer_controls(op, [g for g, _, _, _ in traced])
    return _unpack(pack_as(results[0], op.outputs), strict)


def _unpack(result, strict):
    if not strict and isinstance(result, (list, tuple)) and len(result) == 1 and not hasattr(result, "_fields"):
        result = result[0]  # TF1's non-strict mode unpacks singleton lists
    return result


# A branch is traced at the run's shapes only when it can be taken. TF runs only the taken branch, so
# a branch valid only when taken (contrib.crf squeezes axis 1 when the length is 1) is fine there;
# lax.cond traces both. So: a selector known while tracing (from shapes and constants) takes its
# branch alone; otherwise a branch that cannot be traced at these shapes gives zeros and an error
# flag (the error's id; -1: none), which the op hands on: at the top level to its run-time check (the
# step's, which keeps every variable as it was and raises the branch's own error), in a loop body or
# another branch out of that body (a while loop carries it and stops at the first one) up to the
# top-level op's check. Where no flag can leave (a loop run from the host, a gradient's loop) the trace
# fails instead: never zeros where TF would raise.
_TRACE_ERRORS = weakref.WeakKeyDictionary()   # branch SubFn -> {argument shapes: its error, or None}


def _index(selector, n):
    """The branch a selector picks: If's bool (0: then), Case's index (any outside 0..n-2: the last)."""
    import jax
    if isinstance(selector, jax.core.Tracer):
        xp = jax.numpy
    else:   # a value known while tracing: numpy keeps it so (jnp under jit would trace it)
        xp, selector = np, np.asarray(selector)
    if selector.dtype == np.bool_:
        return xp.where(selector, 0, 1)
    return xp.where((selector < 0) | (selector >= n - 1), n - 1, selector)


def _trace_error(branch, args, key, flags):
    """The error tracing `branch` on arguments shaped like `args` raises, or None (memoized)."""
    import jax
    specs = [jax.ShapeDtypeStruct(np.shape(a), a.dtype) for a in args]
    sig = (tuple((s.shape, str(s.dtype)) for s in specs), flags)
    memo = _TRACE_ERRORS.setdefault(branch, {})
    if sig not in memo:
        if key is None and branch.graph.needs_key():
            from tinyflow.ops.random_ops import run_key
            key = run_key(0)
        f = backend().function(branch, flags)
        try:
            jax.eval_shape(lambda *a: f(key, *a), *specs)
            memo[sig] = None
        except (ValueError, TypeError, IndexError, ArithmeticError, errors.OpError) as e:
            e.__cause__ = e.__context__ = None   # kept without its frames (they hold the graph, tracers)
            memo[sig] = e.with_traceback(None)
    return memo[sig]


def _flags_leave(attrs):
    """Whether an error flag can leave this op: its step's check reads it (`_check`, set by lower/ for an
    op whose check runs) or the body being traced carries it out."""
    return bool(attrs.get("_check")) or backend().carries()


def _hand_on(attrs, outs, flag):
    """The op's results, its error flag (None: nothing can fail) handed on: after the outputs for the
    step's check, or to the body being traced."""
    if attrs.get("_check"):
        return tuple(outs) + (np.int64(-1) if flag is None else flag,)
    if flag is not None:
        backend().report(flag)
    return tuple(outs)


def _branch_lower(stateful):
    import jax
    import jax.numpy as jnp

    def run(attrs, key, selector, args):
        branches, flags = attrs["branches"], _flags_leave(attrs)
        fns = [(lambda f: (lambda *a: f(key, *a)))(backend().function(b, flags)) for b in branches]
        if not isinstance(selector, jax.core.Tracer):   # known while tracing: the taken branch alone
            outs = fns[int(_index(selector, len(fns)))](*args)
        else:
            failed = [_trace_error(b, args, key, flags) for b in branches]
            good = [f for f, e in zip(fns, failed) if e is None]
            if not good or (len(good) < len(fns) and not flags):
                raise next(e for e in failed if e is not None)   # no check could raise it when taken: fail now
            if len(good) < len(fns):   # zeros and the error's id, raised by the check if selected
                shapes = jax.eval_shape(good[0], *args)[:len(attrs["Tout"])]
                zeros = lambda i: lambda *a: tuple(jnp.zeros(o.shape, o.dtype) for o in shapes) + (jnp.int64(i),)
                fns = [zeros(_error_id(e)) if e is not None else f for f, e in zip(fns, failed)]
            if len(fns) == 2 and selector.dtype == jnp.bool_:
                outs = jax.lax.cond(selector, fns[0], fns[1], *args)
            else:
                outs = jax.lax.switch(_index(selector, len(fns)), fns, *args)
        return _hand_on(attrs, outs[:-1], outs[-1]) if flags else _hand_on(attrs, outs, None)

    if stateful:
        return lambda attrs, key, selector, *args: run(attrs, key, selector, args)
    return lambda attrs, selector, *args: run(attrs, None, selector, args)


def _run_check(attrs, flag):
    """(ok, error id): the flag the op's lowering gave (-1, or the id of the error of a branch that could
    not be traced at this run's shapes and was taken, in it or in its bodies)."""
    return flag < 0, flag


_ERRORS = {}   # the messages a check can report -> their ids


def _error_id(e):
    return -1 if e is None else _ERRORS.setdefault(str(e), len(_ERRORS))


def _branch_message(op, error_id):
    """The error tracing the selected branch raised at the run's shapes (TF's error when it runs)."""
    return next(m for m, i in _ERRORS.items() if i == int(error_id))


def _may_fail(op):
    """Whether a branch of `op` or of a tf.cond in its bodies may meet shapes it was not built for (some
    input's shape is not fully known): then its run-time check runs."""
    if op.type in _BRANCH_OPS and _unknown_shapes(op):
        return True
    return any(_may_fail(inner) for body in bodies(op) for inner in body.graph.ops
               if inner.type in _BRANCH_OPS or inner.type in _LOOP_OPS)


def bodies(op):
    """The function graphs `op` runs: a conditional's branches and a loop's body."""
    return list(op.attrs.get("branches") or ()) + ([op.attrs["body"]] if op.attrs.get("body") is not None else [])


def _unknown_shapes(op_or_inputs):
    """Whether a branch may meet shapes it was not built for: some input's shape is not fully known."""
    inputs = op_or_inputs.inputs[1:] if isinstance(op_or_inputs, Operation) else op_or_inputs
    return not all(t.shape.is_fully_defined() for t in inputs)


def _branch_grad(op, *grads):
    """An If/Case over the branches' own gradients (tf.gradients inside each branch graph)."""
    ins = op.inputs[1:]
    xs = [i for i, t in enumerate(ins) if t.dtype.is_floating]
    ys = [k for k, t in enumerate(op.outputs) if t.dtype.is_floating]
    if not xs or not ys:
        return [None] * len(op.inputs)
    branches = [grad_fn(b, ys, xs) for b in op.attrs["branches"]]
    gop = op.graph.create_op(op.type, [op.inputs[0], *ins] + [grads[k] for k in ys],
                             {"branches": branches, "Tout": [ins[i].dtype for i in xs],
                              "output_shapes": [ins[i].shape for i in xs]}, name=op.name + "_grad")
    out = [None] * len(op.inputs)
    for j, i in enumerate(xs):
        out[i + 1] = gop.outputs[j]
    return out


def _attr_shapes(shapes, attrs, values):
    return list(attrs["output_shapes"])


def _attr_dtypes(dtypes, attrs):
    return list(attrs["Tout"])


def _refined(shapes, static):
    """Each shape merged with its static one where they agree (the static one where they do not)."""
    return [as_shape(s).merge_with(t) if as_shape(s).is_compatible_with(t) else t for s, t in zip(shapes, static)]


_BODY_SHAPES = weakref.WeakKeyDictionary()   # body SubFn -> {input shapes: output shapes}


def _body_shapes(body, in_shapes, extra=()):
    """The shapes of body.outputs + extra for the shapes of its inputs (passes/infer.py on the body)."""
    from tinyflow.passes.infer import infer
    key = (tuple(s.as_proto_str() for s in in_shapes), tuple(extra))
    memo = _BODY_SHAPES.setdefault(body, {})
    if key not in memo:
        outs = list(body.outputs) + list(extra)
        try:
            found = infer(outs, {ph: s for ph, s in zip(body.inputs, in_shapes)})
            memo[key] = [found[t][0] if t in found else t.shape for t in outs]
        except ValueError:   # the loop's declared shapes then
            memo[key] = [t.shape for t in outs]
    return memo[key]


def _while_shapes(shapes, attrs, values):
    """The loop variables' shapes for the shapes they enter with: the most specific shapes the body maps
    to themselves (from the entry shapes, dimensions that change are relaxed), within the invariants;
    a saved tensor's stack is [iterations] + its shape in the body. Shape inference with fed shapes
    (passes/infer.py) reaches through a loop this way."""
    n, nc = attrs["n_vars"], attrs["n_captured"]
    static = list(attrs["output_shapes"])
    state = _refined(shapes[:n], static[:n])
    caps = [as_shape(s) for s in shapes[n:n + nc]]
    saves = list(attrs.get("saves", ()))
    for _ in range(4):
        got = _body_shapes(attrs["body"], state + caps, saves)
        new = [s.most_specific_compatible_shape(g) if s.is_compatible_with(g) and s.ndims == g.ndims else s
                for s, g in zip(state, got[:n])]
        if [s.as_proto_str() for s in new] == [s.as_proto_str() for s in state]:
            break
        state = new
    out = state
    if attrs.get("count"):
        out = out + [TensorShape([])]
        out += [TensorShape([max(attrs["max_static"], 0)]).concatenate(s) for s in got[n:]]
    return _refined(out, static)


def _while_grad_shapes(shapes, attrs, values):
    """A WhileGrad's outputs: each has the shape of the forward input it is the gradient of: the
    incoming gradient of a loop variable (its shape), or the captured tensor."""
    nfv, ns = len(attrs["fv"]), attrs["n_state"]
    caps = shapes[1 + ns:1 + ns + attrs["n_captured"]]
    grads = shapes[1 + ns + attrs["n_captured"]:]
    return _refined(list(grads[:nfv]) + [caps[j] for j in attrs["fc"]], attrs["output_shapes"])


_BRANCH_OPS, _LOOP_OPS = ("If", "StatelessIf", "Case", "StatelessCase"), ("While", "StatelessWhile")
_CHECKS = dict(check=_run_check, check_of_run=True, check_message=_branch_message, check_when=_may_fail)
for _kind in ("If", "Case"):
    register_op("Stateless" + _kind, shape=_attr_shapes, dtype=_attr_dtypes, grad=_branch_grad,
                lower=_branch_lower(False), **_CHECKS)
    register_op(_kind, shape=_attr_shapes, dtype=_attr_dtypes, grad=_branch_grad, lower=_branch_lower(True),
                needs_key=True, **_CHECKS)


# ---- tf.while_loop --------------------------------------------------------------------------------
def _shape_leq(s1, s2):
    """TF's _ShapeLessThanOrEqual: s1 is as specific as s2 or more."""
    if s2.ndims is None:
        return True
    if s1.ndims != s2.ndims:
        return False
    return all(b is None or a == b for a, b in zip(s1.as_list(), s2.as_list()))


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, name=None, maximum_iterations=None, return_same_structure=False):
    """Repeats `body` while `cond` is true; returns the final loop_vars (same nesting).

    cond and body are traced once. Each loop var keeps its shape across iterations unless
    `shape_invariants` gives a less specific one: such a loop ("grows") runs from the host, one
    jitted call of cond and body per iteration, compiled once per new shape (docs/dynamic_shapes.md).
    With `maximum_iterations` the loop stops after that many iterations; then gradients use a
    bounded scan.
    """
    if not callable(cond):
        raise TypeError("cond must be callable.")
    if not callable(body):
        raise TypeError("body must be callable.")
    if parallel_iterations < 1:
        raise TypeError("parallel_iterations must be a positive integer.")
    single = not isinstance(loop_vars, (list, tuple))
    structure = [loop_vars] if single else loop_vars
    flat_in = flatten(structure)
    if not flat_in:
        raise ValueError("No loop variables provided")
    comps = [v if _is_composite(v) else None for v in flat_in]  # TensorArrays: their flow is the loop var
    graph = graph_of(*[v for v in flat_in if isinstance(v, Tensor) or hasattr(v, "_as_graph_element")])
    if getattr(graph, "_eager", False):   # eager: a Python loop, as TF's (a tf.cond in it runs one branch)
        return _eager_loop(cond, body, structure, maximum_iterations,
                           single or (not return_same_structure and len(flat_in) == 1))
    with graph.as_default(), graph.name_scope(name or "while") as scope:
        # a TensorArray entering unwritten gets its placeholder (and shape) at the body's first write
        lazy = [c is not None and c._flow is None for c in comps]
        flat_in = [None if z else (c.flow if c is not None else convert_to_tensor(v))
                   for c, v, z in zip(comps, flat_in, lazy)]
        if shape_invariants is not None:
            inv = flatten([shape_invariants] if single else shape_invariants)
            if len(inv) != len(flat_in):
                raise ValueError("shape_invariants must have the same structure as loop_vars")
            inv = [as_shape(s) for s in inv]
            for v, s in zip(flat_in, inv):
                if v is not None and not s.is_compatible_with(v.shape):
                    raise ValueError("The shape invariant specified for %s is not compatible with the initial shape "
                                     "of the loop variable. It enters the loop with shape %s, but the specified "
                                     "shape invariant is %s." % (v.name, v.shape, s))
        else:
            inv = [v.shape if v is not None else None for v in flat_in]
        extra = []
        if maximum_iterations is not None:
            mx = convert_to_tensor(maximum_iterations, dtype=dt.int32 if not isinstance(maximum_iterations, Tensor)
                                   else None)
            if mx.shape.ndims not in (None, 0):
                raise ValueError("maximum_iterations must be a scalar, saw shape: %s" % mx.shape)
            if not mx.dtype.is_integer:
                raise TypeError("maximum_iterations must be an integer tensor, got %s" % mx.dtype.name)
            extra = [mx]
        specs = [(v.dtype, s) if v is not None else _lazy_flow(c, k)
                 for k, (c, v, s) in enumerate(zip(comps, flat_in, inv))]
        bg, bphs, bres, bleaves = _trace(graph, scope + "body", _unflat(body, structure, comps),
                                         list(range(len(specs))), specs)
        for k, c in enumerate(comps):
            if lazy[k]:  # now the element shape is known: the loop starts from zeros
                if bphs[k]._placeholder is None:
                    raise ValueError("tinyflow: a TensorArray enters tf.while_loop '%s' without element_shape and "
                                     "the body does not write it; give element_shape" % scope[:-1])
                bphs[k] = bphs[k]._placeholder
                comps[k] = c._with_flow(c._zeros(TensorShape(bphs[k].shape.as_list()[1:])))
                flat_in[k], inv[k] = comps[k].flow, bphs[k].shape
                specs[k] = (flat_in[k].dtype, inv[k])
        cg, cphs, cres, cleaves = _trace(graph, scope + "cond", _unflat(cond, structure, comps),
                                         list(range(len(specs))), specs)
        if len(cleaves) != 1 or cleaves[0].dtype != dt.bool_ or cleaves[0].shape.ndims not in (None, 0):
            raise ValueError("cond of '%s' must return a boolean scalar tensor, got %s" % (scope[:-1], cres))
        if not _is_seq(bres):  # TF1: a body returning one value returns [value]
            bres = [bres]
        assert_same_structure(list(structure), list(bres),
                              "body of '%s' must return the structure of loop_vars" % scope[:-1])
        for v, s, out in zip(flat_in, inv, bleaves):
            if out.dtype != v.dtype:
                raise ValueError("Input tensor '%s' enters the loop with type %s, but has type %s after one "
                                 "iteration." % (v.name, v.dtype.name, out.dtype.name))
            if not _shape_leq(out.shape, s):
                raise ValueError("Input tensor '%s' enters the loop with shape %s, but has shape %s after one "
                                 "iteration. To allow the shape to vary across iterations, use the "
                                 "`shape_invariants` argument of tf.while_loop to specify a less-specific shape."
                                 % (v.name, s, out.shape))
        captured, (cins, bins) = _align([cg, bg], [cphs, bphs])
        stateful = cg.needs_key() or bg.needs_key()
        mx_static = None
        if extra:
            c = constant_value_of(extra[0])
            mx_static = int(c) if c is not None else None
        trips = _trip_count(cg, cphs, cleaves[0], bphs, bleaves, flat_in)
        if trips is not None and extra:
            trips = min(trips, max(mx_static, 0)) if mx_static is not None else None
        attrs = {"cond": SubFn(cg, cins, cleaves), "body": SubFn(bg, bins, bleaves), "n_vars": len(flat_in),
                 "n_captured": len(captured), "has_max": bool(extra), "max_static": mx_static,
                 "trip_count": trips,
                 "Tout": [v.dtype for v in flat_in], "output_shapes": inv, "back_prop": back_prop,
                 "n_fwd_ops": len(bg._ops),  # the body's own ops; a gradient adds more (ops/while_grad.py)
                 # a shape invariant less specific than the entry shape: the shapes may change per iteration
                 "grows": any(v is not None and s.as_list() != v.shape.as_list() for v, s in zip(flat_in, inv)
                              if s is not None and s.ndims is not None)
                 or _changes_unknown_dims(SubFn(bg, bins, bleaves), inv, captured)}
        op = graph.create_op("While" if stateful else "StatelessWhile", flat_in + captured + extra, attrs,
                             name=scope)
        add_outer_controls(op, [cg, bg])
    result = pack_as(structure, [c._with_flow(o) if c is not None else o for c, o in zip(comps, op.outputs)])
    if single or (not return_same_structure and len(op.outputs) == 1):
        return result[0]  # TF1 unpacks a single loop variable
    return result


def _eager_loop(cond, body, structure, maximum_iterations, unpack):
    values, i = structure, 0
    while (maximum_iterations is None or i < int(maximum_iterations)) and bool(cond(*values)):
        out = body(*values)
        values = out if isinstance(out, (list, tuple)) else [out]
        i += 1
    return values[0] if unpack else values


def _trip_count(cg, cphs, pred, bphs, bleaves, flat_in):
    """How many times the loop runs, when building can tell: its cond is `i < n` for a loop variable i
    that enters as a constant and grows by a constant step each iteration, n constant too (the loops
    of dynamic_rnn, map_fn and scan). Such a loop lowers as a scan of that many steps, whose trip
    count XLA knows: no predicate read back by the host at each iteration, as a GPU's while loop
    does. None when the cond is anything else."""
    if pred.op.type != "Less" or pred.op.inputs[0] not in cphs:
        return None
    k = cphs.index(pred.op.inputs[0])
    if not pred.dtype.is_bool or not flat_in[k].dtype.is_integer or bleaves[k].op.type not in ("Add", "AddV2"):
        return None
    outer = {inner: out for out, inner in cg.captures}
    limit = constant_value_of(outer.get(pred.op.inputs[1], pred.op.inputs[1]))
    a, b = bleaves[k].op.inputs
    step = constant_value_of(b) if a is bphs[k] else constant_value_of(a) if b is bphs[k] else None
    start = constant_value_of(flat_in[k])
    if any(v is None or np.ndim(v) != 0 for v in (limit, step, start)) or int(step) <= 0:
        return None
    return max(0, -(-(int(limit) - int(start)) // int(step)))


def _changes_unknown_dims(body, inv, captured):
    """Whether the body changes a dimension a loop variable enters with unknown (a sequence fed at
    run time that grows): shape inference through the body, each unknown dimension given a size of
    its own, finds another size for it. (Unknown either way: the loop keeps its shapes, lax's loop.)"""
    unknown = [s is not None and s.ndims is not None and None in s.as_list() for s in inv]
    if not any(unknown):
        return False
    probes = [TensorShape([d if d is not None else 1000003 + 1009 * k + j for j, d in enumerate(s.as_list())])
              if u else as_shape(s) for k, (s, u) in enumerate(zip(inv, unknown))]
    got = _body_shapes(body, probes + [t.shape for t in captured])
    return any(u and g.ndims is not None and any(a is not None and b is not None and a != b
                                                 for a, b in zip(p.as_list(), g.as_list()))
               for p, g, u in zip(probes, got, unknown))


def _is_composite(v):
    return hasattr(v, "_with_flow")  # a TensorArray: a Python object around one tensor, its flow


def _unflat(fn, structure, comps):
    """fn taking the loop vars in their structure, as a function of the flat tensors (flows for TensorArrays)."""
    return lambda *flat: fn(*pack_as(structure, [c._with_flow(t) if c is not None and isinstance(t, Tensor) else t
                                                 for c, t in zip(comps, flat)]))


def _lazy_flow(ta, k):
    """A spec for _trace: the TensorArray `ta` whose first write makes its placeholder (its shape)."""
    def make(g):
        box = ta._with_flow(None)
        box._placeholder = None

        def first_write(value):
            if box._placeholder is None:
                n = ta._size if isinstance(ta._size, int) else None
                box._placeholder = Graph.create_op(g, "Placeholder", [], {
                    "dtype": ta.dtype, "shape": TensorShape([n]).concatenate(value.shape)}, name="arg%d" % k).outputs[0]
            return box._placeholder
        box._on_first_write = first_write
        return box
    return make


def _loop_parts(attrs, args):
    n, nc = attrs["n_vars"], attrs["n_captured"]
    return tuple(args[:n]), tuple(args[n:n + nc]), (args[n + nc] if attrs["has_max"] else None), args[
        n + nc + (1 if attrs["has_max"] else 0):]


def _while_lower(stateful):
    def run(attrs, key, args):
        import jax
        import jax.numpy as jnp
        vars_, caps, mx, _ = _loop_parts(attrs, args)
        shapes = (_traced_body_shapes(attrs, key, vars_, caps) if attrs.get("grows") and not any(
            isinstance(x, jax.core.Tracer) for x in (*vars_, *caps, mx)) else None)
        if shapes is not None and any(o.shape != tuple(np.shape(v)) for o, v in zip(shapes, vars_)):
            if not attrs.get("count"):
                try:   # in XLA, padded to capacities that double (O(log n) compiles)
                    return _hand_on(attrs, padded_loop.run(attrs, key, vars_, caps, mx, shapes), None)
                except padded_loop.Unsupported:
                    pass
            return _hand_on(attrs, _host_loop(attrs, key, vars_, caps, mx), None)
        flags = _flags_leave(attrs)   # then the body gives its error flag too; the loop carries the highest
        vars_ = tuple(jnp.asarray(x) for x in vars_)
        if attrs.get("count"):  # a gradient needs the iteration count and saved values
            out = while_grad.forward(attrs, key, vars_, caps, mx, flags)
            return _hand_on(attrs, out[:-1], out[-1]) if flags else _hand_on(attrs, out, None)
        out, flag = _xla_loop(attrs, key, vars_, caps, mx, flags)
        return _hand_on(attrs, out, flag[0] if flags else None)

    if stateful:
        return lambda attrs, key, *args: run(attrs, key, args)
    return lambda attrs, *args: run(attrs, None, args)


def _xla_loop(attrs, key, vars_, caps, mx, flags):
    """(loop variables, (error flag,) or ()) after the loop, in XLA: a scan when its trip count is known
    (see _trip_count), else lax.while_loop, which stops at an error flag (as TF stops at the error)."""
    import jax
    import jax.numpy as jnp
    cond_f, body_f = backend().function(attrs["cond"]), backend().function(attrs["body"], flags)
    iteration_key, n = backend().iteration_key, len(vars_)

    def step(i, v, flag):   # one iteration: the new loop variables, the highest error id so far
        out = body_f(iteration_key(key, i), *v, *caps)
        return tuple(out[:n]), tuple(jnp.maximum(f, out[n]) for f in flag)
    start = (vars_, (jnp.int64(-1),) if flags else ())
    if attrs.get("trip_count") is not None:
        return jax.lax.fori_loop(0, attrs["trip_count"], lambda i, s: step(i, *s), start)

    def c(carry):
        i, v, flag = carry
        ok = cond_f(iteration_key(key, i), *v, *caps)[0]
        ok = ok if mx is None else jnp.logical_and(ok, i < mx)
        return jnp.logical_and(ok, flag[0] < 0) if flags else ok

    try:
        _, out, flag = jax.lax.while_loop(c, lambda s: (s[0] + 1,) + step(*s), (jnp.int32(0),) + start)
    except TypeError as e:
        if "identical types" not in str(e) and "must have" not in str(e):
            raise
        raise ValueError("a loop variable changes shape across iterations: shape_invariants allow that in "
                         "TensorFlow, but XLA needs each loop variable's shape fixed (%s)" % e) from None
    return out, flag


def _traced_body_shapes(attrs, key, vars_, caps):
    """The shapes of one iteration's loop variables, traced (the same as they entered: lax.while_loop
    runs the loop; else how much each grows)."""
    import jax
    body = backend().jitted(attrs["body"])
    return jax.eval_shape(lambda *a: body(backend().iteration_key(key, 0), *a), *vars_, *caps)


def _host_loop(attrs, key, vars_, caps, mx):
    """A loop whose variables change shape, on concrete values: cond and body are each one jitted
    call per iteration (XLA compiles each new shape once; JAX's cache keeps them across runs)."""
    if attrs.get("count"):
        raise NotImplementedError("tinyflow: gradients through a tf.while_loop whose loop variables change shape "
                                  "(shape_invariants with unknown dimensions) are not supported")
    cond_f, body_f = backend().jitted(attrs["cond"]), backend().jitted(attrs["body"])
    iteration_key = backend().iteration_key
    limit = None if mx is None else int(mx)
    i, v = 0, tuple(vars_)
    while (limit is None or i < limit) and bool(cond_f(iteration_key(key, i), *v, *caps)[0]):
        v = body_f(iteration_key(key, i), *v, *caps)
        i += 1
    return v


def _while_grad_lower(stateful):
    if stateful:
        return lambda attrs, key, *args: while_grad.backward(attrs, key, args)
    return lambda attrs, *args: while_grad.backward(attrs, None, args)


def _no_second_order(op, *grads):
    raise NotImplementedError("tinyflow: second-order gradients through tf.while_loop are not supported "
                              "(op '%s')" % op.name)


def _grows(op, known):
    return bool(op.attrs.get("grows"))   # runs between jitted segments, on concrete values


register_op("StatelessWhile", shape=_attr_shapes, infer_shape=_while_shapes, dtype=_attr_dtypes,
            grad=while_grad.while_grad, lower=_while_lower(False), dynamic_shape=_grows, **_CHECKS)
register_op("While", shape=_attr_shapes, infer_shape=_while_shapes, dtype=_attr_dtypes, grad=while_grad.while_grad,
            lower=_while_lower(True), needs_key=True, dynamic_shape=_grows, **_CHECKS)
register_op("StatelessWhileGrad", shape=_attr_shapes, infer_shape=_while_grad_shapes, dtype=_attr_dtypes,
            grad=_no_second_order, lower=_while_grad_lower(False))
register_op("WhileGrad", shape=_attr_shapes, infer_shape=_while_grad_shapes, dtype=_attr_dtypes,
            grad=_no_second_order, lower=_while_grad_lower(True), needs_key=True)
