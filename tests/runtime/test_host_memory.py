"""runtime/host_memory.py: a step whose temporaries exceed glibc's adaptive mmap threshold (32 MiB)
no longer faults them in again on every call. Page faults are counted in a child process, where
malloc's settings are its own: the same step without and then with the raised thresholds."""
import json
import os
import subprocess
import sys

import pytest

CHILD = r"""
import json, os, resource
import numpy as np
import tinyflow as tf
from tinyflow.runtime import host_memory

a = tf.placeholder(tf.float32, [2048, 64])
b = tf.placeholder(tf.float32, [64, 5120])
total = tf.reduce_sum(tf.sin(tf.matmul(a, b)) * 2.0)   # a 40 MiB product inside the program
feed = {a: np.ones([2048, 64], np.float32), b: np.full([64, 5120], 0.01, np.float32)}

def faults_per_step(sess):
    for _ in range(6):   # each of XLA's worker threads' malloc arenas grows once to hold the block
        sess.run(total, feed)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    values = [sess.run(total, feed) for _ in range(8)]
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 8.0, float(values[-1])

sess = tf.Session()   # TINYFLOW_KEEP_FREED_MEMORY=0: malloc left as it was
default = faults_per_step(sess)
os.environ["TINYFLOW_KEEP_FREED_MEMORY"] = "1"
host_memory._applied = None
threshold = host_memory.keep_freed_memory()
kept = faults_per_step(sess)
print(json.dumps({"default": default, "kept": kept, "threshold": threshold}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux") or not os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc"),
                    reason="glibc's malloc thresholds")
def test_freed_temporaries_are_reused():
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}
    env.update(TINYFLOW_KEEP_FREED_MEMORY="0", JAX_PLATFORMS="cpu")
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    (default, value), (kept, kept_value) = result["default"], result["kept"]
    assert result["threshold"] >= 40 << 20
    assert value == kept_value
    assert default > 8000, result     # 40 MiB of fresh pages (10,240 of 4 KiB) on every call
    assert kept < default / 4, result   # the freed block is reused (0-1,300 measured)
