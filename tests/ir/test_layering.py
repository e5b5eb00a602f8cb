"""The layers hold: the import check of tools/layers.py, and graph/ + passes/ run with JAX blocked."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import layers  # noqa: E402


@pytest.mark.slow
def test_no_module_imports_a_layer_to_its_right():
    assert layers.violations(layers.graph_of_imports()) == []


@pytest.mark.slow
def test_no_cycle_between_layers():
    assert layers.layer_cycles(layers.graph_of_imports()) == []


def test_the_check_sees_a_violation():
    deps = {"tinyflow.graph.core": {"tinyflow.lower.jax_backend"},
            "tinyflow.lower.jax_backend": {"tinyflow.graph.core"}}
    assert layers.violations(deps) == ["tinyflow.graph.core (graph) imports tinyflow.lower.jax_backend (lower)"]
    assert layers.layer_cycles(deps) == [["graph", "lower"]]


_WITHOUT_JAX = r'''
import importlib, sys, types
sys.modules["jax"] = None          # any "import jax" now raises ImportError
pkg = types.ModuleType("tinyflow")  # the package without its __init__ (which is the JAX-backed namespace)
pkg.__path__ = [sys.argv[1]]
sys.modules["tinyflow"] = pkg
from tinyflow.graph import core, registry, shapes, dtypes
from tinyflow.passes import prune, state, gradients, infer, memory, host_split
registry.register_op("Toy", shape=lambda s, a, v: [s[0]], dtype=lambda d, a: [d[0]], grad=lambda op, g: [g],
                     infer_back=lambda s, o, a, v: [o[0]])
registry.register_op("ToyInput", shape=lambda s, a, v: [shapes.TensorShape(a["shape"])],
                     dtype=lambda d, a: [a["dtype"]], grad=None)
g = core.Graph()
x = g.create_op("ToyInput", [], {"shape": [None, 3], "dtype": dtypes.float32}).outputs[0]
y = g.create_op("Toy", [x]).outputs[0]
sub = prune.prune([y])
assert [op.type for op in sub.ops] == ["ToyInput", "Toy"], sub.ops
assert host_split.split(sub, []) is None   # no string, no host op: the plain Session runs it
assert infer.infer(y, feed_shapes={x: [5, 3]})[y][0].as_list() == [5, 3]
assert core.constant_value(y) is None
assert not any(m == "jax" or m.startswith("jax.") for m in sys.modules if sys.modules[m] is not None)
print("ok")
'''


def test_graph_and_passes_run_without_jax():
    out = subprocess.run([sys.executable, "-c", _WITHOUT_JAX, os.path.join(ROOT, "tinyflow")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


@pytest.mark.slow
def test_import_leaves_the_garbage_collector_as_it_found_it():
    """`import tinyflow` pauses the cyclic GC while it runs and freezes what it built; the
    process's own setting (on or off) comes back, also when the import fails."""
    code = ("import gc, sys\n"
            "gc.disable() if sys.argv[1] == 'off' else None\n"
            "if sys.argv[2] == 'fail':\n"
            "    sys.modules['tinyflow.api.aliases'] = None   # an import that fails halfway\n"
            "try:\n"
            "    import tinyflow\n"
            "except ImportError:\n"
            "    assert sys.argv[2] == 'fail'\n"
            "else:\n"
            "    assert sys.argv[2] == 'ok' and gc.get_freeze_count() > 10000\n"
            "print(gc.isenabled())\n")
    for setting, want in (("on", "True"), ("off", "False")):
        for mode in ("ok", "fail"):
            out = subprocess.run([sys.executable, "-c", code, setting, mode], capture_output=True, text=True,
                                 cwd=ROOT, check=True).stdout.split()
            assert out[-1] == want, (setting, mode, out)


@pytest.mark.slow
def test_no_module_cycle_but_the_declared_one():
    assert layers.module_cycles(layers.graph_of_imports()) == []


def test_the_check_sees_a_module_cycle_and_string_imports(tmp_path):
    deps = {"tinyflow.api.nn": {"tinyflow.api.losses"}, "tinyflow.api.losses": {"tinyflow.api.nn"},
            "tinyflow.ops.core.math_ops": {"tinyflow.ops.core.array_ops"},
            "tinyflow.ops.core.array_ops": {"tinyflow.ops.core.math_ops"}}
    assert layers.module_cycles(deps) == [["tinyflow.api.losses", "tinyflow.api.nn"]]
    src = tmp_path / "m.py"
    src.write_text("import importlib\nimportlib.import_module('tinyflow.lower.pipeline')\n")
    assert layers.imports("tinyflow.graph.m", str(src), {"tinyflow.lower.pipeline"}) == {"tinyflow.lower.pipeline"}
