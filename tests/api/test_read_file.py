"""tf.read_file / tf.io.read_file / tf.write_file: host ops, each run reads or writes anew."""
import os

import pytest

import tinyflow as tf


def test_read_and_write_files(tmp_path):
    path = str(tmp_path / "a.bin")
    with tf.Graph().as_default():
        name = tf.placeholder(tf.string, [])
        contents = tf.read_file(name)
        write = tf.write_file(name, tf.constant(b"\x00abc\xff"))
        assert tf.io.read_file is tf.read_file and contents.dtype == tf.string
        with tf.Session() as sess:
            sess.run(write, {name: path})
            assert sess.run(contents, {name: path}) == b"\x00abc\xff"
            with open(path, "wb") as f:
                f.write(b"new")
            assert sess.run(contents, {name: path}) == b"new"      # read each run
            with pytest.raises(tf.errors.NotFoundError, match="No such file"):
                sess.run(contents, {name: str(tmp_path / "missing")})
            fifo = str(tmp_path / "fifo")
            os.mkfifo(fifo)
            with pytest.raises(tf.errors.DataLossError, match="not a regular file"):
                sess.run(contents, {name: fifo})


def test_read_file_feeds_a_decoder(tmp_path):
    pytest.importorskip("PIL")
    import numpy as np
    from PIL import Image
    img = (np.arange(4 * 5 * 3) % 255).astype(np.uint8).reshape(4, 5, 3)
    Image.fromarray(img).save(str(tmp_path / "x.png"))
    with tf.Graph().as_default(), tf.Session() as sess:
        decoded = tf.image.decode_png(tf.read_file(str(tmp_path / "x.png")), channels=3)
        assert (sess.run(decoded) == img).all()
