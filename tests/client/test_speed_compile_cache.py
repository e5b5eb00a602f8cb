"""JAX's persistent compilation cache (tinyflow/client/compile_cache.py), in processes of their own:
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
print(json.dumps({"dir": compile_cache.cache_dir(), "out": out,
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
    cache = str(tmp_path / "cache")
    first, _ = _run({"TINYFLOW_CACHE_DIR": cache})
    assert first["dir"] == cache and first["hits"] == 0
    stored = _entries(cache)
    assert len(stored) >= 2  # the initializer and the training step at least
    assert oct(os.stat(cache).st_mode & 0o777) == "0o700"
    second, _ = _run({"TINYFLOW_CACHE_DIR": cache})
    assert second["out"] == first["out"]
    assert second["hits"] >= 2 and second["misses"] == 0
    assert _entries(cache) == stored  # nothing compiled again


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
