"""tf.graph_util (freezing and pruning GraphDefs), tf.import_graph_def, tf.train.write_graph and
Graph.as_graph_def: TF's GraphDef functions on protobuf messages."""
import os

from tinyflow.graph import errors
from tinyflow.graph.core import Graph, get_default_graph
from tinyflow.api.tf_files.import_graph import _parse_input, import_graph_def  # noqa: F401 (re-exported)


def _node_name(inp):
    return _parse_input(inp)[0]


def extract_sub_graph(graph_def, dest_nodes):
    """The GraphDef of the nodes dest_nodes need (inputs and control inputs), in the original order."""
    if isinstance(dest_nodes, str):
        raise TypeError("dest_nodes must be a list.")
    by_name = {n.name: n for n in graph_def.node}
    for d in dest_nodes:
        if d not in by_name:
            raise AssertionError("%s is not in graph" % d)
    keep, todo = set(), list(dest_nodes)
    while todo:
        name = todo.pop()
        if name in keep:
            continue
        keep.add(name)
        if name not in by_name:
            raise errors.InvalidArgumentError(None, None, "Node '%s' is an input of the graph but is not in it" % name)
        todo.extend(_node_name(i) for i in by_name[name].input)
    out = type(graph_def)()
    out.versions.CopyFrom(graph_def.versions)
    out.library.CopyFrom(graph_def.library)
    out.node.extend(n for n in graph_def.node if n.name in keep)
    return out


def remove_training_nodes(input_graph, protected_nodes=None):
    """Drops CheckNumerics nodes and splices out Identity nodes (with no control inputs) not in protected_nodes."""
    protected = set(protected_nodes or ())
    splice = {}
    for n in input_graph.node:
        if n.name in protected:
            continue
        if n.op == "CheckNumerics" or (n.op == "Identity" and not any(i.startswith("^") for i in n.input)):
            splice[n.name] = n.input[0]

    def resolve(inp):
        ctrl = inp.startswith("^")
        seen = set()
        while _node_name(inp) in splice and _parse_input(inp)[1] == 0 and inp not in seen:
            seen.add(inp)
            inp = splice[_node_name(inp)].lstrip("^")
        return "^" + _node_name(inp) if ctrl else inp
    out = type(input_graph)()
    out.versions.CopyFrom(input_graph.versions)
    for n in input_graph.node:
        if n.name in splice:
            continue
        m = out.node.add()
        m.CopyFrom(n)
        del m.input[:]
        m.input.extend(resolve(i) for i in n.input)
    return out


def convert_variables_to_constants(sess, input_graph_def, output_node_names, variable_names_whitelist=None,
                                   variable_names_blacklist=None):
    """A frozen GraphDef: the subgraph of output_node_names with every variable replaced by a Const
    holding its value in sess."""
    from tinyflow.formats import convert
    sub = extract_sub_graph(input_graph_def, output_node_names)
    variables = [n.name for n in sub.node if n.op in ("VariableV2", "Variable", "VarHandleOp")
                 and (variable_names_whitelist is None or n.name in variable_names_whitelist)
                 and (variable_names_blacklist is None or n.name not in variable_names_blacklist)]
    graph = sess.graph
    values = {}
    for name in variables:
        op = graph.get_operation_by_name(name)
        values[name] = sess._variable_value(op)
    out = type(input_graph_def)()
    out.versions.CopyFrom(sub.versions)
    for n in sub.node:
        m = out.node.add()
        if n.name in values:
            m.name, m.op = n.name, "Const"
            convert.from_numpy(values[n.name], m.attr["value"].tensor, dtype=graph.get_operation_by_name(n.name)
                               .outputs[0].dtype)
            m.attr["dtype"].type = m.attr["value"].tensor.dtype
        else:
            m.CopyFrom(n)
            if n.op == "Identity" and n.input and _node_name(n.input[0]) in values:
                pass  # "w/read" reads the constant now
    return out


def as_graph_def(graph=None, from_version=None, add_shapes=False):
    """Graph.as_graph_def(): the graph as TF's GraphDef protobuf."""
    from tinyflow.api.tf_files.export_graph import as_graph_def as _export
    return _export(graph or get_default_graph(), from_version, add_shapes)


def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """tf.train.write_graph / tf.io.write_graph: writes the GraphDef to logdir/name, as protobuf text
    (as_text) or binary; returns the path. A name ending in ".json" writes tinyflow's JSON graph."""
    if name.endswith(".json") and isinstance(graph_or_graph_def, Graph):
        from tinyflow.graph.serialize import write_graph as write_json
        return write_json(graph_or_graph_def, logdir, name, as_text)
    gd = as_graph_def(graph_or_graph_def) if isinstance(graph_or_graph_def, Graph) else graph_or_graph_def
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    from tinyflow.formats.protos import write_message
    write_message(path, gd, as_text)
    return path


def read_graph_def(path):
    """A GraphDef from a .pb (binary) or .pbtxt (text) file; DataLossError naming the file if neither."""
    from tinyflow.formats.protos import graph_pb2, read_message
    return read_message(path, lambda: graph_pb2().GraphDef(), "GraphDef")
