"""Rewrites tf115_covered.json with every TF 1.15 name tinyflow has now (run after adding API:
`python tests/data/update_covered.py`). The list may only grow: test_idioms_coverage.py fails when
a name in it disappears from tinyflow. A name declared without an implementation (a stand-in raising
UnimplementedError) is not covered, and leaves the list when it becomes one."""
import json
import os

from tinyflow.cli import coverage

if __name__ == "__main__":
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf115_covered.json")
    old = json.load(open(path)) if os.path.exists(path) else {}
    have, stand_ins = coverage.covered(), coverage.covered(stand_ins=True)
    merged = {m: sorted((set(have.get(m, [])) | set(old.get(m, []))) - set(stand_ins.get(m, [])))
              for m in sorted(set(have) | set(old))}
    with open(path, "w") as f:
        json.dump({m: names for m, names in merged.items() if names}, f, indent=0, sort_keys=True)
