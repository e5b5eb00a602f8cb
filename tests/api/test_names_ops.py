"""TF 1.15 names of issue 37 against TF's recorded numbers: PriorityQueue, the conditional accumulators,
count_up_to, the CTC beam search decoders and ctc_unique_labels, raw_rnn, with_space_to_batch and
learned_unigram_candidate_sampler. Each family of tests/fixtures/names_ops/cases.py runs under tinyflow and
its values are compared with what make_names_ops.py recorded under TF 1.15."""
import importlib.util
import os

import numpy as np
import pytest

import tinyflow as tf

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "names_ops")
_spec = importlib.util.spec_from_file_location("names_ops_cases", os.path.join(HERE, "cases.py"))
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
RECORDED = np.load(os.path.join(HERE, "names_ops.npz"))


@pytest.mark.parametrize("family", cases.FAMILIES)
def test_family_matches_tf115(family):
    tf.reset_default_graph()
    got = getattr(cases, family)(tf, np)
    want = {k.split("/", 1)[1]: RECORDED[k] for k in RECORDED.files if k.startswith(family + "/")}
    assert sorted(got) == sorted(want)
    for key in sorted(want):
        g, w = np.asarray(got[key]), want[key]
        if w.dtype.kind in "fc":
            assert g.dtype == w.dtype and g.shape == w.shape, (key, g.dtype, g.shape, w.dtype, w.shape)
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5, err_msg=key)
        elif w.dtype.kind in "SUO":
            np.testing.assert_array_equal(g.astype(object), w.astype(object), err_msg=key)
        else:
            assert g.dtype == w.dtype, (key, g.dtype, w.dtype)
            np.testing.assert_array_equal(g, w, err_msg=key)
