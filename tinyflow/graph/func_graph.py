"""Body graphs: the graph of one tf.cond branch or tf.while_loop body (FuncGraph, nested in the graph
that holds the control-flow op; it captures outer tensors as placeholders and lifts variables created
inside to the outermost graph), and a traced body with its chosen inputs and outputs (SubFn). They
depend on the graph only: control-flow ops build them, lower/ turns a SubFn into a JAX function."""
import weakref

from tinyflow.graph.core import Graph, Tensor
from tinyflow.graph.registry import get_op_def
from tinyflow.graph.serialize import register_serializable


# ---- body graphs -----------------------------------------------------------------------------------
class FuncGraph(Graph):
    """The graph of one branch or loop body, nested in `outer_graph`; captures outer tensors."""

    def __init__(self, outer_graph, name):
        super().__init__()
        self.outer_graph = outer_graph
        self.name = name
        self.captures = []      # [(tensor of outer_graph, placeholder here)]
        self.outer_controls = []  # ops of enclosing graphs the body's ops were made to depend on
        self._captured = {}     # tensor of any enclosing graph -> its stand-in here
        self.seed = outer_graph.seed
        self._collections = outer_graph._collections      # tf.trainable_variables() inside a body
        self._variable_store = outer_graph._variable_store
        self._name_stack = name                           # ops inside are named "cond/add", TF1-like

    def capture(self, t):
        """The stand-in here for tensor `t` of an enclosing graph (a placeholder, or a Const copy)."""
        if t.graph is self:
            return t
        inner = self._captured.get(t)
        if inner is not None:
            return inner
        if t.op.type == "Const":  # copied, so shape rules inside still see the constant value
            inner = Graph.create_op(self, "Const", [], t.op.attrs, name=t.op.name.split("/")[-1]).outputs[0]
        else:
            outer_t = t if t.graph is self.outer_graph else self.outer_graph.capture(t)
            inner = Graph.create_op(self, "Placeholder", [], {"dtype": t.dtype, "shape": t.shape},
                                    name="captured_" + t.op.name.split("/")[-1]).outputs[0]
            self.captures.append((outer_t, inner))
            self._captured[outer_t] = inner
        self._captured[t] = inner
        return inner

    def create_op(self, op_type, inputs, attrs=None, name=None, dtypes=None):
        opdef = get_op_def(op_type)
        if op_type == "VariableV2":  # as TF1's init_scope: variables live in the outermost graph
            return self._lift_op(op_type, [], attrs, name)
        if opdef.overwrites and inputs and inputs[0].op in _LIFTED and not self._depends_on_args(inputs[1]):
            return self._lift_op(op_type, inputs, attrs, name)  # the initializer of a lifted variable
        for i in opdef.ref_inputs:
            if i < len(inputs) and inputs[i].graph is not self:
                raise NotImplementedError("tinyflow: %s on variable '%s' inside a tf.cond branch or tf.while_loop "
                                          "body is not supported; update variables outside it." %
                                          (op_type, inputs[i].op.name))
        inputs = [self.capture(t) if isinstance(t, Tensor) and t.graph is not self else t for t in inputs]
        return super().create_op(op_type, inputs, attrs, name=name, dtypes=dtypes)

    # ---- variables created in a body are lifted out, with the ops of their initial value ----------
    def root(self):
        g = self
        while isinstance(g, FuncGraph):
            g = g.outer_graph
        return g

    def _depends_on_args(self, t):
        """Whether tensor t (of this or an enclosing body) depends on a body argument."""
        try:
            self._lift(t, {}, dry=True)
            return False
        except ValueError:
            return True

    def _lift_op(self, op_type, inputs, attrs, name):
        root, memo = self.root(), {}
        name = name[:-1] if name and name.endswith("/") else self.unique_name(name or op_type)
        op = root.create_op(op_type, [self._lift(t, memo) for t in inputs], attrs, name=_free_name(root, name))
        if op_type == "VariableV2":
            _LIFTED.add(op)
        return op

    def _lift(self, t, memo, dry=False):
        """The copy in the outermost graph of the ops computing t (not depending on body arguments)."""
        root = self.root()
        if t.graph is root or t in memo:
            return memo.get(t, t)
        op, g = t.op, t.graph
        if op.type == "Placeholder":
            outer = {inner: o for o, inner in getattr(g, "captures", ())}.get(t)
            if outer is None:
                raise ValueError("tinyflow: the initial value of a variable created inside a tf.cond branch or "
                                 "tf.while_loop body must not depend on the body's arguments (%s)" % t.name)
            memo[t] = self._lift(outer, memo, dry)
            return memo[t]
        ins = [self._lift(i, memo, dry) for i in op.inputs]
        if dry:
            memo.update((o, o) for o in op.outputs)
            return t
        new = root.create_op(op.type, ins, op.attrs, name=_free_name(root, op.name))
        memo.update(zip(op.outputs, new.outputs))
        return memo[t]

    def _current_control_inputs(self, inputs):
        # a control dependency on an op of an enclosing graph becomes one of the control-flow op itself
        ops = super()._current_control_inputs(inputs)
        self.outer_controls.extend(op for op in ops if op.graph is not self and op not in self.outer_controls)
        return [op for op in ops if op.graph is self]

    def needs_key(self):
        return any(get_op_def(op.type).needs_key for op in self.ops)


_LIFTED = weakref.WeakSet()  # VariableV2 ops created while tracing a body (lifted to the outermost graph)


def add_outer_controls(op, graphs):
    """Gives the control-flow op the control dependencies its bodies' ops had on outer ops."""
    for g in graphs:
        for c in g.outer_controls:
            if c.graph is op.graph:
                op._add_control_input(c)
            elif isinstance(op.graph, FuncGraph) and c not in op.graph.outer_controls:
                op.graph.outer_controls.append(c)


def _free_name(graph, name):
    """`name` (or name_1, ...) unused in graph, marked used, in the exact-name form create_op takes."""
    cand, i = name, 0
    while cand.lower() in graph._names_in_use or cand in graph._by_name:
        i += 1
        cand = "%s_%d" % (name, i)
    graph._names_in_use[cand.lower()] = 1
    return cand + "/"


class SubFn:
    """A traced body: its FuncGraph, the placeholders that are its inputs, the tensors it returns."""

    def __init__(self, graph, inputs, outputs):
        self.graph = graph
        self.inputs = list(inputs)
        self.outputs = list(outputs)

    def __repr__(self):
        return "<SubFn %s: %d inputs, %d outputs>" % (self.graph.name, len(self.inputs), len(self.outputs))


register_serializable(FuncGraph)
register_serializable(SubFn)
