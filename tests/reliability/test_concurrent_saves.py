"""Two real processes saving into one folder at once (issue 31, item 4): every save succeeds, each
process's checkpoints restore with its own values, and no temporary file is left behind (a save
removes only what dead processes left: temporary files name their host and process)."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CHILD = r'''
import json, os, sys
import numpy as np
import tinyflow as tf
d, which, fmt, n = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
v = tf.Variable(np.zeros(20000, np.float32))   # 80 kB: saves take long enough to overlap
value = tf.placeholder(tf.float32, [20000])
assign = tf.assign(v, value)
saver = tf.train.Saver(max_to_keep=2, write_version=tf.train.SaverDef.V2 if fmt == "v2" else "npz")
failures, last = [], None
with tf.Session() as sess:
    for i in range(n):
        step = 2 * i + which   # process 0 saves the even steps, process 1 the odd ones
        sess.run(assign, {value: np.full(20000, step, np.float32)})
        try:
            last = saver.save(sess, os.path.join(d, "model"), global_step=step)
        except Exception as e:
            failures.append("%s: %s" % (type(e).__name__, e))
    kept = [p for p in saver.last_checkpoints]
    restored = {}
    for p in kept:
        saver.restore(sess, p)
        restored[p] = float(sess.run(v)[0])
print(json.dumps({"failures": failures, "restored": restored}))
'''


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["v2", "npz"])
def test_two_processes_saving_into_one_folder(tmp_path, fmt):
    d = str(tmp_path)
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu")
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, d, str(w), fmt, "60"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for w in (0, 1)]
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=400)
        assert p.returncode == 0, err[-3000:]
        outs.append(json.loads(out.strip().splitlines()[-1]))
    for w, out in enumerate(outs):
        assert out["failures"] == []
        assert len(out["restored"]) == 2
        for prefix, got in out["restored"].items():
            assert got == int(prefix.rsplit("-", 1)[1]) and int(got) % 2 == w
    names = os.listdir(d)
    assert [n for n in names if n.endswith(".tmp") or n.endswith(".pending")] == []
    # what is left: each process's two newest checkpoints (index, data, meta) and the state file
    assert len(names) <= 2 * 2 * (4 if fmt == "v2" else 3) + 1, sorted(names)
    state = tf_state(d)
    assert os.path.basename(state) in {os.path.basename(p) for o in outs for p in o["restored"]}


def tf_state(d):
    import tinyflow as tf
    return tf.train.latest_checkpoint(d)
