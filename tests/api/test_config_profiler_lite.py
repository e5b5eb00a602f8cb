"""tf.config, tf.Session.reset, tf.profiler (against TF 1.15's numbers: tests/fixtures/profiler/profiler.json,
written by make_profiler.py) and tf.lite (its names, and UnimplementedError naming TensorFlow Lite)."""
import json
import os

import pytest

import recorded_cases
import tinyflow as tf
from tinyflow.graph import errors

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "profiler", "profiler.json")) as _f:
    TF = json.load(_f)


def _graph():
    zeros = tf.zeros_initializer()
    x = tf.placeholder(tf.float32, [4, 3])
    w = tf.get_variable("w", [3, 5], initializer=zeros)
    b = tf.get_variable("b", [5], initializer=zeros)
    y = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w), b))
    tf.reduce_mean(tf.square(y * 2.0 - 1.0))
    img = tf.placeholder(tf.float32, [2, 8, 8, 3])
    k = tf.get_variable("k", [3, 3, 3, 4], initializer=zeros)
    c = tf.nn.max_pool(tf.nn.conv2d(img, k, [1, 1, 1, 1], "SAME"), [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    return tf.nn.softmax(tf.reduce_sum(c, axis=[1, 2])) + tf.add_n([y, y, y])[:2, :4]


def _report(options):
    node = tf.profiler.profile(tf.get_default_graph(), options=options)
    return {"total_float_ops": node.total_float_ops, "total_parameters": node.total_parameters,
            "children": sorted([c.name, c.float_ops, c.parameters] for c in node.children)}


def test_profiler_counts_parameters_and_flops_as_tf(capsys):
    with tf.Graph().as_default():
        _graph()
        assert _report(tf.profiler.ProfileOptionBuilder.trainable_variables_parameter()) == TF["params"]
        assert _report(tf.profiler.ProfileOptionBuilder.float_operation()) == TF["flops"]
    assert "_TFProfRoot (--/%d flops)" % TF["flops"]["total_float_ops"] in capsys.readouterr().out
    for name, want in TF["options"].items():
        assert getattr(tf.profiler.ProfileOptionBuilder, name)() == want, name


def test_config_lists_devices_and_keeps_settings():
    cpus = tf.config.experimental.list_physical_devices("CPU")
    assert cpus[0] == ("/physical_device:CPU:0", "CPU")
    assert tf.config.experimental.list_logical_devices("CPU")[0].name == "/job:localhost/replica:0/task:0/device:CPU:0"
    assert tf.config.get_soft_device_placement() is False
    tf.config.set_soft_device_placement(True)
    assert tf.config.get_soft_device_placement() is True
    tf.config.set_soft_device_placement(False)
    tf.config.experimental.set_memory_growth(cpus[0], True)
    assert tf.config.experimental.get_memory_growth(cpus[0]) is True
    with pytest.raises(ValueError, match="Unrecognized device"):
        tf.config.experimental.set_memory_growth(tf.config.experimental.list_physical_devices("CPU")[0]._replace(
            name="/physical_device:TPU:7"), True)
    with pytest.raises(errors.UnimplementedError, match="remote"):
        tf.config.experimental_connect_to_cluster(None)
    tf.Session.reset("")
    with pytest.raises(errors.UnimplementedError, match="grpc://h:1"):
        tf.Session.reset("grpc://h:1")


def test_lite_names_exist_and_converting_says_what_is_missing():
    assert [m.name for m in tf.lite.OpsSet] == TF["lite_enums"]["OpsSet"]
    assert [m.name for m in tf.lite.Optimize] == TF["lite_enums"]["Optimize"]
    assert tf.lite.constants.TFLITE == TF["lite_constants"]["TFLITE"]
    assert tf.lite.constants.GRAPHVIZ_DOT == TF["lite_constants"]["GRAPHVIZ_DOT"]
    assert tf.lite.constants.QUANTIZED_UINT8.name == TF["lite_constants"]["QUANTIZED_UINT8"]
    assert tf.lite.RepresentativeDataset(list).input_gen is list
    with pytest.raises(errors.UnimplementedError, match="TensorFlow Lite"):
        tf.lite.TFLiteConverter.from_session(None, [], [])
    with pytest.raises(errors.UnimplementedError, match="TensorFlow Lite"):
        tf.lite.TFLiteConverter.from_saved_model("/tmp/none")


def _chain(node):
    """The op view's chain as (type, own parameters, own float ops, graph nodes) per type, ties in a fixed
    order (TF's order among op types of equal counts is its sort's, not stable across graphs)."""
    out = []
    while node[6]:
        node = node[6][0]
        out.append((node[0], node[1], node[3], node[5]))
    return sorted(out, key=lambda t: (-t[2], -t[1], t[0]))


def test_profiler_views_op_log_and_advice_as_tf():
    """tests/fixtures/profiler/make_profiler_views.py's `record` run with tinyflow gives TF 1.15's views."""
    here = os.path.join(os.path.dirname(__file__), "..", "fixtures", "profiler")
    maker, want = recorded_cases.maker(here, "profiler_views")
    got = maker.record(tf)
    for key in ("scope_flops", "scope_params", "graph_flops", "advice", "op_log"):
        assert got[key] == want[key], key
    for key in ("operations_flops", "operations_params"):
        assert got[key][:6] == want[key][:6], key   # the root's totals
        assert _chain(got[key]) == _chain(want[key]), key
    assert isinstance(tf.profiler.advise(), tf.profiler.AdviceProto)
    assert tf.profiler.MultiGraphNodeProto.DESCRIPTOR.full_name == "tensorflow.tfprof.MultiGraphNodeProto"
