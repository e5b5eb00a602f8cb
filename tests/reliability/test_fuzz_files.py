"""Hypothesis fuzzing of the file readers: any mutation of a graph JSON, a .meta file or a
checkpoint index either loads or raises the one clear error class (GraphFileError /
tf.errors.DataLossError or NotFoundError) naming the file: never another exception, never a read
outside the checkpoint."""
import copy
import json
import os

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

import tinyflow as tf  # noqa: E402
from tinyflow.graph import serialize  # noqa: E402
from tinyflow.graph.serialize import GraphFileError  # noqa: E402
from tinyflow.formats import checkpoint  # noqa: E402

# TINYFLOW_FUZZ_EXAMPLES=2000 runs a longer, random (not derandomized) campaign
_LONG = int(os.environ.get("TINYFLOW_FUZZ_EXAMPLES", "0"))
SETTINGS = settings(max_examples=_LONG or 60, deadline=None, derandomize=not _LONG,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70) | st.floats(allow_nan=False) | st.text(max_size=8)
    | st.sampled_from(["T", "O", "G", "obj", "nd", "float32", "x:0", "w", "y:0", "MatMul", "tinyflow.graph.core:Graph",
                       "tinyflow.ops.state_ops:Variable", "os:system", "/dev/zero", "../x.npz"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["T", "O", "G", "dt", "sh", "nd", "np", "b", "tuple", "dict", "slice", "obj", "state",
                         "dtype", "shape", "data", "name", "op", "x"]), inner, max_size=3),
    max_leaves=12)


def _model():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        w = tf.Variable(np.ones((2, 1), np.float32), name="w")
        y = tf.matmul(x, w, name="y")
        tf.cond(tf.reduce_sum(y) > 0, lambda: y * 2.0, lambda: y)
        tf.add_to_collection("savers", tf.train.Saver())
    return serialize.to_dict(g)


MODEL = _model()


def _paths(v, prefix=()):
    """Every path (tuple of keys/indexes) into a JSON value."""
    yield prefix
    if isinstance(v, dict):
        for k, x in v.items():
            yield from _paths(x, prefix + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from _paths(x, prefix + (i,))


ALL_PATHS = [p for p in _paths(MODEL) if p]


def _mutate(doc, path, new, delete):
    doc = copy.deepcopy(doc)
    parent = doc
    for k in path[:-1]:
        parent = parent[k]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = new
    return doc


@pytest.mark.slow
@SETTINGS
@given(path=st.sampled_from(ALL_PATHS), new=json_values, delete=st.booleans())
def test_fuzz_graph_json(path, new, delete):
    doc = _mutate(MODEL, path, new, delete)
    try:
        text = json.dumps(doc)
    except (ValueError, OverflowError):
        return
    try:
        g = tf.Graph.from_json(text)
    except GraphFileError as e:
        assert "<graph JSON>" in str(e)
        return
    assert isinstance(g, tf.Graph)


@SETTINGS
@given(pos=st.integers(0, 10 ** 9), chunk=st.binary(min_size=1, max_size=6), cut=st.booleans())
def test_fuzz_meta_file_bytes(tmp_path_factory, pos, chunk, cut):
    raw = json.dumps(MODEL).encode()
    pos %= len(raw)
    raw = raw[:pos] if cut else raw[:pos] + chunk + raw[pos + len(chunk):]
    path = tmp_path_factory.mktemp("meta") / "fuzz.meta"
    path.write_bytes(raw)
    with tf.Graph().as_default() as g:
        try:
            tf.train.import_meta_graph(str(path))
        except (GraphFileError, tf.errors.DataLossError) as e:  # DataLossError: not a protobuf MetaGraphDef either
            assert str(path) in str(e)
            assert g.get_operations() == []


@pytest.mark.slow
@SETTINGS
@given(path=st.sampled_from(ALL_PATHS), new=json_values)
def test_fuzz_meta_file_values(tmp_path_factory, path, new):
    try:
        text = json.dumps(_mutate(MODEL, path, new, False))
    except (ValueError, OverflowError):
        return
    p = tmp_path_factory.mktemp("meta") / "fuzz.meta"
    p.write_text(text)
    with tf.Graph().as_default():
        try:
            tf.train.import_meta_graph(str(p))
        except GraphFileError as e:
            assert str(p) in str(e)


def _checkpoint(folder):
    prefix = str(folder / "model")
    checkpoint.write_checkpoint(prefix, {"w": (tf.float32, np.arange(6, dtype=np.float32).reshape(2, 3)),
                                         "n": (tf.int64, np.array(7, np.int64)),
                                         "b": (tf.bfloat16, np.ones(3, tf.bfloat16.np))})
    with open(prefix + ".index") as f:
        return prefix, json.load(f)


def _read_all(prefix):
    try:
        reader = checkpoint.CheckpointReader(prefix)
    except (tf.errors.DataLossError, tf.errors.NotFoundError) as e:
        assert "model" in str(e)
        return
    for name in reader.get_variable_to_shape_map():
        try:
            a = reader.get_tensor(name)
        except tf.errors.DataLossError as e:
            assert "model" in str(e)
            continue
        assert list(a.shape) == reader.get_variable_to_shape_map()[name]


@pytest.mark.slow
@SETTINGS
@given(key=st.sampled_from(["format", "data", "size", "sha256", "variables", "w", "n", "b", "dtype", "shape"]),
       new=json_values)
def test_fuzz_checkpoint_index_values(tmp_path_factory, key, new):
    prefix, index = _checkpoint(tmp_path_factory.mktemp("ck"))
    if key in index:
        index[key] = new
    elif key in index["variables"]:
        index["variables"][key] = new
    else:
        index["variables"]["w"][key] = new
    try:
        text = json.dumps(index)
    except (ValueError, OverflowError):
        return
    with open(prefix + ".index", "w") as f:
        f.write(text)
    _read_all(prefix)


@SETTINGS
@given(pos=st.integers(0, 10 ** 9), chunk=st.binary(min_size=1, max_size=4), target=st.sampled_from(["index", "npz"]))
def test_fuzz_checkpoint_bytes(tmp_path_factory, pos, chunk, target):
    prefix, _ = _checkpoint(tmp_path_factory.mktemp("ck"))
    path = prefix + "." + target
    raw = open(path, "rb").read()
    pos %= len(raw)
    with open(path, "wb") as f:
        f.write(raw[:pos] + chunk + raw[pos + len(chunk):])
    _read_all(prefix)
