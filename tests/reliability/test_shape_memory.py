"""Compiled programs for batch sizes that come and go are bounded (issue 31, item 7): each fetch set
keeps at most $TINYFLOW_SHAPE_CACHE_SIZE (8) shapes' programs, least recently used first out, and
Session.close() frees what the Session holds."""
import gc
import json
import os
import subprocess
import sys
import weakref

import numpy as np
import pytest

import tinyflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CHILD = r'''
import gc, json, os
import numpy as np
import tinyflow as tf

def rss():
    return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20
x = tf.placeholder(tf.float32, [None])
w = tf.Variable(0.0)
step = tf.assign_add(w, tf.reduce_sum(x))
sess = tf.Session()
sess.run(tf.global_variables_initializer())
marks = {}
for n in range(1, 201):
    sess.run(step, {x: np.ones(n, np.float32)})
    if n in (40, 200):
        gc.collect()
        marks[n] = rss()
print(json.dumps({"w": float(sess.run(w)), "growth_mb": marks[200] - marks[40]}))
'''


@pytest.mark.slow
def test_rss_stays_bounded_over_200_batch_sizes():
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu", TINYFLOW_COMPILATION_CACHE="0")
    r = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=500)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["w"] == 200 * 201 / 2
    # 160 new batch sizes: before, every one kept its program (~1.5 MB each, 240 MB); now ~20 kB each
    assert out["growth_mb"] < 16, out


@pytest.mark.slow
def test_each_fetch_set_keeps_at_most_8_shapes_and_close_frees_them():
    x = tf.placeholder(tf.float32, [None])
    w = tf.Variable(0.0)
    step = tf.assign_add(w, tf.reduce_sum(x))
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    for n in range(1, 13):
        sess.run(step, {x: np.ones(n, np.float32)})
    low = [v for v in sess._compiled.values() if v.rw_vars][0]
    assert list(low.executables.entries) == [((n,),) for n in range(5, 13)]   # the 8 most recent
    sess.run(step, {x: np.ones(5, np.float32)})   # a hit moves it to the end
    assert list(low.executables.entries)[-1] == ((5,),)
    entry = weakref.ref(low.executables.entries[((5,),)])
    lowered = weakref.ref(low)
    del low
    sess.close()
    gc.collect()
    assert lowered() is None and entry() is None
