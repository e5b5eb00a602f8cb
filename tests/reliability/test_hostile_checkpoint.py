"""A checkpoint's index is data: it cannot choose a data file outside the checkpoint (absolute
paths, ../, symlinks out, devices), and sizes are checked before anything is read. A bad index
is a DataLossError naming the file; a failed restore changes no variable."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.formats import checkpoint


def _save(folder, name="model"):
    prefix = str(folder / name)
    checkpoint.write_checkpoint(prefix, {"w": (tf.float32, np.arange(6, dtype=np.float32).reshape(2, 3)),
                                         "n": (tf.int64, np.array(7, np.int64))})
    return prefix


def _edit_index(prefix, **changes):
    with open(prefix + ".index") as f:
        index = json.load(f)
    index.update(changes)
    with open(prefix + ".index", "w") as f:
        json.dump(index, f)
    return index


@pytest.mark.parametrize("data", ["/dev/zero", "/etc/passwd", "../outside.npz", "sub/model.npz", "other.npz", "",
                                  7, None])
def test_index_cannot_name_another_data_file(tmp_path, data):
    folder = tmp_path / "ck"
    folder.mkdir()
    prefix = _save(folder)
    (tmp_path / "outside.npz").write_bytes(open(prefix + ".npz", "rb").read())
    _edit_index(prefix, data=data)
    with pytest.raises(tf.errors.DataLossError, match="model.index"):
        checkpoint.CheckpointReader(prefix)


@pytest.mark.parametrize("target", ["/dev/zero", "../outside.npz"])
def test_data_file_symlinked_out_is_refused(tmp_path, target):
    folder = tmp_path / "ck"
    folder.mkdir()
    prefix = _save(folder)
    (tmp_path / "outside.npz").write_bytes(open(prefix + ".npz", "rb").read())
    if target.startswith("/") and not os.path.exists(target):
        pytest.skip("no %s" % target)
    os.remove(prefix + ".npz")
    os.symlink(target, prefix + ".npz")
    with pytest.raises(tf.errors.DataLossError, match="model.npz"):
        checkpoint.CheckpointReader(prefix)


def test_index_that_is_a_device_is_not_read(tmp_path):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    prefix = _save(tmp_path)
    os.remove(prefix + ".index")
    os.symlink("/dev/zero", prefix + ".index")
    with pytest.raises(tf.errors.DataLossError, match="model.index"):
        checkpoint.CheckpointReader(prefix)


@pytest.mark.parametrize("change", [
    {"size": 10 ** 15}, {"size": -1}, {"size": "12"}, {"size": True}, {"sha256": "00"},
    {"variables": {"w": {"dtype": "float32", "shape": [10 ** 9, 10 ** 9]}}},
    {"variables": {"w": {"dtype": "float32", "shape": [-2]}}},
    {"variables": {"w": {"dtype": "no_such_type", "shape": [2]}}},
    {"variables": []}, {"format": "other"},
])
def test_bad_index_fields(tmp_path, change):
    prefix = _save(tmp_path)
    _edit_index(prefix, **change)
    with pytest.raises(tf.errors.DataLossError, match="model"):
        checkpoint.CheckpointReader(prefix)


def test_header_claiming_a_huge_array_is_checked_before_reading(tmp_path):
    """Index and data agree (checksum fine) but the .npy header of the member claims 10**10
    floats: refused from the header, before numpy allocates anything."""
    import hashlib
    import io
    import zipfile
    prefix = str(tmp_path / "m")
    checkpoint.write_checkpoint(prefix, {"w": (tf.float32, np.zeros(4, np.float32))})
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        with zf.open("w.npy", "w") as f:
            np.lib.format.write_array_header_1_0(f, {"descr": "<f4", "fortran_order": False, "shape": (10 ** 10,)})
            f.write(bytes(16))
    raw = buf.getvalue()
    with open(prefix + ".npz", "wb") as f:
        f.write(raw)
    _edit_index(prefix, size=len(raw), sha256=hashlib.sha256(raw).hexdigest())
    reader = checkpoint.CheckpointReader(prefix)
    with pytest.raises(tf.errors.DataLossError, match="the index says"):
        reader.get_tensor("w")


def test_restore_from_a_hostile_index_changes_no_variable(tmp_path):
    prefix = _save(tmp_path)
    _edit_index(prefix, data="/dev/zero")
    with tf.Graph().as_default():
        w = tf.Variable(np.ones((2, 3), np.float32), name="w")
        n = tf.Variable(np.array(1, np.int64), name="n")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(tf.errors.DataLossError):
                tf.train.Saver().restore(sess, prefix)
            np.testing.assert_array_equal(sess.run(w), np.ones((2, 3), np.float32))
            assert sess.run(n) == 1


@pytest.mark.parametrize("text", [b"model_checkpoint_path: 12\n", b"model_checkpoint_path: [1]\n", b"\xff\xfe",
                                  b"model_checkpoint_path: \"a\\u0000b\"\n", b"model_checkpoint_path: {\n"])
def test_bad_state_file(tmp_path, text):
    (tmp_path / "checkpoint").write_bytes(text)
    with pytest.raises(tf.errors.DataLossError, match="checkpoint state file"):
        tf.train.latest_checkpoint(str(tmp_path))
