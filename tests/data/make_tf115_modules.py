"""Records TF 1.15's public module tree in tinyflow/api/tf115_modules.json: every module path reached from
`tensorflow` by attributes (tf.contrib one level deep; `pywrap_tensorflow` and the `tensorflow.python`
internals left out), each with its public names. api/tree.py declares what serves each path; the names
give the missing-name messages and `python -m tinyflow.coverage`.
Run with the TF 1.15 venv: ~/.tf1-oracle/bin/python tests/data/make_tf115_modules.py"""
import json
import os
import types

import tensorflow as tf


def walk():
    tree, todo = {}, [("tensorflow", tf)]
    while todo:
        path, module = todo.pop()
        if path in tree:
            continue
        names = sorted(n for n in dir(module) if not n.startswith("_"))
        tree[path] = names
        if path.startswith("tensorflow.contrib."):
            continue   # tf.contrib one level deep
        for name in names:
            value = getattr(module, name, None)
            if not isinstance(value, types.ModuleType) or name == "pywrap_tensorflow" or path == "tensorflow" and \
                    name in ("python", "tools", "core", "compiler", "include", "examples"):
                continue
            if not value.__name__.startswith(("tensorflow", "tensorflow_core", "tensorflow_estimator")):
                continue
            if path == "tensorflow.compat.v1" or path == "tensorflow.compat" and name == "v2":
                continue   # compat.v1 repeats the tree; compat.v2 is TF2's
            todo.append((path + "." + name, value))
    return tree


if __name__ == "__main__":
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tinyflow", "api", "tf115_modules.json")
    with open(out, "w") as f:
        json.dump(walk(), f, indent=0, sort_keys=True)
