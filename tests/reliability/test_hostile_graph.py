"""Graph JSON and .meta files are data: a crafted file builds nothing but graph data, runs no code,
and gets a GraphFileError naming the file and the node or place at fault."""
import copy
import gc
import json
import os

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.graph import serialize
from tinyflow.graph.serialize import GraphFileError


def _payload(victim):
    """An object whose garbage collection deletes `victim` (tempfile's closer, reachable as an
    attribute path of a tinyflow module): what the old loader would build from a class path."""
    return {"obj": "tinyflow.train.checkpoint:tempfile._TemporaryFileCloser",
            "state": {"file": {"obj": "tinyflow.train.checkpoint:io.BytesIO", "state": {}}, "name": str(victim),
                      "delete": True}}


def _model_dict():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        w = tf.Variable(np.ones((2, 1), np.float32), name="w")
        tf.matmul(x, w, name="y")
        tf.add_to_collection("savers", tf.train.Saver())
        tf.add_to_collection("mine", w)
        return serialize.to_dict(g)


def _op(d, name):
    return next(o for o in d["graphs"][0]["ops"] if o["name"] == name)


def _placements(victim):
    p = _payload(victim)

    def op_attr(d):
        _op(d, "y")["attrs"]["transpose_a"] = p
        return "node 'y'"

    def collection_item(d):
        d["graphs"][0]["collections"]["mine"].append(p)
        return "collection 'mine'"

    def graph_attribute(d):
        d["graphs"][0]["extra"]["evil"] = p
        return "attribute 'evil'"

    def variable_state(d):
        var = d["graphs"][0]["collections"]["variables"][0]
        var["state"]["_constraint"] = {"tuple": [1, {"dict": [["k", p]]}]}
        return "collection 'variables'"

    def graph_class(d):
        d["graphs"].append(dict(d["graphs"][0], ops=[], collections={}))
        d["graphs"][-1]["class"] = "tinyflow.train.checkpoint:tempfile._TemporaryFileCloser"
        _op(d, "y")["attrs"]["evil"] = {"G": len(d["graphs"]) - 1}
        return "graph %d" % (len(d["graphs"]) - 1)
    return [op_attr, collection_item, graph_attribute, variable_state, graph_class]


@pytest.mark.parametrize("how", ["from_json", "import_meta_graph"])
@pytest.mark.parametrize("k", range(5))
def test_malicious_payloads_are_rejected_and_run_nothing(tmp_path, how, k):
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me")
    d = _model_dict()
    where = _placements(victim)[k](d)
    path = tmp_path / "evil.meta"
    path.write_text(json.dumps(d))
    with tf.Graph().as_default() as g:
        with pytest.raises(GraphFileError) as e:
            if how == "from_json":
                tf.Graph.from_json(json.dumps(d))
            else:
                tf.train.import_meta_graph(str(path))
        if how == "import_meta_graph":
            assert str(path) in str(e.value)
            assert g.get_operations() == [] and g.get_all_collection_keys() == []  # left as it was
    assert where in str(e.value), str(e.value)
    gc.collect()
    assert victim.read_text() == "keep me"


def test_a_loaded_saver_never_takes_its_files_to_delete_from_the_file(tmp_path):
    victim = tmp_path / "precious"
    (tmp_path / "precious.index").write_text("x")
    d = _model_dict()
    for item in d["graphs"][0]["collections"]["savers"]:
        item["state"]["_last_checkpoints"] = [str(victim)] * 9
    with tf.Graph().as_default():
        g = serialize.from_dict(d)
        (saver,) = g.get_collection("savers")
        assert saver.last_checkpoints == []
        with g.as_default(), tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            saver.save(sess, str(tmp_path / "m"))
    assert (tmp_path / "precious.index").exists()


def test_round_trip_still_whole():
    d = _model_dict()
    g = serialize.from_dict(copy.deepcopy(d))
    assert serialize.to_dict(g) == d
    assert isinstance(g.get_collection("savers")[0], tf.train.Saver)


def _bad(d, mutate):
    d = copy.deepcopy(d)
    mutate(d)
    return d


CRAFTED = [  # (mutation, words the message must hold)
    (lambda d: _op(d, "y").update(op="NoSuchOp"), ["node 'y'", "NoSuchOp"]),
    (lambda d: _op(d, "y").update(name="y\u00b2"), ["'y\u00b2' is not a valid node name"]),
    (lambda d: _op(d, "y").pop("inputs"), ["node 'y'", "inputs"]),
    (lambda d: _op(d, "y").update(inputs=[{"T": [0, "nothere:0"]}]), ["node 'y'", "nothere:0"]),
    (lambda d: _op(d, "y").update(inputs=[{"T": [7, "x:0"]}, {"T": [0, "w:0"]}]), ["node 'y'", "no graph 7"]),
    (lambda d: _op(d, "y").update(control_inputs=["y"]), ["node 'y'", "control input"]),
    (lambda d: _op(d, "y").update(dtypes=["int32"]), ["node 'y'", "recorded as int32", "float32"]),
    (lambda d: _op(d, "y").update(shapes=[[None, 5]]), ["node 'y'", "shape", "MatMul"]),
    (lambda d: _op(d, "y").update(dtypes=["float32", "float32"], shapes=[None, None]), ["node 'y'", "2 outputs"]),
    (lambda d: _op(d, "y").update(dtypes=["complex1024"]), ["node 'y'", "unknown dtype"]),
    (lambda d: _op(d, "x").update(shapes=[[-1, 2]]), ["node 'x'", "bad size -1"]),
    (lambda d: _op(d, "w").update(shapes=[[3, 1]]), ["node 'w'", "shape"]),
    (lambda d: d["graphs"][0]["ops"].append(dict(_op(d, "y"))), ["duplicate node name 'y'"]),
    (lambda d: d["graphs"][0]["ops"].insert(0, d["graphs"][0]["ops"].pop()), ["node '"]),
    (lambda d: d["graphs"][0].update(ops="nope"), ["'ops' of graph 0"]),
    (lambda d: d.update(graphs=[]), ["non-empty"]),
    (lambda d: _op(d, "y")["attrs"].update(transpose_a={"slice": ["a", 1, 2]}), ["node 'y'", "slice"]),
    (lambda d: _op(d, "y")["attrs"].update(transpose_a={"b": "***"}), ["node 'y'"]),
    (lambda d: _op(d, "y")["attrs"].update(transpose_a={"nd": {"dtype": "float32", "shape": [10 ** 12],
                                                               "data": "AAAA"}}), ["node 'y'", "needs"]),
    (lambda d: _op(d, "y")["attrs"].update(transpose_a={"nd": {"dtype": "object", "shape": [1], "data": ""}}),
     ["node 'y'", "dtype"]),
    (lambda d: _op(d, "y")["attrs"].update(transpose_a={"T": [0, "y:0"]}), ["node 'y'", "y:0"]),
    (lambda d: _op(d, "y")["attrs"].update(transpose_a=_nest(500)), ["node 'y'", "nested"]),
    (lambda d: d["graphs"][0]["extra"].update(_ops=[]), ["may not set attribute '_ops'"]),
    (lambda d: d["graphs"][0]["collections"]["variables"][0]["state"].update(__class__=1),
     ["may not set attribute '__class__'"]),
    (lambda d: d["graphs"][0].update(names_in_use=[["a"]]), ["names_in_use"]),
]


def _nest(n):
    v = 1
    for _ in range(n):
        v = [v]
    return v


@pytest.mark.parametrize("k", range(len(CRAFTED)))
def test_crafted_files_give_clear_errors(tmp_path, k):
    mutate, words = CRAFTED[k]
    d = _bad(_model_dict(), mutate)
    path = tmp_path / "crafted.meta"
    path.write_text(json.dumps(d))
    with tf.Graph().as_default():
        with pytest.raises(GraphFileError) as e:
            tf.train.import_meta_graph(str(path))
    msg = str(e.value)
    assert str(path) in msg
    for w in words:
        assert w in msg, (w, msg)


@pytest.mark.parametrize("text", [b"\xff\xfe", b"[" * 100000, b"{}", b"[]", b'{"format": "tinyflow.graph/1"}',
                                  b'{"format": "tinyflow.graph/1", "graphs": [1]}'])
def test_not_a_graph_file(tmp_path, text):
    path = tmp_path / "junk.meta"
    path.write_bytes(text)
    with tf.Graph().as_default() as g:
        with pytest.raises((GraphFileError, tf.errors.DataLossError), match="junk.meta"):  # or not a protobuf
            tf.train.import_meta_graph(str(path))
        assert g.get_operations() == []


def test_a_device_is_not_read(tmp_path):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    with tf.Graph().as_default():
        with pytest.raises((GraphFileError, tf.errors.DataLossError), match="/dev/zero"):
            tf.train.import_meta_graph("/dev/zero")
