"""The larger differential run against TF 1.15: records fresh cases of the corpus (past the ones the
committed fixture holds) with the oracle, replays them in tinyflow and prints per-family counts
(cases, matches, documented differences, ...) and every undocumented difference.

    python tools/difftest.py [--cases 9536] [--first 26384] [--oracle /root/.tf1-oracle/bin/python]
    python tools/difftest.py --fixture tests/fixtures/diffcorpus/corpus.npz     # replay a recorded file
    python tools/difftest.py --batch NAME [--cases N]    # fresh cases of spec_NAME.py's ops, past its fixture
    python tools/difftest.py --committed    # every committed fixture replayed: the README's per-family table

The case generator, recorder and replay are tests/fixtures/diffcorpus/{spec,record,replay}.py; the CI
test tests/ops/test_diffcorpus.py replays the committed fixture. Exit status 1 when a case differs.
"""
import argparse
import collections
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests", "fixtures", "diffcorpus")
sys.path.insert(0, CORPUS)
sys.path.insert(0, ROOT)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=9536, help="default: 4 more structures of each later op")
    ap.add_argument("--first", type=int, default=26384,
                    help="first case index (the fixture holds spec.FIXTURE: 0..19199 and 24000..26383; below "
                         "spec.SPLIT cases cycle over the first corpus's ops, from it over the later ones)")
    ap.add_argument("--oracle", default=os.environ.get("TF1_PYTHON", "/root/.tf1-oracle/bin/python"))
    ap.add_argument("--fixture", help="replay this recorded file instead of recording")
    ap.add_argument("--committed", action="store_true", help="replay every committed fixture (corpus.npz and "
                    "each batch's corpus_<name>.npz) and print one per-family table")
    ap.add_argument("--batch", help="a later batch (spec_<name>.py): its cases past its fixture's "
                    "(--cases default: 4 structures of each of its ops)")
    ap.add_argument("--show", type=int, default=40, help="differences to print")
    args = ap.parse_args()
    import spec
    if args.batch:
        first, count = spec.BATCH_FIXTURE[args.batch]
        ops = [b[2] for b in spec.BATCHES if b[0] == args.batch][0]
        args.first = first + count
        if "--cases" not in sys.argv:
            args.cases = 4 * spec.REPEAT * len(ops)
    if args.committed:
        return committed()
    path = args.fixture
    if path is None:
        path = os.path.join(tempfile.mkdtemp(prefix="difftest"), "cases.npz")
        t0 = time.time()
        subprocess.run([args.oracle, os.path.join(CORPUS, "record.py"), str(args.cases), str(args.first), path],
                       check=True)
        print("recorded %d cases with TF 1.15 in %.0f s" % (args.cases, time.time() - t0))
    import replay
    t0, c0 = time.time(), time.process_time()
    counts, diffs = replay.replay(path)
    print("replayed in %.0f s (%.0f s CPU)" % (time.time() - t0, time.process_time() - c0))
    print(replay.table(counts))
    by_op = collections.Counter((d[0]["op"], d[1], d[2]) for d in diffs)
    for (op, kind, cls), n in by_op.most_common():
        print("%6d  %s %s %s" % (n, op, kind, cls))
    for d in diffs[:args.show]:
        print(replay.describe(d))
    return 1 if diffs else 0


def committed():
    """Every committed fixture replayed, the counts of all of them in one table (what CI replays)."""
    import replay
    import spec
    total = collections.defaultdict(lambda: collections.defaultdict(int))
    diffs = []
    for path in sorted(set(os.path.join(CORPUS, b[3]) for b in spec.BATCHES)):
        counts, d = replay.replay(path)
        diffs += d
        for fam, c in counts.items():
            for k, v in c.items():
                total[fam][k] += v
    print(replay.table(total))
    ops = sum(len(b[2]) for b in spec.BATCHES)
    print("%d ops in %d families; %d differences" % (ops, len(total), len(diffs)))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
