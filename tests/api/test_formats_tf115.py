"""TF's event files both ways, against TF 1.15 (tests/fixtures/tf1/events, written by its make.py):
tinyflow's summary ops give TF's bytes, tinyflow reads TF's event file as TF does, and tinyflow's
event file holds the events TF's holds. TF 1.15 reading tinyflow's files: check_tf_reads.py there."""
import json
import os
import sys

import pytest

import tinyflow as tf
from tffiles_model import FIX

EVENTS = os.path.join(FIX, "events")
sys.path.insert(0, EVENTS)
from summaries import build  # noqa: E402

WANT = json.load(open(os.path.join(EVENTS, "expected.json")))


def _digest(data):
    """As make.py records bytes: hex, or sha256 when long."""
    import hashlib
    return data.hex() if len(data) <= 4000 else "sha256:" + hashlib.sha256(data).hexdigest()


def _view(events):
    """The events as make.py records TF's: what, step, and the summary's bytes / version / status."""
    out = []
    for e in events:
        what = e.WhichOneof("what")
        item = {"what": what, "step": e.step}
        if what == "summary":
            item["summary"] = _digest(e.summary.SerializeToString())
        elif what == "file_version":
            item["file_version"] = e.file_version
        elif what == "session_log":
            item["status"] = e.session_log.status
        out.append(item)
    return out


def test_every_summary_op_gives_tfs_bytes():
    ops = build(tf)
    merged = tf.summary.merge([ops[k] for k in sorted(ops)])
    with tf.Session() as sess:
        for name, op in ops.items():
            assert _digest(sess.run(op)) == WANT["summaries"][name], name
        assert _digest(sess.run(merged)) == WANT["merged"]


def test_tinyflow_reads_tfs_event_file():
    events = list(tf.train.summary_iterator(os.path.join(EVENTS, "events.out.tfevents.tf115")))
    assert _view(events) == WANT["events"]
    graph = tf.GraphDef.FromString(events[1].graph_def)
    assert sorted(n.name for n in graph.node) == WANT["graph_nodes"]
    assert tf.MetaGraphDef.FromString(events[2].meta_graph_def).graph_def == graph
    loss = [v for v in events[3].summary.value if v.tag == "loss"][0]
    assert loss.simple_value == 0.25 and events[3].wall_time > 1.7e9


def test_tinyflow_imports_and_runs_tfs_summary_graph():
    """TF's graph from its event file (every summary op, the tags as Const inputs) imports; its merged
    summary gives TF's bytes."""
    events = list(tf.train.summary_iterator(os.path.join(EVENTS, "events.out.tfevents.tf115")))
    tf.import_graph_def(tf.GraphDef.FromString(events[1].graph_def), name="")
    with tf.Session() as sess:
        assert _digest(sess.run("Merge/MergeSummary:0")) == WANT["merged"]
        assert _digest(sess.run("note:0")) == WANT["summaries"]["note"]


def test_tinyflows_event_file_holds_tfs_events(tmp_path):
    merged = tf.summary.merge([op for _, op in sorted(build(tf).items())])
    with tf.Session() as sess:
        writer = tf.summary.FileWriter(str(tmp_path), sess.graph)
        writer.add_summary(sess.run(merged), 1)
        writer.add_summary(sess.run(merged), 2)
        writer.add_session_log(tf.SessionLog(status=tf.SessionLog.START), 3)
        writer.close()
    (name,) = os.listdir(tmp_path)
    assert name.startswith("events.out.tfevents.") and int(name.split(".")[3]) > 1.7e9
    events = list(tf.train.summary_iterator(str(tmp_path / name)))
    assert _view(events) == WANT["events"]   # the graph events hold tinyflow's graph: compared by kind only
    # the summary ops are in TF's form (check_tf_reads.py: TF imports and runs them): as in TF's own graph
    ours = {n.name: n for n in tf.GraphDef.FromString(events[1].graph_def).node}
    tf_events = list(tf.train.summary_iterator(os.path.join(EVENTS, "events.out.tfevents.tf115")))
    theirs = {n.name: n for n in tf.GraphDef.FromString(tf_events[1].graph_def).node}
    for name in ("loss", "weights", "picture", "gray", "sound", "stereo", "note", "notes"):
        a, b = ours[name], theirs[name]
        assert (a.op, len(a.input), sorted(a.attr)) == (b.op, len(b.input), sorted(set(b.attr) - {"bad_color"}))
        assert a.attr["_output_shapes"] == b.attr["_output_shapes"]
        assert ours[a.input[0]].attr["value"].tensor == theirs[b.input[0]].attr["value"].tensor   # the tag


@pytest.mark.parametrize("message, fields", [
    ("GraphDef", {"node": 1, "versions": 4, "library": 2, "version": 3}),
    ("NodeDef", {"name": 1, "op": 2, "input": 3, "device": 4, "attr": 5, "experimental_debug_info": 6}),
    ("Event", {"wall_time": 1, "step": 2, "file_version": 3, "graph_def": 4, "summary": 5, "log_message": 6,
               "session_log": 7, "tagged_run_metadata": 8, "meta_graph_def": 9}),
    ("MetaGraphDef", {"meta_info_def": 1, "graph_def": 2, "saver_def": 3, "collection_def": 4, "signature_def": 5,
                      "asset_file_def": 6}),
    ("TensorProto", {"dtype": 1, "tensor_shape": 2, "version_number": 3, "tensor_content": 4, "half_val": 13,
                     "float_val": 5, "double_val": 6, "int_val": 7, "string_val": 8, "scomplex_val": 9, "int64_val": 10,
                     "bool_val": 11, "dcomplex_val": 12, "resource_handle_val": 14, "variant_val": 15, "uint32_val": 16,
                     "uint64_val": 17}),
])
def test_messages_have_tfs_names_and_numbers(message, fields):
    desc = getattr(tf, message).DESCRIPTOR
    assert desc.full_name == "tensorflow." + message
    assert {f.name: f.number for f in desc.fields} == fields


def _repeated(field):
    return field.is_repeated if hasattr(field, "is_repeated") else field.label == field.LABEL_REPEATED


def test_messages_agree_with_tensorboards_copy():
    """Where tensorboard (a newer TF's protos, package `tensorboard`) is installed: every field declared here
    is there with the same number, type and label."""
    pytest.importorskip("tensorboard", reason="compared with tensorboard's copy: the tensorboard extra")
    import importlib

    from google.protobuf import descriptor_pool
    from tinyflow.formats import tf_protos
    stems = ("graph", "node_def", "attr_value", "tensor", "tensor_shape", "types", "meta_graph", "saver", "variable",
             "event", "summary", "versions", "function", "op_def", "resource_handle", "struct")
    for stem in stems + ("histogram",):   # (a newer TF moved HistogramProto to histogram.proto)
        importlib.import_module("tensorboard.compat.proto.%s_pb2" % stem)
    pool = descriptor_pool.Default()
    checked = 0
    for stem in stems:
        ours = getattr(tf_protos, stem + "_pb2").DESCRIPTOR
        for name, desc in ours.message_types_by_name.items():
            stack = [(desc, pool.FindMessageTypeByName("tensorboard." + name))]
            while stack:
                a, b = stack.pop()
                for f in a.fields:
                    g = b.fields_by_name[f.name]
                    assert (f.number, f.type, _repeated(f)) == (g.number, g.type, _repeated(g)), f.full_name
                    checked += 1
                stack += [(n, b.nested_types_by_name[n.name]) for n in a.nested_types]
        for name, enum in ours.enum_types_by_name.items():
            theirs = pool.FindEnumTypeByName("tensorboard." + name)
            assert {v.name: v.number for v in enum.values}.items() <= {v.name: v.number for v in theirs.values}.items()
    assert checked > 250


def test_messages_live_beside_tensorboards_and_tensorflows():
    """The private pool: another tensorflow.GraphDef (TensorFlow's own, say) already in the default pool
    clashes with nothing; the wire format is TF's."""
    import subprocess
    code = ("from google.protobuf import descriptor_pb2, descriptor_pool\n"
            "f = descriptor_pb2.FileDescriptorProto(name='tensorflow/core/framework/graph.proto', "
            "package='tensorflow', syntax='proto3')\n"
            "f.message_type.add(name='GraphDef').field.add(name='other', number=1, type=9, label=1)\n"
            "descriptor_pool.Default().Add(f)\n"
            "from tinyflow.formats import tf_protos\n"
            "print(tf_protos.GraphDef.DESCRIPTOR.fields[0].name, tf_protos.GraphDef.DESCRIPTOR.file.pool is "
            "descriptor_pool.Default())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(tf.__file__))))
    assert out.stdout.split() == ["node", "False"]
    data = tf.GraphDef(node=[tf.NodeDef(name="a", op="NoOp")]).SerializeToString()
    assert data == b"\x0a\x09" + b"\x0a\x01a" + b"\x12\x04NoOp"   # node (1) { name (1): "a", op (2): "NoOp" }
