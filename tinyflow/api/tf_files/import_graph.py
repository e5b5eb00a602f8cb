"""tf.import_graph_def: builds a TF GraphDef's nodes in a tinyflow graph through ops_table.py.

Everything that can be checked is checked before any op is built: every op type is known (one
error lists all the unknown ones), every input names an existing node and output, the graph has no
cycle but TF1 while loops (NextIteration -> Merge), attrs have the right kinds. TF1 control-flow
frames (Enter/Exit/Switch/Merge/NextIteration/LoopCond) are checked by import_frames.py and built as
tinyflow's own tf.while_loop and tf.cond by import_build.py and import_loops.py. If building still
fails, the ops added so far are removed, so a failed import leaves the graph as it was.
"""
import contextlib

from tinyflow.api.tf_files.import_build import Builder
from tinyflow.api.tf_files.import_frames import Analysis, err, is_back_edge, parse_input
from tinyflow.api.tf_files.ops_table import CONVERTERS
from tinyflow.formats import convert
from tinyflow.graph import errors
from tinyflow.graph.core import Tensor, get_default_graph

_NO_VALUE = object()


_err, _parse_input = err, parse_input


class _Node:
    """What a converter sees of one node: its inputs as tinyflow tensors, constant inputs, attrs."""

    def __init__(self, node, inputs, consts, prefix, graph):
        self.node, self.inputs, self.consts, self.graph = node, inputs, consts, graph
        self.name = prefix + node.name
        self.num_inputs = len(inputs)

    def x(self, i):
        if i >= len(self.inputs):
            raise _err(self.node, "needs at least %d inputs, has %d" % (i + 1, len(self.inputs)))
        return self.inputs[i]

    def const(self, i, required=True):
        """The value of input i when it is a Const node (TF's constant inputs: axes, shapes, perms)."""
        v = self.consts[i] if i < len(self.consts) else None
        if v is None and i < len(self.inputs) and isinstance(self.inputs[i], Tensor):
            from tinyflow.graph.core import constant_value
            v = constant_value(self.inputs[i])  # computed from constants and static shapes (a perm, an axis)
        if v is None and required:
            raise _err(self.node, "tinyflow needs input %d to be a constant (a Const node, or computed from "
                       "constants and static shapes)" % i)
        return v

    def attr(self, name, default=_NO_VALUE):
        if name not in self.node.attr:
            if default is _NO_VALUE:
                raise _err(self.node, "missing attr '%s'" % name)
            return default
        try:
            return convert.attr_value(self.node.attr[name])
        except convert.BadAttr as e:
            raise _err(self.node, "attr '%s': %s" % (name, e)) from None

    @contextlib.contextmanager
    def scope(self):
        """A name scope for the helper ops of a converter that builds several."""
        with self.graph.name_scope(self.name + "/"):
            yield


# attrs whose AttrValue kind is checked before building (a bad kind is an error naming the node)
_ATTR_KINDS = {"T": "type", "dtype": "type", "DstT": "type", "SrcT": "type", "value": "tensor", "shape": "shape",
               "data_format": "s", "padding": "s", "strides": "list", "ksize": "list", "dilations": "list",
               "transpose_a": "b", "transpose_b": "b", "keep_dims": "b", "epsilon": "f", "is_training": "b",
               "axis": "i", "N": "i"}


_LIST_T = {"Assert", "Print", "IdentityN"}  # ops whose "T" is a list of types
_FLOW_OPS = {"Enter", "Exit", "Switch", "Merge", "NextIteration", "Identity"}  # may carry a TensorArray handle
_RESOURCE = 20  # DT_RESOURCE


def _check_attrs(node):
    for name, kind in _ATTR_KINDS.items():
        if name in node.attr and not (name == "T" and node.op in _LIST_T):
            got = node.attr[name].WhichOneof("value")
            if got != kind and not (kind == "list" and got is None):
                raise _err(node, "attr '%s' has type %s, expected %s" % (name, got, kind))
    if "value" in node.attr:
        try:
            convert.check_tensor(node.attr["value"].tensor)   # checked, not yet materialized
        except convert.BadAttr as e:
            raise _err(node, "attr 'value': %s" % e) from None
    for name in ("dtype", "T", "DstT"):
        if name not in node.attr or name == "T" and node.op in _LIST_T:
            continue
        if node.op in _FLOW_OPS and node.attr[name].type == _RESOURCE:
            continue
        if node.attr[name].type not in convert.BY_ENUM:
            raise _err(node, "attr '%s' is DataType %d, which tinyflow does not support" % (name,
                                                                                         node.attr[name].type))


# the data inputs of TF1's frame ops (a node with others cannot form a frame)
_FRAME_ARITY = {"Enter": 1, "RefEnter": 1, "Exit": 1, "RefExit": 1, "NextIteration": 1, "RefNextIteration": 1,
                "LoopCond": 1, "Switch": 2, "RefSwitch": 2}


def check_graph_def(graph_def, input_map=()):
    """Validates a GraphDef; returns its nodes in an order where every input comes first."""
    nodes = list(graph_def.node)
    by_name = {}
    for n in nodes:
        if not n.name:
            raise errors.InvalidArgumentError(None, None, "GraphDef has a node with no name (op: '%s')" % n.op)
        if n.name in by_name:
            raise errors.InvalidArgumentError(None, None, "Node '%s' is not unique in the GraphDef" % n.name)
        by_name[n.name] = n
    unknown = sorted({n.op for n in nodes if n.op not in CONVERTERS})
    if unknown:
        where = {t: [n.name for n in nodes if n.op == t][:3] for t in unknown}
        raise errors.InvalidArgumentError(None, None, "tinyflow cannot import this GraphDef: %d op type(s) are not "
                                          "supported: %s" % (len(unknown), ", ".join("%s (e.g. node '%s')"
                                                                                    % (t, where[t][0])
                                                                                    for t in unknown)))
    deps = {}
    for n in nodes:
        _check_attrs(n)
        data_inputs = sum(1 for i in n.input if not i.startswith("^"))
        want = _FRAME_ARITY.get(n.op)
        if want is not None and data_inputs != want or n.op in ("Merge", "RefMerge") and data_inputs < 1:
            raise _err(n, "%s needs %s data input(s), has %d" % (n.op, want or "at least 1", data_inputs))
        d = []
        for inp in n.input:
            try:
                src, idx, _ = _parse_input(inp)
            except ValueError:
                raise _err(n, "malformed input '%s'" % inp) from None
            if inp in input_map or src + ":%d" % idx in input_map:
                continue
            if src not in by_name:
                raise _err(n, "Unknown input node '%s'" % inp)
            if not is_back_edge(n, by_name[src]):  # NextIteration -> Merge closes a while loop
                d.append(src)
        deps[n.name] = d
    order, state = [], {}
    for n in nodes:  # iterative depth-first topological sort that reports a cycle
        if n.name in state:
            continue
        stack = [(n.name, iter(deps[n.name]))]
        state[n.name] = 1
        while stack:
            name, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                state[name] = 2
                order.append(by_name[name])
            elif state.get(nxt) == 1:
                cycle = [s for s, _ in stack][[s for s, _ in stack].index(nxt):]
                raise errors.InvalidArgumentError(None, None, "GraphDef has a cycle that is not a while loop "
                                                  "(NextIteration -> Merge): %s" % " -> ".join(cycle + [nxt]))
            elif nxt not in state:
                state[nxt] = 1
                stack.append((nxt, iter(deps[nxt])))
    return order


@contextlib.contextmanager
def _rollback(graph):
    """Removes every op added inside the block if it raises."""
    n_ops = len(graph._ops)
    names = dict(graph._names_in_use)
    collections = {k: list(v) for k, v in graph._collections.items()}
    try:
        yield
    except BaseException:
        for op in graph._ops[n_ops:]:
            graph._by_name.pop(op.name, None)
            for t in op._inputs:
                if op in t._consumers:
                    t._consumers.remove(op)
        del graph._ops[n_ops:]
        graph._names_in_use = names
        graph._collections.clear()
        graph._collections.update(collections)
        raise


def build(graph_def, input_map=None, name="import", graph=None):
    """Builds graph_def's nodes; returns {node name: [output Tensors]} (names as in the GraphDef) and
    {node name: Operation}, for the nodes built at the top level (not inside a loop or cond)."""
    graph = graph or get_default_graph()
    input_map = {(k if ":" in k or k.startswith("^") else k + ":0"): v for k, v in (input_map or {}).items()}
    if any(n.op in _REF_OPS for n in graph_def.node):  # TF1's control flow of variables: the same frames
        graph_def = _without_ref_ops(graph_def)
    order = check_graph_def(graph_def, input_map)
    analysis = Analysis(order, {n.name: n for n in order})
    builder = Builder(graph, analysis, name + "/" if name else "", input_map, _Node)
    with graph.as_default(), graph.name_scope(None), _rollback(graph):
        builder.build_scope(builder.top, [n.name for n in order])
    built = {k: v[0] for k, v in builder.top.env.items()}
    ops = {k: v[1] for k, v in builder.top.env.items() if v[1] is not None}
    return built, ops


_REF_OPS = {"RefSwitch": "Switch", "RefEnter": "Enter", "RefExit": "Exit", "RefMerge": "Merge",
            "RefNextIteration": "NextIteration", "RefIdentity": "Identity"}


def _without_ref_ops(graph_def):
    """A copy of graph_def with TF1's Ref* control-flow ops as their plain forms (tinyflow has no refs)."""
    copy = type(graph_def)()
    copy.CopyFrom(graph_def)
    for n in copy.node:
        n.op = _REF_OPS.get(n.op, n.op)
    return copy


def _convert(value):
    from tinyflow.ops.core.base import convert_to_tensor
    return convert_to_tensor(value)


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None, op_dict=None, producer_op_list=None):
    """tf.import_graph_def: imports a GraphDef (TF's protobuf, e.g. a frozen graph) into the default
    graph under the name scope `name` ("import" when None, none when ""). input_map replaces
    tensors of the GraphDef ("x:0" or "x") by tensors of this graph; return_elements names the
    tensors ("probs:0") and operations ("train_op") to return."""
    if name is None:
        name = "import"
    if hasattr(graph_def, "graph_def") and not hasattr(graph_def, "node"):
        graph_def = graph_def.graph_def
    if not hasattr(graph_def, "node"):
        raise TypeError("graph_def must be a GraphDef proto.")
    if input_map is not None and not isinstance(input_map, dict):
        raise TypeError("input_map must be a dictionary mapping strings to Tensor objects.")
    built, ops = build(graph_def, input_map, name)
    if return_elements is None:
        return None
    out = []
    for el in return_elements:
        src, idx, _ = _parse_input(el)
        if src not in ops:
            raise ValueError("Requested return_element %r not found in graph_def." % el)
        if ":" in el:
            if idx >= len(built[src]):
                raise ValueError("Requested return_element %r not found in graph_def." % el)
            out.append(built[src][idx])
        else:
            out.append(ops[src])
    return out


