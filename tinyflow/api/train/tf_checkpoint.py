"""Checkpoint readers for both formats, and tf.train.init_from_checkpoint.

A checkpoint prefix P is either TF's V2 format (P.index is a table, P.data-00000-of-00001: what
Saver writes by default, and what TensorFlow writes) or tinyflow's older npz format (P.index is
JSON, P.npz). The format is detected from the index file's content, so both restore the same way.
"""
import os
import time

from tinyflow.graph.core import GraphKeys, get_default_graph
from tinyflow.formats import checkpoint as _npz
from tinyflow.formats.checkpoint import _atomic_write, _resolve, latest_checkpoint


def open_reader(prefix):
    """A reader of the checkpoint `prefix` (NewCheckpointReader's interface), whatever its format."""
    from tinyflow.formats import bundle
    if not os.path.exists(prefix + ".index"):
        raise _npz._MissingCheckpointError(None, None, "Unsuccessful TensorSliceReader constructor: Failed to find "
                                           "any matching files for %s" % prefix)
    if bundle.is_bundle(prefix):
        return bundle.BundleReader(prefix)
    return _npz.CheckpointReader(prefix)


def write_bundle(prefix, named_arrays):
    """Writes {name: (DType, numpy array)} as TF's V2 checkpoint `prefix`: the data file, then the index."""
    from tinyflow.formats import bundle
    index, data = bundle.bundle_files(named_arrays)
    _atomic_write(bundle.data_filename(prefix), data)
    _atomic_write(prefix + ".index", index)


def NewCheckpointReader(filepattern):
    """tf.train.NewCheckpointReader: get_tensor, has_tensor, get_variable_to_shape_map/dtype_map."""
    return open_reader(filepattern)


def load_checkpoint(ckpt_dir_or_file):
    """tf.train.load_checkpoint: a reader of a checkpoint prefix or of a directory's latest checkpoint."""
    return open_reader(_resolve(ckpt_dir_or_file))


def list_variables(ckpt_dir_or_file):
    """[(name, shape)] of a checkpoint (a prefix or a directory with a `checkpoint` file), sorted by name."""
    return sorted(load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map().items())


def load_variable(ckpt_dir_or_file, name):
    """The value of one variable in a checkpoint, as numpy."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


def _graph_variables():
    return {v.op.name: v for v in get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES)
            if hasattr(v, "_initializer_op")}


def init_from_checkpoint(ckpt_dir_or_file, assignment_map):
    """tf.train.init_from_checkpoint: makes the variables' initializers load values from a checkpoint.

    assignment_map, as TF: {"ckpt_scope/": "graph_scope/"} maps every checkpoint variable under a
    scope ("/" or "" for all) to the graph variable of the same relative name; {"ckpt/name":
    "graph/name" or a Variable} maps one. Every name, dtype and shape is checked before any
    initializer is replaced; values are read now, loaded when the initializer runs."""
    reader = load_checkpoint(ckpt_dir_or_file)
    shapes, dtypes = reader.get_variable_to_shape_map(), reader.get_variable_to_dtype_map()
    graph_vars = _graph_variables()
    pairs = []  # (checkpoint name, Variable)
    items = assignment_map.items() if isinstance(assignment_map, dict) else assignment_map
    for ckpt_name, target in items:
        if not isinstance(target, str):
            var = target
            if ckpt_name not in shapes:
                raise ValueError("Tensor %s is not found in %s checkpoint %s" % (ckpt_name, ckpt_dir_or_file, shapes))
            pairs.append((ckpt_name, var))
        elif ckpt_name in shapes and not ckpt_name.endswith("/"):
            name = target[:-2] if target.endswith(":0") else target
            if name not in graph_vars:
                raise ValueError("Tensor %s is not found in the graph (assignment map %s -> %s)" % (name, ckpt_name,
                                                                                                  target))
            pairs.append((ckpt_name, graph_vars[name]))
        elif ckpt_name.endswith("/") or ckpt_name == "":
            scope = "" if ckpt_name in ("/", "") else ckpt_name
            new_scope = "" if target in ("/", "") else target.rstrip("/") + "/"
            found = False
            for name, var in graph_vars.items():
                if not name.startswith(new_scope):
                    continue
                full = scope + name[len(new_scope):]
                if full in shapes:
                    pairs.append((full, var))
                    found = True
            if not found:
                raise ValueError("Assignment map with scope only name %s should map to scope only %s. Should be "
                                 "'scope/': 'other_scope/'." % (ckpt_name, target))
        else:
            raise ValueError("Tensor %s is not found in %s checkpoint %s" % (ckpt_name, ckpt_dir_or_file,
                                                                              sorted(shapes)))
    for ckpt_name, var in pairs:
        if dtypes[ckpt_name] != var.dtype.base_dtype:
            raise ValueError("Variable %s has dtype %s, the checkpoint's %s is %s"
                             % (var.op.name, var.dtype.name, ckpt_name, dtypes[ckpt_name].name))
        if not var.shape.is_compatible_with(shapes[ckpt_name]):
            raise ValueError("Shape of variable %s (%s) doesn't match with shape of tensor %s (%s) from checkpoint "
                             "reader." % (var.op.name, var.shape, ckpt_name, shapes[ckpt_name]))
    values = [(var, reader.get_tensor(ckpt_name)) for ckpt_name, var in pairs]  # every read before any change
    from tinyflow.ops.core.base import constant
    from tinyflow.ops.state_ops import assign
    for var, value in values:
        graph = var.graph
        with graph.as_default(), graph.control_dependencies(None), graph.name_scope(var.op.name + "/"):
            init = constant(value, dtype=var.dtype, name="checkpoint_initializer")
            var._initial_value = init
            var._initializer_op = assign(var._variable, init, name="Assign").op


__all__ = ["NewCheckpointReader", "load_checkpoint", "list_variables", "load_variable", "init_from_checkpoint",
           "open_reader", "write_bundle"]


def wait_for_new_checkpoint(checkpoint_dir, last_checkpoint=None, seconds_to_sleep=1, timeout=None):
    """The newest checkpoint of checkpoint_dir once it differs from last_checkpoint (None on timeout)."""
    stop = None if timeout is None else time.time() + timeout
    while True:
        path = latest_checkpoint(checkpoint_dir)
        if path is not None and path != last_checkpoint:
            return path
        if stop is not None and time.time() + seconds_to_sleep > stop:
            return None
        time.sleep(seconds_to_sleep)


def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yields each new checkpoint of checkpoint_dir as it appears; ends after `timeout` seconds without
    one (unless timeout_fn() says to go on)."""
    last = None
    while True:
        path = wait_for_new_checkpoint(checkpoint_dir, last, timeout=timeout)
        if path is None:
            if timeout_fn is None or timeout_fn():
                return
            continue
        start = time.time()
        last = path
        yield path
        time.sleep(max(0.0, min_interval_secs - (time.time() - start)))


def generate_checkpoint_state_proto(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                                    all_model_checkpoint_timestamps=None, last_preserved_timestamp=None):
    """TF's CheckpointState message for these paths (made relative to a relative save_dir, as TF does)."""
    from tinyflow.formats.tf_protos import CheckpointState
    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        paths.append(model_checkpoint_path)
    if all_model_checkpoint_timestamps and len(all_model_checkpoint_timestamps) != len(paths):
        raise ValueError("Checkpoint timestamps, if provided, must match checkpoint paths (%d vs %d)"
                         % (len(all_model_checkpoint_timestamps), len(paths)))
    if not os.path.isabs(save_dir):
        rel = lambda p: p if os.path.isabs(p) else os.path.relpath(p, save_dir)  # noqa: E731
        model_checkpoint_path, paths = rel(model_checkpoint_path), [rel(p) for p in paths]
    return CheckpointState(model_checkpoint_path=model_checkpoint_path, all_model_checkpoint_paths=paths,
                           all_model_checkpoint_timestamps=all_model_checkpoint_timestamps or [],
                           last_preserved_timestamp=last_preserved_timestamp or 0.0)
