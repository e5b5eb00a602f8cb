"""TF's V2 checkpoints: reading what TF 1.15 wrote (tests/fixtures/tf1), writing what TF reads."""
import os
import shutil

import numpy as np
import pytest

import tinyflow as tf
from tffiles_model import FIX, convnet, data, expected

CONV = os.path.join(FIX, "convnet")
BARE = os.path.join(FIX, "bare", "bare")


def test_reader_of_a_tf_checkpoint_with_int64_bool_float64_and_partitioned_vars():
    r = tf.train.NewCheckpointReader(BARE)
    want = expected()["bare"]
    assert r.get_variable_to_shape_map() == {"counter": [3], "emb": [6, 2], "flags": [2, 2], "scope/dbl": []}
    assert r.get_variable_to_dtype_map() == {"counter": tf.int64, "emb": tf.float32, "flags": tf.bool,
                                             "scope/dbl": tf.float64}
    assert r.has_tensor("emb") and not r.has_tensor("emb/part_0")
    for name, value in want.items():
        got = r.get_tensor(name)
        assert got.dtype == r.get_variable_to_dtype_map()[name].as_numpy_dtype
        np.testing.assert_array_equal(got, np.array(value, got.dtype))
    assert tf.train.list_variables(os.path.dirname(BARE)) == [("counter", [3]), ("emb", [6, 2]), ("flags", [2, 2]),
                                                               ("scope/dbl", [])]
    assert tf.train.load_variable(BARE, "counter:0")[2] == 3 << 40
    with pytest.raises(tf.errors.NotFoundError):
        r.get_tensor("nope")


def test_restore_partitioned_into_unpartitioned_and_int64_bool():
    emb = tf.get_variable("emb", [6, 2])
    counter = tf.Variable(np.zeros(3, np.int64), name="counter")
    flags = tf.Variable(np.zeros([2, 2], bool), name="flags")
    with tf.Session() as sess:
        tf.train.Saver([emb, counter, flags]).restore(sess, BARE)
        want = expected()["bare"]
        np.testing.assert_array_equal(sess.run(emb), np.array(want["emb"], np.float32))
        np.testing.assert_array_equal(sess.run(counter), want["counter"])
        np.testing.assert_array_equal(sess.run(flags), want["flags"])


def test_checkpoint_state_and_latest_of_tf_files():
    state = tf.train.get_checkpoint_state(CONV)
    assert state.model_checkpoint_path == os.path.join(CONV, "model.ckpt-5")
    assert tf.train.latest_checkpoint(CONV) == os.path.join(CONV, "model.ckpt-5")
    names = dict(tf.train.list_variables(CONV))
    assert names["conv/w/Adam_1"] == [3, 3, 1, 4] and names["beta1_power"] == [] and "global_step" in names


@pytest.mark.slow
def test_restore_tf_checkpoint_and_resume_with_tfs_losses():
    x, y, probs, loss, train_op = convnet()
    xs, ys, x_test = data()
    want = expected()
    with tf.Session() as sess:
        tf.train.Saver().restore(sess, tf.train.latest_checkpoint(CONV))
        assert sess.run(tf.train.get_global_step()) == 5
        np.testing.assert_allclose(sess.run(probs, {x: x_test}), want["probs"], rtol=1e-4, atol=1e-6)
        losses = [sess.run([train_op, loss], {x: xs, y: ys})[1] for _ in range(3)]
    np.testing.assert_allclose(losses, want["next_losses"], rtol=1e-4)


@pytest.mark.slow
def test_saver_writes_tf_format_by_default_and_roundtrips(tmp_path):
    x, y, probs, loss, train_op = convnet()
    xs, ys, _ = data()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        saver.restore(sess, os.path.join(CONV, "model.ckpt-5"))
        path = saver.save(sess, str(tmp_path / "m.ckpt"), global_step=5)
        before = {v.op.name: sess.run(v) for v in tf.global_variables()}
        sess.run(train_op, {x: xs, y: ys})
        saver.restore(sess, path)
        for v in tf.global_variables():
            np.testing.assert_array_equal(sess.run(v), before[v.op.name])
    assert sorted(os.listdir(tmp_path))[:3] == ["checkpoint", "m.ckpt-5.data-00000-of-00001", "m.ckpt-5.index"]
    assert open(path + ".index", "rb").read()[-8:] == bytes.fromhex("57fb808b247547db")  # TF's table magic
    # the data TF wrote and the data tinyflow wrote hold the same tensors
    tf_reader = tf.train.load_checkpoint(os.path.join(CONV, "model.ckpt-5"))
    ours = tf.train.load_checkpoint(path)
    assert ours.get_variable_to_shape_map() == tf_reader.get_variable_to_shape_map()
    for name in tf_reader.get_variable_to_shape_map():
        np.testing.assert_array_equal(ours.get_tensor(name), tf_reader.get_tensor(name))


def test_npz_checkpoints_stay_readable(tmp_path):
    w = tf.Variable(np.arange(6.0).reshape(3, 2), name="w")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver(write_version="npz").save(sess, str(tmp_path / "old"))
        assert os.path.exists(path + ".npz")
        sess.run(tf.assign(w, tf.zeros([3, 2], tf.float64)))
        tf.train.Saver().restore(sess, path)
        np.testing.assert_array_equal(sess.run(w), np.arange(6.0).reshape(3, 2))
    assert tf.train.list_variables(path) == [("w", [3, 2])]
    with pytest.raises(ValueError):
        tf.train.Saver(write_version=3)
    assert tf.train.Saver(write_version=tf.train.SaverDef.V2)._write_version == 2


def test_saver_var_list_dict_renames(tmp_path):
    a = tf.Variable(np.float32(0), name="a")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="variable fc/b"):  # a scalar is not fc/b's [3]
            tf.train.Saver({"global_step": tf.Variable(np.int64(0), name="g"), "fc/b": a}).restore(
                sess, os.path.join(CONV, "model.ckpt-5"))
    w = tf.Variable(np.zeros(3, np.float32), name="bias")
    with tf.Session() as sess:
        tf.train.Saver({"fc/b": w}).restore(sess, os.path.join(CONV, "model.ckpt-5"))
        np.testing.assert_array_equal(sess.run(w), tf.train.load_variable(CONV, "fc/b"))


def test_init_from_checkpoint_with_scope_and_name_maps():
    with tf.variable_scope("new"):
        w = tf.get_variable("w", [3, 3, 1, 4])
        b = tf.get_variable("b", [4])
    fcb = tf.get_variable("head_bias", [3])
    untouched = tf.get_variable("other", [2], initializer=tf.ones_initializer())
    tf.train.init_from_checkpoint(CONV, {"conv/": "new/", "fc/b": "head_bias"})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(w), tf.train.load_variable(CONV, "conv/w"))
        np.testing.assert_array_equal(sess.run(b), tf.train.load_variable(CONV, "conv/b"))
        np.testing.assert_array_equal(sess.run(fcb), tf.train.load_variable(CONV, "fc/b"))
        np.testing.assert_array_equal(sess.run(untouched), [1, 1])
    with pytest.raises(ValueError, match="Shape of variable"):
        tf.train.init_from_checkpoint(CONV, {"fc/w": "head_bias"})
    with pytest.raises(ValueError, match="not found"):
        tf.train.init_from_checkpoint(CONV, {"nope": "head_bias"})


def test_saver_deletes_old_tf_checkpoints(tmp_path):
    tf.Variable(np.ones(2, np.float32), name="w")
    saver = tf.train.Saver(max_to_keep=1)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        saver.save(sess, str(tmp_path / "m"), global_step=1)
        saver.save(sess, str(tmp_path / "m"), global_step=2)
    assert not any(f.startswith("m-1") for f in os.listdir(tmp_path))
    shutil.rmtree(tmp_path)


@pytest.mark.slow
def test_import_tinyflow_stays_light():
    """TF's protobufs and crc32c load only when a TF file is read or written."""
    import subprocess
    import sys
    code = "import sys, tinyflow; print(sorted(m for m in ('tensorboard', 'google.protobuf', 'google_crc32c') " \
           "if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(tf.__file__))))
    assert out.stdout.strip() == "[]"
