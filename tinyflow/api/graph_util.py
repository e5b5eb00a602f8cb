"""tf.graph_util: freezing and pruning GraphDefs (tf_files/graph_util.py)."""
from tinyflow.api.tf_files.graph_util import (convert_variables_to_constants, extract_sub_graph,  # noqa: F401
                                              remove_training_nodes)
from tinyflow.api.tf_files.import_graph import import_graph_def  # noqa: F401,E402 (tf.import_graph_def)

_VARIABLE_OPS = frozenset({"Variable", "VariableV2", "AutoReloadVariable", "MutableHashTable", "MutableHashTableV2",
                           "MutableHashTableOfTensors", "MutableHashTableOfTensorsV2", "MutableDenseHashTable",
                           "MutableDenseHashTableV2", "VarHandleOp", "VarIsInitializedOp", "VariableShape",
                           "ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp",
                           "ResourceGather", "ResourceScatterAdd", "ResourceScatterSub", "ResourceScatterMul",
                           "ResourceScatterDiv", "ResourceScatterMin", "ResourceScatterMax",
                           "ResourceScatterUpdate", "ResourceScatterNdUpdate", "ResourceScatterNdAdd"})


def must_run_on_cpu(node, pin_variables_on_cpu=False):
    """Whether TF places the op (an Operation or its NodeDef) on the CPU: int32 and string constants,
    int32 DynamicStitch and Cast from int32, and (when asked) variable ops, as TF 1.15's placer rule."""
    from tinyflow.graph import dtypes
    if hasattr(node, "attrs"):   # an Operation
        op_type, attr = node.type, lambda k: node.attrs.get(k)
    else:   # a NodeDef
        op_type, attr = node.op, lambda k: dtypes.as_dtype(node.attr[k].type) if k in node.attr else None
    if pin_variables_on_cpu and op_type in _VARIABLE_OPS:
        return True
    keys = {"Const": "dtype", "DynamicStitch": "T", "ParallelDynamicStitch": "T", "Cast": "SrcT"}
    if op_type not in keys:
        return False
    dtype = attr(keys[op_type])
    return dtype == dtypes.int32 or (op_type == "Const" and dtype == dtypes.string)


def tensor_shape_from_node_def_name(graph, input_name):
    """The static shape of the tensor `input_name` names in `graph` ("op" meaning "op:0")."""
    return graph.get_tensor_by_name(input_name if ":" in input_name else input_name + ":0").get_shape()
