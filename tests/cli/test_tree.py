"""The declared tree (api/tree.py) and its import hook (api/importer.py): every TF 1.15 module path imports
under the runner, as `tensorflow.compat.v1.<path>` and as `tinyflow.<path>`; `from <path> import <name>`
works for every name tinyflow has there; TF's internal paths that real code imports (the census) import;
names TF 1.15 has and tinyflow lacks say so; docs/api_coverage.md is the table the declaration gives."""
import json
import os
import subprocess
import sys

import pytest
from paths import ROOT  # the checkout

import tinyflow as tf
from tinyflow.api import importer, tree

# One process for all the imports: they set attributes on tinyflow's modules (the import system does),
# which the other tests in this process should not see.
SCRIPT = r'''
import importlib, json, sys
from tinyflow.cli.runner import alias_tensorflow
alias_tensorflow()
import tensorflow as tf
from tinyflow.api import importer, tree
out = {"failed": [], "from_failed": [], "compat_failed": [], "tinyflow_failed": [], "names": 0, "paths": 0}
for path in tree.PUBLIC:
    full = "tensorflow" + ("." + path if path else "")
    try:
        module = importlib.import_module(full)
    except Exception as e:
        out["failed"].append("%s: %r" % (full, e))
        continue
    out["paths"] += 1
    for name in tree.tf_names()[path]:
        if importer.has(module, name):
            out["names"] += 1
            try:
                exec("from %s import %s" % (full, name), {})
            except Exception as e:
                out["from_failed"].append("from %s import %s: %r" % (full, name, e))
    for spelled in ("tensorflow.compat.v1" + ("." + path if path else ""), "tinyflow" + ("." + path if path else "")):
        try:
            same = importlib.import_module(spelled) is module
        except Exception as e:
            same = repr(e)
        if same is not True:
            out["compat_failed" if spelled.startswith("tensorflow") else "tinyflow_failed"].append([spelled, same])
found = {}
for name in json.loads(sys.argv[1]):   # the longest importable module of each name, then its attributes
    parts = name.split(".")
    for cut in range(len(parts), 1, -1):
        try:
            value = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for part in parts[cut:]:
                value = getattr(value, part)
        except AttributeError:
            break
        found[name] = ".".join(parts[:cut])
        break
out["internals"] = found
from tensorflow.python.framework import ops
from tensorflow.python.estimator.model_fn import ModeKeys
from tensorflow.python.saved_model.signature_def_utils_impl import predict_signature_def
from tensorflow.python.framework.graph_util import convert_variables_to_constants, remove_training_nodes
from tensorflow.contrib.learn.python.learn.datasets import base, mnist
from tensorflow.contrib.learn.python.learn import learn_runner
from tensorflow.contrib.crf.python.ops import crf
import tensorflow.compat.v2.summary as v2_summary
from tinyflow.keras.layers import Dense
import tinyflow.nn.rnn_cell as rnn_cell
out["identities"] = [ops.Graph is tf.Graph, ModeKeys is tf.estimator.ModeKeys,
                     predict_signature_def is tf.saved_model.signature_def_utils.predict_signature_def,
                     convert_variables_to_constants is tf.graph_util.convert_variables_to_constants,
                     base.Datasets is tf.contrib.learn.datasets.base.Datasets, learn_runner.run is not None,
                     mnist.read_data_sets is not None, crf.crf_decode is tf.contrib.crf.crf_decode,
                     v2_summary is tf.compat.v2.summary, Dense is tf.keras.layers.Dense,
                     rnn_cell is tf.nn.rnn_cell, tf.__version__ == "1.15.5", tf.version.VERSION == "1.15.5"]
print("RESULT " + json.dumps(out))
'''


# TF's internal paths (and names there) that real code imports: the census of 30 TF1 repositories
# (../shared/census/missing_tf1_names.tsv) less the names tinyflow lacks (dtypes.float16_ref, ...)
CENSUS = [
    "tensorflow.python.estimator.estimator._load_global_step_from_checkpoint_dir",
    "tensorflow.python.estimator.model_fn.ModeKeys.EVAL",
    "tensorflow.python.framework.graph_util.remove_training_nodes",
    "tensorflow.python.framework.graph_util.convert_variables_to_constants", "tensorflow.python.framework.dtypes",
    "tensorflow.python.keras.initializers.RandomUniform", "tensorflow.python.keras.models.Sequential",
    "tensorflow.python.keras.models.Model", "tensorflow.python.keras.models.load_model",
    "tensorflow.python.keras.preprocessing.sequence.pad_sequences", "tensorflow.python.ops.nccl_ops",
    "tensorflow.python.ops.variable_scope", "tensorflow.python.training.training_ops",
    "tensorflow.python.saved_model.signature_def_utils_impl.predict_signature_def",
    "tensorflow.contrib.learn.python.learn.learn_runner.run",
    "tensorflow.contrib.learn.python.learn.datasets.base.Datasets",
    "tensorflow.contrib.learn.python.learn.datasets.base.maybe_download",
    "tensorflow.contrib.learn.python.learn.datasets.mnist.read_data_sets",
    "tensorflow.contrib.eager.python.tfe",
    "tensorflow.contrib.metrics.python.ops.set_ops", "tensorflow.contrib.crf.python.ops.crf.crf_decode",
]


@pytest.mark.slow   # (one process importing every namespace: ~3 s of CPU)
def test_every_path_imports_and_serves_its_names():
    done = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(CENSUS)], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.split("RESULT ", 1)[1])
    assert out["failed"] == [] and out["paths"] == len(tree.PUBLIC) == 214
    assert out["from_failed"] == [] and out["names"] > 2500
    assert out["compat_failed"] == [] and out["tinyflow_failed"] == []
    assert all(out["identities"]), out["identities"]
    assert sorted(out["internals"]) == sorted(CENSUS), set(CENSUS) - set(out["internals"])
    assert out["internals"]["tensorflow.python.keras.models.Model"] == "tensorflow.python.keras.models"
    assert out["internals"]["tensorflow.contrib.crf.python.ops.crf.crf_decode"].endswith(".crf")


def _first_missing(path):
    served = importer.public(path)
    return next((n for n in tree.tf_names()[path] if not importer.has(served, n)), None)


@pytest.mark.parametrize("path", ["", "nn", "keras.layers", "train", "contrib.layers", "estimator", "image"])
def test_missing_names_say_tf_has_them(path):
    name = _first_missing(path)
    if name is None:
        pytest.skip("tinyflow has every TF 1.15 name of tf.%s" % path)
    namespace = tf
    for part in path.split(".") if path else []:
        namespace = getattr(namespace, part)
    full = "tf." + (path + "." if path else "") + name
    expected = "^TF 1.15 has %s; tinyflow does not implement it" % full.replace(".", r"\.")
    with pytest.raises(AttributeError, match=expected):
        getattr(namespace, name)
    assert not hasattr(namespace, name)


def test_other_names_keep_pythons_wording_and_paths_tf_lacks_say_so():
    root = "tensorflow" if sys.modules.get("tensorflow") is tf else "tinyflow"   # as the script spells it
    with pytest.raises(AttributeError, match=r"^module '%s' has no attribute 'no_such_name'$" % root):
        tf.no_such_name
    with pytest.raises(AttributeError, match=r"^module '%s\.nn' has no attribute 'no_such_op'$" % root):
        tf.nn.no_such_op
    with pytest.raises(AttributeError, match=r"^TF 1\.15 has tf\.contrib\.ffmpeg; tinyflow does not implement it$"):
        tf.contrib.ffmpeg
    assert not hasattr(tf, "no_such_name") and not hasattr(tf.contrib, "ffmpeg")
    stub = importer.public("contrib.ffmpeg")   # what `import tensorflow.contrib.ffmpeg` gives
    with pytest.raises(AttributeError, match=r"^TF 1\.15 has tf\.contrib\.ffmpeg\.decode_audio; tinyflow does not"):
        stub.decode_audio
    with pytest.raises(AttributeError, match=r"instead: tf\.distributions"):
        tf.contrib.distributions
    namespace = importer.public("saved_model.tag_constants")   # a namespace built in code, served as a module
    assert namespace.SERVING == "serve" and tf.saved_model.tag_constants.SERVING == "serve"
    with pytest.raises(AttributeError, match=r"^module '%s\.saved_model\.tag_constants' has no attribute" % root):
        namespace.NO_SUCH_TAG


def test_each_served_path_is_the_attribute_path():
    """Import and attribute access give the same object (a Namespace over a built namespace is set on its
    holder when served)."""
    for path, spec in tree.PUBLIC.items():
        if spec is None:   # TF has it, tinyflow not: no attribute (a namespace added since: declare it)
            assert importer.is_stub(importer.public(path)), "tf.%s exists now: declare it in api/tree.py" % path
            continue
        served, value = importer.public(path), tf
        for part in path.split(".") if path else []:
            value = getattr(value, part)
        assert value is served, "tf.%s is not what api/tree.py declares" % path


def test_no_api_file_shadows_a_name_of_its_namespace():
    """A package's submodule file is set on the package when imported: a file named like a TF name of that
    namespace (a function, a class) would replace it."""
    names = tree.tf_names()
    for path, spec in tree.PUBLIC.items():
        if not spec or ":" in spec or not spec.startswith("tinyflow.api.") or path.startswith("contrib."):
            continue   # (tf.contrib is recorded one level deep: which of its names are modules is not known)
        folder = os.path.join(ROOT, *spec.split("."))
        if not os.path.isdir(folder):
            continue
        for entry in os.listdir(folder):
            stem = entry[:-3] if entry.endswith(".py") else entry
            child = (path + "." if path else "") + stem
            assert stem not in names[path] or child in tree.PUBLIC, "%s/%s shadows tf.%s" % (folder, entry, child)


def test_coverage_page_is_current():
    """docs/api_coverage.md is what the declaration gives now: after adding API, regenerate it with
    `python -m tinyflow.coverage --write docs/api_coverage.md`."""
    from tinyflow.cli import coverage
    with open(os.path.join(ROOT, "docs", "api_coverage.md")) as f:
        committed = f.read()
    assert committed == coverage.markdown(), \
        "docs/api_coverage.md is stale: python -m tinyflow.coverage --write docs/api_coverage.md"
