"""infer: whole-graph shape and dtype inference over one fetch set, forward and backward. No JAX.

Construction already gave every tensor a static (possibly partial) shape. This pass completes those
shapes for concrete feed shapes, the way NNVM's InferShape does:

    shapes = infer(loss, feed_shapes={x: [100, 784]})       # {Tensor: (TensorShape, DType)}

1. forward sweep: in topological order, each op's OpDef.shape rule runs on the shapes known so far
   (and on the constant values of shape-like inputs, e.g. a Shape of a now fully known tensor);
   its outputs are merged into what is known.
2. backward sweep: in reverse order, an op whose OpDef has an `infer_back` rule may fill unknown
   input shapes from its attrs, its other inputs and its outputs (a MatMul knows its weight's
   input dimension from its data). That is how a variable created with an unknown shape gets one.
3. repeat until nothing changes.

A backward rule: infer_back(in_shapes, out_shapes, attrs, values) -> [TensorShape or None per input]
(values[i]: input i's constant value or None, as for shape rules); it
only ever refines (shapes are merged, never replaced). Construction-time shapes of the graph are
not touched: the result is a dict. A rule that fails raises ValueError naming the op and the shapes
it saw.
"""
import numpy as np

from tinyflow.graph.backend import NotFoldable, backend
from tinyflow.graph.core import Operation, Tensor, constant_value
from tinyflow.graph.registry import get_op_def
from tinyflow.graph.shapes import TensorShape, as_shape
from tinyflow.passes.prune import prune


def _shape_str(s):
    return s.as_proto_str() if isinstance(s, TensorShape) else str(s)


def _merge(known, new, what):
    """known merged with new; ValueError naming `what` when they disagree."""
    try:
        return known.merge_with(new)
    except ValueError:
        raise ValueError("Shape inference: %s has shape %s but %s was inferred" % (
            what, _shape_str(known), _shape_str(new))) from None


class _State:
    """The shapes and constant values known so far."""

    def __init__(self):
        self.shapes = {}
        self.values = {}
        self.changed = False

    def refine(self, t, shape, what):
        old = self.shapes.get(t, t.shape)
        new = _merge(old, as_shape(shape), what)
        if new.as_tuple() != old.as_tuple() or (old.ndims is None) != (new.ndims is None):
            self.shapes[t] = new
            self.changed = True
        else:
            self.shapes.setdefault(t, old)

    def value(self, t):
        if t in self.values:
            return self.values[t]
        v = constant_value(t)
        if v is None:
            v = _fold(t, self)
        if v is not None:
            self.values[t] = v
        return v


def _fold(t, state):
    """The value of a shape computation once the shapes it reads are known: the output of a `static`
    op (Shape, Size, Rank), or of a foldable op (OpDef.fold) on small integer values, through the
    backend's evaluator (graph/backend.py)."""
    op = t.op
    opdef = get_op_def(op.type)
    evaluator = backend()
    if evaluator is None or opdef.lower is None or opdef.host is not None or not op.inputs:
        return None
    if opdef.static:
        values = []
        for x in op.inputs:
            s = state.shapes.get(x, x.shape)
            if not s.is_fully_defined():
                return None
            # a zero-strided array of the right shape: the rule reads its shape, never its data
            values.append(np.broadcast_to(np.zeros((), x.dtype.np or np.float32), s.as_tuple()))
    else:
        if opdef.fold is None or not t.dtype.is_integer:
            return None
        values = [state.value(x) for x in op.inputs]
        if any(v is None or np.size(v) > 64 for v in values):
            return None
        if opdef.fold is not True:           # a numpy rule of the op's own: no JAX
            return opdef.fold(op, values) if t.value_index == 0 else None
    try:
        return evaluator.fold(op, values)[t.value_index]
    except NotFoldable:  # the value stays unknown
        return None


def _subgraph_ops(fetches, feeds):
    tensors, targets = [], []
    for f in fetches if isinstance(fetches, (list, tuple)) else [fetches]:
        f = f._as_graph_element() if hasattr(f, "_as_graph_element") else f
        (targets if isinstance(f, Operation) else tensors).append(f)
    return prune(tensors, list(feeds), targets).ops


def _forward(op, state):
    opdef = get_op_def(op.type)
    ins = [state.shapes.get(t, t.shape) for t in op.inputs]
    vals = [state.value(t) for t in op.inputs]
    try:
        outs = (opdef.infer_shape or opdef.shape)(ins, op.attrs, vals)
    except ValueError as e:  # ShapeError is a ValueError
        raise ValueError("Shape inference failed for '%s' (op: '%s') with input shapes: %s: %s" % (
            op.name, op.type, ", ".join(_shape_str(s) for s in ins), str(e).rstrip("."))) from None
    for t, s in zip(op.outputs, outs):
        state.refine(t, s, "output %s of '%s' (op: '%s', input shapes: %s)" % (
            t.name, op.name, op.type, ", ".join(_shape_str(s) for s in ins)))


def _backward(op, state):
    rule = get_op_def(op.type).infer_back
    if rule is None:
        return
    ins = [state.shapes.get(t, t.shape) for t in op.inputs]
    outs = [state.shapes.get(t, t.shape) for t in op.outputs]
    if all(s.is_fully_defined() for s in ins):
        return
    try:
        new = rule(ins, outs, op.attrs, [state.value(t) for t in op.inputs])
    except ValueError as e:
        raise ValueError("Backward shape inference failed for '%s' (op: '%s') with input shapes: %s and output "
                         "shapes: %s: %s" % (op.name, op.type, ", ".join(_shape_str(s) for s in ins),
                                             ", ".join(_shape_str(s) for s in outs), e)) from None
    for t, s in zip(op.inputs, new):
        if s is not None:
            state.refine(t, s, "input %s of '%s' (op: '%s')" % (t.name, op.name, op.type))


def infer(fetches, feed_shapes=None, var_shapes=None, max_sweeps=100):
    """Shapes and dtypes of every tensor the fetch set computes, given some concrete shapes.

    fetches: a Tensor, Operation or Variable, or a list of them.
    feed_shapes: {tensor: shape} of fed tensors (placeholders); their producers are not visited.
    var_shapes: {variable or tensor: shape} of tensors whose shape is known from elsewhere.
    Returns {Tensor: (TensorShape, DType)} for the outputs of every op in the pruned subgraph and
    the fed tensors. Raises ValueError naming the op whose rule failed and the shapes it saw, or a
    tensor whose given shape contradicts its static shape.
    """
    state = _State()
    feeds = []
    for k, s in list((feed_shapes or {}).items()) + list((var_shapes or {}).items()):
        t = k._as_graph_element() if hasattr(k, "_as_graph_element") and not isinstance(k, Tensor) else k
        state.refine(t, s, "tensor %s" % t.name)
        if k in (feed_shapes or {}):
            feeds.append(t)
    ops = _subgraph_ops(fetches, feeds)
    fed = set(feeds)
    for _ in range(max_sweeps):
        state.changed = False
        for op in ops:
            if op.outputs and not all(t in fed for t in op.outputs):
                _forward(op, state)
        for op in reversed(ops):
            _backward(op, state)
        if not state.changed:
            break
    result = {}
    for t in feeds:
        result[t] = (state.shapes.get(t, t.shape), t.dtype)
    for op in ops:
        for t in op.outputs:
            result[t] = (state.shapes.get(t, t.shape), t.dtype)
    return result


def infer_ops(ops, shapes, values=None):
    """One forward sweep over `ops` (in order) from the given {tensor: shape} and {tensor: constant value}
    of what they read: {tensor: TensorShape} of their outputs. For a group of ops one op stands for (a
    Recompute op's segment), whose inputs' shapes and values the caller's own inference knows."""
    state = _State()
    for t, s in shapes.items():
        state.refine(t, s, "tensor %s" % t.name)
    state.values.update((t, v) for t, v in (values or {}).items() if v is not None)
    for op in ops:
        _forward(op, state)
    return {t: state.shapes.get(t, t.shape) for op in ops for t in op.outputs}

