"""Run a corpus of public TF1 programs unchanged (flags only) under tinyflow and under TF 1.15.

Each program of manifest.json names a public repository, the commit it was taken at, the folder of its
checkout under --corpus-dir, its entry script, the flags of a tiny configuration, and the synthetic data
it reads (made here by one of the small generators below: no dataset is downloaded). For each program
the checkout is copied into a fresh scratch folder, its data is written there, and the entry script runs

    python -m tinyflow ENTRY FLAGS...          (this interpreter, this checkout of tinyflow)
    /root/.tf1-oracle/bin/python ENTRY FLAGS... (TF 1.15; or $TF1_PYTHON)

each with a timeout. The table printed (markdown) gives each run's status (runs, or the first error
line), the wall time of each, their ratio, the process CPU time (user + system) of each and its ratio,
and the first blocker met under tinyflow.

    python tools/corpus/run_corpus.py --corpus-dir /work/corpus [--only NAME] [--no-tf1] [--timeout S]

docs/corpus.md says how to check the programs out (repository and commit of each, from the manifest).
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TF1 = os.environ.get("TF1_PYTHON", "/root/.tf1-oracle/bin/python")

SCIPY_SHIM = """# written by tools/corpus/run_corpus.py --scipy-shim: the environment, not the program, is changed
import sys, types
import scipy.sparse.linalg as _linalg
_arpack = types.ModuleType("scipy.sparse.linalg.eigen.arpack")
_arpack.eigsh = _linalg.eigsh
sys.modules["scipy.sparse.linalg.eigen.arpack"] = _arpack
"""


def first_error(text):
    """The line that names the error: the last 'SomethingError: ...' line of a traceback, else the last line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in reversed(lines):
        head = ln.split(":", 1)[0]
        if (head.endswith(("Error", "Exception", "Exit", "Interrupt")) or head == "Fatal Python error") \
                and " " not in head:
            return ln[:160]
    return lines[-1][:160] if lines else "(no output)"


def children_cpu():
    """User + system CPU seconds of this process's finished children (and theirs)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_one(python, entry_args, cwd, env, timeout):
    """(status, wall seconds, first error line or '', process CPU seconds) of one whole process."""
    t0, c0 = time.perf_counter(), children_cpu()
    try:
        out = subprocess.run(python + entry_args, cwd=cwd, env=env, capture_output=True, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - t0, "timed out after %ds" % timeout, float("nan")
    wall, cpu = time.perf_counter() - t0, children_cpu() - c0
    if out.returncode == 0:
        return "runs", wall, "", cpu
    return "fails", wall, first_error(out.stderr + "\n" + out.stdout), cpu


def prepare(prog, corpus_dir, scratch, python, env):
    """A fresh copy of the program's checkout with its data written in (by synth.py under the same
    interpreter as the program); the folder it runs in."""
    src = os.path.join(corpus_dir, prog["dir"])
    if not os.path.isdir(src):
        raise FileNotFoundError("no checkout of %s at %s (docs/corpus.md: how to check it out)"
                                % (prog["repo"], src))
    work = os.path.join(scratch, "src")
    shutil.copytree(src, work, ignore=shutil.ignore_patterns(".git"))
    for data in prog.get("data", []):
        where = os.path.join(scratch if data.get("home") else work, data.get("where", "."))
        subprocess.run([python, os.path.join(HERE, "synth.py"), data["kind"], where,
                        json.dumps(data.get("args", {}))], env=env, check=True, capture_output=True)
    return work


def expand(args, scratch):
    return [a.replace("{scratch}", scratch) for a in args]


def program_env(env, prog, work, extra):
    """The interpreter's environment plus the program's own (PYTHONPATH entries relative to its
    checkout, as `setup.py develop` would give) and the extra site folder."""
    env = dict(env)
    paths = [os.path.join(work, p) for p in prog.get("pythonpath", [])] + ([extra] if extra else [])
    if paths:
        env["PYTHONPATH"] = os.pathsep.join(paths + [env["PYTHONPATH"]] if env.get("PYTHONPATH") else paths)
    return env


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--corpus-dir", required=True, help="folder holding one checkout per program")
    p.add_argument("--manifest", default=os.path.join(HERE, "manifest.json"))
    p.add_argument("--only", default="", help="run only the programs whose name holds this")
    p.add_argument("--no-tf1", action="store_true", help="leave out TF 1.15")
    p.add_argument("--timeout", type=int, default=300, help="seconds per run")
    p.add_argument("--json", default="", help="also write the results here")
    p.add_argument("--tf1-site", default="", help="a folder of extra packages for TF 1.15's Python 3.7 "
                   "(pip install --target): what programs import beyond TF (scipy, sklearn, ...)")
    p.add_argument("--site", default="", help="the same for tinyflow's interpreter")
    p.add_argument("--scipy-shim", action="store_true",
                   help="under tinyflow, alias scipy.sparse.linalg.eigen.arpack (gone from the scipy releases "
                        "that support numpy 2) to scipy.sparse.linalg, to see past that environment blocker")
    args = p.parse_args()
    extras = {"tf1": args.tf1_site, "tinyflow": args.site}
    if args.scipy_shim:
        shim = tempfile.mkdtemp(prefix="corpus-shim-")
        with open(os.path.join(shim, "sitecustomize.py"), "w") as f:
            f.write(SCIPY_SHIM)
        extras["tinyflow"] = os.pathsep.join(p for p in (shim, args.site) if p)
    with open(args.manifest) as f:
        programs = [q for q in json.load(f)["programs"] if args.only in q["name"]]
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE",)}
    tiny_env = dict(base, PYTHONPATH=ROOT + os.pathsep + base.get("PYTHONPATH", ""), CUDA_VISIBLE_DEVICES="")
    tf_env = dict(base, TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="")
    tf_env.pop("PYTHONPATH", None)
    rows = []
    for prog in programs:
        row = {"name": prog["name"], "what": prog["what"], "repo": prog["repo"]}
        for impl, python, env in (("tf1", [TF1], tf_env), ("tinyflow", [sys.executable, "-m", "tinyflow"], tiny_env)):
            if impl == "tf1" and (args.no_tf1 or not os.path.exists(TF1)):
                row[impl] = ("skipped", float("nan"), "", float("nan"))
                continue
            with tempfile.TemporaryDirectory(prefix="corpus-") as scratch:
                work = os.path.join(scratch, "src")
                env = program_env(dict(env, HOME=scratch), prog, work, extras[impl])  # ~/.keras etc. in scratch
                try:
                    prepare(prog, args.corpus_dir, scratch, python[0], env)
                except (OSError, subprocess.CalledProcessError) as e:
                    row[impl] = ("no data", 0.0, str(e)[:160], float("nan"))
                else:
                    row[impl] = run_one(python, [prog["entry"]] + expand(prog["args"], scratch),
                                        os.path.join(work, prog.get("cwd", ".")), env, args.timeout)
            status, wall, err, cpu = row[impl]
            print("  %-28s %-9s %-8s %6.1fs %6.1fs CPU %s" % (prog["name"], impl, status, wall, cpu, err),
                  file=sys.stderr, flush=True)
        rows.append(row)
    print("| program | what it is | TF 1.15 | tinyflow | wall TF 1.15 s | wall tinyflow s | ratio "
          "| CPU TF 1.15 s | CPU tinyflow s | CPU ratio | first blocker |")
    print("|---|---|---|---|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        (ts, tw, te, tc), (ns, nw, ne, nc) = r["tf1"], r["tinyflow"]
        ratio = "%.2f" % (nw / tw) if ts == ns == "runs" else "–"
        cpu_ratio = "%.2f" % (nc / tc) if ts == ns == "runs" else "–"
        print("| [%s](https://github.com/%s) | %s | %s | %s | %.1f | %.1f | %s | %.1f | %.1f | %s | %s |"
              % (r["name"], r["repo"], r["what"], ts, ns, tw, nw, ratio, tc, nc, cpu_ratio,
                 ("`%s`" % ne.replace("|", "\\|")) if ne
                 else ("" if ts == "runs" else "(TF 1.15: `%s`)" % te.replace("|", "\\|"))))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
