"""tf.gfile and tf.summary (FileWriter, event files TensorBoard reads); tf.flags and tf.logging: test_flags.py,
test_logging.py."""
import json

import numpy as np
import pytest

import tinyflow as tf
import tinyflow.api.summary as summary_module


def test_gfile(tmp_path):
    d = str(tmp_path / "a" / "b")
    tf.gfile.MakeDirs(d)
    assert tf.gfile.IsDirectory(d) and tf.io.gfile.exists(d)
    with tf.gfile.GFile(d + "/f.txt", "w") as f:
        f.write("hello")
    with tf.gfile.Open(d + "/f.txt") as f:
        assert f.read() == "hello"
    assert tf.gfile.ListDirectory(d) == ["f.txt"] and tf.gfile.Glob(d + "/*.txt") == [d + "/f.txt"]
    tf.gfile.Copy(d + "/f.txt", d + "/g.txt")
    with pytest.raises(tf.errors.AlreadyExistsError):
        tf.gfile.Rename(d + "/f.txt", d + "/g.txt")
    tf.gfile.DeleteRecursively(str(tmp_path / "a"))
    assert not tf.gfile.Exists(d)


def _training_summaries():
    x = tf.placeholder(tf.float32, [None])
    loss = tf.reduce_mean(x * x)
    with tf.name_scope("train"):
        tf.summary.scalar("loss", loss)
    tf.summary.histogram("x", x)
    return x, loss, tf.summary.merge_all()


def test_summaries_give_values_and_tensorboard_reads_the_event_file(tmp_path):
    EventAccumulator = pytest.importorskip(
        "tensorboard.backend.event_processing.event_accumulator").EventAccumulator   # the tensorboard extra
    x, loss, merged = _training_summaries()
    sess = tf.Session()
    writer = tf.summary.FileWriter(str(tmp_path), sess.graph)
    for step in range(3):
        data = sess.run(merged, {x: np.arange(4.0) + step})
        writer.add_summary(data, global_step=step)
    writer.add_summary(tf.Summary(value=[tf.Summary.Value(tag="acc", simple_value=0.75)]), 3)
    writer.close()
    values = {v.tag: v for v in tf.Summary.FromString(data).value}
    assert values["train/loss"].simple_value == pytest.approx(np.mean((np.arange(4.0) + 2) ** 2))
    histo = values["x"].histo
    assert (histo["min"], histo["max"], histo["num"], histo["sum"]) == (2.0, 5.0, 4.0, 14.0)
    assert sum(histo["bucket"]) == 4
    events = EventAccumulator(str(tmp_path))
    events.Reload()
    assert sorted(events.Tags()["scalars"]) == ["acc", "train/loss"]
    assert [e.value for e in events.Scalars("train/loss")] == pytest.approx([3.5, 7.5, 13.5])
    assert [e.step for e in events.Scalars("acc")] == [3]
    assert events.Histograms("x")[-1].histogram_value.num == 4


def test_without_tensorboard_summaries_are_json_lines(tmp_path, monkeypatch):
    monkeypatch.setattr(summary_module, "_protos", lambda: None)
    x, loss, merged = _training_summaries()
    sess = tf.Session()
    with pytest.warns(RuntimeWarning, match="TensorBoard is not installed"):
        monkeypatch.setattr(summary_module.FileWriter, "_warned", False)
        writer = tf.summary.FileWriter(str(tmp_path))
    writer.add_summary(sess.run(merged, {x: [1.0, 3.0]}), 7)
    writer.close()
    line = json.loads((tmp_path / "events.tinyflow.jsonl").read_text().splitlines()[0])
    assert line["step"] == 7 and line["summary"][0] == {"tag": "train/loss", "simple_value": 5.0, "histo": None}


def test_scalar_summary_of_a_vector_is_an_error():
    s = tf.summary.scalar("v", tf.constant([1.0, 2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="tags and values not the same shape"):
        tf.Session().run(s)
    assert tf.summary.merge_all(key="no such collection") is None


def test_version_is_the_tf_api_level():
    assert tf.__version__.startswith("1.15") and tf.VERSION == tf.__version__
