"""Records TF 1.15's public API (the public names of each module) in tinyflow/tf115_api.json.
Run with the TF 1.15 venv: ~/.tf1-oracle/bin/python tests/data/make_tf115_api.py"""
import json
import os

import tensorflow as tf

MODULES = ["", "nn", "nn.rnn_cell", "layers", "train", "losses", "summary", "data", "io", "image", "math", "strings",
           "linalg", "random", "initializers", "errors", "metrics", "estimator", "feature_column", "contrib.layers",
           "contrib.rnn", "contrib.seq2seq", "contrib.learn", "contrib.framework", "contrib.metrics",
           "contrib.losses", "contrib.training", "contrib.opt", "contrib.legacy_seq2seq", "contrib.crf",
           "contrib.image", "contrib.summary", "contrib.data", "contrib.slim", "contrib.distributions",
           "contrib.factorization", "contrib.tensor_forest", "contrib.tpu", "contrib.eager", "contrib.keras",
           "compat.v1", "keras", "saved_model", "sparse", "dtypes", "debugging", "app", "flags", "gfile", "logging",
           "config", "distributions", "graph_util", "python_io", "resource_loader", "sets", "signal", "spectral",
           "test", "bitwise", "quantization", "lite", "profiler", "autograph", "distribute", "lookup", "manip",
           "ragged", "queue", "user_ops"]


def main():
    api = {}
    for mod in MODULES:
        m = tf
        for part in mod.split(".") if mod else []:
            m = getattr(m, part)
        api[mod or "tf"] = sorted(n for n in dir(m) if not n.startswith("_"))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tinyflow", "tf115_api.json")
    with open(path, "w") as f:
        json.dump({"tensorflow_version": tf.__version__, "modules": api}, f, indent=0, sort_keys=True)


if __name__ == "__main__":
    main()
