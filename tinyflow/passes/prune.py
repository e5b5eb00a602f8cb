"""prune: a fetch set -> the ordered subgraph that computes it.

Walks back from the fetched tensors and target ops through data and control inputs, stopping at
fed tensors (a fed tensor's producer does not run unless something else needs it). The result is
in creation order (Operation.index), which is a topological order.
"""
from tinyflow.graph.registry import Fed, FromFetched, SessionValue, get_op_def


class Subgraph:
    """The ops one fetch set runs, in order, plus what the lowering needs to know about them."""

    def __init__(self, ops, fetches, feeds, targets, host_fed=()):
        self.ops = ops            # [Operation] in topological order
        self.fetches = fetches    # [Tensor] fetched values (host ops excluded)
        self.feeds = feeds        # [Tensor] fed tensors, in argument order: the caller's, then host_fed's
        self.targets = targets    # [Operation] run for their effect
        self.host_fed = host_fed  # [Operation] whose outputs the Session makes and feeds (a Fed host rule)
        fed = set(feeds)
        # what later stages ask of each op, decided here once
        self.rule_ops = {op for op in ops if runs_rule(op, fed)}   # ops whose lowering rule runs
        self.checked = [op for op in ops if _has_check(op)   # ops whose run-time check runs, in order
                        and not (op.outputs and all(t in fed for t in op.outputs))]

    def __repr__(self):
        return "<Subgraph %d ops, %d fetches, %d feeds>" % (len(self.ops), len(self.fetches), len(self.feeds))


def prune(fetches, feeds=(), targets=()):
    """Returns the Subgraph that computes `fetches` and runs `targets`, given the fed tensors. An op
    the Session feeds itself (a Fed host rule: a tf.data iterator's next batch) counts as fed."""
    fed = set(feeds)
    needed, host_fed = {}, {}
    stack = [t.op for t in fetches if t not in fed] + list(targets)
    while stack:
        op = stack.pop()
        if op.index in needed or op.index in host_fed:
            continue
        if isinstance(get_op_def(op.type).host, Fed) and not all(t in fed for t in op.outputs):
            host_fed[op.index] = op
            continue
        needed[op.index] = op
        stack.extend(t.op for t in op.inputs if t not in fed and t.op.index not in needed)
        # a control dependency on a fed op is met by the feed (TF replaces a fed node)
        stack.extend(c for c in op.control_inputs if c.index not in needed and not _all_fed(c, fed))
    ops = [needed[i] for i in sorted(needed)]
    auto = [host_fed[i] for i in sorted(host_fed)]
    feeds = list(feeds) + [t for op in auto for t in op.outputs if t not in fed]
    return Subgraph(ops, list(fetches), feeds, list(targets), auto)


def _has_check(op):
    opdef = get_op_def(op.type)
    return opdef.check is not None and (opdef.check_when is None or opdef.check_when(op))


def _all_fed(op, fed):
    return bool(op.outputs) and all(t in fed for t in op.outputs)


def unfed_placeholders(sub):
    """Placeholders the subgraph would run without a feed (each is an error at run time)."""
    fed = set(sub.feeds)
    return [op for op in sub.ops if op.type == "Placeholder" and not _all_fed(op, fed)]


def host_ops(sub):
    """Ops a Session computes in Python when fetched (SessionValue, FromFetched host rules), e.g.
    report_uninitialized_variables, a summary."""
    return [op for op in sub.ops if _computed_when_fetched(get_op_def(op.type))]


def _computed_when_fetched(opdef):
    return isinstance(opdef.host, (SessionValue, FromFetched))


def runs_rule(op, fed):
    """Whether the lowering calls op's lowering rule: not for variables, host ops, ops without a rule,
    or ops whose every output is fed; an op without outputs only when it updates variables or acts
    on the world (Print)."""
    opdef = get_op_def(op.type)
    if op.type == "VariableV2" or _computed_when_fetched(opdef) or opdef.lower is None:
        return False
    if op.outputs:
        return not all(t in fed for t in op.outputs)
    return bool(opdef.ref_inputs) or opdef.stateful
