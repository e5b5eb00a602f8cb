"""The host stage: Session.run for fetch sets that hold ops XLA cannot run (strings, files, queues).

XLA has no strings. A run whose pruned subgraph holds a host op (ops/host_ops.py), a string tensor
or a dequeue is split, once per fetch set, into:

  1. the host ops, in graph order, each computed in Python from its inputs' values: fed values,
     earlier host ops' results, or numeric tensors computed by a jitted run of the plain Session
     (batched: every numeric tensor the remaining host ops need whose own inputs are ready is
     computed in one call, then fed to every later call so nothing runs twice);
  2. one jitted run of the plain Session for the numeric fetches and the targets, with every value
     the host computed fed in.

String tensors live here as numpy object arrays of bytes and never reach JAX. Ops without a host
rule that merely move strings around (Identity, Reshape, Gather, Concat, Pack, Equal, Select, ...)
run their own lowering rule on integer codes of the strings (deduplicated, so equal strings have
equal codes) and are mapped back. Graphs without strings never come here (Graph._host_stage).
"""

import numpy as np

from tinyflow.graph import errors
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import Operation, Tensor
from tinyflow.graph.registry import get_op_def
from tinyflow.ops.host_ops import to_bytes_array
from tinyflow.passes import prune as prune_pass
from tinyflow.runtime import fetches as fetch_util

_HOST_PLAN = object()  # the first part of a host-stage plan's key in the Session's plan cache
_PLAIN = "plain run"  # the plan of a fetch set that needs no host stage


def run(session, fetches, feed_dict):
    """Session.run(fetches, feed_dict) through the host stage when the fetch set needs it. Plans are
    kept in the Session's plan cache (its LRU, emptied by close()), under keys of their own."""
    try:
        key = (_HOST_PLAN, fetch_util.structure_key(fetches), tuple(feed_dict))
    except TypeError:
        key = None
    plan = None
    if key is not None:
        with session._lock:
            plan = session._plans.get(key)
    if plan is None:
        plan = _make_plan(session, fetches, feed_dict) or _PLAIN
        if key is not None:
            with session._lock:
                session._plans.put(key, plan)
    if plan is _PLAIN:
        return session._run(fetches, feed_dict)
    return plan.run(session, feed_dict)


def _is_string(t):
    return t.dtype is dt.string


def _triggers(op):
    """Whether `op` makes a run need the host stage."""
    opdef = get_op_def(op.type)
    if opdef.host_stage is not None:
        return True
    if opdef.host is not None:
        return False  # report_uninitialized_variables: the plain Session computes it
    if opdef.host_compute is not None:
        # an iterator's initializer reading file names; a summary (strings out) when strings are staged
        return any(_is_string(t) for t in op.inputs) or any(_is_string(t) for t in op.outputs)
    if opdef.host_feed is not None:
        return any(_is_string(t) for t in op.outputs)  # a dataset of strings
    return any(_is_string(t) for t in op.inputs) or any(_is_string(t) for t in op.outputs)


def _on_host(op):
    """In a staged run: computed by this stage (a tf.data iterator's next element included, so it
    is taken once per run however many jitted calls need it)."""
    opdef = get_op_def(op.type)
    # a summary op (strings out, computed from fetched values) joins the stage when a later host op reads it
    return (_triggers(op) or opdef.host_feed is not None
            or (opdef.host_compute is not None and any(_is_string(t) for t in op.outputs)))


def _make_plan(session, fetches, feed_dict):
    elements = [session._resolve_fetch(f) for f in fetch_util.flatten(fetches)]
    feeds = [session._resolve_feed(k) for k in feed_dict]
    fed = set(feeds)
    tensors = [e for e in elements if isinstance(e, Tensor)]
    targets = [e for e in elements if isinstance(e, Operation)]
    sub = prune_pass.prune(tensors, feeds, targets)
    ops = sorted(sub.ops + sub.host_fed, key=lambda op: op.index)   # a tf.data iterator's next element too
    live = [op for op in ops if not (op.outputs and all(t in fed for t in op.outputs))]
    if not any(_triggers(op) for op in live) and not any(_is_string(t) for t in tensors if t in fed):
        return None   # (a fed string fetched back is taken from the feed here, never given to XLA)
    host = [op for op in live if _on_host(op)]
    for op in host:
        if op.type == "Placeholder":
            raise errors.InvalidArgumentError(
                op.node_def, op, "You must feed a value for placeholder tensor '%s' with dtype string%s\n\t "
                "[[{{node %s}}]]" % (op.name, "" if op.outputs[0].shape.ndims is None else
                                     " and shape %s" % op.outputs[0].shape.as_proto_str(), op.name))
    return _Plan(elements, fetch_util.rebuilder(fetches), feeds, host)


class _Plan:
    """One staged fetch set: the host ops in order and what each needs computed by XLA first."""

    def __init__(self, elements, rebuild, feeds, host):
        self.elements, self.rebuild, self.feeds, self.host = elements, rebuild, feeds, host
        index = {op: i for i, op in enumerate(host)}
        produced = {t for op in host for t in op.outputs}
        fed = set(feeds)
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
                if isinstance(x, Tensor) and _is_string(x):
                    raise errors.UnimplementedError(
                        op.node_def, op, "the string input %s of %s is computed by an op that has no host "
                        "rule (%s)" % (x.name, op.name, x.op.type))
                first_needed.setdefault(x, i)
                ready_after[x] = last_host_upstream(x if isinstance(x, Operation) else x.op)
        # before host op i, one jitted call computes what it needs, with everything else ready by then
        # that later host ops need (so nothing is computed twice and calls are few)
        self.before = [[] for _ in host]
        done = set()
        for i in range(len(host)):
            if any(n == i and x not in done for x, n in first_needed.items()):
                self.before[i] = [x for x in sorted(first_needed, key=lambda x: ready_after[x])
                                  if x not in done and ready_after[x] < i and first_needed[x] >= i]
                done.update(self.before[i])
        fetched = [e for e in elements if isinstance(e, Tensor) and e not in produced and e not in fed]
        targets = _ungroup([e for e in elements if isinstance(e, Operation)], index)
        self.final = [x for x in dict.fromkeys(fetched + targets) if x not in done]

    def run(self, session, feed_dict):
        values = {}
        for t, v in zip(self.feeds, feed_dict.values()):
            values[t] = to_bytes_array(v) if _is_string(t) else np.asarray(v, t.dtype.np)
        for op, before in zip(self.host, self.before):
            if before:
                self._jitted(session, before, values)
            outs = _evaluate(session, op, [values[t] for t in op.inputs])
            for t, v in zip(op.outputs, outs):
                values[t] = v
        final = [x for x in self.final if not (isinstance(x, Tensor) and x in values)]
        if final:
            self._jitted(session, final, values)
        out = []
        for e in self.elements:
            out.append(_fetched(values[e]) if isinstance(e, Tensor) else None)
        return self.rebuild(out)

    @staticmethod
    def _jitted(session, items, values):
        feeds = {t: v for t, v in values.items() if not _is_string(t)}
        results = session._run(list(items), feeds)
        for x, v in zip(items, results):
            if isinstance(x, Tensor):
                values[x] = v


def _ungroup(targets, host):
    """The targets without host ops; a tf.group (a NoOp) that reaches host ops is replaced by its
    members, so the jitted call never sees a host op through a control dependency."""
    out = []
    for op in targets:
        if op in host:
            continue
        if op.type == "NoOp" and not op.inputs:
            out.extend(_ungroup(list(op.control_inputs), host))
        else:
            out.append(op)
    return out


def _fetched(v):
    a = np.asarray(v) if not isinstance(v, np.ndarray) else v
    return a[()] if a.ndim == 0 else a


def _evaluate(session, op, inputs):
    """The values of a host op's outputs (a list of numpy values)."""
    opdef = get_op_def(op.type)
    if opdef.host_stage is not None:
        outs = opdef.host_stage(session, op, inputs)
    elif opdef.host_feed is not None:
        outs = opdef.host_feed(session, op)
    elif opdef.host_compute is not None:
        outs = opdef.host_compute(session, op, inputs)
    elif op.type == "Const":
        outs = [op.attrs["value"]]
    elif op.type == "PyFunc":  # tf.py_func taking or giving strings: called here, on numpy values
        outs = _py_func(op, inputs)
    else:
        outs = _on_codes(op, opdef, inputs)
    return [to_bytes_array(v) if _is_string(t) and np.asarray(v).dtype != object else v
            for t, v in zip(op.outputs, outs)]


def _py_func(op, inputs):
    out = op.attrs["func"](*inputs)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    if len(outs) != len(op.outputs):
        raise errors.InvalidArgumentError(op.node_def, op, "%s returned %d values, expected %d"
                                          % (op.attrs["func"], len(outs), len(op.outputs)))
    return [to_bytes_array(o) if d is dt.string else np.asarray(o, d.np) for o, d in zip(outs, op.attrs["Tout"])]


def _on_codes(op, opdef, inputs):
    """A data-movement op on strings: its lowering rule run on int64 codes of the strings."""
    if opdef.lower is None or opdef.needs_key or opdef.ref_inputs:
        raise errors.UnimplementedError(op.node_def, op, "%s (op: %s) cannot run on string tensors in tinyflow"
                                        % (op.name, op.type))
    table, code = [], {}
    args = []
    for t, v in zip(op.inputs, inputs):
        if _is_string(t):
            flat = np.asarray(v, object).reshape(-1)
            ids = np.empty(flat.shape, np.int64)
            for j, s in enumerate(flat):
                ids[j] = code.setdefault(s, len(table))
                if ids[j] == len(table):
                    table.append(s)
            args.append(ids.reshape(np.shape(v)))
        else:
            args.append(v)
    try:
        out = opdef.lower(op.attrs, *args)
    except errors.OpError:
        raise
    except Exception as e:
        raise errors.InvalidArgumentError(op.node_def, op, "%s\n\t [[node %s (op: %s)]]" % (e, op.name, op.type))
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    lookup = np.array(table + [b""], dtype=object)
    result = []
    for t, v in zip(op.outputs, outs):
        a = np.asarray(v)
        result.append(lookup[a] if _is_string(t) else a.astype(t.dtype.np, copy=False))
    return result
