"""The layer check: which tinyflow module imports which, by AST (function-level imports included).

    python tools/layers.py          # prints violations and cycles; exit 1 if any

Layers, left to right (DESIGN.md): a module may import its own layer and the layers named for it.
"""
import ast
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tinyflow")

# The layers in order; a layer may import those to its left. errors.py ("base") is a leaf every layer
# may use; passes/ comes before ops/ because a control-flow op's gradient rule runs tf.gradients on
# its body. The package root and its entry points (compat: tf.compat.v1 is the package; the runners)
# may import anything.
ORDER = ["base", "graph", "passes", "ops", "lower", "client", "api"]
ALLOWED = {layer: set(ORDER[:i]) for i, layer in enumerate(ORDER)}
# (the GraphDef importer's op table maps TF op types to the tf.* builders a TF user would call)
ROOT_MODULES = {"tinyflow", "tinyflow.__main__", "tinyflow.compat", "tinyflow.memory", "tinyflow.coverage",
                "tinyflow.tf_files.ops_table"}


def layer_of(module):
    parts = module.split(".")
    if parts[0] != "tinyflow":
        return None
    if module in ROOT_MODULES:
        return "root"
    if parts[1] in ("errors", "io_ops", "formats"):   # leaves: TF's error classes, TF's file formats (no graph, no JAX)
        return "base"
    if parts[1] in ("graph", "ops", "passes", "lower", "client"):
        return parts[1]
    return "api"


def modules():
    """{module name: file path} of every tinyflow module."""
    out = {}
    for dirpath, _, files in os.walk(ROOT):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, os.path.dirname(ROOT))[:-3].replace(os.sep, ".")
                out[rel[:-9] if rel.endswith(".__init__") else rel] = path
    return out


def imports(module, path, known):
    """The tinyflow modules `module` imports (resolving relative imports and `from X import mod`)."""
    is_pkg = path.endswith("__init__.py")
    package = module if is_pkg else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(open(path).read(), path)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module
            for a in node.names:
                sub = mod + "." + a.name
                found.add(sub if sub in known else mod)
    return {m for m in found if m in known and m != module}


def graph_of_imports():
    known = modules()
    return {m: imports(m, p, known) for m, p in known.items()}


def violations(deps):
    out = []
    for m, targets in sorted(deps.items()):
        lm = layer_of(m)
        if lm == "root":
            continue
        for t in sorted(targets):
            lt = layer_of(t)
            if t == "tinyflow":
                out.append("%s imports the package root (%s)" % (m, t))
            elif lt == "root":
                if lm != "api":
                    out.append("%s (%s) imports %s, which sees the whole namespace" % (m, lm, t))
            elif lt != lm and lt not in ALLOWED[lm]:
                out.append("%s (%s) imports %s (%s)" % (m, lm, t, lt))
    return out


def layer_cycles(deps):
    """Cycles in the graph of layers (an edge when any module of one imports one of the other)."""
    edges = {}
    for m, targets in deps.items():
        for t in targets:
            a, b = layer_of(m), layer_of(t)
            if a != b and "root" not in (a, b):
                edges.setdefault(a, set()).add(b)
    return _cycles(edges)


def module_cycles(deps):
    return _cycles({m: {t for t in ts if layer_of(t) != "root"} for m, ts in deps.items() if layer_of(m) != "root"})


def _cycles(edges):
    """Strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    for v in list(edges):
        if v not in index:
            visit(v)
    return out


def main():
    deps = graph_of_imports()
    bad = violations(deps)
    for line in bad:
        print("layer:", line)
    for c in layer_cycles(deps):
        print("layer cycle:", " -> ".join(c))
    for c in module_cycles(deps):
        print("module cycle:", ", ".join(c))
    return 1 if bad or layer_cycles(deps) else 0


if __name__ == "__main__":
    sys.exit(main())
