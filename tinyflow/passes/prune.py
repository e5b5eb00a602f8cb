"""prune: a fetch set -> the ordered subgraph that computes it.

Walks back from the fetched tensors and target ops through data and control inputs, stopping at
fed tensors (a fed tensor's producer does not run unless something else needs it). The result is
in creation order, which is a topological order.
"""
from ..graph.registry import get_op_def


class Subgraph:
    """The ops one fetch set runs, in order, plus what the lowering needs to know about them."""

    def __init__(self, ops, fetches, feeds, targets):
        self.ops = ops            # [Operation] in topological order
        self.fetches = fetches    # [Tensor] fetched values (host ops excluded)
        self.feeds = feeds        # [Tensor] fed tensors, in argument order
        self.targets = targets    # [Operation] run for their effect

    def __repr__(self):
        return "<Subgraph %d ops, %d fetches, %d feeds>" % (len(self.ops), len(self.fetches), len(self.feeds))


def prune(fetches, feeds=(), targets=()):
    """Returns the Subgraph that computes `fetches` and runs `targets`, given the fed tensors."""
    fed = set(feeds)
    needed = {}
    stack = [t.op for t in fetches if t not in fed] + list(targets)
    while stack:
        op = stack.pop()
        if op._id in needed:
            continue
        needed[op._id] = op
        for t in op._inputs:
            if t not in fed and t.op._id not in needed:
                stack.append(t.op)
        stack.extend(c for c in op._control_inputs if c._id not in needed)
    ops = [needed[i] for i in sorted(needed)]
    return Subgraph(ops, list(fetches), list(feeds), list(targets))


def unfed_placeholders(sub):
    """Placeholders the subgraph would run without a feed (each is an error at run time)."""
    return [op for op in sub.ops if op.type == "Placeholder"]


def host_ops(sub):
    """Ops a Session computes in Python (OpDef.host, host_compute), e.g. report_uninitialized_variables."""
    return [op for op in sub.ops if get_op_def(op.type).host is not None or get_op_def(op.type).host_compute]


def host_fed_ops(sub):
    """Ops whose outputs the Session makes before each run and feeds (OpDef.host_feed), not fed already."""
    fed = set(sub.feeds)
    return [op for op in sub.ops if get_op_def(op.type).host_feed is not None
            and any(t not in fed for t in op.outputs)]


def runs_rule(op, fed):
    """Whether the lowering calls op's lowering rule: not for variables, host ops, ops without a rule,
    or ops whose every output is fed; an op without outputs only when it updates variables or acts
    on the world (Print)."""
    opdef = get_op_def(op.type)
    if op.type == "VariableV2" or opdef.host is not None or opdef.lower is None:
        return False
    if op.outputs:
        return not all(t in fed for t in op.outputs)
    return bool(opdef.ref_inputs) or opdef.stateful


def checked_ops(sub):
    """The ops whose run-time check (OpDef.check) the fetch set evaluates, in run order."""
    fed = set(sub.feeds)
    return [op for op in sub.ops if get_op_def(op.type).check is not None
            and not (op.outputs and all(t in fed for t in op.outputs))]
