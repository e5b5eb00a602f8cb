"""`python -m tinyflow.coverage`: how much of TF 1.15's public API tinyflow has, per module.

tf115_api.json (next to this file) lists the public names of each TF 1.15 module, recorded with real
TensorFlow by tests/data/make_tf115_api.py. A name counts as covered when the same attribute path
exists in tinyflow (`tf.nn.relu` -> `tinyflow.nn.relu`). Modules in OUT_OF_SCOPE are listed apart:
tinyflow does not mean to implement them.
"""
import argparse
import json
import os

IN_SCOPE = ["tf", "nn", "nn.rnn_cell", "layers", "train", "losses", "summary", "data", "io", "image", "math",
            "strings", "linalg", "random", "initializers", "errors", "metrics", "estimator", "feature_column",
            "contrib.layers", "contrib.rnn", "contrib.seq2seq", "compat.v1", "sparse", "debugging", "app", "flags",
            "gfile", "logging", "dtypes", "sets", "signal", "bitwise", "queue", "saved_model", "keras",
            "contrib.framework", "contrib.metrics", "contrib.losses", "contrib.training", "contrib.opt",
            "contrib.legacy_seq2seq", "contrib.crf", "contrib.image", "contrib.summary", "contrib.data",
            "graph_util", "python_io", "resource_loader", "config", "test", "lookup", "manip", "ragged",
            "contrib.slim", "contrib.tpu", "tpu", "nest", "contrib.keras", "distributions", "contrib.learn",
            "profiler", "distribute"]

OUT_OF_SCOPE = {
    "contrib.factorization": "GMM and WALS matrix factorization (KMeans and KMeansClustering are provided)",
    "contrib.tensor_forest": "TF's forest resource ops and protos (ForestHParams, RandomForestGraphs and "
                             "TensorForestEstimator, with host-grown trees, are provided)",
    "contrib.boosted_trees": "gradient-boosted trees (not even importable in TF 1.15's pip build)",
    "contrib.distributions": "the deprecated distributions library (use TensorFlow Probability)",
    "lite": "TensorFlow Lite's converter and interpreter (the enums exist; converting raises UnimplementedError)",
    "autograph": "Python-to-graph conversion (to_graph / to_code exist and run or show the function unconverted)",
    "quantization": "fake-quant training ops",
    "spectral": "the deprecated alias of tf.signal",
    "user_ops": "custom op loading",
}


def load_api(path=None):
    """{module: [names]} of TF 1.15."""
    path = path or os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf115_api.json")
    with open(path) as f:
        return json.load(f)["modules"]


def _resolve(root, module):
    obj = root
    for part in ([] if module == "tf" else module.split(".")):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def covered(api=None):
    """{module: sorted list of TF 1.15 names tinyflow has there}."""
    import tinyflow
    api = api or load_api()
    out = {}
    for module, names in api.items():
        obj = _resolve(tinyflow, module)
        out[module] = sorted(n for n in names if obj is not None and hasattr(obj, n))
    return out


def table(api=None, have=None):
    """The markdown coverage table (in-scope modules) and the out-of-scope list."""
    api = api or load_api()
    have = have or covered(api)
    rows = ["| module | TF 1.15 names | in tinyflow | coverage |", "|---|---:|---:|---:|"]
    total = hit = 0
    for module in IN_SCOPE:
        if module not in api:
            continue
        n, k = len(api[module]), len(have.get(module, []))
        if module != "compat.v1":  # compat.v1 repeats tf.: not counted twice
            total, hit = total + n, hit + k
        name = "tf" if module == "tf" else "tf." + module
        rows.append("| `%s` | %d | %d | %d%% |" % (name, n, k, round(100.0 * k / n) if n else 100))
    rows.append("| **all of the above** (without compat.v1) | %d | %d | %d%% |"
                % (total, hit, round(100.0 * hit / total)))
    rows.append("")
    rows.append("Deliberately out of scope:")
    for module, why in sorted(OUT_OF_SCOPE.items()):
        rows.append("- `tf.%s`: %s" % (module, why))
    return "\n".join(rows)


def _resolves(name):
    """Whether a TF name of the census ("tf.contrib.slim.arg_scope", "tensorflow.python.lib.io.file_io")
    exists in tinyflow: an attribute path from the package, or a module (and attributes) under the
    runner's `tensorflow` aliases."""
    import importlib
    import tinyflow
    parts = name.split(".")
    if parts[0] == "tf" and ".python." in name:   # TF's internal module paths exist as imports (the runner's)
        parts = ["tensorflow"] + parts[1:]
    elif parts[0] == "tf":
        return _resolve(tinyflow, ".".join(parts[1:]) or "tf") is not None
    from tinyflow.cli.runner import alias_tensorflow
    alias_tensorflow()
    for cut in range(len(parts), 0, -1):   # the longest importable module, then attributes
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except Exception:
            continue
        return _resolve(obj, ".".join(parts[cut:]) or "tf") is not None
    return False


def census(path, baseline=None):
    """Lines saying how much of a census of missing TF 1.15 names (missing_tf1_names.tsv: repos,
    files, first, family, name) resolves now, by name and weighted by the repositories using each."""
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or line.startswith("repos\t") or not line.strip():
                continue
            repos, files, first, family, name = line.rstrip("\n").split("\t")[:5]
            rows.append((int(repos), int(files), name))
    have = [r for r in rows if _resolves(r[2])]
    weight, got = sum(r[0] for r in rows), sum(r[0] for r in have)
    two = [r for r in rows if r[0] >= 2]
    two_have = [r for r in two if r in have]
    out = ["census: %d of %d names resolve now (%d of %d used by 2+ repositories); %.1f%% of their weight by "
           "repositories" % (len(have), len(rows), len(two_have), len(two), 100.0 * got / weight)]
    if baseline is not None:   # the census's coverage before: its missing names were (100 - baseline)% of the weight
        total = weight / (1 - baseline / 100.0)
        out.append("usage-weighted coverage: %.1f%% (from %.1f%%)" % (100.0 * (1 - (weight - got) / total), baseline))
    out += ["still missing, used by 2+ repositories: " + ", ".join(r[2] for r in two if r not in have)]
    return out


def main(argv=None):
    from tinyflow.cli.runner import version
    parser = argparse.ArgumentParser(prog="python -m tinyflow.coverage", description=__doc__.splitlines()[0])
    parser.add_argument("-V", "--version", action="version", version=version())
    parser.add_argument("--missing", metavar="MODULE", help="list the TF 1.15 names MODULE lacks (e.g. nn)")
    parser.add_argument("--census", metavar="TSV", help="how much of a census of missing names (repos, files, "
                        "first, family, name per line) resolves now, weighted by repositories")
    parser.add_argument("--baseline", type=float, help="with --census: the usage-weighted coverage (%%) the census "
                        "was measured at, to give today's")
    args = parser.parse_args(argv)
    if args.census:
        print("\n".join(census(args.census, args.baseline)))
        return 0
    api = load_api()
    if args.missing:
        have = set(covered(api)[args.missing])
        print("\n".join(n for n in api[args.missing] if n not in have))
        return 0
    print(table(api))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
