"""Helpers shared by the benchmarks: interleaved step timing and the TF side processes (TF 1.15, and TF 2.x
through tf.compat.v1: what a TF1 user runs instead today)."""
import json
import os
import subprocess
import time

import numpy as np

ORACLE = os.environ.get("TF1_PYTHON", os.path.expanduser("~/.tf1-oracle/bin/python"))
TF2 = os.environ.get("TF2_PYTHON", os.path.expanduser("~/.tf2-anchor/bin/python"))
HERE = os.path.dirname(os.path.abspath(__file__))


def step_times(fns, n, warmup=3, clock=time.perf_counter):
    """Per-call seconds of each fn over n calls, the calls interleaved one by one so a noisy
    neighbour hits them alike. Returns (fastest, median) per fn. clock=time.process_time counts the
    CPU seconds of all the process's threads instead: the work done, steadier on a loaded machine."""
    for fn in fns:
        for _ in range(warmup):
            fn()
    times = [[] for _ in fns]
    for _ in range(n):
        for fn, ts in zip(fns, times):
            t0 = clock()
            fn()
            ts.append(clock() - t0)
    return [(min(ts), float(np.median(ts))) for ts in times]


def tf1_run(script, *args, timeout=1800):
    """Runs benchmarks/tf1/<script> under a TensorFlow 1.x python (the tf1-oracle venv, or
    $TF1_PYTHON) and returns the JSON object it prints last; None when there is no TF 1.x."""
    return _run(ORACLE, [os.path.join(HERE, "tf1", script)], args, timeout, "TF 1.x")


def tf2_run(script, *args, timeout=1800):
    """The same script under TF 2.x through tf.compat.v1 (benchmarks/tf1/compat_v1.py; the tf2-anchor
    venv, or $TF2_PYTHON); None when there is no TF 2.x."""
    return _run(TF2, [os.path.join(HERE, "tf1", "compat_v1.py"), script], args, timeout, "TF 2.x")


def _run(python, argv, args, timeout, side):
    if not os.path.exists(python):
        return None
    try:
        out = subprocess.run([python] + argv + [str(a) for a in args], capture_output=True, text=True,
                             timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    if out.returncode != 0 or not lines:
        print("(%s side failed: %s)" % (side, out.stderr.strip().splitlines()[-1:] if out.stderr else ""))
        return None
    return json.loads(lines[-1])
