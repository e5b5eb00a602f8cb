"""slim's DatasetDataProvider over TFRecord files: each record read once per epoch, decoded by the
dataset's TFExampleDecoder, with its record key (file:offset, as TF's TFRecordReader names it)."""
import numpy as np
import pytest

import tinyflow as tf
import tinyflow.api.contrib.slim as slim


def write_files(tmp_path):
    paths = []
    for f in range(2):
        path = str(tmp_path / ("part-%d.tfrecord" % f))
        with tf.python_io.TFRecordWriter(path) as w:
            for i in range(3):
                label = 10 * f + i
                ex = tf.train.Example(features=tf.train.Features(feature={
                    "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[label])),
                    "x": tf.train.Feature(float_list=tf.train.FloatList(value=[label / 2.0, -label]))}))
                w.write(ex.SerializeToString())
        paths.append(path)
    return paths


def dataset(pattern):
    decoder = slim.tfexample_decoder.TFExampleDecoder(
        {"label": tf.FixedLenFeature([], tf.int64), "x": tf.FixedLenFeature([2], tf.float32)},
        {"label": slim.tfexample_decoder.Tensor("label"), "x": slim.tfexample_decoder.Tensor("x")})
    return slim.dataset.Dataset(data_sources=pattern, reader=tf.TFRecordReader, decoder=decoder, num_samples=6,
                                items_to_descriptions={"label": "an int", "x": "two floats"})


def test_provider_reads_every_record_in_order(tmp_path):
    paths = write_files(tmp_path)
    with tf.Graph().as_default():
        ds = dataset(paths)  # a list keeps its order (a pattern lists files in directory order, as TF's Glob)
        assert ds.num_samples == 6 and ds.items_to_descriptions["x"] == "two floats"
        provider = slim.dataset_data_provider.DatasetDataProvider(ds, shuffle=False, num_epochs=1)
        assert sorted(provider.list_items()) == ["label", "record_key", "x"] and provider.num_samples() == 6
        label, x, key = provider.get(["label", "x", "record_key"])
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            got = [sess.run([label, x, key]) for _ in range(6)]
            coord.request_stop()
            coord.join(threads)
    assert [int(g[0]) for g in got] == [0, 1, 2, 10, 11, 12]
    for lab, xv, _ in got:
        np.testing.assert_allclose(xv, [lab / 2.0, -lab])
    # TF's TFRecordReader keys a record by its file and byte offset
    assert got[3][2] == (paths[1] + ":0").encode() and got[4][2].startswith((paths[1] + ":").encode())


def test_errors(tmp_path):
    with pytest.raises(ValueError, match="No data files found in"):
        slim.parallel_reader.get_data_files(str(tmp_path / "none-*"))
    paths = write_files(tmp_path)
    assert sorted(slim.parallel_reader.get_data_files(str(tmp_path / "part-*"))) == paths
    with tf.Graph().as_default():
        provider = slim.dataset_data_provider.DatasetDataProvider(dataset(str(tmp_path / "part-*")), shuffle=False)
        with pytest.raises(ValueError, match="Item nope is not a valid item"):
            provider.get(["nope"])


def test_prefetch_queue_and_queue_runners(tmp_path):
    paths = write_files(tmp_path)
    with tf.Graph().as_default():
        provider = slim.dataset_data_provider.DatasetDataProvider(dataset(paths), shuffle=False)
        label, x = provider.get(["label", "x"])
        queue = slim.prefetch_queue.prefetch_queue({"label": label, "x": x}, capacity=4)
        out = queue.dequeue()
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            with slim.queues.QueueRunners(sess):
                got = [sess.run(out) for _ in range(4)]
    assert [int(g["label"]) for g in got] == [0, 1, 2, 10]
    np.testing.assert_allclose(got[3]["x"], [5.0, -10.0])
