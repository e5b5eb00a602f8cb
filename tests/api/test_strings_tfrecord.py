"""TFRecord files, tf.train.Example and its parsing, and tf.data's file datasets.

tests/fixtures/strings/ holds a TFRecord file real TF 1.15 wrote and what TF parsed from it
(expected.json), made by tests/fixtures/strings/make.py."""
import json
import os
from paths import TESTS as _TESTS  # the tests/ folder

import numpy as np
import pytest

import tinyflow as tf


HERE = os.path.join(_TESTS, "fixtures", "strings")
RECORDS = os.path.join(HERE, "examples.tfrecord")
with open(os.path.join(HERE, "expected.json")) as _f:
    EXPECTED = json.load(_f)


def features():
    return {"id": tf.FixedLenFeature([], tf.int64), "xy": tf.FixedLenFeature([2], tf.float32),
            "name": tf.FixedLenFeature([], tf.string), "tags": tf.VarLenFeature(tf.int64),
            "missing": tf.FixedLenFeature([1], tf.float32, default_value=[7.0])}


def plain(v):
    if isinstance(v, tf.SparseTensorValue):
        return {"indices": v.indices.tolist(), "values": v.values.tolist(), "dense_shape": v.dense_shape.tolist()}
    if isinstance(v, np.ndarray) and v.dtype == object:
        return [x.decode() for x in v.reshape(-1)]
    return v.decode() if isinstance(v, bytes) else np.asarray(v).tolist()


def example(i):
    return tf.train.Example(features=tf.train.Features(feature={
        "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
        "xy": tf.train.Feature(float_list=tf.train.FloatList(value=[i * 0.5, -i])),
        "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"rec%d" % i])),
        "tags": tf.train.Feature(int64_list=tf.train.Int64List(value=list(range(i)))),
    }))


def test_reads_the_file_tf_wrote():
    records = list(tf.python_io.tf_record_iterator(RECORDS))
    assert [r.hex() for r in records] == EXPECTED["records"]


def test_writes_what_tf_wrote(tmp_path):
    """The same Examples, framed by tinyflow's writer, give the bytes TF wrote (crc32c included);
    the examples' fields parse back."""
    path = str(tmp_path / "out.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for i in range(3):
            w.write(example(i).SerializeToString())
    back = list(tf.io.tf_record_iterator(path))
    for got, want in zip(back, EXPECTED["records"]):
        ex_got, ex_want = tf.train.Example.FromString(got), tf.train.Example.FromString(bytes.fromhex(want))
        assert ex_got == ex_want
    assert [tf.train.Example.FromString(r).features.feature["id"].int64_list.value[0] for r in back] == [0, 1, 2]
    # one record written as TF frames it: length, masked crc of length, data, masked crc of data
    with open(RECORDS, "rb") as f:
        tf_bytes = f.read()
    path2 = str(tmp_path / "same.tfrecord")
    with tf.python_io.TFRecordWriter(path2) as w:
        for r in EXPECTED["records"]:
            w.write(bytes.fromhex(r))
    with open(path2, "rb") as f:
        assert f.read() == tf_bytes


@pytest.mark.parametrize("compression", ["GZIP", "ZLIB"])
def test_compressed_round_trip(tmp_path, compression):
    path = str(tmp_path / "c.tfrecord")
    opts = tf.io.TFRecordOptions(compression)
    with tf.io.TFRecordWriter(path, opts) as w:
        for r in [b"a", b"", b"xyz" * 100]:
            w.write(r)
    assert list(tf.io.tf_record_iterator(path, opts)) == [b"a", b"", b"xyz" * 100]
    ds = tf.data.TFRecordDataset(path, compression_type=compression)
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as s:
        assert s.run(nxt) == b"a"


def test_corrupted_record_is_data_loss_naming_the_file(tmp_path):
    with open(RECORDS, "rb") as f:
        data = bytearray(f.read())
    data[20] ^= 0xFF  # inside the first record's data
    bad = tmp_path / "bad.tfrecord"
    bad.write_bytes(bytes(data))
    with pytest.raises(tf.errors.DataLossError, match="bad.tfrecord"):
        list(tf.python_io.tf_record_iterator(str(bad)))
    bad.write_bytes(bytes(data[:30]))  # truncated
    with pytest.raises(tf.errors.DataLossError, match="truncated record at 0 in file .*bad.tfrecord"):
        list(tf.python_io.tf_record_iterator(str(bad)))
    nxt = tf.data.TFRecordDataset(str(bad)).make_one_shot_iterator().get_next()
    with tf.Session() as s, pytest.raises(tf.errors.DataLossError, match="bad.tfrecord"):
        s.run(nxt)


def test_parse_single_example_and_parse_example_as_tf():
    records = list(tf.python_io.tf_record_iterator(RECORDS))
    single = tf.parse_single_example(records[2], features())
    batch = tf.parse_example(records, features())
    assert single["xy"].shape.as_list() == [2] and batch["xy"].shape.as_list() == [3, 2]
    assert isinstance(batch["tags"], tf.SparseTensor)
    with tf.Session() as s:
        one, many = s.run([single, batch])
    assert {k: plain(v) for k, v in one.items()} == EXPECTED["single"]
    assert {k: plain(v) for k, v in many.items()} == EXPECTED["batch"]


def test_parse_errors():
    rec = example(1).SerializeToString()
    # TF 1.15's messages, for parse_single_example then parse_example
    cases = [({"nope": tf.FixedLenFeature([], tf.int64)},
              "Feature: nope (data type: int64) is required but could not be found."),
             ({"id": tf.FixedLenFeature([], tf.float32)},
              "Key: id.  Data types don't match. Data type: int64 but expected type: float"),
             ({"id": tf.FixedLenFeature([], tf.float32)},
              "Name: <unknown>, Key: id, Index: 0.  Data types don't match. Data type: int64 but expected type: float"),
             ({"xy": tf.FixedLenFeature([3], tf.float32)}, "Key: xy.  Can't parse serialized Example."),
             ({"xy": tf.FixedLenFeature([3], tf.float32)}, "Name: <unknown>, Key: xy, Index: 0.  Number of float "
              "values != expected.  Values size: 2 but output shape: [3]")]
    with tf.Session() as s:
        for spec, msg in cases[:2] + cases[3:4]:
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                s.run(tf.parse_single_example(rec, spec))
            assert str(e.value) == msg
        for spec, msg in [cases[0], cases[2], cases[4]]:
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                s.run(tf.parse_example([rec], spec))
            assert str(e.value) == (msg if msg.startswith("Name") else "Name: <unknown>, " + msg)


def test_datasets_of_files_as_tf():
    feats = features()
    ds = tf.data.TFRecordDataset(RECORDS).map(lambda r: tf.parse_single_example(r, feats)["id"])
    nxt = ds.make_one_shot_iterator().get_next()
    lines = tf.data.TextLineDataset(os.path.join(HERE, "lines.txt")).skip(1)
    line = lines.make_one_shot_iterator().get_next()
    with tf.Session() as s:
        assert [int(s.run(nxt)) for _ in range(3)] == EXPECTED["dataset_ids"]
        assert [s.run(line).decode() for _ in range(3)] == EXPECTED["lines"]
        with pytest.raises(tf.errors.OutOfRangeError):
            s.run(line)


def test_text_line_dataset_with_fed_file_names_and_batched_csv(tmp_path):
    paths = []
    for k in range(2):
        p = tmp_path / ("f%d.csv" % k)
        p.write_text("".join("%d,%d.5\n" % (10 * k + i, i) for i in range(3)))
        paths.append(str(p))
    names = tf.placeholder(tf.string, [None])
    ds = tf.data.TextLineDataset(names).map(lambda line: tuple(tf.decode_csv(line, [[0], [0.0]]))).batch(4)
    it = ds.make_initializable_iterator()
    a, b = it.get_next()
    total = tf.reduce_sum(b)
    with tf.Session() as s:
        s.run(it.initializer, {names: paths})
        got_a, got_total = s.run([a, total])
        assert got_a.tolist() == [0, 1, 2, 10] and got_total == pytest.approx(0.5 + 1.5 + 2.5 + 0.5)
        assert s.run(a).tolist() == [11, 12]
        with pytest.raises(tf.errors.OutOfRangeError):
            s.run(a)
