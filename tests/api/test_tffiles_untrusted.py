"""TF's files are untrusted input: every bad file gives a TF-style error naming it, and changes nothing.
(Random damage, with hypothesis: test_tffiles_fuzz.py.)"""
import os
import shutil

import numpy as np
import pytest

import tinyflow as tf
from tffiles_model import FIX
from tinyflow.formats import table
from tinyflow.formats.protos import bundle

BARE = os.path.join(FIX, "bare", "bare")
DATA = ".data-00000-of-00001"


def _copy(tmp_path, prefix=BARE):
    dst = str(tmp_path / "ck")
    for ext in (".index", DATA):
        shutil.copy(prefix + ext, dst + ext)
    return dst


def _restore_fails(prefix, error, match):
    """Restoring `prefix` raises `error` matching `match`, and the variables keep their values."""
    with tf.Graph().as_default():
        counter = tf.Variable(np.array([7, 7, 7], np.int64), name="counter")
        emb = tf.Variable(np.full([6, 2], 7, np.float32), name="emb")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(error, match=match):
                tf.train.Saver([counter, emb]).restore(sess, prefix)
            np.testing.assert_array_equal(sess.run(counter), [7, 7, 7])
            np.testing.assert_array_equal(sess.run(emb), np.full([6, 2], 7))


def _mutate(path, fn):
    data = bytearray(open(path, "rb").read())
    open(path, "wb").write(bytes(fn(data)))


def test_truncated_index(tmp_path):
    p = _copy(tmp_path)
    _mutate(p + ".index", lambda d: d[:len(d) - 10])
    _restore_fails(p, tf.errors.DataLossError, "ck.index")


def test_index_checksum_mismatch(tmp_path):
    p = _copy(tmp_path)

    def flip(d):
        d[20] ^= 0x40  # inside the data block: its crc32c no longer matches
        return d
    _mutate(p + ".index", flip)
    _restore_fails(p, tf.errors.DataLossError, "checksum mismatch")


def test_truncated_data_file(tmp_path):
    p = _copy(tmp_path)
    _mutate(p + DATA, lambda d: d[:40])
    _restore_fails(p, tf.errors.DataLossError, "outside its data file")


def test_corrupted_data_fails_checksum_before_any_assign(tmp_path):
    p = _copy(tmp_path)

    def flip(d):
        d[0] ^= 0xFF  # a slice of emb, read after counter: still nothing is assigned
        return d
    _mutate(p + DATA, flip)
    _restore_fails(p, tf.errors.DataLossError, "Checksum does not match")


def _rewrite_entry(prefix, name, **fields):
    items = table.read_table(open(prefix + ".index", "rb").read(), "x")
    out = []
    for k, v in items:
        if k == name.encode():
            e = bundle().BundleEntryProto()
            e.ParseFromString(v)
            for f, val in fields.items():
                setattr(e, f, val)
            v = e.SerializeToString()
        out.append((k, v))
    open(prefix + ".index", "wb").write(table.write_table(out))


def test_index_naming_data_outside_the_checkpoint(tmp_path):
    p = _copy(tmp_path)
    _rewrite_entry(p, "counter", offset=1 << 40)
    _restore_fails(p, tf.errors.DataLossError, "counter lies outside its data file")
    _rewrite_entry(p, "counter", offset=0, shard_id=3)
    _restore_fails(p, tf.errors.DataLossError, "shard 3")


def test_huge_shape_in_index_is_refused(tmp_path):
    p = _copy(tmp_path)
    items = table.read_table(open(p + ".index", "rb").read(), "x")
    e = bundle().BundleEntryProto()
    e.ParseFromString(dict(items)[b"counter"])
    e.shape.dim[0].size = 1 << 60
    open(p + ".index", "wb").write(table.write_table([(k, e.SerializeToString() if k == b"counter" else v)
                                                      for k, v in items]))
    _restore_fails(p, tf.errors.DataLossError, "cannot be 24 bytes")


def test_missing_data_file(tmp_path):
    p = _copy(tmp_path)
    os.remove(p + DATA)
    _restore_fails(p, tf.errors.NotFoundError, "ck.data-00000-of-00001")


# ---- GraphDefs ---------------------------------------------------------------------------------------
def _gd(text):
    from google.protobuf import text_format
    return text_format.Parse(text, tf.GraphDef())


_F32 = 'attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } }'


def _import_fails(gd, match):
    n = len(tf.get_default_graph().get_operations())
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        tf.import_graph_def(gd)
    assert len(tf.get_default_graph().get_operations()) == n  # nothing was added


def test_graph_def_with_a_cycle():
    _import_fails(_gd('node { name: "a" op: "Relu" input: "b" } node { name: "b" op: "Relu" input: "a" }'),
                  "cycle.*a -> b -> a|cycle.*b -> a -> b")


def test_graph_def_missing_input():
    _import_fails(_gd('node { name: "x" op: "Placeholder" %s } node { name: "r" op: "Relu" input: "nope" }' % _F32),
                  "Node 'r'.*Unknown input node 'nope'")


def test_graph_def_bad_attr_type():
    _import_fails(_gd('node { name: "x" op: "Placeholder" attr { key: "dtype" value { i: 3 } } }'),
                  "Node 'x'.*attr 'dtype' has type i, expected type")


def test_graph_def_huge_const_is_refused_without_allocating():
    _import_fails(_gd('node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: '
                      '"value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 100000000000 } } '
                      'float_val: 1 } } } }'), "Node 'c'.*too large")


def test_graph_def_unsupported_ops_listed_at_once():
    _import_fails(_gd('node { name: "x" op: "Placeholder" %s } node { name: "a" op: "FancyOp" input: "x" } '
                      'node { name: "b" op: "OtherOp" input: "a" } node { name: "c" op: "FancyOp" input: "b" }' % _F32),
                  r"2 op type\(s\) are not supported: FancyOp \(e.g. node 'a'\), OtherOp \(e.g. node 'b'\)")


def test_failed_build_removes_what_it_added():
    gd = _gd('node { name: "x" op: "Placeholder" %s } node { name: "y" op: "Placeholder" attr { key: "dtype" value '
             '{ type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 3 } } } } } '
             'node { name: "s" op: "Add" input: "x" input: "y" }' % _F32)
    _import_fails(gd, "Node 's'")
    assert "import/x" not in [op.name for op in tf.get_default_graph().get_operations()]


def test_corrupted_meta_file(tmp_path):
    (tmp_path / "m.meta").write_bytes(b"\x0a\xff\xff\xff garbage")
    with pytest.raises(tf.errors.DataLossError, match="m.meta"):
        tf.train.import_meta_graph(str(tmp_path / "m.meta"))
