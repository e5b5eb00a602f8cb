"""Old module paths keep working (api/tree.py's OLD_PATHS, served by api/importer.py): each names the same
module object as its new path, also for modules merged into another, and a graph file naming a class by
its old module path still loads."""
import json

import tinyflow as tf


def test_core_op_families_keep_their_old_paths():
    import tinyflow.ops.math_ops as old_math
    from tinyflow.ops import array_ops as old_array
    from tinyflow.ops.core import array_ops, math_ops
    assert old_math is math_ops and old_array is array_ops
    from tinyflow.ops.base import convert_to_tensor
    assert convert_to_tensor is tf.convert_to_tensor


def test_merged_modules_alias_the_module_they_joined():
    import tinyflow.layers_conv as old_conv
    import tinyflow.data.transformations as old_transformations
    from tinyflow.api import layers
    from tinyflow.api.data import dataset_ops
    assert old_conv is layers and old_conv.Conv1D is tf.layers.Conv1D
    assert old_transformations is dataset_ops
    assert tf.flags is tf.app.flags


def test_a_graph_file_naming_funcgraph_by_its_old_module_still_loads():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        tf.cond(x > 0, lambda: x * 2.0, lambda: x - 1.0, name="c")
    text = g.to_json()
    assert "tinyflow.graph.func_graph:FuncGraph" in text
    old = text.replace("tinyflow.graph.func_graph:FuncGraph", "tinyflow.ops.control_flow_ops:FuncGraph")
    old = old.replace("tinyflow.graph.func_graph:SubFn", "tinyflow.ops.control_flow_ops:SubFn")
    g2 = tf.Graph.from_json(old)
    out = g2.get_operation_by_name("c").outputs[0]
    with tf.Session(graph=g2) as sess:
        assert sess.run(out, {g2.get_tensor_by_name("x:0"): 3.0}) == 6.0
        assert sess.run(out, {g2.get_tensor_by_name("x:0"): -3.0}) == -4.0
    json.loads(old)  # still well-formed
