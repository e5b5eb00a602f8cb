"""Data-parallel training steps over 1, 2, 4, 8 host devices (tf.distribute.DataParallel).

    python benchmarks/data_parallel.py [--steps 30] [--devices 1,2,4,8]

For each device count (a fresh process: XLA's host device count is fixed at start) it trains an MLP
784-256-256-10 with Momentum on a global batch of 256 and prints steps/s, the bytes the step's
all-reduces move (read from the partitioned HLO: they must equal the gradient bytes, once per step)
and the scaling efficiency. On this CPU machine the host "devices" share 2 cores, so the figure of
merit here is correctness and the communicated bytes, not the speed-up.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

_BYTES = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2, "s32": 4, "s64": 8}


def all_reduce_bytes(hlo):
    """Bytes of the non-scalar results of every all-reduce in an HLO module's text (the gradients;
    the scalars are the loss's sum and a label check's verdict)."""
    total = 0
    hlo = re.sub(r"/\*.*?\*/", "", hlo)
    for m in re.finditer(r"= \(?([^=]*?)\)? all-reduce(?:-start)?\(", hlo):
        for t, dims in re.findall(r"(f32|f64|f16|bf16|s32|s64)\[([\d,]*)\]", m.group(1)):
            if not dims:
                continue
            n = 1
            for d in filter(None, dims.split(",")):
                n *= int(d)
            total += n * _BYTES[t]
    return total


def worker(devices, steps):
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=%d" % devices
    import numpy as np
    import tinyflow as tf
    x = tf.placeholder(tf.float32, [None, 784])
    y = tf.placeholder(tf.int64, [None])
    h = tf.layers.dense(tf.layers.dense(x, 256, tf.nn.relu), 256, tf.nn.relu)
    loss = tf.losses.sparse_softmax_cross_entropy(y, tf.layers.dense(h, 10))
    train = tf.train.MomentumOptimizer(0.01, 0.9).minimize(loss)
    rs = np.random.RandomState(0)
    feed = {x: rs.rand(256, 784).astype(np.float32), y: rs.randint(0, 10, 256)}
    sess = tf.Session(config=tf.distribute.DataParallel() if devices > 1 else None)
    sess.run(tf.global_variables_initializer())
    for _ in range(3):
        sess.run([train, loss], feed)
    t = time.perf_counter()
    for _ in range(steps):
        sess.run([train, loss], feed)
    dt = (time.perf_counter() - t) / steps
    grads = sum(int(np.prod(v.shape.as_list())) * 4 for v in tf.trainable_variables())
    hlo = sess.lowered([train, loss], feed).hlo
    print(json.dumps({"devices": devices, "steps_per_s": 1 / dt, "all_reduce_bytes": all_reduce_bytes(hlo),
                      "gradient_bytes": grads}))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--devices", default="1,2,4,8")
    p.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.worker is not None:
        return worker(a.worker, a.steps)
    rows = []
    for n in [int(d) for d in a.devices.split(",")]:
        out = subprocess.run([sys.executable, __file__, "--worker", str(n), "--steps", str(a.steps)],
                             capture_output=True, text=True, check=True)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    base = rows[0]["steps_per_s"]
    print("%-8s %10s %12s %16s %14s %11s" % ("devices", "steps/s", "efficiency", "all-reduce bytes",
                                               "gradient bytes", "bytes ok"))
    for r in rows:
        eff = r["steps_per_s"] / base / (r["devices"] / rows[0]["devices"])
        ok = r["all_reduce_bytes"] == r["gradient_bytes"] if r["devices"] > 1 else r["all_reduce_bytes"] == 0
        print("%-8d %10.1f %11.2fx %16d %14d %11s" % (r["devices"], r["steps_per_s"], eff, r["all_reduce_bytes"],
                                                        r["gradient_bytes"], ok))
    print("(host devices share this machine's cores: the speed-up is not the figure of merit here)")


if __name__ == "__main__":
    main()
