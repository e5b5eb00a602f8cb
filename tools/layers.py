"""The layer check: which tinyflow module imports which, by AST (function-level imports included).

    python tools/layers.py          # prints violations and cycles; exit 1 if any

Layers, left to right (DESIGN.md): a module may import its own layer and the layers named for it.
"""
import ast
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tinyflow")

# The layers in order; a layer may import those to its left. graph/ holds TF's error classes too
# (every layer raises them); formats/ is TF's byte formats (protobuf messages, bundles, TFRecords);
# passes/ comes before ops/ because a control-flow op's gradient rule runs tf.gradients on its body.
# Only the package root (the namespace re-export) and cli/ (the runners) may import the package root.
ORDER = ["graph", "formats", "passes", "ops", "lower", "runtime", "api", "cli"]
ALLOWED = {layer: set(ORDER[:i]) for i, layer in enumerate(ORDER)}
ROOT_MODULES = {"tinyflow", "tinyflow.__main__"}

# Inside api/ (the TF1 frontend), an order too: a module may import its own rank and those before it.
# The namespace itself (api/__init__.py) may name every api module (it loads them lazily).
API_ORDER = [
    ("basics", ["tf_stack", "tf_decorator", "aliases", "tinyflow_api", "flags", "app", "logging", "gfile",
                "template", "dtypes", "sparse", "image_adjust", "image_quality", "composite_ops", "sparse_ops",
                "signal", "cluster_resolver", "nest", "device_lib", "debugging", "linear_operator", "linalg",
                "math",
                "image", "distribute", "examples", "gradient_registry",
                "tensor_util", "internals", "lookup", "function", "config", "lite", "profiler", "distributions",
                "ragged", "framework", "accumulators", "spectral", "random", "random_experimental", "sparse_more",
                "manip",
                "sysconfig", "resource_loader", "user_ops", "xla", "experimental", "queue", "initializers", "sets",
                "audio", "quantization", "image_more", "raw_ops", "strings_unicode", "strings"]),
    ("nn", ["nn_more", "nn", "losses", "layers", "rnn", "rnn_cell", "contrib.rnn", "contrib.crf", "contrib.seq2seq",
            "contrib.legacy_seq2seq"]),
    ("files", ["tf_files", "train", "test", "summary", "graph_util", "io", "saved_model", "pywrap_tensorflow"]),
    ("input", ["data", "functional"]),
    ("eager", ["eager"]),
    ("models", ["metrics", "metrics_curves", "metrics_per_class", "farmhash", "feature_column",
                "estimator", "tf_names", "tpu_computation", "tpu", "keras", "summary_v2", "compat",
                "contrib", "tree", "importer"]),   # (every tf.contrib module not named above: api/contrib/)
]
API_RANK = {name: i for i, (_, names) in enumerate(API_ORDER) for name in names}

# Modules whose strings name modules without importing them: api/tree.py declares which module serves each
# TF path (the import hook, api/importer.py, imports one when a script asks for its path).
DECLARATIONS = {"tinyflow.api.tree"}

# The one cycle the design keeps: the core op families build on one another (math needs array's
# reshape, array needs math's casts, ...). Every module of a cycle must be in this set.
ALLOWED_CYCLE = "tinyflow.ops.core."


def layer_of(module):
    parts = module.split(".")
    if parts[0] != "tinyflow":
        return None
    if module in ROOT_MODULES:
        return "root"
    return parts[1] if parts[1] in ORDER else None


def api_rank(module):
    """The rank inside api/ of an api module (None for the namespace, api/__init__.py): that of its
    longest named prefix under api/ (`contrib.rnn`, else `contrib`)."""
    parts = module.split(".")
    for cut in range(len(parts), 2, -1):
        if ".".join(parts[2:cut]) in API_RANK:
            return API_RANK[".".join(parts[2:cut])]
    return API_RANK[parts[2]] if len(parts) > 2 else None


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
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("tinyflow.") \
                and module not in DECLARATIONS:
            found.add(node.value)   # importlib.import_module("tinyflow.x"), lazy tables of module names
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
        if lm is None:
            out.append("%s is in no layer (a module belongs in one of %s)" % (m, ", ".join(ORDER)))
            continue
        for t in sorted(targets):
            lt = layer_of(t)
            if lt == "root":
                if lm != "cli":
                    out.append("%s (%s) imports the package root (%s)" % (m, lm, t))
            elif lt != lm and lt not in ALLOWED[lm]:
                out.append("%s (%s) imports %s (%s)" % (m, lm, t, lt))
            elif lm == lt == "api" and api_rank(m) is not None and api_rank(t) is not None \
                    and api_rank(t) > api_rank(m):
                out.append("%s (api: %s) imports %s (api: %s)" % (m, API_ORDER[api_rank(m)][0], t,
                                                                   API_ORDER[api_rank(t)][0]))
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
    """Cycles between modules, but the declared one of ops/core."""
    # (a package's __init__ is imported before any of its modules anyway: an edge to an ancestor
    # package, such as a frontend module reading the tf. namespace of api/__init__.py, is no cycle)
    found = _cycles({m: {t for t in ts if layer_of(t) != "root" and not m.startswith(t + ".")}
                     for m, ts in deps.items() if layer_of(m) != "root"})
    return [c for c in found if not all(m.startswith(ALLOWED_CYCLE) for m in c)]


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
    return 1 if bad or layer_cycles(deps) or module_cycles(deps) else 0


if __name__ == "__main__":
    sys.exit(main())
