"""state: which value of each variable every reader sees in one run.

The rule (DESIGN.md): a read sees the variable's value at the start of the run, unless the reading
op is ordered after assigns to it by a data or control dependency; then it sees the latest such
assign. An op that updates a variable (OpDef.ref_inputs) works on its current value: the latest
update before it in the run's order, as TF's in-place kernels do.

A variable is the output of a VariableV2 op; assigns take it as a reference input.
"""
from tinyflow.graph.registry import get_op_def


def variable_of(tensor):
    """The VariableV2 op behind a reference tensor, or None."""
    op = tensor.op
    return op if op.type == "VariableV2" else None


class StateAnalysis:
    """What the lowering needs: per (reader op, input index) the update op whose result it sees."""

    variable_of = staticmethod(variable_of)   # so the plan asks the analysis, not this module

    def __init__(self):
        self.sees = {}           # (op, input index) -> update op, or None for the start value
        self.current = {}        # (op, ref input index) -> previous update op in run order, or None
        self.needs_start = []    # VariableV2 ops whose start value this run reads
        self.fetched = []        # VariableV2 ops fetched as such (not fed): their start value is needed too
        self.updated = []        # VariableV2 ops this run updates, in first-update order
        self.final = {}          # VariableV2 op -> its last update op


def analyze(sub):
    """Runs the analysis over a Subgraph's ops, in their (topological) order (see the module docstring)."""
    ops, fed = sub.ops, set(sub.feeds)
    out = StateAnalysis()
    has_updates = any(get_op_def(op.type).ref_inputs for op in ops)
    seen = {}        # op -> {var: latest update among its ancestors}, only when the run has updates
    latest = {}      # var -> latest update so far in run order
    start = {}       # var -> True once its start value is needed (ordered dict via insertion)
    for op in ops:
        opdef = get_op_def(op.type)
        if has_updates:
            mine = {}
            for src in [t.op for t in op.inputs] + list(op.control_inputs):
                for v, u in seen.get(src, {}).items():
                    if v not in mine or mine[v].index < u.index:
                        mine[v] = u
                if get_op_def(src.type).ref_inputs:
                    for i in get_op_def(src.type).ref_inputs:
                        v = variable_of(src.inputs[i])
                        if v is not None and (v not in mine or mine[v].index < src.index):
                            mine[v] = src
            seen[op] = mine
        for i, t in enumerate(op.inputs):
            var = variable_of(t)
            if var is None or t in fed:
                continue
            if i in opdef.ref_inputs:
                prev = latest.get(var)
                out.current[(op, i)] = prev
                if prev is None and not opdef.overwrites:
                    start[var] = True
            else:
                u = seen[op].get(var) if has_updates else None
                out.sees[(op, i)] = u
                if u is None:
                    start[var] = True
        for i in opdef.ref_inputs:
            var = variable_of(op.inputs[i])
            if var is None:
                raise TypeError("Input %d of '%s' (op: '%s') must be a variable reference, got %s"
                                % (i, op.name, op.type, op.inputs[i].name))
            if var not in latest:
                out.updated.append(var)
            latest[var] = op
    out.needs_start = list(start)
    out.fetched = fetched_variables(sub.fetches, fed)
    out.final = dict(latest)
    return out


def fetched_variables(fetches, fed=()):
    """Fetched VariableV2 outputs: a fetch of a variable sees its start value, so it is needed."""
    fed = set(fed)
    return [t.op for t in fetches if variable_of(t) is not None and t not in fed]
