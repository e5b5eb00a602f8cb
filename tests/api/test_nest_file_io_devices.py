"""tf.nest, tensorflow.python.lib.io.file_io / pywrap_tensorflow / client.device_lib under the runner."""
import collections
import subprocess
import sys
import textwrap

import pytest

import tinyflow as tf


def test_nest_as_tf():
    assert tf.nest.map_structure(lambda a, b: a + b, {"x": (1, 2)}, {"x": (3, 4)}) == {"x": (4, 6)}
    assert tf.nest.flatten({"b": [1, 2], "a": 3}) == [3, 1, 2]
    assert tf.nest.pack_sequence_as([1, (2, 3)], ["a", "b", "c"]) == ["a", ("b", "c")]
    assert tf.nest.is_nested([1]) and not tf.nest.is_nested(1)
    with pytest.raises(ValueError, match="The two structures don't have the same nested structure"):
        tf.nest.assert_same_structure([1, 2], [1])
    Pair = collections.namedtuple("Pair", "a b")
    with pytest.raises(TypeError, match="same sequence type"):
        tf.nest.assert_same_structure(Pair(1, 2), (1, 2))
    tf.nest.assert_same_structure(Pair(1, 2), (1, 2), check_types=False)
    with pytest.raises(ValueError, match="Could not pack sequence"):
        tf.nest.pack_sequence_as([1, 2], [1])


def test_tensorflow_python_modules_scripts_import(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(textwrap.dedent("""
        import os, sys
        import tensorflow as tf
        from tensorflow.python.lib.io import file_io
        from tensorflow.python import pywrap_tensorflow
        from tensorflow.python.client import device_lib
        from tensorflow.python.util import nest
        d = sys.argv[1]
        file_io.recursive_create_dir(os.path.join(d, "a", "b"))
        file_io.write_string_to_file(os.path.join(d, "a", "f.txt"), "hello")
        assert file_io.file_exists(os.path.join(d, "a", "f.txt"))
        assert file_io.read_file_to_string(os.path.join(d, "a", "f.txt")) == "hello"
        assert file_io.read_file_to_string(os.path.join(d, "a", "f.txt"), binary_mode=True) == b"hello"
        assert sorted(file_io.list_directory(os.path.join(d, "a"))) == ["b", "f.txt"]
        v = tf.Variable([1.0, 2.0], name="v")
        with tf.Session() as sess:
            sess.run(v.initializer)
            path = tf.train.Saver().save(sess, os.path.join(d, "m.ckpt"))
        reader = pywrap_tensorflow.NewCheckpointReader(path)
        assert list(reader.get_tensor("v")) == [1.0, 2.0]
        devices = device_lib.list_local_devices()
        assert devices[0].name == "/device:CPU:0" and devices[0].device_type == "CPU"
        assert nest.map_structure(lambda x: x * 2, [1, (2,)]) == [2, (4,)]
        print("ok")
    """))
    out = subprocess.run([sys.executable, "-m", "tinyflow", str(script), str(tmp_path)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().endswith("ok")
