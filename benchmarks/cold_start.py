"""Cold start: the whole process of a small CNN training script (benchmarks/cold_start_cnn.py:
import, build, initialize, 2 Adam steps, one evaluation), started as a new process each time:
  * tinyflow without the persistent compilation cache (TINYFLOW_COMPILATION_CACHE=0),
  * tinyflow, first process with an empty cache directory (it compiles and fills the cache),
  * tinyflow, second process with that (warm) cache: XLA compiling is skipped,
  * TF 1.15 (no compiling), when a TF 1.x python exists (~/.tf1-oracle, $TF1_PYTHON).
Each is repeated --reps times (a new cache directory for each cold/warm pair); medians shown.
Target (issue 17, item 4): second process with a warm cache <= TF 1.15's cold start.

    python benchmarks/cold_start.py [--reps 3]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from _common import ORACLE  # noqa: E402

SCRIPT = os.path.join(HERE, "cold_start_cnn.py")


def start(python, env_extra, tf1=False, extra=()):
    env = dict(os.environ, PYTHONPATH=ROOT, **env_extra)
    # Python's default: imported modules' bytecode is cached (__pycache__), as pip did for TF's at
    # install. A PYTHONDONTWRITEBYTECODE in this shell would make every tinyflow start compile
    # tinyflow's 30k lines of source again, which no user's second run does.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    t0 = time.perf_counter()
    out = subprocess.run([python, SCRIPT] + (["--tf1"] if tf1 else []) + list(extra), env=env, capture_output=True,
                         text=True, timeout=900)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-3000:])
    res = json.loads(out.stdout.strip().splitlines()[-1])
    res["process"] = wall
    return res


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--no-tf1", action="store_true")
    p.add_argument("--unseeded", action="store_true", help="no tf.set_random_seed: fresh numbers per process")
    args = p.parse_args()
    extra = ["--unseeded"] if args.unseeded else []
    rows = {"tinyflow, no cache": [], "tinyflow, cold cache (1st)": [], "tinyflow, warm cache (2nd)": []}
    has_tf1 = os.path.exists(ORACLE) and not args.no_tf1
    if has_tf1:
        rows["TF 1.15"] = []
    for _ in range(args.reps):
        rows["tinyflow, no cache"].append(start(sys.executable, {"TINYFLOW_COMPILATION_CACHE": "0"}, extra=extra))
        with tempfile.TemporaryDirectory() as d:
            env = {"TINYFLOW_COMPILATION_CACHE": "1", "TINYFLOW_CACHE_DIR": d}
            rows["tinyflow, cold cache (1st)"].append(start(sys.executable, env, extra=extra))
            rows["tinyflow, warm cache (2nd)"].append(start(sys.executable, env, extra=extra))
        if has_tf1:
            rows["TF 1.15"].append(start(ORACLE, {}, tf1=True, extra=extra))
    print("CNN script, whole process (median of %d), seconds" % args.reps)
    print("%-28s %9s %8s %8s %11s %8s" % ("", "process", "import", "build", "first step", "rest"))
    med = {}
    for name, rs in rows.items():
        m = {k: float(np.median([r[k] for r in rs])) for k in ("process", "import", "build", "first_step", "rest")}
        med[name] = m
        print("%-28s %9.2f %8.2f %8.2f %11.2f %8.2f" % (name, m["process"], m["import"], m["build"],
                                                       m["first_step"], m["rest"]))
    warm = med["tinyflow, warm cache (2nd)"]["process"]
    print("warm / no cache: %.2fx" % (warm / med["tinyflow, no cache"]["process"]))
    if has_tf1:
        print("warm / TF 1.15: %.2fx   (target <= 1.0x)" % (warm / med["TF 1.15"]["process"]))


if __name__ == "__main__":
    main()
