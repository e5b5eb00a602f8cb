"""`python -m tinyflow.memory [--plot DIR] [--planner FILE] SCRIPT.py [args]`: the memory report of every
fetch set a script runs.

The script runs unchanged (as `__main__`, with `tensorflow` aliased to tinyflow). The first time a
session runs a fetch set, its report is taken just before that run (the variables as they are
then; nothing is changed). After the script, the reports are printed, one table per fetch set;
--plot DIR also draws each (DIR/fetch_set_N.png, needs matplotlib); --planner FILE runs a file that
registers a planner (register_planner), which every report then shows beside tinyflow's own.

`tinyflow.memory` is this module: plan_recompute, register_planner, Interval, record_reports.
"""
import os
import runpy
import sys

from tinyflow.runtime import session as session_mod
from tinyflow.runtime.memory_report import build_report
from tinyflow.passes.recompute_plan import RecomputePlan, plan_recompute  # noqa: F401 (tinyflow.memory.plan_recompute)
from tinyflow.passes.memory import PLANNERS, Interval, register_planner  # noqa: F401 (the planner interface)


def record_reports(script, argv=(), verify=True, xla=True):
    """Runs `script` and returns [MemoryReport] of its distinct fetch sets, in first-run order."""
    import tinyflow
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
                reports.append(build_report(bound.function, bound.args, verify=verify, xla=xla, name=name))
            except Exception as e:
                failed = "tinyflow.memory: no report for %s: %s: %s" % (name, type(e).__name__, e)
        result = original(self, fetches, feed_dict, options, run_metadata)
        if failed:   # the run itself worked: the report is what failed
            print(failed, file=sys.stderr)
        return result

    saved_argv, saved_tf = sys.argv, sys.modules.get("tensorflow")
    sys.argv = [script] + list(argv)
    sys.modules["tensorflow"] = tinyflow
    session_mod.Session.run = run
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        session_mod.Session.run = original
        sys.argv = saved_argv
        if saved_tf is None:
            sys.modules.pop("tensorflow", None)
        else:
            sys.modules["tensorflow"] = saved_tf
    return reports


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    plot_dir = None
    while argv[:1] in (["--plot"], ["--planner"]) and len(argv) > 1:
        flag, value, argv = argv[0], argv[1], argv[2:]
        if flag == "--plot":
            plot_dir = value
        else:
            runpy.run_path(value)
    if not argv:
        print("usage: python -m tinyflow.memory [--plot DIR] [--planner FILE] SCRIPT.py [args...]")
        return 2
    reports = record_reports(argv[0], argv[1:])
    for i, r in enumerate(reports):
        print("\n[%d] %s" % (i + 1, r))
        if plot_dir:
            os.makedirs(plot_dir, exist_ok=True)
            try:
                print("plot: %s" % r.plot(os.path.join(plot_dir, "fetch_set_%d.png" % (i + 1))))
            except ImportError as e:
                print("no plot: %s" % e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
