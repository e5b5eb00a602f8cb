"""tf.gradients: the graph-to-graph reverse pass.

1. Find the ops between xs and ys: reachable forward from xs and backward from ys.
2. Seed each y with grad_ys (or ones).
3. Visit those ops in reverse topological order: sum the gradients that reached each output, and
   call the op's gradient rule (OpDef.grad), which builds new graph ops. Each input collects what
   its consumers sent it.
4. Each x's gradient is the sum of what reached it, or None if nothing did.

Gradient rules build ordinary ops, so a gradient graph is differentiable again (second order).
The pass builds its own few helper ops through `graph.create_op` by type name (OnesLike, AddN,
ZerosLike), so it needs no op-family module and no JAX.
"""
import numpy as np

from ..graph.core import Tensor
from ..graph.registry import NOT_SET, get_op_def


def _between(ys, xs):
    """The ops on some path from an x to a y (through data inputs), as a set of op ids."""
    back = {}  # ops backward-reachable from ys
    stack = [y.op for y in ys]
    while stack:
        op = stack.pop()
        if op._id in back:
            continue
        back[op._id] = op
        stack.extend(t.op for t in op._inputs)
    # forward from xs within `back`: an op is between if one of its inputs comes from an x or a between op
    xs_set = set(xs)
    between = set()
    for i in sorted(back):
        op = back[i]
        if any(t in xs_set or t.op._id in between for t in op._inputs):
            between.add(i)
    return between, back


def _differentiable(t):
    return t.dtype.is_floating


def gradients(ys, xs, grad_ys=None, name="gradients", stop_gradients=None):
    """Symbolic d(sum of ys)/d(x) for each x in xs: a list with a Tensor or None per x."""
    ys = list(ys) if isinstance(ys, (list, tuple)) else [ys]
    xs = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    ys = [_as_tensor(y) for y in ys]
    xs = [_as_tensor(x) for x in xs]
    graph = ys[0].graph
    if grad_ys is None:
        grad_ys = [None] * len(ys)
    elif not isinstance(grad_ys, (list, tuple)):
        grad_ys = [grad_ys]
    if len(grad_ys) != len(ys):
        raise ValueError("Passed %d grad_ys for %d ys" % (len(grad_ys), len(ys)))
    stops = {_as_tensor(s) for s in (stop_gradients or [])}
    between, _ = _between(ys, xs)
    grads = {}  # Tensor -> list of partial gradients

    with graph.name_scope(name):
        for y, gy in zip(ys, grad_ys):
            if gy is None:
                gy = graph.create_op("OnesLike", [y], name="grad_ys").outputs[0]
            else:
                gy = _as_tensor(gy, graph, y.dtype)
            grads.setdefault(y, []).append(gy)
        for op_id in sorted(between, reverse=True):
            op = graph._ops[op_id]
            out_grads = [_sum(graph, grads.get(t)) for t in op.outputs]
            if all(g is None for g in out_grads):
                continue
            opdef = get_op_def(op.type)
            if opdef.grad is NOT_SET:
                raise LookupError("No gradient defined for operation '%s' (op type: %s)" % (op.name, op.type))
            if opdef.grad is None or any(t in stops for t in op.outputs):
                continue
            out_grads = [g if g is not None else graph.create_op("ZerosLike", [t]).outputs[0]
                         for g, t in zip(out_grads, op.outputs)]
            with graph.name_scope(op.name + "_grad"):
                in_grads = opdef.grad(op, *out_grads)
            if len(in_grads) != len(op.inputs):
                raise ValueError("Gradient rule of %s returned %d gradients for %d inputs"
                                 % (op.type, len(in_grads), len(op.inputs)))
            for t, g in zip(op.inputs, in_grads):
                if g is not None and _differentiable(t) and t not in stops:
                    grads.setdefault(t, []).append(g)
        return [(_sum(graph, grads.get(x)) if _differentiable(x) else None) for x in xs]


def _sum(graph, parts):
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    return graph.create_op("AddN", parts).outputs[0]


def _as_tensor(t, graph=None, dtype=None):
    if isinstance(t, Tensor):
        return t
    if hasattr(t, "_as_graph_element"):
        return t._as_graph_element()
    value = np.asarray(t, dtype=dtype.np)  # a Python value as grad_ys: a Const of y's dtype
    return graph.create_op("Const", [], {"value": value, "dtype": dtype}).outputs[0]


def hessians(ys, xs, name="hessians"):
    """Second derivatives of sum(ys) wrt each x, one row of the Hessian per element of x."""
    raise NotImplementedError("tf.hessians is not implemented yet")
