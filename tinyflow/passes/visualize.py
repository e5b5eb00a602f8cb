"""Looking at a fetch set: `tinyflow.print_graph(fetches)` (one line per op) and
`tinyflow.to_dot(fetches)` (Graphviz text). No JAX here.

    tf.print_graph(loss, feed_dict={x: [100, 784]}, plan=True)

prints, in run order, each op's name, type and inputs, and the shape and dtype of each output
(completed by passes/infer.py for the given feed shapes); with plan=True also the (input->output)
pairs the memory planner ran in place and each value's storage slot in the planned arena.
"""
import sys

from tinyflow.graph.core import Operation, Tensor
from tinyflow.graph.registry import get_op_def
from tinyflow.passes import infer as infer_pass
from tinyflow.passes import prune as prune_pass

__all__ = ["print_graph", "to_dot"]


def _split(fetches):
    tensors, targets = [], []
    for f in fetches if isinstance(fetches, (list, tuple)) else [fetches]:
        f = f._as_graph_element() if hasattr(f, "_as_graph_element") and not isinstance(f, (Tensor, Operation)) else f
        (targets if isinstance(f, Operation) else tensors).append(f)
    return tensors, targets


def _shape_str(shape):
    return shape.as_proto_str() if shape.ndims is not None else "<unknown>"


def _plan(sub, shapes):
    from tinyflow.passes import memory  # the planner is optional for printing
    sizes = {}
    for t, (s, d) in shapes.items():
        n = s.num_elements()
        sizes[t] = 0 if n is None or d.np is None else n * d.np.itemsize
    return memory.plan_memory(sub, sizes)


def graph_lines(fetches, feed_dict=None, plan=False):
    """The lines print_graph prints (a list of str)."""
    tensors, targets = _split(fetches)
    feed_shapes = dict(feed_dict or {})
    shapes = infer_pass.infer(tensors + targets, feed_shapes=feed_shapes)
    sub = prune_pass.prune(tensors, [k for k in shapes if k in feed_shapes], targets)
    mplan = _plan(sub, shapes) if plan else None
    inplace = {}
    if mplan is not None:
        for op, x, t in mplan.inplace:
            inplace.setdefault(op, []).append("%d->%d" % (op.inputs.index(x), t.value_index))
    lines = []
    for op in sub.ops:
        ins = [t.name for t in op.inputs] + ["^" + c.name for c in op.control_inputs]
        outs = []
        for t in op.outputs:
            s, d = shapes.get(t, (t.shape, t.dtype))
            desc = "%s %s" % (_shape_str(s), d.name)
            if mplan is not None and t in mplan._buffer_of:
                desc += " @%d" % mplan.buffer_of(t).id
            outs.append(desc)
        line = "%s = %s(%s)" % (op.name, op.type, ", ".join(ins))
        if outs:
            line += "  -> " + "; ".join(outs)
        if op in inplace:
            line += "  inplace " + ",".join(inplace[op])
        lines.append(line)
    if mplan is not None:
        lines.append("# arena %d bytes planned (%s), lower bound %d, naive %d; @n: storage slot n"
                     % (mplan.planned_bytes, mplan.strategy, mplan.lower_bound_bytes, mplan.naive_bytes))
    return lines


def print_graph(fetches, feed_dict=None, plan=False, file=None):
    """Prints the ops that compute `fetches`, in run order: name = Type(inputs) -> shape dtype.

    feed_dict: {placeholder: shape} completes the shapes (shape inference); plan=True adds the
    memory plan's inplace pairs and storage slots. Returns the printed text.
    """
    text = "\n".join(graph_lines(fetches, feed_dict, plan))
    print(text, file=file or sys.stdout)
    return text


def _q(s):
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"')


def to_dot(fetches, feed_dict=None):
    """The fetch set's subgraph as Graphviz `dot` text: one box per op, data edges labelled with
    shape and dtype, control edges dashed. Render with `dot -Tsvg`."""
    tensors, targets = _split(fetches)
    shapes = infer_pass.infer(tensors + targets, feed_shapes=dict(feed_dict or {}))
    sub = prune_pass.prune(tensors, [k for k in shapes if k in dict(feed_dict or {})], targets)
    lines = ["digraph tinyflow {", "  rankdir=TB;", "  node [shape=box, fontname=Helvetica];"]
    for op in sub.ops:
        style = ", style=filled, fillcolor=lightblue" if op.type in ("VariableV2", "Placeholder") else ""
        style = ", style=filled, fillcolor=lightyellow" if get_op_def(op.type).ref_inputs else style
        lines.append("  %s [label=%s%s];" % (_q(op.name), _q("%s\n%s" % (op.name, op.type)), style))
    for op in sub.ops:
        for t in op.inputs:
            s, d = shapes.get(t, (t.shape, t.dtype))
            lines.append("  %s -> %s [label=%s];" % (_q(t.op.name), _q(op.name), _q("%s %s" % (_shape_str(s), d.name))))
        for c in op.control_inputs:
            lines.append("  %s -> %s [style=dashed];" % (_q(c.name), _q(op.name)))
    lines.append("}")
    return "\n".join(lines) + "\n"
