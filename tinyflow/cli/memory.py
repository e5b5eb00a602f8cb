"""`python -m tinyflow.memory SCRIPT.py [args]`: the memory report of every fetch set a script runs.

The script runs unchanged (as `__main__`, with `tensorflow` aliased to tinyflow). The first time a
session runs a fetch set, its report is taken just before that run (the variables as they are
then; nothing is changed). After the script, the reports are printed, one table per fetch set.
"""
import runpy
import sys

from tinyflow.runtime import session as session_mod
from tinyflow.runtime.memory_report import build_report
from tinyflow.passes.recompute_plan import RecomputePlan, plan_recompute  # noqa: F401 (tinyflow.memory.plan_recompute)


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
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print("usage: python -m tinyflow.memory SCRIPT.py [args...]")
        return 2
    reports = record_reports(argv[0], argv[1:])
    for i, r in enumerate(reports):
        print("\n[%d] %s" % (i + 1, r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
