"""Every dtype spelling means what TF 1.15's tf.as_dtype says (tests/fixtures/idioms/dtypes.json, written
by make_dtypes.py with real TF), and every dtype= argument goes through it ("float" is float32)."""
import json
import os
from paths import TESTS as _TESTS  # the tests/ folder

import numpy as np
import pytest

import tinyflow as tf


_TABLE = json.load(open(os.path.join(_TESTS, "fixtures", "idioms", "dtypes.json")))
_PY = {"float": float, "int": int, "bool": bool, "str": str, "bytes": bytes, "complex": complex, "object": object}


def _value(key):
    kind, _, name = key.partition(":")
    if kind == "str":
        return name
    if kind == "py":
        return _PY[name]
    if kind == "np":
        return getattr(np, name)
    if kind == "npdtype":
        return {"U5": np.dtype("U5"), "record": np.dtype([("a", "f4")])}.get(name) or np.dtype(getattr(np, name))
    if kind == "enum":
        return int(name)
    return None


@pytest.mark.parametrize("key", sorted(_TABLE))
def test_as_dtype_matches_tf115(key):
    if key.startswith(("np:", "npdtype:")) and key.split(":")[1] not in ("U5", "record") \
            and not hasattr(np, key.split(":")[1]):
        pytest.skip("numpy 2 removed np.%s" % key.split(":")[1])
    want = _TABLE[key]
    if want == "TypeError":
        with pytest.raises(TypeError, match="Cannot convert value"):
            tf.as_dtype(_value(key))
    else:
        want = want[:-4] if want.endswith("_ref") else want
        assert tf.as_dtype(_value(key)).name == want


def test_float_spelling_is_float32_in_every_dtype_argument():
    tf.reset_default_graph()
    x = tf.placeholder("float", [None, 2])
    assert x.dtype == tf.float32
    assert tf.cast(tf.constant([1, 2]), "float").dtype == tf.float32
    assert tf.zeros([2], dtype="float").dtype == tf.float32
    assert tf.ones([2], "float").dtype == tf.float32
    assert tf.constant(1, dtype="float").dtype == tf.float32
    assert tf.Variable(tf.zeros([2]), dtype="float").dtype.base_dtype == tf.float32
    assert tf.get_variable("v", [2], dtype="float").dtype.base_dtype == tf.float32
    assert tf.random_normal([2], dtype="float").dtype == tf.float32
    assert tf.placeholder(np.float32).dtype == tf.float32 and tf.placeholder("double").dtype == tf.float64
    with tf.Session() as sess:
        out = sess.run(x * 2, {x: np.ones((1, 2))})
    assert out.dtype == np.float32


def test_python_int_is_not_a_dtype_as_in_tf():
    with pytest.raises(TypeError, match="Cannot convert value <class 'int'>"):
        tf.placeholder(int)
    with pytest.raises(TypeError):
        tf.cast(tf.constant(1.0), "int")
