"""Lines of code per core layer against a budget (tinygrad's habit): a layer that outgrows its
budget is a layer to split or simplify, not a number to raise quietly.

    python tools/line_budget.py      # prints the table; exit 1 when a layer is over budget
"""
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tinyflow")
# Set when the compile pipeline landed, then once for what came with it in the same change (the host
# stage for strings and queues, data-parallel placement, the compilation cache, value-dependent
# shapes, checkpointed gradients); a later rise needs its reason in the commit. lower: 1100 -> 1200
# for issue 17 (the plan proved by replay beside execution, the flat calling convention of the
# jitted function, huge fetch sets in segments).
BUDGET = {"graph": 1900, "passes": 1300, "lower": 1200, "client": 1450, "ops": 11500}


def count(layer):
    """(files, lines) of a layer's Python files (blank lines and comments included: what a reader reads)."""
    files = [f for f in os.listdir(os.path.join(ROOT, layer)) if f.endswith(".py")]
    return len(files), sum(len(open(os.path.join(ROOT, layer, f)).read().splitlines()) for f in files)


def main():
    over = False
    print("%-8s %6s %7s %7s" % ("layer", "files", "lines", "budget"))
    for layer, budget in BUDGET.items():
        files, lines = count(layer)
        over |= lines > budget
        print("%-8s %6d %7d %7d%s" % (layer, files, lines, budget, "  OVER" if lines > budget else ""))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
