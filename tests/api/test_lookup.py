"""tf.contrib.lookup / tensorflow.python.ops.lookup_ops / tf.lookup against TF 1.15's values
(tests/fixtures/lookup/tf115_lookup.py printed them)."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.api import lookup as lookup_ops

NAMES = ["emerson", "lake", "and", "palmer", "", "lake2"]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "vocab.txt").write_text("emerson\nlake\npalmer\nlake2\n")
    (tmp_path / "tsv.txt").write_text("a\t10\t1.5\nb\t20\t2.5\nc\t30\t3.5\n")
    (tmp_path / "bad.txt").write_text("emerson\nlake\n\npalmer\n")
    return str(tmp_path)


def test_vocabulary_tables_give_tfs_ids(files):
    vocab = files + "/vocab.txt"
    with tf.Graph().as_default():
        names = tf.constant(NAMES)
        t1 = tf.contrib.lookup.index_table_from_file(vocab)
        t2 = lookup_ops.index_table_from_file(vocab, num_oov_buckets=3)
        t3 = tf.contrib.lookup.index_table_from_file(vocab, vocab_size=2, default_value=-5)
        t4 = tf.contrib.lookup.index_table_from_tensor(tf.constant(["emerson", "lake", "palmer"]), num_oov_buckets=2)
        t5 = lookup_ops.index_to_string_table_from_file(vocab)
        t6 = tf.contrib.lookup.index_to_string_table_from_tensor(["a", "b", "c"], default_value="UNKNOWN")
        t10 = tf.contrib.lookup.index_table_from_tensor(tf.constant([3, 9, 4], tf.int64), num_oov_buckets=2,
                                                        dtype=tf.int64)
        ids = t1.lookup(names)
        assert ids.dtype == tf.int64 and ids.shape.as_list() == [6] and t5.lookup(tf.constant([0], tf.int64)).dtype \
            == tf.string
        assert t1.key_dtype == tf.string and t1.value_dtype == tf.int64
        assert len(tf.get_collection(tf.GraphKeys.TABLE_INITIALIZERS)) == 7
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError, match="Table not initialized."):
                sess.run(ids)
            sess.run(tf.tables_initializer())
            sess.run(tf.tables_initializer())   # again: TF leaves the tables as they are
            assert sess.run(ids).tolist() == [0, 1, -1, 2, -1, 3]
            assert sess.run(t1.size()) == 4
            assert sess.run(t3.lookup(names)).tolist() == [0, 1, -5, -5, -5, -5]
            assert [x.decode() for x in sess.run(t5.lookup(tf.constant([0, 2, 7, -1, 3], tf.int64)))] == [
                "emerson", "palmer", "UNK", "UNK", "lake2"]
            got = sess.run(t6.lookup(tf.constant([[0, 2], [7, 1]], tf.int64)))
            assert got.shape == (2, 2) and [x.decode() for x in got.reshape(-1)] == ["a", "c", "UNKNOWN", "b"]
            if _has_farmhash():   # OOV buckets: TF's Fingerprint64
                assert sess.run(t2.lookup(names)).tolist() == [0, 1, 4, 2, 6, 3] and sess.run(t2.size()) == 7
                assert sess.run(t4.lookup(names)).tolist() == [0, 1, 4, 2, 4, 4]
                assert sess.run(t10.lookup(tf.constant([9, 3, 100, 5], tf.int64))).tolist() == [1, 0, 4, 4]


def _has_farmhash():
    try:
        import farmhash  # noqa: F401
        return True
    except ImportError:
        return False


def test_hash_tables_from_tensors_and_text_files(files):
    with tf.Graph().as_default():
        t7 = tf.contrib.lookup.HashTable(tf.contrib.lookup.KeyValueTensorInitializer(
            tf.constant([1, 5, 7], tf.int64), tf.constant([0.5, 1.5, 2.5])), -1.0)
        t8 = tf.contrib.lookup.HashTable(tf.contrib.lookup.TextFileInitializer(
            files + "/tsv.txt", tf.string, 0, tf.int64, 1, delimiter="\t"), -1)
        idx = tf.contrib.lookup.TextFileIndex
        t9 = tf.contrib.lookup.HashTable(tf.contrib.lookup.TextFileInitializer(
            files + "/vocab.txt", tf.string, idx.WHOLE_LINE, tf.int64, idx.LINE_NUMBER), -1)
        with tf.Session() as sess:
            sess.run(tf.tables_initializer())
            np.testing.assert_array_equal(sess.run(t7.lookup(tf.constant([5, 6, 1], tf.int64))), [1.5, -1.0, 0.5])
            assert sess.run(t8.lookup(tf.constant(["c", "a", "z"]))).tolist() == [30, 10, -1]
            assert sess.run(t9.lookup(tf.constant(["palmer", "", "lake2", "x"]))).tolist() == [2, -1, 3, -1]
        with pytest.raises(TypeError, match=r"Signature mismatch. Keys must be dtype <dtype: 'int64'>, got "
                                            r"<dtype: 'int32'>."):
            t7.lookup(tf.constant([1, 2], tf.int32))
        with pytest.raises(ValueError, match=r"Dimension 0 in both shapes must be equal, but are 2 and 1. Shapes are "
                                             r"\[2\] and \[1\]"):
            tf.contrib.lookup.HashTable(tf.contrib.lookup.KeyValueTensorInitializer([1, 2], [1.0]), -1.0)


@pytest.mark.parametrize("make", [tf.contrib.lookup.index_table_from_file,
                                  tf.contrib.lookup.index_to_string_table_from_file])
def test_bad_vocabulary_files_give_tfs_errors(files, make):
    with tf.Graph().as_default():
        make(files + "/bad.txt")
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="Invalid content in .*bad.txt: empty line found at position 14."):
                sess.run(tf.tables_initializer())
    with tf.Graph().as_default():
        make(files + "/missing.txt")
        with tf.Session() as sess:
            with pytest.raises(tf.errors.NotFoundError, match="missing.txt; No such file or directory"):
                sess.run(tf.tables_initializer())


def test_lookup_of_sparse_keys_and_in_a_dataset_map(files):
    """NMT-style input pipelines: a vocabulary table looked up in dataset.map, initialized with the tables."""
    with tf.Graph().as_default():
        table = tf.contrib.lookup.index_table_from_file(files + "/vocab.txt")
        sp = table.lookup(tf.string_split(["lake emerson x", "palmer"]))
        ds = tf.data.Dataset.from_tensor_slices(tf.constant(["lake palmer", "x emerson lake"]))
        ds = ds.map(lambda line: tf.cast(table.lookup(tf.string_split([line]).values), tf.int32))
        it = ds.make_initializable_iterator()
        nxt = it.get_next()
        with tf.Session() as sess:
            sess.run([tf.tables_initializer(), it.initializer])
            got = sess.run(sp)
            assert got.values.tolist() == [1, 0, -1, 2] and got.dense_shape.tolist() == [2, 3]
            assert sess.run(nxt).tolist() == [1, 2] and sess.run(nxt).tolist() == [-1, 0, 1]


def test_python_ops_lookup_ops_module_path():
    from tinyflow.api import importer
    shim = importer.internal("python.ops.lookup_ops")
    assert shim.index_to_string_table_from_file is lookup_ops.index_to_string_table_from_file
    assert shim.tables_initializer is tf.tables_initializer and shim.HashTable is tf.contrib.lookup.HashTable
    assert tf.lookup.StaticHashTable is tf.contrib.lookup.HashTable


def test_monitored_session_initializes_tables_as_tf():
    """TF's Scaffold runs tf.tables_initializer() with the local variables (TF 1.15 prints [1 -1] here)."""
    with tf.Graph().as_default():
        table = tf.contrib.lookup.index_table_from_tensor(["a", "b"])
        ids = table.lookup(tf.constant(["b", "q"]))
        with tf.train.MonitoredTrainingSession() as sess:
            assert sess.run(ids).tolist() == [1, -1]


def test_dense_hash_table_as_tf():
    """tests/fixtures/lookup/make_dense_hash_table.py's `record` run with tinyflow gives TF 1.15's recording."""
    import importlib.util
    import json
    import os
    here = os.path.join(os.path.dirname(__file__), "..", "fixtures", "lookup")
    spec = importlib.util.spec_from_file_location("make_dense_hash_table",
                                                  os.path.join(here, "make_dense_hash_table.py"))
    maker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(maker)
    with open(os.path.join(here, "dense_hash_table.json")) as f:
        assert maker.record(tf) == json.load(f)
