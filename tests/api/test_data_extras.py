"""tf.data.experimental / tf.contrib.data extras and tf.sparse_placeholder against TF 1.15
(tests/fixtures/tf115_data/o_more.py printed these values)."""
import pytest

import tinyflow as tf


def test_get_single_element_and_its_tf_errors():
    with tf.Graph().as_default(), tf.Session() as sess:
        x, s = tf.data.experimental.get_single_element(tf.data.Dataset.from_tensors(([1, 2], "a")))
        assert x.shape.as_list() == [2] and s.dtype == tf.string
        got = sess.run([x, s])
        assert got[0].tolist() == [1, 2] and got[1] == b"a"
        assert sess.run(x).tolist() == [1, 2]   # computed again at each run
        with pytest.raises(tf.errors.InvalidArgumentError, match="Dataset had more than one element."):
            sess.run(tf.contrib.data.get_single_element(tf.data.Dataset.range(3)))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Dataset was empty."):
            sess.run(tf.data.experimental.get_single_element(tf.data.Dataset.range(0)))


def test_enumerate_dataset():
    with tf.Graph().as_default(), tf.Session() as sess:
        ds = tf.data.Dataset.from_tensor_slices(["a", "b", "c"]).apply(tf.contrib.data.enumerate_dataset(start=5))
        assert ds.output_types == (tf.int64, tf.string)
        nxt = ds.make_one_shot_iterator().get_next()
        assert [[int(a), b.decode()] for a, b in (sess.run(nxt) for _ in range(3))] == [[5, "a"], [6, "b"], [7, "c"]]


def test_tfrecord_writer_writes_when_run(tmp_path):
    path = str(tmp_path / "w.tfrecord")
    with tf.Graph().as_default(), tf.Session() as sess:
        op = tf.data.experimental.TFRecordWriter(path).write(tf.data.Dataset.from_tensor_slices(["x", "yy", "zzz"]))
        assert isinstance(op, tf.Operation)
        sess.run(op)
    assert [r.decode() for r in tf.io.tf_record_iterator(path)] == ["x", "yy", "zzz"]
    with pytest.raises(TypeError, match="must produce scalar `DT_STRING` tensors"):
        tf.data.experimental.TFRecordWriter(path).write(tf.data.Dataset.range(3))


def _example(i):
    return tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(int64_list=tf.train.Int64List(value=[i, i * 10])),
        "y": tf.train.Feature(float_list=tf.train.FloatList(value=[i / 2.0]))})).SerializeToString()


def test_make_batched_features_dataset_is_tfs(tmp_path):
    path = str(tmp_path / "f.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for i in range(5):
            w.write(_example(i))
    features = {"x": tf.FixedLenFeature([2], tf.int64), "y": tf.FixedLenFeature([], tf.float32)}
    with tf.Graph().as_default(), tf.Session() as sess:
        ds = tf.data.experimental.make_batched_features_dataset(path, 2, features, label_key="y", shuffle=False,
                                                                num_epochs=1)
        assert {k: v.name for k, v in ds.output_types[0].items()} == {"x": "int64"} and ds.output_types[1] == tf.float32
        assert ds.output_shapes[0]["x"].as_list() == [None, 2] and ds.output_shapes[1].as_list() == [None]
        nxt, got = ds.make_one_shot_iterator().get_next(), []
        while True:
            try:
                f, label = sess.run(nxt)
            except tf.errors.OutOfRangeError:
                break
            got.append([f["x"].tolist(), label.tolist()])
        assert got == [[[[0, 0], [1, 10]], [0.0, 0.5]], [[[2, 20], [3, 30]], [1.0, 1.5]], [[[4, 40]], [2.0]]]
        ds = tf.contrib.data.make_batched_features_dataset(path, 2, {"x": tf.FixedLenFeature([2], tf.int64)})
        assert ds.output_shapes["x"].as_list() == [2, 2]   # repeated forever: full batches


def test_sparse_placeholder_is_tfs():
    with tf.Graph().as_default(), tf.Session() as sess:
        sp = tf.sparse_placeholder(tf.int32)
        assert sp.indices.shape.as_list() == [None, None] and sp.values.dtype == tf.int32
        assert sp.dense_shape.shape.as_list() == [None]
        sp2 = tf.sparse.placeholder(tf.float32, shape=[3, 4], name="x")
        assert sp2.indices.name == "x/indices:0" and sp2.values.name == "x/values:0"
        assert sp2.dense_shape.name == "x/shape:0" and sp2.shape.as_list() == [3, 4]
        assert tf.sparse_placeholder(tf.float32, shape=[None, 4]).shape.as_list() == [None, None]
        dense = sess.run(tf.sparse.to_dense(sp), {sp.indices: [[0, 0], [1, 2]], sp.values: [5, 6],
                                                  sp.dense_shape: [2, 3]})
        assert dense.tolist() == [[5, 0, 0], [0, 0, 6]]


def _elements(ds, n=50):
    nxt, out = ds.make_one_shot_iterator().get_next(), []
    with tf.Session() as sess:
        try:
            for _ in range(n):
                out.append(sess.run(nxt))
        except tf.errors.OutOfRangeError:
            pass
    return out


def _ints(xs):
    return [x.tolist() if hasattr(x, "tolist") else [v.tolist() for v in x] for x in xs]


def test_counter_unique_scan_are_tfs():   # o_more2.py
    with tf.Graph().as_default():
        c = tf.data.experimental.Counter(start=3, step=2, dtype=tf.int32)
        assert c.output_types == tf.int32 and _ints(_elements(c, 4)) == [3, 5, 7, 9]
        ds = tf.data.Dataset.from_tensor_slices([1, 2, 1, 3, 2, 4]).apply(tf.data.experimental.unique())
        assert _ints(_elements(ds)) == [1, 2, 3, 4]
        ds = tf.data.Dataset.from_tensor_slices(["a", "b", "a"]).apply(tf.contrib.data.unique())
        assert [x.decode() for x in _elements(ds)] == ["a", "b"]
        ds = tf.data.Dataset.range(5).apply(tf.data.experimental.scan(tf.constant(0, tf.int64),
                                                                      lambda s, x: (s + x, s * 10)))
        assert _ints(_elements(ds)) == [0, 0, 10, 30, 60]
        ds = tf.data.Dataset.from_tensor_slices(([1, 2, 3], [10, 20, 30])).apply(tf.contrib.data.scan(
            (tf.constant(0), tf.constant(1)), lambda s, x: ((s[0] + x[0], s[1] * x[1]), s[0] + s[1])))
        assert _ints(_elements(ds)) == [1, 11, 203]


def test_choose_sliding_window_devices_and_assert_element_shape_are_tfs():
    with tf.Graph().as_default():
        ds = tf.data.experimental.choose_from_datasets(
            [tf.data.Dataset.from_tensors("a").repeat(2), tf.data.Dataset.from_tensors("b").repeat(5)],
            tf.data.Dataset.from_tensor_slices(tf.constant([0, 1, 0, 0, 1, 1], tf.int64)))
        assert [x.decode() for x in _elements(ds)] == ["a", "b", "a", "b", "b"]   # an exhausted choice: skipped
        ds = tf.data.Dataset.range(7).apply(tf.contrib.data.sliding_window_batch(3, 2))
        assert _ints(_elements(ds)) == [[0, 1, 2], [2, 3, 4], [4, 5, 6]]
        ds = tf.data.Dataset.range(4).apply(tf.data.experimental.prefetch_to_device("/cpu:0")).apply(
            tf.data.experimental.copy_to_device("/cpu:0"))
        assert _ints(_elements(ds)) == [0, 1, 2, 3]
        ds = tf.data.Dataset.from_generator(lambda: iter([[1, 2], [3, 4]]), tf.int64).apply(
            tf.contrib.data.assert_element_shape(tf.TensorShape([2])))
        assert ds.output_shapes.as_list() == [2] and _ints(_elements(ds)) == [[1, 2], [3, 4]]
        ds = tf.data.Dataset.from_generator(lambda: iter([[1, 2], [3, 4, 5]]), tf.int64).apply(
            tf.contrib.data.assert_element_shape(tf.TensorShape([2])))
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Wrong shape for args_0:0 \[expected\] \[actual\].\] "
                                                                 r"\[2\] \[3\]"):
            _elements(ds)
