"""The smaller items of issue 31 (item 8): graph JSON cannot shadow methods; feed errors name the real
type (TF 1.15's classes and messages, recorded from the oracle); a closed Session refuses load and
Saver.save; checkpoint files get TF's mode 0666 & ~umask; a full disk is ResourceExhaustedError
naming the file and keeps the last checkpoint."""
import errno
import json
import os

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.formats import durable
from tinyflow.graph import errors
from tinyflow.graph.serialize import GraphFileError


def _graph_json():
    g = tf.Graph()
    with g.as_default():
        tf.Variable(1.0)
    return json.loads(g.to_json())


@pytest.mark.parametrize("name", ["get_operations", "as_default", "get_collection", "finalized"])
def test_graph_json_cannot_shadow_a_graph_method_or_property(name):
    d = _graph_json()
    d["graphs"][0]["extra"][name] = 1
    with pytest.raises(GraphFileError, match="may not set attribute '%s'" % name):
        tf.Graph.from_json(json.dumps(d))


def test_graph_json_cannot_shadow_a_variable_method():
    d = _graph_json()
    d["graphs"][0]["collections"]["variables"][0]["state"]["eval"] = 1
    with pytest.raises(GraphFileError, match="may not set attribute 'eval'"):
        tf.Graph.from_json(json.dumps(d))


# TF 1.15 (oracle): the class and the numpy/Python error of each feed
@pytest.mark.parametrize("value, dtype, cls, message", [
    (None, tf.float32, ValueError, r"Cannot feed value of shape \(\) for Tensor 'x:0', which has shape '\(\?,\)'"),
    ({"a": 1}, tf.float32, TypeError, r"\(of type dict\).*float\(\) argument must be a string or a (real )?number, "
                                      r"not 'dict'"),
    (2 ** 70, tf.int32, OverflowError, r"\(of type int\).*Python int too large to convert to C long"),
])
def test_feed_errors_name_the_real_type(value, dtype, cls, message):
    x = tf.placeholder(dtype, [None] if value is None else [], name="x")
    with tf.Session() as sess:
        with pytest.raises(cls, match=message):
            sess.run(tf.identity(x), {x: value})


def test_a_none_inside_a_list_is_nan_as_in_tf():
    x = tf.placeholder(tf.float32, [None], name="x")
    with tf.Session() as sess:
        out = sess.run(tf.identity(x), {x: [1, None]})
    assert out[0] == 1 and np.isnan(out[1])


def test_a_closed_session_refuses_load_and_save(tmp_path):
    v = tf.Variable(1.0)
    saver = tf.train.Saver()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    sess.close()
    with pytest.raises(RuntimeError, match="Attempted to use a closed Session."):
        v.load(2.0, sess)
    with pytest.raises(RuntimeError, match="Attempted to use a closed Session."):
        saver.save(sess, str(tmp_path / "ck"))
    assert os.listdir(str(tmp_path)) == []


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_checkpoint_files_have_tf_modes(tmp_path, umask):
    tf.Variable(1.0)
    saver = tf.train.Saver()
    old = os.umask(umask)
    try:
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            saver.save(sess, str(tmp_path / "ck"))
    finally:
        os.umask(old)
    modes = {f: os.stat(str(tmp_path / f)).st_mode & 0o777 for f in os.listdir(str(tmp_path))}
    assert set(modes) == {"checkpoint", "ck.index", "ck.data-00000-of-00001", "ck.meta"}
    assert set(modes.values()) == {0o666 & ~umask}


def test_a_full_disk_is_resource_exhausted_naming_the_file_and_keeps_the_last_checkpoint(tmp_path, monkeypatch):
    v = tf.Variable(1.0)
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = saver.save(sess, str(tmp_path / "ck"), global_step=1)
        sess.run(v.assign(2.0))
        real = os.fsync

        def full(fd):
            raise OSError(errno.ENOSPC, "No space left on device")
        monkeypatch.setattr(durable.os, "fsync", full)
        with pytest.raises(errors.ResourceExhaustedError, match=r"ck-2\.data-00000-of-00001; No space left on "
                                                                 r"device"):
            saver.save(sess, str(tmp_path / "ck"), global_step=2)
        monkeypatch.setattr(durable.os, "fsync", real)
        assert [f for f in os.listdir(str(tmp_path)) if f.endswith(".tmp")] == []
        assert tf.train.latest_checkpoint(str(tmp_path)) == first
        saver.restore(sess, first)
        assert sess.run(v) == 1.0
