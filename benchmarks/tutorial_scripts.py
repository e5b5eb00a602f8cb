"""Whole TF1 tutorial-style scripts (benchmarks/scripts/: a CIFAR-style CNN, deep MNIST writing
summaries every step, an LSTM classifier, a 3-layer LSTM seq2seq, a text CNN; small sizes, data made
in the script) run as whole processes: `python -m tinyflow SCRIPT` against the same file under TF 1.15
(~/.tf1-oracle or $TF1_PYTHON), paired run by run on the same machine.

cold: tinyflow with an empty persistent compilation cache (a fresh $TINYFLOW_CACHE_DIR), TF's first
run; warm: the second run of each (tinyflow's cache filled by the cold run). Columns: the process's
wall seconds, its CPU seconds (user + sys, all threads: steadier than wall time on a shared machine),
and the median training step the script measured itself (steps after the first), in wall and in CPU
milliseconds. With --rounds R each cell is the median of R paired runs (the ratio: of the medians).
Both run as installed: Python's bytecode cache on (pip compiles it at install; a
$PYTHONDONTWRITEBYTECODE of the caller's would make tinyflow compile its source in every process).

--before DIR runs tinyflow from another checkout too, in the same rounds (a change's before: its
cold and warm runs alternate with this checkout's), printed as rows "cold, before" / "warm, before".

    python benchmarks/tutorial_scripts.py [--only NAME] [--rounds R] [--no-tf1] [--before DIR]
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

from _common import ORACLE

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCRIPTS = ["cnn", "mnist_deep_summaries", "lstm_classifier", "seq2seq", "text_cnn"]


def run(cmd, env, timeout=900):
    """(wall s, CPU s, the script's BENCH record or None) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        out = subprocess.run(cmd, cwd=os.path.join(HERE, "scripts"), env=env, capture_output=True, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        return float("nan"), float("nan"), None
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("BENCH ")]
    if out.returncode != 0 or not lines:
        print("  (%s failed: %s)" % (" ".join(cmd[-2:]), (out.stderr.strip().splitlines() or ["?"])[-1]))
        return wall, cpu, None
    return wall, cpu, json.loads(lines[-1][len("BENCH "):])


COLUMNS = [lambda r: r[0], lambda r: r[1],   # wall s, CPU s; the script's median step, wall and CPU ms
           lambda r: r[2]["step_s"] * 1e3 if r[2] else float("nan"),
           lambda r: r[2]["step_cpu_s"] * 1e3 if r[2] else float("nan")]


def median(values):
    values, n = sorted(values), len(values)
    return values[n // 2] if n % 2 else 0.5 * (values[n // 2 - 1] + values[n // 2])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--only", default="", help="run only this script (or those whose name holds it)")
    p.add_argument("--rounds", type=int, default=1, help="cold+warm pairs per script; the medians are shown")
    p.add_argument("--no-tf1", action="store_true", help="leave out TF 1.15")
    p.add_argument("--before", default="", help="a tinyflow checkout to run in the same rounds (rows '..., before')")
    args = p.parse_args()
    tf1 = os.path.exists(ORACLE) and not args.no_tf1
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    tiny_env = dict(env, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
                    TINYFLOW_COMPILATION_CACHE="1")
    tf_env = dict(env, TF_CPP_MIN_LOG_LEVEL="2")
    for root in [ROOT] + ([args.before] if args.before else []):
        subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(root, "tinyflow")], env=env, check=True)
    print("whole processes, seconds (tinyflow / TF 1.15 = ratio); step: the median step in ms")
    print("%-22s %-12s %22s %22s %22s %22s" % ("script", "run", "wall s", "CPU s", "step ms", "step CPU ms"))
    for name in [args.only] if args.only in SCRIPTS else [s for s in SCRIPTS if args.only in s]:
        script = name + ".py"
        rows = {"cold": [], "warm": []}
        if args.before:
            rows.update({"cold, before": [], "warm, before": []})
        for r in range(args.rounds):
            roots, ref = [(ROOT, "")] + ([(args.before, ", before")] if args.before else []), {}
            for root, tag in roots if r % 2 == 0 else roots[::-1]:   # alternating which goes first
                with tempfile.TemporaryDirectory() as cache:
                    env = dict(tiny_env, TINYFLOW_CACHE_DIR=cache,
                               PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
                    for kind in ("cold", "warm"):   # paired: tinyflow then TF, twice (once with --before)
                        tiny = run([sys.executable, "-m", "tinyflow", script], env)
                        if kind not in ref:   # TF once per round, paired with whichever runs first
                            ref[kind] = run([ORACLE, script], tf_env) if tf1 else (float("nan"), float("nan"), None)
                        rows[kind + tag].append((tiny, ref.get(kind)))
        for kind, pairs in rows.items():
            cells = [tuple(median([column(r[side]) for r in pairs]) for side in (0, 1)) for column in COLUMNS]
            print("%-22s %-12s %s" % (name, kind, " ".join("%7.2f /%7.2f =%5.2fx" % (a, b, a / b) if b == b and b
                                                           else "%7.2f /    n/a        " % a for a, b in cells)),
                  flush=True)


if __name__ == "__main__":
    main()
