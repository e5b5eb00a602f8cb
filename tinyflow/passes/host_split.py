"""host_split: a fetch set holding ops XLA cannot run (strings, files, queues) -> host and device steps.

XLA has no strings. When the pruned Subgraph of a fetch set holds a Staged op (OpDef.host), a
string tensor or a dequeue, `split` cuts it, once per fetch set, into HostSteps:

  1. `host`: the host ops, in graph order, each computed in Python (runtime/host_stage.py runs
     them) from its inputs' values: fed values, earlier host ops' results, or numeric values a
     device step computed;
  2. `before[i]`: the device step run just before host op i: every numeric tensor (or non-host op)
     that host op i needs, together with what later host ops need that is ready by then, so
     nothing runs twice and the jitted calls are few;
  3. `final`: the last device step: the numeric fetches and the targets not computed yet.

Ops that merely move strings around (Identity, Gather, Concat, ...) are host ops too: the host
stage runs their lowering rule on integer codes of the strings.
"""
from tinyflow.graph import dtypes as dt
from tinyflow.graph import errors
from tinyflow.graph.core import Operation, Tensor
from tinyflow.graph.registry import Fed, SessionValue, Staged, get_op_def


class HostSteps:
    """A fetch set cut into host ops and the device steps between them (see the module docstring)."""

    def __init__(self, host, before, final, feeds):
        self.host = host       # [Operation] computed on the host, in order
        self.before = before   # [[Tensor or Operation]] per host op: the device step run before it
        self.final = final     # [Tensor or Operation] the last device step
        self.feeds = feeds     # [Tensor] the caller's fed tensors, in feed_dict's order

    def __repr__(self):
        return "<HostSteps %d host ops, %d device steps>" % (len(self.host), sum(map(bool, self.before + [self.final])))


def is_string(t):
    return t.dtype is dt.string


def needs_host(op):
    """Whether `op` makes a run need the host stage."""
    host = get_op_def(op.type).host
    if isinstance(host, Staged):
        return True
    if isinstance(host, SessionValue):
        return False  # report_uninitialized_variables: the plain Session computes it
    if isinstance(host, Fed):
        return any(is_string(t) for t in op.outputs)  # a dataset of strings
    # an iterator's initializer reading file names; a summary (strings out); an op moving strings
    return any(is_string(t) for t in op.inputs) or any(is_string(t) for t in op.outputs)


def on_host(op):
    """In a staged run: computed by the host stage (a tf.data iterator's next element included, so
    it is taken once per run however many device steps need it)."""
    return needs_host(op) or isinstance(get_op_def(op.type).host, Fed)


def split(sub, feeds):
    """The HostSteps of Subgraph `sub` (passes/prune.py) whose caller feeds the tensors `feeds`, or
    None when no op of it needs the host stage (the plain Session runs it)."""
    fed = set(feeds)
    ops = sorted(sub.ops + sub.host_fed, key=lambda op: op.index)   # a tf.data iterator's next element too
    live = [op for op in ops if not (op.outputs and all(t in fed for t in op.outputs))]
    if not any(needs_host(op) for op in live) and not any(is_string(t) for t in sub.fetches if t in fed):
        return None   # (a fed string fetched back is taken from the feed by the host stage, never given to XLA)
    host = [op for op in live if on_host(op)]
    for op in host:
        if op.type == "Placeholder":
            raise errors.InvalidArgumentError(
                op.node_def, op, "You must feed a value for placeholder tensor '%s' with dtype string%s\n\t "
                "[[{{node %s}}]]" % (op.name, "" if op.outputs[0].shape.ndims is None else
                                     " and shape %s" % op.outputs[0].shape.as_proto_str(), op.name))
    index = {op: i for i, op in enumerate(host)}
    produced = {t for op in host for t in op.outputs}
    first_needed = {}  # numeric tensor or non-host op -> index of the first host op needing it
    ready_after = {}   # the same -> the last host op upstream of it (-1: none)
    memo = dict(index)

    def last_host_upstream(root):
        """The index of the last host op `root` depends on (-1: none); iterative, for deep graphs."""
        stack = [root]
        while stack:
            op = stack[-1]
            if op in memo:
                stack.pop()
                continue
            ups = [t.op for t in op.inputs if t not in fed] + list(op.control_inputs)
            todo = [u for u in ups if u not in memo]
            if todo:
                stack.extend(todo)
                continue
            memo[op] = max((memo[u] for u in ups), default=-1)
            stack.pop()
        return memo[root]

    for i, op in enumerate(host):
        needs = [t for t in op.inputs if t not in fed and t not in produced]
        needs += [c for c in op.control_inputs if c not in index]
        for x in needs:
            if isinstance(x, Tensor) and is_string(x):
                raise errors.UnimplementedError(
                    op.node_def, op, "the string input %s of %s is computed by an op that has no host "
                    "rule (%s)" % (x.name, op.name, x.op.type))
            first_needed.setdefault(x, i)
            ready_after[x] = last_host_upstream(x if isinstance(x, Operation) else x.op)
    # before host op i, one device step computes what it needs, with everything else ready by then
    # that later host ops need (so nothing is computed twice and calls are few)
    before = [[] for _ in host]
    done = set()
    for i in range(len(host)):
        if any(n == i and x not in done for x, n in first_needed.items()):
            before[i] = [x for x in sorted(first_needed, key=lambda x: ready_after[x])
                         if x not in done and ready_after[x] < i and first_needed[x] >= i]
            done.update(before[i])
    fetched = [t for t in sub.fetches if t not in produced and t not in fed]
    final = [x for x in dict.fromkeys(fetched + _ungroup(sub.targets, index)) if x not in done]
    return HostSteps(host, before, final, list(feeds))


def _ungroup(targets, host):
    """The targets without host ops; a tf.group (a NoOp) that reaches host ops is replaced by its
    members, so a device step never sees a host op through a control dependency."""
    out = []
    for op in targets:
        if op in host:
            continue
        if op.type == "NoOp" and not op.inputs:
            out.extend(_ungroup(list(op.control_inputs), host))
        else:
            out.append(op)
    return out
