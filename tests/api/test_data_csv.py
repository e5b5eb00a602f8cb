"""make_csv_dataset, CsvDataset, map_and_batch, batch_and_drop_remainder and tf.data.Options against
TF 1.15 (tests/fixtures/tf115_data/o_csv.py, o_opt.py)."""
import numpy as np
import pytest

import tinyflow as tf


@pytest.fixture
def csv_dir(tmp_path):
    (tmp_path / "a.csv").write_text("id,height,name,big,label\n1,1.5,ann,3000000000,0\n2,,bob,4,1\n"
                                    "3,2.25,\"c,d\",5,1\n")
    (tmp_path / "b.csv").write_text("id,height,name,big,label\n4,3.0,dan,6,0\n5,0.5,eve,7,1\n")
    return str(tmp_path)


def _all(ds, limit=1000):
    nxt, out = ds.make_one_shot_iterator().get_next(), []
    with tf.Session() as sess:
        try:
            for _ in range(limit):
                out.append(sess.run(nxt))
        except tf.errors.OutOfRangeError:
            pass
    return out


def _plain(v):
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, tuple):
        return [_plain(x) for x in v]
    return [x.decode() if isinstance(x, bytes) else x.item() for x in np.asarray(v).reshape(-1)]


def test_make_csv_dataset_unshuffled_one_epoch_is_tfs(csv_dir):
    with tf.Graph().as_default():
        ds = tf.data.experimental.make_csv_dataset(csv_dir + "/*.csv", batch_size=2, label_name="label",
                                                   shuffle=False, num_epochs=1)
        features, label = ds.output_types
        assert list(features) == ["id", "height", "name", "big"]
        assert {k: v.name for k, v in features.items()} == {"id": "int32", "height": "float32", "name": "string",
                                                            "big": "int64"} and label == tf.int32
        assert all(s.as_list() == [None] for s in ds.output_shapes[0].values())
        got = [_plain(b) for b in _all(ds)]
    assert got == [[{"id": [1, 2], "height": [1.5, 0.0], "name": ["ann", "bob"], "big": [3000000000, 4]}, [0, 1]],
                   [{"id": [3, 4], "height": [2.25, 3.0], "name": ["c,d", "dan"], "big": [5, 6]}, [1, 0]],
                   [{"id": [5], "height": [0.5], "name": ["eve"], "big": [7]}, [1]]]


def test_make_csv_dataset_defaults_repeat_forever_with_full_batches(csv_dir):
    with tf.Graph().as_default():
        ds = tf.data.experimental.make_csv_dataset(csv_dir + "/*.csv", batch_size=2)
        assert {k: s.as_list() for k, s in ds.output_shapes.items()} == {k: [2] for k in
                                                                          ["id", "height", "name", "big", "label"]}
        got = _all(ds, 7)   # TF: num_epochs=None repeats, so 7 batches (of 5 records) come
        ids = sorted(int(i) for b in got for i in b["id"])
    assert len(got) == 7 and set(ids) == {1, 2, 3, 4, 5}


def test_make_csv_dataset_select_columns_and_given_defaults(csv_dir):
    with tf.Graph().as_default():
        ds = tf.data.experimental.make_csv_dataset(csv_dir + "/a.csv", batch_size=3, select_columns=["name", "id"],
                                                   column_defaults=[tf.int64, tf.string], shuffle=False, num_epochs=2)
        assert {k: v.name for k, v in ds.output_types.items()} == {"id": "int64", "name": "string"}
        got = [_plain(b) for b in _all(ds)]
    assert got == [{"id": [1, 2, 3], "name": ["ann", "bob", "c,d"]}] * 2
    with pytest.raises(ValueError, match="No files match .*none"):
        tf.data.experimental.make_csv_dataset(csv_dir + "/*.none", batch_size=2)


def test_csv_dataset_values_and_tfs_errors(csv_dir):
    with tf.Graph().as_default():
        ds = tf.data.experimental.CsvDataset(csv_dir + "/a.csv", [tf.int32, [0.0], [""], tf.int64], header=True,
                                             select_cols=[0, 1, 2, 3])
        assert [s.as_list() for s in ds.output_shapes] == [[]] * 4
        got = [_plain(b) for b in _all(ds)]
        assert got == [[[1], [1.5], ["ann"], [3000000000]], [[2], [0.0], ["bob"], [4]], [[3], [2.25], ["c,d"], [5]]]
        with pytest.raises(tf.errors.InvalidArgumentError, match="Field 3 in record is not a valid int32: 3000000000"):
            _all(tf.data.experimental.CsvDataset(csv_dir + "/a.csv", [tf.int32, [0.0], [""], [0], tf.int64],
                                                 header=True))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Field 1 is required but missing in record!"):
            _all(tf.data.experimental.CsvDataset(csv_dir + "/a.csv", [tf.int32, tf.float32], header=True,
                                                 select_cols=[0, 1]))


def test_map_and_batch_and_batch_and_drop_remainder():
    with tf.Graph().as_default():
        for fn in (tf.contrib.data.map_and_batch, tf.data.experimental.map_and_batch):
            ds = tf.data.Dataset.range(7).apply(fn(lambda x: x * 2, 3))
            assert ds.output_shapes.as_list() == [None]
            assert [_plain(b) for b in _all(ds)] == [[0, 2, 4], [6, 8, 10], [12]]
            ds = tf.data.Dataset.range(7).apply(fn(lambda x: x * 2, 3, drop_remainder=True))
            assert ds.output_shapes.as_list() == [3]
            assert [_plain(b) for b in _all(ds)] == [[0, 2, 4], [6, 8, 10]]
        ds = tf.data.Dataset.range(7).apply(tf.contrib.data.batch_and_drop_remainder(2))
        assert ds.output_shapes.as_list() == [2]
        assert [_plain(b) for b in _all(ds)] == [[0, 1], [2, 3], [4, 5]]
        assert tf.contrib.data.AUTOTUNE == tf.data.experimental.AUTOTUNE == -1


def test_options_attributes_merge_and_errors_are_tfs():
    o = tf.data.Options()
    assert o.experimental_deterministic is None and o.experimental_slack is None
    assert o.experimental_distribute.auto_shard is True and o.experimental_distribute.num_devices is None
    assert o.experimental_optimization.autotune is None
    assert o.experimental_optimization.map_vectorization.enabled is None
    assert o.experimental_threading.private_threadpool_size is None
    assert o.experimental_stats.prefix == "" and o.experimental_stats.counter_prefix == ""
    with pytest.raises(AttributeError, match="Cannot set the property foo on Options."):
        o.foo = 1
    with pytest.raises(TypeError, match='Property "experimental_deterministic" must be of type'):
        o.experimental_deterministic = 3
    o.experimental_deterministic = False
    p = tf.data.Options()
    p.experimental_optimization.autotune = False
    m = o.merge(p)
    assert m.experimental_deterministic is False and m.experimental_optimization.autotune is False
    assert o != p and tf.data.Options() == tf.data.Options()
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(3).with_options(o).with_options(p).map(lambda x: x + 1)
        assert ds.options().experimental_deterministic is False and ds.options().experimental_optimization.autotune \
            is False
        assert [_plain(b) for b in _all(ds)] == [[1], [2], [3]]
        q = tf.data.Options()
        q.experimental_deterministic = True
        with pytest.raises(ValueError, match=r"Cannot merge incompatible values \(False and True\) of option: "
                                             "experimental_deterministic"):
            tf.data.Dataset.range(3).with_options(o).with_options(q)
