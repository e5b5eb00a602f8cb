"""tf.train.Saver: round trips, the checkpoint state file, max_to_keep, the numpy-readable format,
and failures that change no variable."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf

W = np.arange(6, dtype=np.float32).reshape(3, 2)


def _model():
    w = tf.Variable(W, name="w")
    b = tf.Variable(tf.zeros([2], tf.float64), name="b")
    step = tf.train.get_or_create_global_step()
    return w, b, step


def test_save_restore_roundtrip_and_latest(tmp_path):
    w, b, step = _model()
    bump = tf.group(tf.assign_add(w, tf.ones([3, 2])), tf.assign_add(step, 1))
    saver = tf.train.Saver()
    prefix = str(tmp_path / "model.ckpt")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(bump)
        path = saver.save(sess, prefix, global_step=step)
        assert path == prefix + "-1"
        assert tf.train.latest_checkpoint(str(tmp_path)) == path
        sess.run(bump)
        saver.restore(sess, path)
        np.testing.assert_array_equal(sess.run(w), W + 1)
        assert sess.run(step) == 1 and sess.run(b).dtype == np.float64
    with tf.Session() as sess2:  # a fresh session restores without running any initializer
        saver.restore(sess2, tf.train.latest_checkpoint(str(tmp_path)))
        np.testing.assert_array_equal(sess2.run(w), W + 1)
    text = (tmp_path / "checkpoint").read_text()
    assert text.startswith('model_checkpoint_path: "%s"' % path)


def test_format_is_plain_numpy(tmp_path):
    w, b, step = _model()
    opt = tf.train.AdamOptimizer(0.1)
    opt.minimize(tf.reduce_sum(w * w))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver(write_version="npz").save(sess, str(tmp_path / "m"))
    with np.load(path + ".npz", allow_pickle=False) as z:
        assert sorted(z.files) == ["b", "beta1_power", "beta2_power", "global_step", "w", "w/Adam", "w/Adam_1"]
        np.testing.assert_array_equal(z["w"], W)
        assert z["global_step"].dtype == np.int64
    index = json.loads(open(path + ".index").read())
    assert index["variables"]["w"] == {"dtype": "float32", "shape": [3, 2]}
    assert tf.train.list_variables(path)[0] == ("b", [2])
    np.testing.assert_array_equal(tf.train.load_variable(str(tmp_path), "w"), W)


def test_var_list_as_dict_and_list(tmp_path):
    w, b, step = _model()
    other = tf.Variable(np.zeros([3, 2], np.float32), name="other")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver({"renamed": w}).save(sess, str(tmp_path / "d"))
        tf.train.Saver({"renamed": other}).restore(sess, path)
        np.testing.assert_array_equal(sess.run(other), W)
        with pytest.raises(ValueError, match="same name"):
            tf.train.Saver([w, w])
        with pytest.raises(tf.errors.NotFoundError, match="Key other not found in checkpoint"):
            tf.train.Saver([other]).restore(sess, path)


def test_max_to_keep(tmp_path):
    _model()
    saver = tf.train.Saver(max_to_keep=2)
    prefix = str(tmp_path / "k")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        paths = [saver.save(sess, prefix, global_step=i) for i in range(4)]
    assert saver.last_checkpoints == paths[2:]
    assert not os.path.exists(paths[0] + ".index") and not os.path.exists(paths[1] + ".npz")
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert state.model_checkpoint_path == paths[3] and state.all_model_checkpoint_paths == paths[2:]


def test_relative_save_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.mkdir("ck")
    _model()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver().save(sess, "ck/model", global_step=7)
    assert path == "ck/model-7"
    assert (tmp_path / "ck" / "checkpoint").read_text().startswith('model_checkpoint_path: "model-7"')
    assert tf.train.latest_checkpoint("ck") == os.path.join("ck", "model-7")


def _saved(tmp_path):
    w, b, step = _model()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    path = tf.train.Saver(write_version="npz").save(sess, str(tmp_path / "m"))  # tinyflow's npz format
    sess.run(tf.assign(w, tf.zeros([3, 2])))
    return w, sess, path


def test_restore_missing_checkpoint(tmp_path):
    w, sess, path = _saved(tmp_path)
    with pytest.raises(tf.errors.NotFoundError, match="not a valid checkpoint"):
        tf.train.Saver().restore(sess, str(tmp_path / "nope"))
    with pytest.raises(ValueError):  # TF 1.15 raises ValueError here: both catch it
        tf.train.Saver().restore(sess, str(tmp_path / "nope"))
    with pytest.raises(ValueError, match="Parent directory"):
        tf.train.Saver().save(sess, str(tmp_path / "no" / "dir" / "m"))
    tf.train.Saver().save(sess, str(tmp_path / "new_dir" / "m"))  # one missing level is created, as in TF
    assert tf.train.checkpoint_exists(str(tmp_path / "new_dir" / "m"))
    assert tf.train.latest_checkpoint(str(tmp_path / "empty")) is None


@pytest.mark.parametrize("damage", ["truncate", "flip", "index"])
def test_corrupt_checkpoint_changes_nothing(tmp_path, damage):
    w, sess, path = _saved(tmp_path)
    if damage == "index":
        open(path + ".index", "w").write("{not json")
    else:
        data = bytearray(open(path + ".npz", "rb").read())
        if damage == "truncate":
            data = data[:len(data) // 2]
        else:
            data[len(data) // 2] ^= 0xFF
        open(path + ".npz", "wb").write(bytes(data))
    with pytest.raises(tf.errors.DataLossError):
        tf.train.Saver().restore(sess, path)
    np.testing.assert_array_equal(sess.run(w), np.zeros([3, 2]))


def test_mismatch_names_the_variable_and_changes_nothing(tmp_path):
    w, sess, path = _saved(tmp_path)
    sess.close()
    tf.reset_default_graph()
    w2 = tf.Variable(np.ones([3, 2], np.float32), name="w")
    b2 = tf.Variable(np.ones([3], np.float64), name="b")  # wrong shape
    with tf.Session() as sess2:
        sess2.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"lhs shape= \[3\] rhs shape= \[2\] \(variable b\)"):
            tf.train.Saver([w2, b2]).restore(sess2, path)
        np.testing.assert_array_equal(sess2.run(w2), np.ones([3, 2]))  # w comes first: still untouched
    tf.reset_default_graph()
    b3 = tf.Variable(np.ones([2], np.float32), name="b")  # wrong dtype
    with tf.Session() as sess3:
        with pytest.raises(tf.errors.InvalidArgumentError, match="tensor_name = b; expected dtype float32"):
            tf.train.Saver([b3]).restore(sess3, path)


def test_save_uninitialized_fails_before_writing(tmp_path):
    _model()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError):
            tf.train.Saver().save(sess, str(tmp_path / "u"))
    assert not os.listdir(tmp_path)


def test_crash_mid_save_keeps_previous_checkpoint(tmp_path, monkeypatch):
    w, b, step = _model()
    saver = tf.train.Saver(write_version="npz")  # the npz format's two-phase save
    prefix = str(tmp_path / "m")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = saver.save(sess, prefix)
        sess.run(tf.assign(w, tf.zeros([3, 2])))
        real_replace = os.replace

        def crash(src, dst):
            if dst.endswith(".index"):
                raise OSError("disk full")
            real_replace(src, dst)
        monkeypatch.setattr(os, "replace", crash)
        with pytest.raises(OSError):
            saver.save(sess, prefix)  # the same prefix: crash after the data, before the index is committed
        monkeypatch.setattr(os, "replace", real_replace)
        assert sorted(os.listdir(tmp_path)) == ["checkpoint", "m.index", "m.index.pending", "m.meta", "m.npz"]  # no tmp
        assert tf.train.latest_checkpoint(str(tmp_path)) == first
        sess.run(tf.assign(w, tf.ones([3, 2])))
        saver.restore(sess, first)  # rolls forward to the complete new checkpoint
        np.testing.assert_array_equal(sess.run(w), np.zeros([3, 2]))
        open(first + ".index.pending", "w").write("{}")  # a pending index that does not match: data loss
        with pytest.raises(tf.errors.DataLossError):
            saver.restore(sess, first)


def test_bfloat16_is_stored_as_bits(tmp_path):
    h = tf.Variable(tf.constant([1.5, 2.25], tf.bfloat16), name="h")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver(write_version="npz").save(sess, str(tmp_path / "bf"))
        with np.load(path + ".npz", allow_pickle=False) as z:
            assert z["h"].dtype == np.uint16
        sess.run(tf.assign(h, tf.zeros([2], tf.bfloat16)))
        tf.train.Saver().restore(sess, path)
        np.testing.assert_array_equal(sess.run(h).astype(np.float32), [1.5, 2.25])


# ---- MonitoredTrainingSession and hooks (they restore and save through the Saver) --------------------
def _train_graph():
    w = tf.Variable(5.0, name="w")
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(w * w, global_step=step)
    return w, step, train


@pytest.mark.slow
def test_monitored_training_session_stops_saves_and_restores(tmp_path):
    w, step, train = _train_graph()
    d = str(tmp_path)
    hooks = [tf.train.StopAtStepHook(last_step=4)]
    with tf.train.MonitoredTrainingSession(checkpoint_dir=d, hooks=hooks, save_checkpoint_steps=3) as sess:
        n = 0
        while not sess.should_stop():
            sess.run(train)
            n += 1
    assert n == 4
    assert tf.train.latest_checkpoint(d).endswith("model.ckpt-4")  # saved at 0, 3 and at the end
    assert [os.path.basename(p) for p in tf.train.get_checkpoint_state(d).all_model_checkpoint_paths] == [
        "model.ckpt-0", "model.ckpt-3", "model.ckpt-4"]
    # a second session restores step 4 and w, and runs 2 more steps
    with tf.train.MonitoredTrainingSession(checkpoint_dir=d, hooks=[tf.train.StopAtStepHook(num_steps=2)]) as sess:
        assert sess.run(step) == 4
        np.testing.assert_allclose(sess.run(w), 5.0 * 0.8 ** 4, rtol=1e-6)
        while not sess.should_stop():
            sess.run(train)
        assert sess.run(step) == 6


class _Recorder(tf.train.SessionRunHook):
    def __init__(self, tensor):
        self.tensor, self.calls, self.seen = tensor, [], []

    def begin(self):
        self.calls.append("begin")

    def after_create_session(self, session, coord):
        self.calls.append("after_create_session")

    def before_run(self, run_context):
        return tf.train.SessionRunArgs(self.tensor)

    def after_run(self, run_context, run_values):
        self.seen.append(run_values.results)
        if len(self.seen) == 2:
            run_context.request_stop()

    def end(self, session):
        self.calls.append("end")


def test_hooks_see_their_fetches_and_nan_hook():
    w, step, train = _train_graph()
    rec = _Recorder(step)
    with tf.train.MonitoredSession(hooks=[rec]) as sess:
        out = [sess.run([train, w])[1] for _ in range(3) if not sess.should_stop()]
    assert rec.calls == ["begin", "after_create_session", "end"] and rec.seen == [0, 1]
    np.testing.assert_allclose(out, [5.0, 4.0], rtol=1e-6)  # each run fetches w before its update
    x = tf.placeholder(tf.float32, [])
    with pytest.raises(tf.train.NanLossDuringTrainingError):
        with tf.train.SingularMonitoredSession(hooks=[tf.train.NanTensorHook(x * 1.0)]) as sess:
            sess.run(train, {x: float("nan")})
    with pytest.raises(RuntimeError, match="Global step should be created"):
        tf.reset_default_graph()
        tf.train.MonitoredSession(hooks=[tf.train.StopAtStepHook(last_step=1)])


def test_logging_tensor_hook(caplog):
    w, step, train = _train_graph()
    hook = tf.train.LoggingTensorHook({"step": step}, every_n_iter=2)
    with caplog.at_level("INFO", logger="tensorflow"):
        with tf.train.MonitoredSession(hooks=[hook, tf.train.StopAtStepHook(last_step=5)]) as sess:
            while not sess.should_stop():
                sess.run(train)
    lines = [r.getMessage() for r in caplog.records if "step = " in r.getMessage()]
    assert lines[0] == "step = 0" and [line.split(" (")[0] for line in lines] == ["step = 0", "step = 2", "step = 4"]
    assert all(line.endswith(" sec)") for line in lines[1:])   # TF's: the seconds since the last line


@pytest.mark.slow
def test_meta_graph_rebuilds_the_graph_for_restore(tmp_path):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2) / 10, name="w")
    y = tf.nn.softmax(tf.matmul(x, w), name="y")
    train = tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(y * y), name="train")
    tf.add_to_collection("train_op", train)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    sess.run(train, {x: np.ones((2, 3))})
    saver = tf.train.Saver(max_to_keep=1)
    first = saver.save(sess, str(tmp_path / "model"), global_step=1)
    prefix = saver.save(sess, str(tmp_path / "model"), global_step=2)
    assert not os.path.exists(first + ".meta") and os.path.exists(prefix + ".meta")
    want = sess.run(y, {x: np.eye(3)})
    sess.run(train, {x: np.ones((2, 3))})
    after_step = sess.run(y, {x: np.eye(3)})

    with tf.Graph().as_default() as g:
        restorer = tf.train.import_meta_graph(prefix + ".meta")
        new = tf.Session(graph=g)
        restorer.restore(new, prefix)
        np.testing.assert_array_equal(new.run("y:0", {"x:0": np.eye(3)}), want)
        new.run(tf.get_collection("train_op")[0], {g.get_tensor_by_name("x:0"): np.ones((2, 3))})
        np.testing.assert_allclose(new.run("y:0", {"x:0": np.eye(3)}), after_step, rtol=1e-6)
        assert "w/Adam:0" in [v.name for v in tf.global_variables()]
        with pytest.raises(NotImplementedError, match="empty graph"):
            tf.train.import_meta_graph(prefix + ".meta")
    saver.save(sess, str(tmp_path / "plain"), write_meta_graph=False)
    assert not os.path.exists(str(tmp_path / "plain.meta"))


def test_generate_checkpoint_state_proto_as_tf():
    """TF 1.15 printed these two messages for the same calls."""
    assert str(tf.train.generate_checkpoint_state_proto("run", "run/model-5", ["run/model-3"])) == (
        'model_checkpoint_path: "model-5"\nall_model_checkpoint_paths: "model-3"\n'
        'all_model_checkpoint_paths: "model-5"\n')
    state = tf.train.generate_checkpoint_state_proto(   # (protobuf versions print 2.0 as "2.0" or "2")
        "/abs/run", "/abs/run/model-5", all_model_checkpoint_timestamps=[1.5], last_preserved_timestamp=2.0)
    assert (state.model_checkpoint_path, list(state.all_model_checkpoint_paths),
            list(state.all_model_checkpoint_timestamps), state.last_preserved_timestamp) == (
        "/abs/run/model-5", ["/abs/run/model-5"], [1.5], 2.0)
