"""Subgraph -> Python source -> one jax.jit function.

The generated function has one line per op and is kept as text (`Lowered.source`), so what runs is
exactly what a student can print:

    def fetch_set(rw, ro, feeds, key):
        W, b = rw                                        # variables read and updated (donated)
        x, = feeds
        with scope('MatMul'): MatMul = op['MatMul'](x, W)
        ...
        return (Softmax,), (W_1, b_1)

`op[name]` is the op's own lowering rule with its attrs bound. Ops whose value is known while
tracing (constants, shapes and what is computed from them only) run under
`jax.ensure_compile_time_eval`, so `tf.reshape(x, tf.shape(y))` gets a concrete shape inside jit.

Run-time checks (tf.Assert, an index out of range: OpDef.check) add a line `Gather_check =
check['Gather'](params, indices)` giving (ok, *data). When a fetch set has checks, every updated
variable that the function reads is kept as it was unless all of them hold (`keep`: a select XLA
fuses into the update), and the fetches end with one more entry, (all ok, (each check's result,)).
The jitted function keeps only "all ok" of it, which the Session reads before it hands anything
back; on a failure `Lowered.check_results` recomputes the data for the message.
"""
import functools
import keyword
import re
import warnings

import jax
import numpy as np

from .. import errors
from ..graph.registry import get_op_def
from ..passes import prune as prune_pass
from ..passes import state as state_pass

_RESERVED = {"rw", "ro", "feeds", "key", "op", "scope", "static", "fetch_set", "check", "keep", "all_ok", "ok"}


class Lowered:
    """One fetch set, lowered: the Python source, the function and its jitted form.

    Arguments of `fn`: rw (values of variables this run reads and updates; donated), ro (variables
    it only reads), feeds (values of fed tensors, in `sub.feeds` order), key (the run counter, a
    uint32, or None when no op is random). It returns (fetch values, final values of `updated`).
    """

    def __init__(self, sub, analysis, source, fn, rw_vars, ro_vars, updated, needs_key, checks=()):
        self.sub = sub
        self.analysis = analysis
        self.source = source
        self.fn = fn
        self.rw_vars = rw_vars
        self.ro_vars = ro_vars
        self.updated = updated
        self.needs_key = needs_key
        self.checks = list(checks)   # ops with a run-time check, in the order of their results
        self._diagnose = None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.jitted = jax.jit(_only_ok(fn) if checks else fn, donate_argnums=(0,) if rw_vars else ())

    def check_results(self, *args):
        """Every check's (ok, *data) for these arguments: what a failed run is explained with. The
        jitted function hands back only whether all checks held (fewer outputs per step); this one,
        compiled on the first failure, recomputes the data from the same arguments."""
        if self._diagnose is None:
            self._diagnose = jax.jit(self.fn)
        return self._diagnose(*args)[0][-1][1]

    def jaxpr(self, *args):
        """JAX's view of this function for concrete arguments (see `example_args`)."""
        return jax.make_jaxpr(self.fn)(*args)

    def hlo(self, *args):
        """XLA's optimized HLO text for concrete arguments."""
        return self.jitted.lower(*args).compile().as_text()

    def __repr__(self):
        return "<Lowered %d ops>\n%s" % (len(self.sub.ops), self.source)


def _ident(name, used):
    """A unique, readable Python identifier for a TF name."""
    base = re.sub(r"\W", "_", name)
    if not base or base[0].isdigit():
        base = "_" + base
    if keyword.iskeyword(base) or base in _RESERVED:
        base += "_"
    cand, i = base, 1
    while cand in used:
        cand = "%s_%d" % (base, i)
        i += 1
    used.add(cand)
    return cand


def _wrap(opdef, op, attrs, rule=None):
    """The op's lowering rule (or `rule`, e.g. its check) with attrs bound; a failure while tracing
    names the op (TF-style)."""
    single = rule is None and len(opdef.ref_inputs or op.outputs) == 1
    rule = rule or opdef.lower

    @functools.wraps(rule)
    def call(*args):
        try:
            out = rule(attrs, *args)
            # one result: a rule may return it bare or as a 1-sequence (Split with num=1)
            return out[0] if single and isinstance(out, (list, tuple)) else out
        except errors.OpError:
            raise
        except Exception as e:  # trace-time failure: before anything is dispatched
            raise errors.InvalidArgumentError(op.node_def, op, "%s\n\t [[node %s (op: %s)]]" % (e, op.name, op.type)) from e
    return call


def _only_ok(fn):
    """fn with its check data dropped: the trailing fetch is just the bool 'all checks hold'."""
    def run(*args):
        fetches, finals = fn(*args)
        return fetches[:-1] + (fetches[-1][0],), finals
    return run


def _all_ok(*checks):
    ok = checks[0][0]
    for c in checks[1:]:
        ok = jax.numpy.logical_and(ok, c[0])
    return ok


def _keep(ok, new, old):
    """new where every check holds, else old (a variable whose value changed shape takes new)."""
    if new.shape != old.shape:
        return new
    return jax.numpy.where(ok, new, old)


def namespace(op_table, check_table):
    """The globals the generated source runs with (the reference executor passes its own tables)."""
    return {"op": op_table, "check": check_table, "scope": jax.named_scope, "static": jax.ensure_compile_time_eval,
            "all_ok": _all_ok, "keep": _keep}


def check_table(ops):
    """{op name: bound check rule} for ops with a run-time check. A check whose inputs are known
    while tracing (constant indices) is decided then: a failure raises before anything runs."""
    return {op.name: _decided_early(op, _wrap(get_op_def(op.type), op, op.attrs, rule=get_op_def(op.type).check))
            for op in ops}


def check_failure(op, data):
    """The InvalidArgumentError of op's failed check, from the check's data (numpy)."""
    msg = get_op_def(op.type).check_message(op, *[np.asarray(d) for d in data])
    return errors.InvalidArgumentError(op.node_def, op, "%s\n\t [[{{node %s}}]]" % (msg, op.name))


def _decided_early(op, check):
    def call(*args):
        ok, *data = result = check(*args)
        if not isinstance(ok, jax.core.Tracer) and not bool(ok):
            raise check_failure(op, data)
        return result
    return call


def lower(sub, checks=True):
    """Generates, execs and jits the function of Subgraph `sub`; returns a Lowered. checks=False
    leaves out run-time checks (bodies of tf.cond / tf.while_loop: their results cannot leave lax)."""
    analysis = state_pass.analyze(sub.ops, sub.feeds)
    fed = set(sub.feeds)
    used = set(_RESERVED)
    names = {}           # Tensor -> python name
    after = {}           # (update op, VariableV2 op) -> python name of the new value
    start = {}           # VariableV2 op -> python name of its start value
    static = set()       # tensors known while tracing
    bound = {}           # op name -> bound rule
    needs_start = analysis.needs_start + [v for v in state_pass.fetched_variables(sub.fetches, fed)
                                          if v not in analysis.needs_start]
    updated = analysis.updated
    rw_vars = [v for v in needs_start if v in analysis.final]
    ro_vars = [v for v in needs_start if v not in analysis.final]
    for v in rw_vars + ro_vars:
        start[v] = _ident(v.name, used)
    feed_names = []
    for t in sub.feeds:
        names[t] = _ident(t.op.name if t.value_index == 0 else "%s_%d" % (t.op.name, t.value_index), used)
        feed_names.append(names[t])

    def value_of(op, i, t):
        """The python name an op's input i reads (resolving variable references)."""
        if t in names:
            return names[t]
        var = state_pass.variable_of(t)
        if var is None:
            raise ValueError("Tensor %s is used by %s but was not computed" % (t.name, op.name))
        if (op, i) in analysis.current:  # an update's own ref: the current value
            prev = analysis.current[(op, i)]
            if prev is None:
                return "None" if get_op_def(op.type).overwrites else start[var]
            return after[(prev, var)]
        u = analysis.sees.get((op, i))
        return after[(u, var)] if u is not None else start[var]

    lines = []
    needs_key = False
    checked = prune_pass.checked_ops(sub) if checks else []
    check_names = []
    for op in sub.ops:
        opdef = get_op_def(op.type)
        if op.type == "Placeholder" and any(t not in fed for t in op.outputs):
            raise errors.InvalidArgumentError(op.node_def, op, "You must feed a value for placeholder "
                                              "tensor '%s'" % op.name)
        is_static = (opdef.static or (not opdef.stateful and all(t in static for t in op.inputs)
                                      and not any(t in fed for t in op.inputs)))
        if op in checked:  # a check of values known while tracing is decided while tracing
            check_names.append(_ident(op.name + "_check", used))
            lines.append("    with scope(%r)%s: %s = check[%r](%s)" % (
                op.name, ", static()" if is_static else "", check_names[-1], op.name,
                ", ".join(value_of(op, i, t) for i, t in enumerate(op.inputs))))
        if not prune_pass.runs_rule(op, fed):
            continue
        args = [value_of(op, i, t) for i, t in enumerate(op.inputs)]
        if opdef.needs_key:
            args.insert(0, "key")
            needs_key = True
        outs = []
        for t in op.outputs:
            nm = _ident(op.name if t.value_index == 0 else "%s_%d" % (op.name, t.value_index), used)
            outs.append(nm)
            if t not in fed:
                names[t] = nm
        if opdef.ref_inputs:
            ref_vars = [state_pass.variable_of(op.inputs[i]) for i in opdef.ref_inputs]
            targets = [outs[0]] + [_ident("%s_%s" % (op.name, v.name), used) for v in ref_vars[1:]]
            for v, nm in zip(ref_vars, targets):
                after[(op, v)] = nm
            lhs = ", ".join(targets)
        else:
            lhs = ", ".join(outs)
        bound[op.name] = _wrap(opdef, op, op.attrs)
        if is_static:
            static.update(op.outputs)
        call = "op[%r](%s)" % (op.name, ", ".join(args))
        ctx = "with scope(%r)%s: " % (op.name, ", static()" if is_static else "")
        lines.append("    %s%s%s" % (ctx, lhs + " = " if lhs else "", call))

    head = ["def fetch_set(rw, ro, feeds, key):"]
    if rw_vars:
        head.append("    %s, = rw" % ", ".join(start[v] for v in rw_vars))
    if ro_vars:
        head.append("    %s, = ro" % ", ".join(start[v] for v in ro_vars))
    if feed_names:
        head.append("    %s, = feeds" % ", ".join(feed_names))
    fetch_names = []
    for t in sub.fetches:
        if t in names:
            fetch_names.append(names[t])
        else:
            fetch_names.append(start[state_pass.variable_of(t)])
    final_names = [after[(analysis.final[v], v)] for v in updated]
    if check_names:
        # a failed check leaves every variable as it was: the donated ones get their old value back
        lines.append("    ok = all_ok(%s)" % "".join(n + ", " for n in check_names))
        final_names = ["keep(ok, %s, %s)" % (n, start[v]) if v in rw_vars else n
                       for n, v in zip(final_names, updated)]
        fetch_names.append("(ok, (%s))" % "".join(n + ", " for n in check_names))
    ret = "    return (%s), (%s)" % ("".join(n + ", " for n in fetch_names), "".join(n + ", " for n in final_names))
    source = "\n".join(head + lines + [ret]) + "\n"
    ns = namespace(bound, check_table(checked))
    exec(compile(source, "<tinyflow fetch set>", "exec"), ns)
    return Lowered(sub, analysis, source, ns["fetch_set"], rw_vars, ro_vars, updated, needs_key, checked)


def example_args(lowered, values, feed_values=(), counter=0):
    """The argument tuple of `lowered.fn` from a dict of variable values and feed values."""
    rw = tuple(values[v] for v in lowered.rw_vars)
    ro = tuple(values[v] for v in lowered.ro_vars)
    key = np.uint32(counter) if lowered.needs_key else None
    return rw, ro, tuple(feed_values), key
