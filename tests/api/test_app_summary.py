"""tf.gfile and tf.summary (FileWriter, event files TensorBoard reads); tf.flags and tf.logging: test_flags.py,
test_logging.py."""
import os

import numpy as np
import pytest

import tinyflow as tf


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


def _events(logdir):
    """The Events of the one event file in logdir, read back with tf.train.summary_iterator."""
    files = [f for f in os.listdir(logdir) if f.startswith("events.out.tfevents.")]
    assert len(files) == 1, files
    return list(tf.train.summary_iterator(os.path.join(logdir, files[0])))


def test_summaries_give_values_and_the_event_file_holds_them(tmp_path):
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
    assert (histo.min, histo.max, histo.num, histo.sum) == (2.0, 5.0, 4.0, 14.0)
    assert sum(histo.bucket) == 4
    events = _events(str(tmp_path))
    # TF's order: the version, the graph, the graph as a meta graph, then what was added
    assert [e.WhichOneof("what") for e in events] == ["file_version", "graph_def", "meta_graph_def"] + ["summary"] * 4
    assert events[0].file_version == "brain.Event:2"
    graph = tf.GraphDef.FromString(events[1].graph_def)
    assert {"Placeholder", "Mean", "ScalarSummary", "HistogramSummary", "MergeSummary"} <= {n.op for n in graph.node}
    assert tf.MetaGraphDef.FromString(events[2].meta_graph_def).graph_def == graph
    losses = [(e.step, v.simple_value) for e in events[3:] for v in e.summary.value if v.tag == "train/loss"]
    assert losses == [(0, 3.5), (1, 7.5), (2, 13.5)]
    assert events[-1].step == 3 and events[-1].summary.value[0].simple_value == 0.75
    assert all(e.wall_time > 1e9 for e in events)


def test_tensorboard_reads_the_event_file(tmp_path):
    EventAccumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator",
                                           reason="TensorBoard's own reader: the tensorboard extra").EventAccumulator
    x, loss, merged = _training_summaries()
    sess = tf.Session()
    writer = tf.summary.FileWriter(str(tmp_path), sess.graph)
    for step in range(3):
        writer.add_summary(sess.run(merged, {x: np.arange(4.0) + step}), global_step=step)
    writer.close()
    events = EventAccumulator(str(tmp_path))
    events.Reload()
    assert sorted(events.Tags()["scalars"]) == ["train/loss"] and events.Tags()["graph"] is True
    assert [e.value for e in events.Scalars("train/loss")] == pytest.approx([3.5, 7.5, 13.5])
    assert events.Histograms("x")[-1].histogram_value.num == 4


def test_event_files_need_no_tensorboard(tmp_path):
    """A plain install (no tensorboard) writes and reads event files; tensorboard is never imported."""
    import subprocess
    import sys
    code = ("import sys, numpy as np, tinyflow as tf\n"
            "sys.modules['tensorboard'] = None  # importing it now fails\n"
            "x = tf.placeholder(tf.float32, [None])\n"
            "s = tf.summary.scalar('loss', tf.reduce_mean(x))\n"
            "with tf.Session() as sess, tf.summary.FileWriter(sys.argv[1], sess.graph) as w:\n"
            "    w.add_summary(sess.run(s, {x: [1.0, 2.0]}), 7)\n")
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], check=True,
                   env=dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(tf.__file__))))
    events = _events(str(tmp_path))
    assert (events[-1].step, events[-1].summary.value[0].tag, events[-1].summary.value[0].simple_value) == \
        (7, "loss", 1.5)


def test_session_logs_text_audio_and_reopen(tmp_path):
    text = tf.summary.text("note", tf.constant([["a", "b"]]))
    sound = tf.summary.audio("snd", tf.constant([[0.0, 0.5, -1.0, 2.0]]), 8000, max_outputs=1)
    merged = tf.summary.merge([text, sound])
    writer = tf.summary.FileWriter(str(tmp_path))
    with tf.Session() as sess:
        writer.add_summary(sess.run(merged), 1)
        writer.add_summary(sess.run(text), 2)
    writer.add_session_log(tf.SessionLog(status=tf.SessionLog.STOP), 3)
    writer.close()
    writer.add_summary(tf.Summary(), 4)   # dropped after close, as in TF
    events = _events(str(tmp_path))
    assert [e.WhichOneof("what") for e in events] == ["file_version", "summary", "summary", "session_log"]
    note, snd = events[1].summary.value
    assert note.metadata.plugin_data.plugin_name == "text" and list(note.tensor.string_val) == [b"a", b"b"]
    assert [d.size for d in note.tensor.tensor_shape.dim] == [1, 2]
    assert not events[2].summary.value[0].HasField("metadata")  # a tag's metadata goes with its first value only
    assert (snd.tag, snd.audio.sample_rate, snd.audio.length_frames, snd.audio.content_type) == \
        ("snd/audio", 8000.0, 4, "audio/wav")
    assert snd.audio.encoded_audio_string[-8:] == bytes.fromhex("000000400080ff7f")   # TF 1.15's samples
    assert events[3].session_log.status == tf.SessionLog.STOP
    writer.reopen()
    writer.close()
    assert len([f for f in os.listdir(tmp_path) if "tfevents" in f]) == 2


def test_corrupt_event_files_raise_data_loss(tmp_path):
    with tf.summary.FileWriter(str(tmp_path)) as writer:
        writer.add_summary(tf.Summary(value=[tf.Summary.Value(tag="a", simple_value=1.0)]), 1)
    path = os.path.join(str(tmp_path), os.listdir(tmp_path)[0])
    data = open(path, "rb").read()
    open(path, "wb").write(data[:-3])
    with pytest.raises(tf.errors.DataLossError, match="truncated record"):
        list(tf.train.summary_iterator(path))
    open(path, "wb").write(data[:-5] + bytes([data[-5] ^ 1]) + data[-4:])
    with pytest.raises(tf.errors.DataLossError, match="checksum"):
        list(tf.train.summary_iterator(path))
    with pytest.raises(tf.errors.InvalidArgumentError, match="no Summary"):
        writer.add_summary(b"\xff\xff")


def test_scalar_summary_of_a_vector_is_an_error():
    s = tf.summary.scalar("v", tf.constant([1.0, 2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="tags and values not the same shape"):
        tf.Session().run(s)
    assert tf.summary.merge_all(key="no such collection") is None


def test_version_is_the_tf_api_level():
    assert tf.__version__.startswith("1.15") and tf.VERSION == tf.__version__
