"""Issue 40's anchors: the same TF1 step files (benchmarks/tf1/anchor_workloads.py: tf.nn and
tf.get_variable only) run as whole processes under tinyflow (`python -m tinyflow`), TF 1.15 ($TF1_PYTHON
or ~/.tf1-oracle) and TF 2.x through tf.compat.v1 ($TF2_PYTHON or ~/.tf2-anchor: what a TF1 user runs
instead today), in alternating rounds; median over the rounds of each process's median step.

    python benchmarks/anchors.py [--rounds 3] [--steps 50] [--only mlp,cnn] [--before /work/main]

--before DIR adds a column of tinyflow run from another checkout (a change's before, in the same rounds).

A column whose interpreter is missing is left out. Neither TF is a dependency of tinyflow or its tests.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "tf1", "anchor_workloads.py")
WORKLOADS = ["mlp", "cnn", "lstm", "wideconv"]


def interpreters():
    """{column: argv prefix} of the implementations found on this machine."""
    found = {"tinyflow": [sys.executable, "-m", "tinyflow"]}
    for col, var, default in (("TF 1.15", "TF1_PYTHON", "~/.tf1-oracle/bin/python"),
                              ("TF 2.x compat.v1", "TF2_PYTHON", "~/.tf2-anchor/bin/python")):
        path = os.environ.get(var, os.path.expanduser(default))
        if os.path.exists(path):
            found[col] = [path]
    return found


def run(argv, workload, steps, root=os.path.dirname(HERE)):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", TF_USE_LEGACY_KERAS="1")
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run(argv + [SCRIPT, workload, str(steps)], capture_output=True, text=True, env=env,
                         timeout=1800, cwd=root)   # `-m tinyflow` imports from the working directory first
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    if out.returncode != 0 or not lines:
        print("(%s %s failed: %s)" % (argv[0], workload, (out.stderr.strip().splitlines() or ["?"])[-1]))
        return None
    return json.loads(lines[-1])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--only", default="")
    p.add_argument("--before", default="", help="a tinyflow checkout to run as a column of its own")
    args = p.parse_args()
    cols = interpreters()
    if args.before:
        cols["tinyflow before"] = cols["tinyflow"]
    names = [w for w in WORKLOADS if not args.only or w in args.only.split(",")]
    meds = {(w, c): [] for w in names for c in cols}
    cpus = {(w, c): [] for w in names for c in cols}
    versions = {}
    for _ in range(args.rounds):
        for w in names:
            for c, argv in cols.items():
                res = run(argv, w, args.steps, *([args.before] if c == "tinyflow before" else []))
                if res:
                    meds[(w, c)].append(res["median"])
                    cpus[(w, c)].append(res.get("cpu", np.nan))
                    versions[c] = res["version"]
    print("median ms per step (%d alternating rounds of whole processes, %d steps each); versions: %s"
          % (args.rounds, args.steps, versions))
    header = ["workload"] + list(cols) + ["tinyflow / %s" % c for c in cols if c != "tinyflow"]
    for what, table in (("wall", meds), ("CPU seconds of the process (all threads)", cpus)):
        print("\n%s, ms per step:\n| %s |\n|%s" % (what, " | ".join(header), "---|" * len(header)))
        for w in names:
            m = {c: float(np.median(table[(w, c)])) * 1e3 if table[(w, c)] else None for c in cols}
            cells = ["%.1f" % m[c] if m[c] else "-" for c in cols]
            cells += ["%.2fx" % (m["tinyflow"] / m[c]) if m[c] and m["tinyflow"] else "-"
                      for c in cols if c != "tinyflow"]
            print("| %s | %s |" % (w, " | ".join(cells)))


if __name__ == "__main__":
    main()
