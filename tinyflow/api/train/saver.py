"""tf.train.Saver: saves and restores variables as checkpoints.

Saver writes TF's V2 checkpoint format by default (tf_files/bundle.py: TensorFlow restores it);
Saver(write_version="npz") writes tinyflow's older npz format (checkpoint.py). Restore reads both,
detecting the format from the index file (tf_checkpoint.py).

Restore checks every variable (present, dtype, shape) and the checksum before it assigns any, so
a failed restore changes no variable.
"""
import os

import numpy as np

from tinyflow.graph import errors
from tinyflow.graph.core import GraphKeys, Tensor, get_default_graph  # noqa: F401
from tinyflow.graph.serialize import register_serializable
from tinyflow.ops.state_ops import Variable
from tinyflow.formats.checkpoint import (_MissingCheckpointError, checkpoint_exists, update_checkpoint_state,
                                         write_checkpoint)
from tinyflow.formats.durable import clean_leftovers, fault_point, remove_checkpoint
from tinyflow.api import logging as tf_logging
from tinyflow.api.tf_files import meta_graph
from tinyflow.api.train.tf_checkpoint import open_reader, write_bundle

NPZ = "npz"  # Saver(write_version=NPZ): tinyflow's npz checkpoint instead of TF's V2 format


_eager_values = [None]  # register_eager's hook


def register_eager(eager_values):
    """Eager execution's seam (api/eager calls it): eager_values() stands for the Session while
    executing eagerly (else None)."""
    _eager_values[0] = eager_values


def _eager_session(sess):
    values = _eager_values[0]() if sess is None and _eager_values[0] is not None else None
    return (values, True) if values is not None else (sess, False)


def _var_op(v):
    if isinstance(v, Variable):
        return v.op
    if isinstance(v, Tensor) and v.op.type == "VariableV2":
        return v.op
    raise TypeError("Variable to save is not a Variable: %s" % (v,))


def _names_to_ops(var_list):
    """{checkpoint name: VariableV2 op} from a list (names are the ops' names) or a dict."""
    if isinstance(var_list, dict):
        return {name: _var_op(v) for name, v in var_list.items()}
    out = {}
    for v in var_list:
        op = _var_op(v)
        if op.name in out:
            raise ValueError("At least two variables have the same name: %s" % op.name)
        out[op.name] = op
    return out


class Saver:
    """Saves and restores variables (see the module docstring for the file format)."""

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False, saver_def=None,
                 builder=None, defer_build=False, allow_empty=False, write_version=2, pad_step_number=False,
                 save_relative_paths=False, filename=None):
        if var_list is None:
            graph = get_default_graph()
            var_list = graph.get_collection(GraphKeys.GLOBAL_VARIABLES) + graph.get_collection("saveable_objects")
        if not isinstance(var_list, dict):   # a saveable (an iterator's position) is no variable
            self._saveables = {v._checkpoint_key: v for v in var_list if hasattr(v, "_checkpoint_key")}
            var_list = [v for v in var_list if not hasattr(v, "_checkpoint_key")]
        else:
            self._saveables = {}
        self._vars = _names_to_ops(var_list)
        if not self._vars and not self._saveables and not allow_empty:
            raise ValueError("No variables to save")
        if write_version not in (1, 2, NPZ):
            raise ValueError("write_version must be tf.train.SaverDef.V2 (2) or %r, not %r" % (NPZ, write_version))
        self._write_version = write_version  # V1 is read by TF as V2: tinyflow writes V2 for both
        self._max_to_keep = max_to_keep
        self._pad_step_number = pad_step_number
        self._save_relative_paths = save_relative_paths
        self._last_checkpoints = []

    @property
    def last_checkpoints(self):
        """The prefixes of the checkpoints not yet deleted, oldest first."""
        return list(self._last_checkpoints)

    def set_last_checkpoints(self, last_checkpoints):
        self._last_checkpoints = list(last_checkpoints)

    def recover_last_checkpoints(self, checkpoint_paths):
        self._last_checkpoints = [p for p in checkpoint_paths if checkpoint_exists(p)]

    def save(self, sess, save_path, global_step=None, latest_filename=None, meta_graph_suffix="meta",
             write_meta_graph=True, write_state=True, strip_default_attrs=False, save_debug_info=False):
        """Writes the variables' values in `sess` to a checkpoint; returns its prefix ("path-<step>")."""
        sess, eager = _eager_session(sess)
        write_meta_graph = write_meta_graph and not eager  # TF writes no meta graph eagerly
        if latest_filename is not None and os.path.split(latest_filename)[0]:
            raise ValueError("'latest_filename' must not contain path components")
        if global_step is not None:
            if not isinstance(global_step, (int, np.integer)):
                global_step = int(sess.run(global_step))
            prefix = ("%s-%08d" if self._pad_step_number else "%s-%d") % (save_path, global_step)
        else:
            prefix = save_path
        # read every value first, all from one moment (another thread may be training): an
        # uninitialized variable fails before any file is touched
        ops = list(self._vars.values())
        values = sess._variable_values(ops) if hasattr(sess, "_variable_values") else \
            [sess._variable_value(op) for op in ops]
        arrays = {name: (op.attrs["dtype"], v) for (name, op), v in zip(self._vars.items(), values)}
        arrays.update({key: s._checkpoint_value(sess) for key, s in self._saveables.items()})
        if _other_process():   # a multi-process job: process 0 writes the one checkpoint
            return prefix
        save_dir = os.path.dirname(save_path)
        if save_dir and not os.path.isdir(save_dir):
            try:  # TF's checkpoint writer creates one missing directory level, not more
                os.mkdir(save_dir)
            except FileNotFoundError:
                raise ValueError("Parent directory of %s doesn't exist, can't save." % save_path) from None
        # TF's order, so a crash at any point leaves the checkpoint the state file names intact:
        # leftovers of killed saves go, the new files are written (each atomically), then the state
        # file names them, and only then are checkpoints beyond max_to_keep deleted.
        clean_leftovers(prefix, latest_filename)
        self._write_files(prefix, arrays)
        fault_point("files_written", prefix)
        if write_meta_graph:
            export_meta_graph(prefix + "." + meta_graph_suffix, graph=sess.graph, saver=self)
            fault_point("meta_written", prefix)
        to_delete = self._record(prefix)
        if write_state:
            update_checkpoint_state(save_dir or ".", prefix, self._last_checkpoints, latest_filename,
                                    self._save_relative_paths)
            fault_point("state_written", prefix)
        for old in to_delete:
            remove_checkpoint(old)
        return prefix

    def _write_files(self, prefix, arrays):
        """Writes the checkpoint files of `prefix` ({name: (DType, numpy array)}) in this Saver's
        format; every file through an atomic write (temp file, fsync, rename)."""
        (write_checkpoint if self._write_version == NPZ else write_bundle)(prefix, arrays)

    def _record(self, prefix):
        """Records `prefix` as the newest checkpoint; returns the prefixes now beyond max_to_keep
        (deleted by save only after the state file no longer names them)."""
        if not self._max_to_keep:
            return []
        if prefix in self._last_checkpoints:
            self._last_checkpoints.remove(prefix)
        self._last_checkpoints.append(prefix)
        to_delete = []
        while len(self._last_checkpoints) > self._max_to_keep:
            to_delete.append(self._last_checkpoints.pop(0))
        return to_delete

    def restore(self, sess, save_path):
        """Sets the variables in `sess` from a checkpoint; on any error no variable changes."""
        sess, _ = _eager_session(sess)
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        if not checkpoint_exists(save_path):
            raise _MissingCheckpointError(None, None, "The passed save_path is not a valid checkpoint: %s" % save_path)
        tf_logging.info("Restoring parameters from %s", save_path)
        reader = open_reader(save_path)
        values = {}
        for name, op in self._vars.items():
            if not reader.has_tensor(name):
                raise errors.NotFoundError(
                    op.node_def, op, "Restoring from checkpoint failed. This is most likely due to a Variable name or "
                    "other graph key that is missing from the checkpoint.\n\nKey %s not found in checkpoint" % name)
            want_dtype, want_shape = op.attrs["dtype"], op.attrs["shape"]
            dtype, shape = reader.get_variable_to_dtype_map()[name], reader.get_variable_to_shape_map()[name]
            if dtype != want_dtype:
                raise errors.InvalidArgumentError(
                    op.node_def, op, "tensor_name = %s; expected dtype %s does not equal original dtype %s"
                    % (name, want_dtype.name, dtype.name))
            if not want_shape.is_compatible_with(shape):
                raise errors.InvalidArgumentError(
                    op.node_def, op, "Restoring from checkpoint failed. Assign requires shapes of both tensors to "
                    "match. lhs shape= %s rhs shape= %s (variable %s)" % (want_shape.as_proto_str(),
                                                                        "[%s]" % ",".join(map(str, shape)), name))
            values[op] = reader.get_tensor(name)
        for key in self._saveables:
            if not reader.has_tensor(key):
                raise errors.NotFoundError(None, None, "Restoring from checkpoint failed. This is most likely due to a "
                                           "Variable name or other graph key that is missing from the checkpoint."
                                           "\n\nKey %s not found in checkpoint" % key)
        saved = {key: reader.get_tensor(key) for key in self._saveables}
        for op, value in values.items():
            sess._set_variable(op, value)
        for key, value in saved.items():
            self._saveables[key]._checkpoint_restore(sess, value)


# a file never says what to delete, nor holds the iterators whose positions a Saver saves
register_serializable(Saver, defaults={"_last_checkpoints": list, "_saveables": dict})


def default_saver():
    """The graph's Saver (the SAVERS collection), created over all global variables if there is none."""
    graph = get_default_graph()
    savers = graph.get_collection(GraphKeys.SAVERS)
    if len(savers) > 1:
        raise RuntimeError("More than one item in collection SAVERS. Please indicate which one to use by passing "
                           "it to the constructor.")
    if savers:
        return savers[0]
    saver = Saver(allow_empty=True)
    graph.add_to_collection(GraphKeys.SAVERS, saver)
    return saver


# ---- meta graphs: the graph beside the checkpoint -------------------------------------------------
def export_meta_graph(filename=None, meta_info_def=None, graph_def=None, saver_def=None, collection_list=None,
                      as_text=False, graph=None, export_scope=None, clear_devices=False, saver=None, **kwargs):
    """Writes the graph as TF's MetaGraphDef protobuf to `filename` (tf_files/meta_graph.py: TF can
    import it when its ops are TF's) and returns the MetaGraphDef. tinyflow's exact JSON form of the
    graph rides along in the collection "tinyflow_graph_json", so tinyflow's own import is a
    complete round trip (a graph holding a Python function, from tf.py_func, skips it with a warning)."""
    return meta_graph.export(filename, graph or get_default_graph(), saver, as_text)


def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None, **kwargs):
    """Rebuilds the graph of a .meta file (TF's MetaGraphDef, binary or text, or tinyflow's older
    JSON) into the default graph and returns a Saver of its variables, ready for
    `saver.restore(sess, prefix)`."""
    return meta_graph.import_meta_graph(meta_graph_or_file, Saver, import_scope=import_scope)


def _other_process():
    """True in a process other than process 0 of a multi-process job (tf.distribute.initialize)."""
    import jax
    return jax.process_count() > 1 and jax.process_index() != 0
