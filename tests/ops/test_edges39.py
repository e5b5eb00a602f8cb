"""TF 1.15's values at the edges the larger differential runs found (issue 39; tests/fixtures/edges39/
make_edges39.py's `record` run with tinyflow gives TF 1.15's recording): division gradients by tiny y,
complex sqrt's signed zero, cumulative_logsumexp by pairwise log-sum-exps, dilation2d with an empty output,
AdjustSaturation's and RGBToHSV's kernels at NaN/inf pixels, Eigen's domains of igamma/igammac/betainc, and
the zero-for-zero Sqrt/Rsqrt/Reciprocal gradients."""
import os

import numpy as np

import recorded_cases
import tinyflow as tf
from paths import TESTS


def test_edges_as_tf115():
    maker, want = recorded_cases.maker(os.path.join(TESTS, "fixtures", "edges39"), "edges39")
    got = maker.record(tf)
    assert sorted(got) == sorted(want)
    bad = []
    for key in sorted(want):
        for i, (w, g) in enumerate(zip(want[key], got[key])):
            w, g = np.asarray(w, np.float64), np.asarray(g, np.float64)
            if w.shape != g.shape or not np.allclose(g, w, rtol=2e-5, atol=1e-6, equal_nan=True):
                bad.append("%s[%d]: TF %s, tinyflow %s" % (key, i, w.ravel()[:12], g.ravel()[:12]))
    assert not bad, "\n".join(bad)
