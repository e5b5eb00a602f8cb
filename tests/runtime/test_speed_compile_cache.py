"""JAX's persistent compilation cache (tinyflow/runtime/compile_cache.py), in processes of their own:
a second process loads the step compiled by the first; the settings turn it off or move it."""
import json
import os
from paths import TESTS as _TESTS  # the tests/ folder
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # every test here takes over a second (the fast subset: -m "not slow")

ROOT = os.path.dirname(_TESTS)

SCRIPT = r'''
import json, jax
events = []
jax.monitoring.register_event_listener(lambda name, **kw: events.append(name))
import numpy as np
import tinyflow as tf
from tinyflow.client import compile_cache

x = tf.placeholder(tf.float32, [None, 8])
w = tf.Variable(np.ones((8, 3), np.float32))
y = tf.reduce_sum(tf.nn.relu(tf.matmul(x, w) - 2.0))
train = tf.train.GradientDescentOptimizer(0.1).minimize(y)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    out = [float(sess.run([train, y], {x: np.full((4, 8), 0.5, np.float32)})[1]) for _ in range(2)]
    firsts = [e.tier.compile_s for low in sess._compiled.values() for e in low.executables.entries.values() if e.tier]
print(json.dumps({"dir": compile_cache.cache_dir(), "out": out, "firsts": firsts,
                  "hits": sum("cache_hits" in e for e in events), "misses": sum("cache_misses" in e for e in events)}))
'''


def _run(env):
    full = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu", TINYFLOW_CACHE_MIN_COMPILE_SECS="0", **env)
    full.pop("TINYFLOW_COMPILATION_CACHE", None) if "TINYFLOW_COMPILATION_CACHE" not in env else None
    r = subprocess.run([sys.executable, "-c", SCRIPT], env=full, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1]), r.stderr


def _entries(path):
    return sorted(f for f in os.listdir(path)) if os.path.isdir(path) else []


def test_second_process_loads_the_compiled_steps(tmp_path):
    # with tiers (runtime/executables.py) that upgrade at the second call: both programs of the step
    cache, tiers = str(tmp_path / "cache"), {"TINYFLOW_TIERED": "1e-9"}
    first, _ = _run({"TINYFLOW_CACHE_DIR": cache, **tiers})
    assert first["dir"] == cache and first["hits"] == 0
    stored = _entries(cache)
    assert len(stored) >= 3  # the initializer and the training step's two tiers at least
    assert oct(os.stat(cache).st_mode & 0o777) == "0o700"
    second, _ = _run({"TINYFLOW_CACHE_DIR": cache, **tiers})
    assert second["out"] == first["out"]
    assert second["hits"] >= 3 and second["misses"] == 0
    assert _entries(cache) == stored  # nothing compiled again
    # a loaded first tier counts the seconds its compile took (recorded in the entry: JAX keeps whole
    # seconds), so a warm run upgrades no sooner than the cold run did
    assert len(second["firsts"]) == len(first["firsts"]) >= 1
    for cold, warm in zip(first["firsts"], second["firsts"]):
        assert 0.5 * cold <= warm <= cold, (cold, warm)


def test_setting_turns_it_off(tmp_path):
    cache = str(tmp_path / "cache")
    res, _ = _run({"TINYFLOW_CACHE_DIR": cache, "TINYFLOW_COMPILATION_CACHE": "0"})
    assert res["dir"] is None and res["hits"] == 0
    assert not os.path.exists(cache)


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_a_directory_others_may_write_is_refused(tmp_path):
    cache = tmp_path / "shared"
    cache.mkdir()
    os.chmod(cache, 0o777)
    res, err = _run({"TINYFLOW_CACHE_DIR": str(cache)})
    assert res["dir"] is None and "others may write to it" in err
    assert _entries(str(cache)) == []


def test_default_directory_and_import_stays_light(tmp_path):
    code = ("import json, jax, tinyflow; from tinyflow.client import compile_cache as c; "
            "print(json.dumps([jax.config.jax_compilation_cache_dir, c.default_dir()]))")
    env = dict(os.environ, PYTHONPATH=ROOT, XDG_CACHE_HOME=str(tmp_path))
    env.pop("TINYFLOW_CACHE_DIR", None)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    set_at_import, default = json.loads(r.stdout.strip().splitlines()[-1])
    assert set_at_import is None  # nothing happens at import: only the first Session step sets it up
    assert default == os.path.join(str(tmp_path), "tinyflow", "jax")


RANDOM_SCRIPT = r'''
import hashlib, json, jax
events = []
jax.monitoring.register_event_listener(lambda name, **kw: events.append(name))
import numpy as np
import tinyflow as tf

x = tf.placeholder(tf.float32, [None, 8])
w = tf.Variable(tf.truncated_normal([8, 3], stddev=0.1))
b = tf.Variable(tf.random_uniform([3]))
h = tf.nn.dropout(tf.matmul(x, w) + b, keep_prob=0.5)
loss = tf.reduce_sum(h)
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
init = tf.global_variables_initializer()
feed = {x: np.ones((4, 8), np.float32)}
with tf.Session() as sess:
    sess.run(init)
    out = sess.run([train, loss], feed)[1]
    texts = []
    for fetches, fd in (([init], None), ([train, loss], feed)):
        low = sess.lowered(fetches, fd)
        text = low.jitted.lower(*low.function.flat_args(*low.args)).as_text()
        texts.append(hashlib.sha256(text.encode()).hexdigest())
    w0 = sess.run(w).tolist()
print(json.dumps({"texts": texts, "w": w0, "out": float(out),
                  "hits": sum("cache_hits" in e for e in events), "misses": sum("cache_misses" in e for e in events)}))
'''


def test_unseeded_random_ops_hit_the_cache_in_a_second_process(tmp_path):
    """Unseeded ops' random pair is an argument, not a constant: the same program text in two
    processes (so the second loads every fetch set, initializer and dropout step, from the cache)
    and different numbers."""
    cache = str(tmp_path / "cache")
    runs = []
    for _ in range(2):
        full = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu", TINYFLOW_CACHE_MIN_COMPILE_SECS="0",
                    TINYFLOW_CACHE_DIR=cache)
        full.pop("TINYFLOW_COMPILATION_CACHE", None)
        r = subprocess.run([sys.executable, "-c", RANDOM_SCRIPT], env=full, capture_output=True, text=True,
                           timeout=180)
        assert r.returncode == 0, r.stderr[-2000:]
        runs.append(json.loads(r.stdout.strip().splitlines()[-1]))
    first, second = runs
    assert first["texts"] == second["texts"]
    assert first["w"] != second["w"] and first["out"] != second["out"]
    assert first["misses"] >= 2 and second["misses"] == 0 and second["hits"] >= 2


def test_cache_usage_and_clear(tmp_path):
    from tinyflow.runtime import compile_cache
    d = tmp_path / "c"
    d.mkdir()
    (d / "a").write_bytes(b"x" * 10)
    (d / "b").write_bytes(b"y" * 5)
    assert compile_cache.usage(str(d)) == (str(d), 2, 15)
    assert compile_cache.clear(str(d)) == 2
    assert compile_cache.usage(str(d)) == (str(d), 0, 0) and d.is_dir()


def test_trim_removes_least_recently_used(tmp_path):
    from tinyflow.runtime import compile_cache
    for i, name in enumerate("abcd"):
        f = tmp_path / name
        f.write_bytes(b"x" * 100)
        os.utime(f, (1000 + i, 1000 + i))
    assert compile_cache.trim(str(tmp_path), 1000) == 0
    assert compile_cache.trim(str(tmp_path), 300) == 2   # down to <= 225 bytes: the two oldest go
    assert sorted(os.listdir(tmp_path)) == ["c", "d"]
