"""tf.train.Checkpoint in graph mode: TF 1.15's object-graph keys, save/write/restore round trips, and a
checkpoint TF wrote (tests/fixtures/train/object_ckpt, by make_object_checkpoint.py) restoring by its keys."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "train")
with open(os.path.join(HERE, "object_checkpoint.json")) as _f:
    TF = json.load(_f)


def _model():
    v = tf.Variable([1.0, 2.0], name="vv")
    w = tf.get_variable("dense/kernel", [2], initializer=tf.constant_initializer(3.0))
    opt = tf.train.AdamOptimizer(0.1)
    gs = tf.train.get_or_create_global_step()
    train = opt.minimize(tf.reduce_sum(v * w), global_step=gs)
    return v, w, opt, gs, train, tf.train.Checkpoint(model_v=v, kernel=w, optimizer=opt, step=gs)


def test_save_writes_tfs_keys_and_values(tmp_path):
    with tf.Graph().as_default():
        v, w, opt, gs, train, ckpt = _model()
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(train)
            path = ckpt.save(str(tmp_path / "model"), session=s)
            assert path == str(tmp_path / "model-1")
            assert tf.train.latest_checkpoint(str(tmp_path)) == path
            assert ckpt.save(str(tmp_path / "model"), session=s).endswith("model-2")
    reader = tf.train.NewCheckpointReader(path)
    assert sorted(reader.get_variable_to_shape_map()) == sorted(TF["values"])
    for key, want in TF["values"].items():
        np.testing.assert_allclose(reader.get_tensor(key), want, rtol=1e-6, err_msg=key)


def test_restores_a_checkpoint_tf_wrote():
    with tf.Graph().as_default():
        v, w, opt, gs, train, ckpt = _model()
        with tf.Session() as s:
            status = ckpt.restore(os.path.join(HERE, TF["path"]))
            status.initialize_or_restore(s)
            status.assert_consumed()
            got = s.run([v, w, gs, opt.get_slot(v, "m"), ckpt.save_counter])
    vals = TF["values"]
    np.testing.assert_allclose(got[0], vals["model_v/.ATTRIBUTES/VARIABLE_VALUE"])
    np.testing.assert_allclose(got[1], vals["kernel/.ATTRIBUTES/VARIABLE_VALUE"])
    assert got[2] == vals["step/.ATTRIBUTES/VARIABLE_VALUE"] and got[4] == 1
    np.testing.assert_allclose(got[3], vals["model_v/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE"])


def test_write_and_restore_round_trip_and_checks(tmp_path):
    with tf.Graph().as_default():
        v = tf.Variable([5.0, 6.0])
        inner = tf.train.Checkpoint(v=v)
        ckpt = tf.train.Checkpoint(net=inner)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            prefix = ckpt.write(str(tmp_path / "direct"), session=s)
            keys = tf.train.NewCheckpointReader(prefix).get_variable_to_shape_map()
            assert "net/v/.ATTRIBUTES/VARIABLE_VALUE" in keys and "save_counter/.ATTRIBUTES/VARIABLE_VALUE" not in keys
            s.run(v.assign([0.0, 0.0]))
            ckpt.restore(prefix).run_restore_ops(s)
            np.testing.assert_allclose(s.run(v), [5.0, 6.0])
        other = tf.train.Checkpoint(net=inner, extra=tf.Variable(1.0))
        with pytest.raises(AssertionError, match="extra"):
            other.restore(prefix).assert_consumed()
        with pytest.raises(ValueError, match="trackable object"):
            tf.train.Checkpoint(model=object())
