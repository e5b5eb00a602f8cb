"""TF's MetaGraphDef (.meta): import_meta_graph of a file TF wrote, export_meta_graph in TF's format.

Import: the GraphDef is built by import_graph.py (the Saver's own subgraph, "save/...", is left
out: tinyflow's Saver restores without graph ops); the variables collection's VariableDefs become
tf.Variable objects (variable, initializer, snapshot), the other collections hold the imported
ops and tensors, and a Saver of the variables is returned, ready for saver.restore(sess, prefix).
"""

import os

from tinyflow.graph import errors, serialize
from tinyflow.graph.core import GraphKeys, get_default_graph
from tinyflow.api.tf_files import import_graph
from tinyflow.formats.protos import meta_graph_pb2

_VARIABLE_COLLECTIONS = ("variables", "trainable_variables", "global_step", "local_variables",
                         "model_variables", "moving_average_variables")


def read_meta_graph(path):
    """The MetaGraphDef in a binary (or text) .meta file; DataLossError naming the file if it is neither."""
    from tinyflow.formats.protos import read_message
    return read_message(path, lambda: meta_graph_pb2().MetaGraphDef(), "MetaGraphDef",
                        lambda meta, data: meta.graph_def.node or meta.meta_info_def.tensorflow_version or not data)


def _saver_scope(meta):
    name = meta.saver_def.filename_tensor_name
    return name.rsplit("/", 1)[0] + "/" if "/" in name else None


def _without_saver(meta):
    """The graph's nodes except the Saver's subgraph (SaveV2/RestoreV2 and their helpers)."""
    scope = _saver_scope(meta)
    gd = type(meta.graph_def)()
    gd.versions.CopyFrom(meta.graph_def.versions)
    gd.node.extend(n for n in meta.graph_def.node if not (scope and n.name.startswith(scope)))
    return gd


def _make_variable(graph, vdef, prefix, trainable):
    from tinyflow.ops.state_ops import Variable

    def tensor(name):
        return graph.get_tensor_by_name(prefix + name)
    var = Variable.__new__(Variable)
    var._variable = tensor(vdef.variable_name)
    var._initializer_op = graph.get_operation_by_name(prefix + vdef.initializer_name)
    init_name = vdef.initial_value_name or vdef.initializer_name + ":0"
    try:
        var._initial_value = tensor(init_name) if vdef.initial_value_name else var._initializer_op.inputs[1]
    except (KeyError, ValueError, IndexError):
        var._initial_value = var._initializer_op.inputs[1]
    try:
        var._snapshot = tensor(vdef.snapshot_name) if vdef.snapshot_name else None
    except (KeyError, ValueError):
        var._snapshot = None
    var._trainable = trainable
    var._constraint = None
    return var


def import_tf_meta_graph(meta, make_saver, import_scope=None, clear_devices=False):
    """Builds a MetaGraphDef (protobuf) into the default graph; returns make_saver(its variables) (None
    without variables). make_saver is tf.train.Saver (train/saver.py passes it: train builds on this)."""
    from tinyflow.api.train import training_ops  # noqa: F401 (registers Apply* ops)
    from tinyflow.api.tf_files import tf_ops  # noqa: F401 (registers TF's gradient helper ops)
    graph = get_default_graph()
    prefix = import_scope + "/" if import_scope else ""
    import_graph.build(_without_saver(meta), name=import_scope or "", graph=graph)
    variables = {}  # op name -> Variable
    trainable = set()
    if "trainable_variables" in meta.collection_def:
        for raw in meta.collection_def["trainable_variables"].bytes_list.value:
            vdef = _variable_def(raw)
            trainable.add(vdef.variable_name)
    keys = {}  # Variable -> its checkpoint key where that is not its op's name (a partitioned variable)
    for key in _VARIABLE_COLLECTIONS:
        if key not in meta.collection_def:
            continue
        for raw in meta.collection_def[key].bytes_list.value:
            vdef = _variable_def(raw)
            if vdef.variable_name not in variables:
                variables[vdef.variable_name] = _make_variable(graph, vdef, prefix,
                                                               vdef.variable_name in trainable)
                if vdef.HasField("save_slice_info_def"):
                    keys[variables[vdef.variable_name]] = _slice_key(vdef)
            graph.add_to_collection(key, variables[vdef.variable_name])
    for key, col in meta.collection_def.items():
        if key in _VARIABLE_COLLECTIONS:
            continue
        kind = col.WhichOneof("kind")
        if kind == "node_list":
            for name in col.node_list.value:
                el = _element(graph, prefix + name)
                if el is not None:
                    graph.add_to_collection(key, el)
        elif kind in ("int64_list", "float_list"):
            for v in getattr(col, kind).value:
                graph.add_to_collection(key, v)
        elif kind == "bytes_list" and key not in ("cond_context", "while_context", "savers"):
            for v in col.bytes_list.value:
                graph.add_to_collection(key, v)
    saved = graph.get_collection(GraphKeys.GLOBAL_VARIABLES)
    if saved and keys:  # TF's checkpoint keys: a partition's full name (dnn/logits/kernel, not .../part_0)
        saved = {keys.get(v, v.op.name): v for v in saved}
    return make_saver(saved) if saved else None


def _slice_key(vdef):
    """The checkpoint key of a variable TF made through a partitioner: the full variable's name when it is
    one partition (TF 1.15's premade Estimators: `dnn/hiddenlayer_0/kernel/part_0`, its slot
    `dnn/hiddenlayer_0/kernel/t_0/Adagrad`); a variable split in several partitions is not supported."""
    info = vdef.save_slice_info_def
    if list(info.full_shape) != list(info.var_shape) or any(info.var_offset):
        raise errors.UnimplementedError(None, None, "variable %s is partition %s of %s (shape %s): tinyflow restores "
                                        "a partitioned variable only when it has one partition"
                                        % (vdef.variable_name, list(info.var_offset), info.full_name,
                                           list(info.full_shape)))
    return info.full_name


def _element(graph, name):
    try:
        return graph.get_tensor_by_name(name) if ":" in name else graph.get_operation_by_name(name)
    except (KeyError, ValueError):
        return None  # e.g. a summary of the Saver's subgraph, which is not imported


def _variable_def(raw):
    from tinyflow.formats.protos import variable_pb2
    vdef = variable_pb2().VariableDef()
    try:
        vdef.ParseFromString(raw)
    except Exception as e:
        raise errors.DataLossError(None, None, "A VariableDef of the meta graph is malformed: %s" % e) from None
    return vdef


def is_json_meta(path):
    from tinyflow.formats import files
    f, _ = files.open_regular(path, "MetaGraph file")   # never a device or FIFO
    with f:
        return f.read(1) == b"{"


# ---- export -------------------------------------------------------------------------------------------
def meta_graph_def(graph, saver=None):
    """A MetaGraphDef of a tinyflow graph: its GraphDef, a SaverDef, its collections (variables as
    VariableDefs, ops and tensors by name)."""
    from tinyflow.api.tf_files.export_graph import as_graph_def
    from tinyflow.formats.protos import variable_pb2 as variable_module
    from tinyflow.graph.core import Operation, Tensor
    from tinyflow.ops.state_ops import Variable
    meta = meta_graph_pb2().MetaGraphDef()
    meta.meta_info_def.tensorflow_version = "1.15.5"
    meta.meta_info_def.tensorflow_git_version = "tinyflow"
    meta.graph_def.CopyFrom(as_graph_def(graph))
    # no SaverDef: tinyflow's graph has no save/restore ops for one to name; TF's import_meta_graph
    # then makes a fresh Saver of the variables, which restores tinyflow's V2 checkpoints
    variable_pb2 = variable_module()
    for key, items in graph._collections.items():
        if not isinstance(key, str) or not items:
            continue
        col = meta.collection_def[key]
        for item in items:
            if isinstance(item, Variable):
                vdef = variable_pb2.VariableDef(variable_name=item._variable.name,
                                                initializer_name=item._initializer_op.name,
                                                snapshot_name=item.value().name if item._snapshot is not None
                                                else item._variable.name,
                                                initial_value_name=item._initial_value.name,
                                                trainable=item.trainable)
                col.bytes_list.value.append(vdef.SerializeToString())
            elif isinstance(item, (Operation, Tensor)):
                col.node_list.value.append(item.name)
            elif isinstance(item, bytes):
                col.bytes_list.value.append(item)
            elif isinstance(item, str):
                col.bytes_list.value.append(item.encode())
            elif isinstance(item, bool) or not isinstance(item, (int, float)):
                continue  # tinyflow objects TF has no message for (cond contexts, iterators)
            elif isinstance(item, int):
                col.int64_list.value.append(item)
            else:
                col.float_list.value.append(item)
        if not col.WhichOneof("kind"):
            del meta.collection_def[key]
    return meta




JSON_KEY = "tinyflow_graph_json"


def export(filename, graph, saver=None, as_text=False):
    """Saver.save's .meta: the MetaGraphDef, with tinyflow's JSON graph in the collection JSON_KEY."""
    import json
    import warnings
    try:
        meta = meta_graph_def(graph, saver)
    except (ValueError, TypeError, KeyError) as e:  # an op TF has no form for: tinyflow's JSON only
        warnings.warn("tinyflow: the meta graph holds no TF GraphDef: %s" % e, RuntimeWarning, stacklevel=3)
        meta = meta_graph_pb2().MetaGraphDef()
    try:
        text = json.dumps(serialize.to_dict(graph)).encode()
    except TypeError as e:
        warnings.warn("tinyflow: the meta graph holds no tinyflow JSON graph: %s" % e, RuntimeWarning, stacklevel=3)
    else:   # (reading a protobuf map's key makes the entry: only once there is something to put in it)
        meta.collection_def[JSON_KEY].bytes_list.value.append(text)
    if filename:
        from tinyflow.formats.protos import write_message
        write_message(filename, meta, as_text)
    return meta


def import_meta_graph(meta_or_file, make_saver, import_scope=None):
    """tf.train.import_meta_graph for a path, a MetaGraphDef, or tinyflow's JSON dict; the Saver it
    returns is make_saver() (all variables) or make_saver(var_list)."""
    meta, source = meta_or_file, "<meta graph>"
    if isinstance(meta, str):
        if not os.path.exists(meta):
            raise IOError("File %s does not exist." % meta)
        source = meta
        if not os.path.isfile(meta):  # a device (/dev/zero) or a fifo would be read without end
            raise errors.DataLossError(None, None, "Unable to read meta graph %s: not a regular file" % meta)
        if is_json_meta(meta):  # tinyflow's older .meta: untrusted JSON, checked by serialize.load
            if import_scope:
                raise NotImplementedError("tinyflow: import_meta_graph(import_scope=...) of a tinyflow graph is not "
                                          "supported")
            graph = serialize.load(meta, into=get_default_graph())
            return make_saver() if graph.get_collection(GraphKeys.GLOBAL_VARIABLES) else None
        meta = read_meta_graph(meta)
    if not isinstance(meta, dict) and JSON_KEY in meta.collection_def and not import_scope:
        graph = serialize.from_json(meta.collection_def[JSON_KEY].bytes_list.value[0].decode("utf-8", "replace"),
                                    into=get_default_graph(), source=source)  # untrusted: data only, checked
        return make_saver() if graph.get_collection(GraphKeys.GLOBAL_VARIABLES) else None
    if isinstance(meta, dict):
        if import_scope:
            raise NotImplementedError("tinyflow: import_meta_graph(import_scope=...) of a tinyflow graph is not "
                                      "supported")
        graph = serialize.from_dict(meta, into=get_default_graph(), source=source)
        return make_saver() if graph.get_collection(GraphKeys.GLOBAL_VARIABLES) else None
    return import_tf_meta_graph(meta, make_saver, import_scope)
