"""docs/LOWERING.md shows real output: its generated blocks are what docs/lowering_example.py makes
now (rerun `python docs/lowering_example.py --write` after changing the pipeline)."""
import importlib.util
import os

import jax
import pytest

DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs")


def _generator():
    spec = importlib.util.spec_from_file_location("lowering_doc", os.path.join(DOCS, "lowering_example.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(jax.default_backend() != "cpu", reason="the doc's HLO is the CPU's")
def test_lowering_doc_blocks_are_regenerated_output():
    gen = _generator()
    with open(gen.DOC) as f:
        doc = f.read()
    made = gen.blocks()
    shown = {name: text for name, _, text, _ in gen.MARK.findall(doc)}
    assert sorted(shown) == sorted(made)
    stale = [name for name in made if shown[name] != made[name]]
    assert not stale, "LOWERING.md's blocks %s drifted: run python docs/lowering_example.py --write" % stale
    assert gen.regenerate(doc, made) == doc


def test_the_check_sees_a_drifted_block():
    gen = _generator()
    made = {"hlo": "ENTRY new\n"}
    doc = "text\n<!-- generated: hlo -->\n```\nENTRY old\n```\nmore\n"
    assert gen.regenerate(doc, made) == "text\n<!-- generated: hlo -->\n```\nENTRY new\n```\nmore\n"
    with pytest.raises(ValueError, match="no block for jaxpr"):
        gen.regenerate(doc, dict(made, jaxpr="x\n"))
