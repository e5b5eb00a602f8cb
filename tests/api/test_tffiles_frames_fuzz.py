"""TF-written while/cond GraphDefs (tests/fixtures/tf_graphs) under random structural damage: an op type swapped
for another frame op, an input rewired or dropped, a node removed, an Enter's frame renamed. Importing one either
succeeds or raises one of TF's error classes naming a node of the graph; never a raw Python or JAX exception.
Seeded (no hypothesis needed), under 10 s."""
import os

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.api.tf_files.graph_util import read_graph_def

FIX = os.path.join(os.path.dirname(__file__), "..", "fixtures", "tf_graphs")
FRAME_OPS = ["Enter", "Exit", "Switch", "Merge", "NextIteration", "LoopCond", "Identity"]


def _mutate(gd, rng):
    nodes = list(gd.node)
    n = nodes[rng.randint(len(nodes))]
    kind = rng.randint(5)
    if kind == 0:
        n.op = FRAME_OPS[rng.randint(len(FRAME_OPS))]
    elif kind == 1 and n.input:
        src = nodes[rng.randint(len(nodes))].name
        n.input[rng.randint(len(n.input))] = src if rng.rand() < 0.5 else "%s:%d" % (src, rng.randint(3))
    elif kind == 2 and n.input:
        del n.input[rng.randint(len(n.input))]
    elif kind == 3:
        gd.node.remove(n)
    else:
        enters = [m for m in nodes if m.op == "Enter"] or nodes
        m = enters[rng.randint(len(enters))]
        m.attr["frame_name"].s = b"frame_%d" % rng.randint(3)
    return gd


@pytest.mark.parametrize("name", ["while.pb", "cond_bn.pb", "nested.pb", "lstm.pb"])
def test_fuzz_frame_import(name):
    base = read_graph_def(os.path.join(FIX, name))
    names = {n.name for n in base.node if len(n.name) > 3}
    rng = np.random.RandomState(sum(map(ord, name)))
    outcomes = {"ok": 0, "error": 0}
    for _ in range(50):
        gd = type(base)()
        gd.CopyFrom(base)
        for _ in range(1 + rng.randint(2)):
            _mutate(gd, rng)
        with tf.Graph().as_default():
            try:
                tf.import_graph_def(gd, name="")
                outcomes["ok"] += 1
            except tf.errors.OpError as e:
                assert any(n in str(e) for n in names), str(e)   # names a node of the graph
                outcomes["error"] += 1
    assert outcomes["error"] > outcomes["ok"]   # most damage is found (some is harmless: a renamed frame)
