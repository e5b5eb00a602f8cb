"""TF 1.15 API coverage: fails when a name listed as covered in
tests/data/tf115_covered.json is missing from tinyflow (the list can only grow; add names with
tests/data/update_covered.py). The per-module table: python -m tinyflow.coverage."""
import json
import os
from paths import TESTS as _TESTS  # the tests/ folder

from tinyflow.cli import coverage


_COVERED = json.load(open(os.path.join(_TESTS, "data", "tf115_covered.json")))


def test_coverage_table_and_no_covered_name_disappears():
    api = coverage.load_api()
    have = coverage.covered(api)
    table = coverage.table(api, have)
    assert "| `tf.nn` |" in table and "contrib.factorization" in table
    lost = {m: sorted(set(names) - set(have.get(m, []))) for m, names in _COVERED.items()}
    lost = {m: names for m, names in lost.items() if names}
    assert not lost, "TF 1.15 names tinyflow used to have and lost: %s" % lost
    # the record is TF's: spot-check it is complete and the table counts it
    assert {"placeholder", "Session", "nn", "train"} <= set(api["tf"]) and len(api["tf"]) > 600
    assert "softmax_cross_entropy_with_logits_v2" in api["nn"] and "sequence_loss" in api["contrib.seq2seq"]
    assert "arg_max" in have["tf"] and "batch_norm" in have["contrib.layers"] and "image" in have["summary"]


def test_covered_list_only_names_tf_names():
    api = coverage.load_api()
    for module, names in _COVERED.items():
        assert set(names) <= set(api[module]), module


def test_coverage_script_prints_markdown(capsys):
    assert coverage.main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("| module |") and "`tf.nn`" in out and "contrib.factorization" in out
    coverage.main(["--missing", "contrib.seq2seq"])
    missing = capsys.readouterr().out
    assert "BahdanauMonotonicAttention" in missing and "BeamSearchDecoder" not in missing
