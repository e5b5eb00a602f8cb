"""tf.gradients: the graph-to-graph reverse pass.

1. Find the ops between xs and ys: reachable forward from xs and backward from ys.
2. Seed each y with grad_ys (or ones).
3. Visit those ops in reverse topological order: sum the gradients that reached each output, and
   call the op's gradient rule (OpDef.grad), which builds new graph ops. Each input collects what
   its consumers sent it.
4. Each x's gradient is the sum of what reached it, or None if nothing did.

Gradient rules build ordinary ops, so a gradient graph is differentiable again (second order).
With `checkpoints=`, passes/recompute.py works around step 3: before a rule runs it makes the
Recompute ops of the forward values the rule may read, and the ops the rule builds read those.
The pass builds its own few helper ops through `graph.create_op` by type name (OnesLike, AddN,
ZerosLike, Const, Reshape, Unpack, Pack), so it needs no op-family module and no JAX.
"""
import numpy as np

from tinyflow.graph import dtypes as _dt
from tinyflow.graph.core import Graph, Tensor
from tinyflow.graph.registry import NOT_SET, gradient_of
from tinyflow.passes import recompute as recompute_pass


class AggregationMethod:
    """How tf.gradients sums the gradients of a tensor used several times (tinyflow: always AddN)."""
    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


class UnconnectedGradients:
    """What tf.gradients returns for an x that no y depends on: None ('none') or zeros ('zero')."""
    NONE = "none"
    ZERO = "zero"


def _between(ys, xs):
    """{index: op} of the ops on some path from an x to a y (through data inputs)."""
    back = {}  # ops backward-reachable from ys
    stack = [y.op for y in ys]
    while stack:
        op = stack.pop()
        if op.index in back:
            continue
        back[op.index] = op
        stack.extend(t.op for t in op.inputs)
    # forward from xs within `back`: an op is between if one of its inputs comes from an x or a between op
    xs_set = set(xs)
    between = {}
    for i in sorted(back):
        op = back[i]
        if any(t in xs_set or t.op.index in between for t in op.inputs):
            between[i] = op
    return between


def _differentiable(t):
    return t.dtype.is_floating or t.dtype.is_complex


def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False, gate_gradients=False,
              aggregation_method=None, stop_gradients=None, unconnected_gradients=UnconnectedGradients.NONE,
              checkpoints=None):
    """Symbolic derivatives of sum(ys) with respect to each x in xs: a list with one Tensor (or
    None) per x.

    grad_ys: the initial gradient of each y (default ones), i.e. a vector-Jacobian product.
    stop_gradients: tensors treated as constants: no gradient flows through them (they may still
    receive one). unconnected_gradients: 'none' (None for an x no y depends on) or 'zero'.
    Integer xs get None. colocate_gradients_with_ops, gate_gradients and aggregation_method are
    accepted for compatibility (one device; gradients are always summed with AddN).
    checkpoints: None (keep every forward value the gradient reads), a list of tensors (keep only
    those; recompute the rest in the backward pass), or a policy: "sqrt", "memory" or "speed"
    (see passes/recompute.py).
    """
    ys = [_as_tensor(y) for y in _as_list(ys)]
    xs = [_as_tensor(x) for x in _as_list(xs)]
    grad_ys = [None] * len(ys) if grad_ys is None else _as_list(grad_ys)
    if len(grad_ys) != len(ys):
        raise ValueError("Passed %d grad_ys for %d ys" % (len(grad_ys), len(ys)))
    stops = [_as_tensor(s) for s in _as_list(stop_gradients or [])]
    if unconnected_gradients not in (UnconnectedGradients.NONE, UnconnectedGradients.ZERO):
        raise ValueError("Unknown value for unconnected_gradients: %r" % (unconnected_gradients,))
    graph = _common_graph(ys + xs + stops + [g for g in grad_ys if isinstance(g, Tensor)])
    stops = set(stops)
    between = _between(ys, xs)
    grads = {}  # Tensor -> list of partial gradients
    remat = None
    if checkpoints is not None:  # gradient checkpointing: a rewrite around each gradient rule
        checkpoints = checkpoints if isinstance(checkpoints, str) else [_as_tensor(c) for c in _as_list(checkpoints)]
        remat = recompute_pass.Rewriter(graph, [graph._ops[i] for i in sorted(between)], checkpoints)
    elif graph.get_collection(recompute_pass.RECOMPUTE_GRAD_KEY):  # tf.recompute_grad blocks
        remat = recompute_pass.Rewriter(graph, [graph._ops[i] for i in sorted(between)], None,
                                        set(graph.get_collection(recompute_pass.RECOMPUTE_GRAD_KEY)))

    with graph.as_default(), graph.name_scope(name):
        for i, (y, gy) in enumerate(zip(ys, grad_ys)):
            grads.setdefault(y, []).append(_grad_y(graph, y, gy, i))
        for op_id in sorted(between, reverse=True):
            op = between[op_id]
            out_grads = [_sum(graph, grads.get(t)) for t in op.outputs]
            if all(g is None for g in out_grads) or any(t in stops for t in op.outputs):
                continue
            grad = gradient_of(op)
            if grad is NOT_SET:
                raise LookupError("No gradient defined for operation '%s' (op type: %s)" % (op.name, op.type))
            if grad is None:
                continue
            out_grads = [g if g is not None else graph.create_op("ZerosLike", [t]).outputs[0]
                         for g, t in zip(out_grads, op.outputs)]
            with graph.name_scope(op.name + "_grad"):
                if remat is not None:
                    remat.before(op, out_grads)
                mark = len(graph._ops)
                in_grads = grad(op, *out_grads)
                if remat is not None:
                    remat.after(mark)
            if len(in_grads) != len(op.inputs):
                raise ValueError("Gradient rule of %s returned %d gradients for %d inputs"
                                 % (op.type, len(in_grads), len(op.inputs)))
            for t, g in zip(op.inputs, in_grads):
                if g is not None and _differentiable(t):
                    grads.setdefault(t, []).append(g)
        result = []
        for x in xs:
            g = _sum(graph, grads.get(x)) if _differentiable(x) else None
            if g is None and unconnected_gradients == UnconnectedGradients.ZERO:
                g = graph.create_op("ZerosLike", [x]).outputs[0]
            result.append(g)
        if remat is not None:
            remat.finish()
        return result


def _grad_y(graph, y, gy, i):
    """The seed gradient of y: ones of y's shape, or grad_ys[i] converted to y's dtype."""
    if gy is None:
        return graph.create_op("OnesLike", [y], name="grad_ys_%d" % i).outputs[0]
    gy = _as_tensor(gy, graph, y.dtype)
    if gy.dtype != y.dtype:
        raise TypeError("Gradient type %s generated for tensor %s with type %s must be %s"
                        % (gy.dtype.name, y.name, y.dtype.name, y.dtype.name))
    if not gy.shape.is_compatible_with(y.shape):
        raise ValueError("grad_ys[%d] has shape %s, incompatible with the shape %s of %s"
                         % (i, gy.shape, y.shape, y.name))
    return gy


def _sum(graph, parts):
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    return graph.create_op("AddN", parts).outputs[0]


def _as_list(v):
    return list(v) if isinstance(v, (list, tuple)) else [v]


def _as_tensor(t, graph=None, dtype=None):
    if isinstance(t, Tensor):
        return t
    if hasattr(t, "_as_graph_element"):
        t = t._as_graph_element()
        if not isinstance(t, Tensor):
            raise TypeError("Expected a Tensor in tf.gradients, got the Operation %s" % t.name)
        return t
    if graph is None:
        raise TypeError("Expected a Tensor or Variable in tf.gradients, got %r" % (t,))
    value = np.asarray(t, dtype=dtype.np)  # a Python value as grad_ys: a Const of y's dtype
    return graph.create_op("Const", [], {"value": value, "dtype": dtype}).outputs[0]


def _common_graph(tensors):
    graph = tensors[0].graph
    for t in tensors[1:]:
        if t.graph is not graph:
            raise ValueError("%s must be from the same graph as %s." % (t, tensors[0]))
    assert isinstance(graph, Graph)
    return graph


def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False, gate_gradients=False,
             aggregation_method=None):
    """The Hessian of sum(ys) with respect to each x: a tensor of shape x.shape + x.shape (or None
    when sum(ys) does not depend on x). x needs a fully defined shape: one tf.gradients per
    element of x builds the rows."""
    xs = [_as_tensor(x) for x in _as_list(xs)]
    ys = [_as_tensor(y) for y in _as_list(ys)]
    graph = _common_graph(ys + xs)
    out = []
    with graph.as_default(), graph.name_scope(name):
        for x in xs:
            if not x.shape.is_fully_defined():
                raise ValueError("tinyflow's hessians needs a fully defined shape for %s, got %s" % (x.name, x.shape))
            g = gradients(ys, x)[0]
            if g is None:
                out.append(None)
                continue
            n = x.shape.num_elements()
            flat = graph.create_op("Reshape", [g, _const(graph, [-1])]).outputs[0]
            entries = graph.create_op("Unpack", [flat], {"num": n, "axis": 0}).outputs if n > 1 else [
                graph.create_op("Reshape", [flat, _const(graph, [])]).outputs[0]]
            rows = []
            for e in entries:
                row = gradients(e, x)[0]
                rows.append(row if row is not None else graph.create_op("ZerosLike", [x]).outputs[0])
            stacked = graph.create_op("Pack", rows, {"axis": 0}).outputs[0]
            shape = x.shape.as_list() * 2
            out.append(graph.create_op("Reshape", [stacked, _const(graph, shape)]).outputs[0])
    return out


def _const(graph, value):
    value = np.asarray(value, dtype=np.int32)
    return graph.create_op("Const", [], {"value": value, "dtype": _dt.int32}).outputs[0]
