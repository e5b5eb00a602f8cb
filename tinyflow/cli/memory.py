"""`python -m tinyflow.memory [--plot DIR] [--planner FILE|NAME] [--csv DIR] [--solution FILE] SCRIPT.py [args]`:
the memory report of every fetch set a script runs.

The script runs unchanged (as `__main__`, with `tensorflow`, `tensorflow.compat.v1` and their
submodules aliased to tinyflow as under `python -m tinyflow`). The first time a
session runs a fetch set, its report is taken just before that run (the variables as they are
then; nothing is changed). After the script, the reports are printed, one table per fetch set;
--plot DIR also draws each (DIR/fetch_set_N.png, needs matplotlib); --planner FILE runs a file that
registers a planner (register_planner), which every report then shows beside tinyflow's own
(--planner NAME: a registered one that runs only when named, such as minimalloc, the exact planner);
--csv DIR writes each fetch set's buffers and plans in MiniMalloc's CSV (DIR/fetch_set_N/);
--solution FILE takes a MiniMalloc solution of one of those files as a plan, proved like the others.

`tinyflow.memory` is this module: plan_recompute, register_planner, Interval, record_reports.
"""
import os
import runpy
import sys

from tinyflow.cli.runner import alias_tensorflow, print_trimmed_traceback, standard_option
from tinyflow.runtime import session as session_mod
from tinyflow.runtime.memory_report import build_report
from tinyflow.passes.recompute_plan import RecomputePlan, plan_recompute  # noqa: F401 (tinyflow.memory.plan_recompute)
from tinyflow.passes.memory import PLANNERS, Interval, default_planners, register_planner  # noqa: F401 (the planner interface)
from tinyflow.passes.minimalloc import exact_planner, minimalloc, peak_live  # noqa: F401 (tinyflow.memory.exact_planner)


def record_reports(script, argv=(), verify=True, xla=True, planners=None):
    """Runs `script` and returns [MemoryReport] of its distinct fetch sets, in first-run order."""
    reports, seen = [], set()
    original = session_mod.Session.run

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        failed = None
        try:
            bound = self.lowered(fetches, feed_dict)
        except Exception:  # a fetch set the run itself rejects (or nothing to lower): the run explains
            bound = None
        if bound is not None and id(bound.function) not in seen:
            seen.add(id(bound.function))
            sub = bound.function.sub
            name = ", ".join(t.name for t in sub.fetches + sub.targets)
            try:
                reports.append(build_report(bound.function, bound.args, verify=verify, xla=xla, name=name,
                                            planners=planners))
            except Exception as e:
                failed = "tinyflow.memory: no report for %s: %s: %s" % (name, type(e).__name__, e)
        result = original(self, fetches, feed_dict, options, run_metadata)
        if failed:   # the run itself worked: the report is what failed
            print(failed, file=sys.stderr)
        return result

    saved_argv = sys.argv
    saved_tf = {k: m for k, m in sys.modules.items() if k == "tensorflow" or k.startswith("tensorflow.")}
    sys.argv = [script] + list(argv)
    alias_tensorflow()
    session_mod.Session.run = run
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        session_mod.Session.run = original
        sys.argv = saved_argv
        for k in [k for k in sys.modules if k == "tensorflow" or k.startswith("tensorflow.")]:
            del sys.modules[k]
        sys.modules.update(saved_tf)
    return reports


USAGE = """usage: python -m tinyflow.memory [--plot DIR] [--planner FILE|NAME] [--csv DIR] [--solution FILE]
                                 SCRIPT.py [args...]
       python -m tinyflow.memory --version

Runs a TensorFlow 1 script on tinyflow (`import tensorflow` resolving to tinyflow, as under
`python -m tinyflow`) and prints the memory report of every fetch set it runs: one table per
fetch set, taken just before its first run. --plot DIR also draws each (DIR/fetch_set_N.png, needs
matplotlib); --planner FILE runs a file that registers a planner (register_planner), which every
report then shows beside tinyflow's own; --planner NAME runs a registered one that runs only when
named (minimalloc: the exact planner). --csv DIR writes each fetch set's buffers and plans in
MiniMalloc's CSV (DIR/fetch_set_N/tf_ops.csv, fused_hlo.csv, *.solution.csv); --solution FILE takes
a solution CSV of one of them as a plan (the fetch set and granularity whose buffers it has):
replayed at TF-op granularity, checked for overlaps over XLA's fused buffers.
python -m tinyflow --help lists the settings."""


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        print(USAGE, file=sys.stderr)
        return 2
    answer = standard_option(argv, USAGE)
    if answer:
        print(answer[0])
        return answer[1]
    plot_dir = csv_dir = None
    named, solutions = [], []
    while argv[:1] in (["--plot"], ["--planner"], ["--csv"], ["--solution"]) and len(argv) > 1:
        flag, value, argv = argv[0], argv[1], argv[2:]
        if flag == "--plot":
            plot_dir = value
        elif flag == "--csv":
            csv_dir = value
        elif flag == "--solution":
            solutions.append(value)
        elif value in PLANNERS and not os.path.isfile(value):
            named.append(value)
        else:
            runpy.run_path(value)
    if not argv:
        print(USAGE, file=sys.stderr)
        return 2
    if argv[0].startswith("-") or not os.path.isfile(argv[0]):
        raise SystemExit("tinyflow.memory: %s\n%s" % ("unknown option " + argv[0] if argv[0].startswith("-")
                                                      else "no script " + argv[0], USAGE))
    try:
        reports = record_reports(argv[0], argv[1:], planners=default_planners() + named if named else None)
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as e:
        print_trimmed_traceback(e)
        return 1
    failed = 0
    for path in solutions:     # each solution is a plan of the fetch set whose buffers it has
        errors = []
        for r in reports:
            try:
                r.check_solution(path)
                break
            except ValueError as e:
                errors.append(str(e))
        else:
            failed = 1
            print("tinyflow.memory: %s" % (min(errors, key=lambda e: "overlap" not in e) if errors
                                           else path + ": no fetch set ran"), file=sys.stderr)
    for i, r in enumerate(reports):
        print("\n[%d] %s" % (i + 1, r))
        if csv_dir:
            print("csv: %s" % ", ".join(r.export_csv(os.path.join(csv_dir, "fetch_set_%d" % (i + 1)))))
        if plot_dir:
            os.makedirs(plot_dir, exist_ok=True)
            try:
                print("plot: %s" % r.plot(os.path.join(plot_dir, "fetch_set_%d.png" % (i + 1))))
            except ImportError as e:
                print("no plot: %s" % e)
    return failed


if __name__ == "__main__":
    sys.exit(main())
