"""tf.compat.v1.wrap_function (TF 1.15's eager/wrap_function.py): `fn` traced once into a graph of its own
(`.graph`, placeholders `.inputs` of the signature, `.outputs`, `.structured_outputs`); calling the result
adds the traced ops to the caller's graph (their GraphDef imported with the arguments in place of the
placeholders) and returns its outputs, nested as `fn` returned them. `prune(feeds, fetches)` is the same for
any tensors of the traced graph. Variables `fn` made are lifted into the graph current at wrap time (as TF
lifts them: one variable, initialized by tf.global_variables_initializer there) and every call reads them."""
from tinyflow.api import nest
from tinyflow.graph.core import GraphKeys, Operation, Tensor, get_default_graph
from tinyflow.ops.core.base import convert_to_tensor


class WrappedFunction:
    """A traced function: its graph, inputs, outputs; call it with tensors, or prune it."""

    def __init__(self, graph, inputs, structured_outputs, signature, name, lifted):
        self.graph, self.inputs, self.structured_outputs = graph, list(inputs), structured_outputs
        self.outputs = [t for t in nest.flatten(structured_outputs) if isinstance(t, Tensor)]
        self.structured_input_signature = (tuple(signature), {})
        self.name, self._lifted = name, lifted

    variables = property(lambda self: [outer for _, outer in self._lifted])

    def __call__(self, *args):
        if len(args) != len(self.inputs):
            raise TypeError("%s takes %d positional arguments (%d given)" % (self.name, len(self.inputs), len(args)))
        values = [convert_to_tensor(a, dtype=t.dtype) for a, t in zip(args, self.inputs)]
        for value, t in zip(values, self.inputs):
            if not t.shape.is_compatible_with(value.shape):
                raise ValueError("%s: argument of shape %s does not fit the signature's %s" % (self.name, value.shape,
                                                                                              t.shape))
        return self._import(self.inputs, values, self.structured_outputs)

    def prune(self, feeds, fetches, name=None, input_signature=None):
        """A function of `feeds` (tensors of .graph, fed by its arguments) computing `fetches` (nested
        tensors or operations of .graph)."""
        feeds = list(nest.flatten(feeds))
        for t in feeds + nest.flatten(fetches):
            if getattr(t, "graph", None) is not self.graph:
                raise ValueError("Can only prune function whose feeds and fetches are from the function's graph: %r"
                                 % (t,))
        return WrappedFunction(self.graph, feeds, fetches, [], name or "pruned", self._lifted)

    def _import(self, feeds, values, structured):
        from tinyflow.api.tf_files.graph_util import extract_sub_graph
        from tinyflow.api.tf_files.import_graph import import_graph_def
        fetches = [f for f in nest.flatten(structured) if isinstance(f, (Tensor, Operation))]
        graph_def = extract_sub_graph(self.graph.as_graph_def(), sorted({_op(f).name for f in fetches}))
        present = {n.name for n in graph_def.node}
        input_map = {t.name: v for t, v in zip(feeds, values) if t.op.name in present}
        input_map.update({inner._variable.name: outer._variable for inner, outer in self._lifted
                          if inner.op.name in present})
        out = iter(import_graph_def(graph_def, input_map=input_map, return_elements=[f.name for f in fetches],
                                    name=self.name))
        return nest.pack_sequence_as(structured, [next(out) if isinstance(f, (Tensor, Operation)) else f
                                                  for f in nest.flatten(structured)])


def _op(x):
    return x if isinstance(x, Operation) else x.op


def wrap_function(fn, signature, name=None):
    """fn traced with placeholders of `signature` (nested TensorSpecs) into a graph of its own: a
    WrappedFunction (TF 1.15's ConcreteFunction of compat.v1.wrap_function)."""
    from tinyflow.api.tf_files.graph_util import extract_sub_graph
    from tinyflow.api.tf_files.import_graph import import_graph_def
    from tinyflow.graph.core import Graph
    from tinyflow.ops.core.array_ops import placeholder
    from tinyflow.ops.state_ops import Variable
    outer = get_default_graph()
    graph = Graph()
    specs = nest.flatten(signature)
    with graph.as_default():
        inputs = [placeholder(s.dtype, s.shape, name="placeholder") for s in specs]
        structured = fn(*nest.pack_sequence_as(signature, inputs))
        structured = nest.map_structure(lambda x: x if isinstance(x, (Tensor, Operation)) or x is None
                                        else convert_to_tensor(x), structured)
    lifted = []
    for inner in graph.get_collection(GraphKeys.GLOBAL_VARIABLES):   # each made again where wrap_function ran
        init = inner._initial_value
        graph_def = extract_sub_graph(graph.as_graph_def(), [init.op.name])
        with outer.as_default(), outer.name_scope(None):
            value = import_graph_def(graph_def, return_elements=[init.name], name=inner.op.name + "/lifted")[0]
            lifted.append((inner, Variable(value, trainable=inner.trainable, name=inner.op.name)))
    return WrappedFunction(graph, inputs, structured, specs, name or getattr(fn, "__name__", "wrapped_function"),
                           lifted)
