"""Builds a checked GraphDef's nodes in a tinyflow graph: plain nodes through ops_table.py, TF1 frames
(import_frames.py) as tinyflow's own tf.while_loop and tf.cond.

A Scope holds what is built at one level: the top level, a loop's cond or body, a cond's branch.
Building a scope builds the units its targets need, in dependency order; a loop or cond unit calls
tf.while_loop / tf.cond with functions that build the frame's nodes in a child scope (inside the
FuncGraph tinyflow traces). A TensorArray (tensor_arrays.py) is a Python value on TF's flow edges.
"""
from tinyflow.graph import errors
from tinyflow.graph.core import Tensor, get_default_graph
from tinyflow.api.tf_files.import_frames import Scope, err, is_back_edge, parse_input
from tinyflow.api.tf_files.import_loops import (_UPDATES, build_cond, build_grad_loop, build_loop, conditional_update,
                                                grad_loop_inputs)
from tinyflow.api.tf_files.ops_table import CONVERTERS
from tinyflow.api.tf_files.tensor_arrays import ImportedTensorArray


class Builder:
    def __init__(self, graph, analysis, prefix, input_map, node_class):
        self.graph, self.a, self.prefix, self.input_map = graph, analysis, prefix, input_map
        self.node_class = node_class
        self.consts = {}  # Const node name -> its value (converters read constant inputs)
        self.top = Scope("", ())
        self.loops = {}  # frame -> what build_loop made of it (a gradient loop needs it)
        self._members = {}

    # ---- values ----------------------------------------------------------------------------------
    def value(self, scope, inp, node=None):
        src, idx, _ = parse_input(inp)
        key = "%s:%d" % (src, idx)
        if key in self.input_map:
            t = self.input_map[key]
            if not isinstance(t, Tensor):
                from tinyflow.ops.core.base import convert_to_tensor
                t = convert_to_tensor(t)
            return t
        got = scope.lookup(src)
        if got is None:
            raise err(node or self.a.by_name[src], "input '%s' is not available here: it is built in another "
                      "while-loop frame or tf.cond branch" % inp)
        outs = got[0]
        if idx >= len(outs) or outs[idx] is None:
            raise err(node or self.a.by_name[src], "input '%s' names output %d of a node with %d outputs"
                      % (inp, idx, len(outs)))
        return outs[idx]

    # ---- scopes ----------------------------------------------------------------------------------
    def members(self, unit):
        if unit not in self._members:
            self._members[unit] = self.a.members(unit)
        return self._members[unit]

    def _deps(self, scope, unit):
        if unit[0] == "loop" and unit[1] in self.a.grad_of:  # replaced by tinyflow's gradient of the forward loop
            return [("loop", self.a.grad_of[unit[1]])] + [
                u for n in grad_loop_inputs(self, unit) for u in self._deps(scope, ("node", n.name))]
        nodes = [self.a.by_name[unit[1]]] if unit[0] == "node" else self.members(unit)
        inside = {n.name for n in nodes}
        out = []
        for n in nodes:
            for inp in n.input:
                src, idx, _ = parse_input(inp)
                if src in inside or ("%s:%d" % (src, idx)) in self.input_map or src not in self.a.by_name:
                    continue
                if is_back_edge(n, self.a.by_name[src]) or scope.lookup(src) is not None:
                    continue
                u = self._unit(scope, self.a.by_name[src], n)
                if u not in out:
                    out.append(u)
        return out

    def _unit(self, scope, n, user):
        if not self.a.has_frames:
            return ("node", n.name)
        u = self.a.unit_of(scope.frame, scope.ctx, n)
        if u is None:
            raise err(user, "its input '%s' is in another while-loop frame or tf.cond branch, not reachable from "
                      "here without Enter/Switch" % n.name)
        return u

    def build_scope(self, scope, names, user=None):
        """Builds, in scope, the units of the nodes `names` and everything they need."""
        order, state = [], {}
        for name in names:
            if scope.lookup(name) is not None:
                continue
            root = self._unit(scope, self.a.by_name[name], user or self.a.by_name[name])
            if root in state:
                continue
            stack = [(root, iter(self._deps(scope, root)))]
            state[root] = 1
            while stack:  # iterative depth-first post-order
                u, it = stack[-1]
                nxt = next(it, None)
                if nxt is None:
                    stack.pop()
                    state[u] = 2
                    order.append(u)
                elif state.get(nxt) == 1:
                    raise err(self._first(nxt), "it depends on itself through a tf.cond or while loop (TF's "
                              "gradient of a tf.cond is not supported by tinyflow's importer)")
                elif nxt not in state:
                    state[nxt] = 1
                    stack.append((nxt, iter(self._deps(scope, nxt))))
        for u in order:
            if u[0] == "node":
                self.build_node(scope, self.a.by_name[u[1]])
                continue
            try:
                if u[0] == "loop" and u[1] in self.a.grad_of:
                    build_grad_loop(self, scope, u)
                elif u[0] == "loop":
                    build_loop(self, scope, u)
                else:
                    build_cond(self, scope, u)
            except errors.OpError:
                raise
            except (ValueError, TypeError, IndexError, KeyError) as e:  # tf.while_loop's / tf.cond's complaint
                raise err(self._first(u), "the %s it belongs to: %s: %s" % (
                    "while loop" if u[0] == "loop" else "tf.cond", type(e).__name__, e)) from None

    def _first(self, unit):
        return self.a.by_name[unit[1]] if unit[0] == "node" else self.members(unit)[0]

    # ---- one node --------------------------------------------------------------------------------
    def build_node(self, scope, node):
        graph = get_default_graph()
        inputs, consts, controls = [], [], []
        for inp in node.input:
            src, idx, is_control = parse_input(inp)
            if is_control:
                got = scope.lookup(src)
                if got is not None and got[1] is not None:
                    controls.append(got[1])
                continue
            inputs.append(self.value(scope, inp, node))
            consts.append(self.consts.get(src) if "%s:%d" % (src, idx) not in self.input_map else None)
        if node.op in ("Identity", "StopGradient") and inputs and isinstance(inputs[0], ImportedTensorArray):
            scope.env[node.name] = ([inputs[0]], None)  # a TensorArray's flow passing through
            return
        b = self.node_class(node, inputs, consts, self.prefix, graph)
        select = _select_of(scope)
        try:
            with graph.control_dependencies(controls):
                if select is not None and node.op in _UPDATES:
                    outs = [conditional_update(node, select, inputs[0], inputs[1])]
                else:
                    outs = CONVERTERS[node.op](b, node)
        except errors.OpError:
            raise
        except Exception as e:  # a builder's complaint about this node's inputs or attrs
            raise err(node, "%s: %s" % (type(e).__name__, e)) from None
        outs = list(outs)
        first = outs[0] if outs and isinstance(outs[0], Tensor) else None
        if first is not None:
            op = first.op
        elif outs and not isinstance(outs[0], ImportedTensorArray):
            op, outs = outs[0], []  # an op without outputs (NoOp, Assert, an update)
        else:
            op = None
        if scope is self.top and first is not None and op.name != b.name and b.name not in graph._by_name:
            from tinyflow.ops.core.array_ops import identity
            with graph.control_dependencies(None):
                first = identity(first, name=b.name)
            outs[0], op = first, first.op
        if node.op == "Const":  # the value made once (the op's own when it is a Const)
            self.consts[node.name] = op.attrs["value"] if op is not None and op.type == "Const" else b.attr("value")
        scope.env[node.name] = (outs, op)


def _select_of(scope):
    """The predicate of the innermost branch built in select form (import_loops._select_form), if any."""
    while scope is not None:
        if getattr(scope, "select", None) is not None:
            return scope.select
        scope = scope.parent
    return None
