"""The differential corpus against TF 1.15 (tests/fixtures/diffcorpus/): every recorded case rebuilt in
tinyflow and compared with TF's recorded outputs and gradients. A difference fails the test unless
docs/differences.md lists it (replay.DOCUMENTED). The cases of one structure share a compiled fetch
set (spec.REPEAT of them), so the ~24,000 cases compile ~1,500 small programs in groups."""
import os
import sys

import pytest

from paths import TESTS

sys.path.insert(0, os.path.join(TESTS, "fixtures", "diffcorpus"))
import replay  # noqa: E402
import spec  # noqa: E402


PARTS = 5   # the corpus in five tests, so that pytest's workers share it


def test_corpus_holds_the_recorded_cases():
    meta = replay.load(os.path.join(TESTS, "fixtures", "diffcorpus", "corpus.npz"))[0]
    assert len(meta["records"]) >= 20000


@pytest.mark.parametrize("part", range(PARTS))
def test_corpus_matches_tf115(part):
    counts, diffs = replay.replay(os.path.join(TESTS, "fixtures", "diffcorpus", "corpus.npz"), part=part, parts=PARTS)
    print(replay.table(counts))
    assert sum(c["cases"] for c in counts.values()) > 0
    assert not diffs, "%d differences from TF 1.15 (first 20):\n%s" % (
        len(diffs), "\n".join(replay.describe(d) for d in diffs[:20]))


@pytest.mark.parametrize("name", sorted(spec.BATCH_FIXTURE))
def test_batch_matches_tf115(name):
    """Each later batch of ops (spec_<name>.py) against its own recorded fixture, corpus_<name>.npz."""
    path = os.path.join(TESTS, "fixtures", "diffcorpus", "corpus_%s.npz" % name)
    meta = replay.load(path)[0]
    first, count = spec.BATCH_FIXTURE[name]
    assert sorted(r[0] for r in meta["records"]) == list(range(first, first + count)), \
        "corpus_%s.npz does not hold the batch's cases: record it again (record.py batch %s)" % (name, name)
    counts, diffs = replay.replay(path)
    print(replay.table(counts))
    assert not diffs, "%d differences from TF 1.15 (first 20):\n%s" % (
        len(diffs), "\n".join(replay.describe(d) for d in diffs[:20]))
