"""The compilation cache verifies its entries (issue 31, item 6): two entries swapped on disk are
caught, compiled again with a warning, and the results stay right."""
import json
import pytest
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = r'''
import json, warnings
import numpy as np
import tinyflow as tf

x = tf.placeholder(tf.float32, [None, 8])
w = tf.Variable(np.ones((8, 3), np.float32))
y = tf.reduce_sum(tf.nn.relu(tf.matmul(x, w) - 2.0))
train = tf.train.GradientDescentOptimizer(0.1).minimize(y)
double = tf.reduce_sum(x * 2.0)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = [float(sess.run([train, y], {x: np.full((4, 8), 0.5, np.float32)})[1]) for _ in range(2)]
        out.append(float(sess.run(double, {x: np.full((4, 8), 0.5, np.float32)})))
        out.append(float(sess.run(y, {x: np.full((4, 8), 0.5, np.float32)})))
print(json.dumps({"out": out, "warnings": [str(c.message) for c in caught if "compilation cache" in str(c.message)]}))
'''


def _run(cache):
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu", TINYFLOW_CACHE_DIR=cache,
               TINYFLOW_CACHE_MIN_COMPILE_SECS="0")
    env.pop("TINYFLOW_COMPILATION_CACHE", None)
    r = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=400)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def _entries(cache):
    return sorted(os.path.join(cache, f) for f in os.listdir(cache) if f.endswith("-cache"))


@pytest.mark.slow
def test_swapped_entries_are_caught_and_compiled_again(tmp_path):
    cache = str(tmp_path / "cache")
    first = _run(cache)
    assert first["warnings"] == []
    entries = _entries(cache)
    assert len(entries) >= 3
    blobs = [open(p, "rb").read() for p in entries]
    for p, b in zip(entries, blobs[1:] + blobs[:1]):   # every entry now holds another one's program
        with open(p, "wb") as f:
            f.write(b)
    second = _run(cache)
    assert second["out"] == first["out"]
    assert second["warnings"] and all("was compiled for another program" in m and "compiling again" in m
                                      for m in second["warnings"])
    third = _run(cache)   # the entries were written again, right
    assert third["out"] == first["out"] and third["warnings"] == []


@pytest.mark.slow
def test_a_damaged_entry_is_caught(tmp_path):
    cache = str(tmp_path / "cache")
    first = _run(cache)
    for p in _entries(cache):
        b = bytearray(open(p, "rb").read())
        b[-1] ^= 1
        with open(p, "wb") as f:
            f.write(bytes(b))
    second = _run(cache)
    assert second["out"] == first["out"]
    assert second["warnings"] and all("is damaged" in m for m in second["warnings"])
