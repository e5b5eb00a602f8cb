"""The package root: a lazy tf. namespace over api/, and the module paths before the layer folders."""
import subprocess
import sys

import tinyflow as tf


def _run(code):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_import_loads_the_graph_api_but_not_the_rare_namespaces():
    loaded = _run("import sys, tinyflow\n"
                  "print(sorted(m for m in sys.modules if m.startswith('tinyflow.api.')))")
    for rare in ("estimator", "feature_column", "contrib", "data", "eager", "summary", "train"):
        assert "'tinyflow.api.%s'" % rare not in loaded, rare
    assert "'tinyflow.api.aliases'" in loaded


def test_lazy_names_resolve_and_are_cached():
    assert tf.train.AdamOptimizer.__module__.startswith("tinyflow.api.train")
    assert "train" in vars(tf)   # the second access is a plain attribute
    assert tf.FIFOQueue.__name__ == "FIFOQueue"
    assert callable(tf.import_graph_def) and callable(tf.make_template)
    assert tf.compat.v1 is tf
    assert {"train", "estimator", "GraphDef"} <= set(dir(tf))


def test_unknown_name_is_an_attribute_error():
    try:
        tf.no_such_name
    except AttributeError as e:
        assert "no_such_name" in str(e)
    else:
        raise AssertionError("tf.no_such_name resolved")


def test_old_module_paths_name_the_same_modules():
    import tinyflow.api.train.saver
    import tinyflow.formats.checkpoint
    import tinyflow.runtime.session
    import tinyflow.client.session as old_session
    import tinyflow.train.checkpoint as old_checkpoint
    import tinyflow.train.saver as old_saver
    from tinyflow.errors import InvalidArgumentError
    assert old_saver is tinyflow.api.train.saver
    assert old_session is tinyflow.runtime.session
    assert old_checkpoint is tinyflow.formats.checkpoint
    assert InvalidArgumentError is tf.errors.InvalidArgumentError


def test_old_paths_run_as_main():
    out = subprocess.run([sys.executable, "-m", "tinyflow.coverage"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "tf.nn" in out.stdout or "nn" in out.stdout


def test_a_graph_file_naming_a_class_by_its_old_module_path_loads():
    from tinyflow.graph import serialize
    from tinyflow.api.train.queue_runner import QueueRunner
    assert serialize._safe_class("tinyflow.train.queue_runner:QueueRunner") is QueueRunner
    assert serialize._safe_class("os.path:join") is None
    assert serialize._safe_class("tinyflow.train.queue_runner:Nope") is None
