"""The host stage: runs a fetch set that passes/host_split.py cut into host and device steps.

XLA has no strings, files or queues. The Session (Session.run) keeps each such fetch set's
HostSteps in its own plan cache and calls `run` with its plain run for the device steps: each host
op is computed here in Python, in graph order, from its inputs' values (fed, computed by an earlier
host op, or by the device step run just before it), then the last device step computes the numeric
fetches and the targets, with every value the host computed fed in.

String tensors live here as numpy object arrays of bytes and never reach JAX. Ops without a host
rule that merely move strings around (Identity, Reshape, Gather, Concat, Pack, Equal, Select, ...)
run their own lowering rule on integer codes of the strings (deduplicated, so equal strings have
equal codes) and are mapped back. Graphs without strings never come here (Graph._host_stage).
"""

import numpy as np

from tinyflow.graph import errors
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import Tensor
from tinyflow.graph.registry import get_op_def
from tinyflow.ops.host_ops import to_bytes_array
from tinyflow.passes.host_split import is_string as _is_string


def run(steps, session, feed_values, elements, run_device):
    """The values of `elements` (a Tensor's value; None for an op) with `feed_values` fed to the
    HostSteps' feeds. Host rules get `session`; `run_device(items, feed_dict) -> [value per item]`
    runs one device step (the Session's plain run: numeric values only)."""
    values = {}
    for t, v in zip(steps.feeds, feed_values):
        values[t] = to_bytes_array(v) if _is_string(t) else np.asarray(v, t.dtype.np)
    for op, before in zip(steps.host, steps.before):
        if before:
            _device_step(run_device, before, values)
        outs = _evaluate(session, op, [values[t] for t in op.inputs])
        for t, v in zip(op.outputs, outs):
            values[t] = v
    final = [x for x in steps.final if not (isinstance(x, Tensor) and x in values)]
    if final:
        _device_step(run_device, final, values)
    return [_fetched(values[e]) if isinstance(e, Tensor) else None for e in elements]


def _device_step(run_device, items, values):
    feeds = {t: v for t, v in values.items() if not _is_string(t)}
    results = run_device(list(items), feeds)
    for x, v in zip(items, results):
        if isinstance(x, Tensor):
            values[x] = v


def _fetched(v):
    a = np.asarray(v) if not isinstance(v, np.ndarray) else v
    return a[()] if a.ndim == 0 else a


def _evaluate(session, op, inputs):
    """The values of a host op's outputs (a list of numpy values)."""
    opdef = get_op_def(op.type)
    if opdef.host is not None:   # (Staged, Fed or FromFetched)
        outs = opdef.host(session, op, inputs)
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
