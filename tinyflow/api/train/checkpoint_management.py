"""tf.train.CheckpointManager (TF 1.15): numbered saves of a tf.train.Checkpoint in one directory, the
newest max_to_keep kept (and one every keep_checkpoint_every_n_hours), recorded in its `checkpoint` file;
and the checkpoint-file helpers get_checkpoint_mtimes / remove_checkpoint."""
import glob
import os
import time

from tinyflow.formats.checkpoint import get_checkpoint_state, update_checkpoint_state
from tinyflow.graph.core import get_default_session


def _files(prefix, meta_graph_suffix="meta"):
    return glob.glob(prefix + ".index") + glob.glob(prefix + ".data-*") + glob.glob(prefix + "." + meta_graph_suffix)


def get_checkpoint_mtimes(checkpoint_prefixes):
    """The modification times of the checkpoints' index files (prefixes with none are left out)."""
    return [os.path.getmtime(p + ".index") for p in checkpoint_prefixes if os.path.exists(p + ".index")]


def remove_checkpoint(checkpoint_prefix, checkpoint_format_version=2, meta_graph_suffix="meta"):
    """Deletes the files of a checkpoint: its index, its data shards and its meta graph."""
    for path in _files(checkpoint_prefix, meta_graph_suffix):
        os.remove(path)


class CheckpointManager:
    """Saves `checkpoint` as directory/<checkpoint_name>-<number>, keeping the newest max_to_keep (None: all)."""

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt"):
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError("Expected a positive integer or `None` for `max_to_keep`, got %d." % max_to_keep)
        self._checkpoint, self._directory = checkpoint, str(directory)
        self._max_to_keep, self._keep_every_hours = max_to_keep, keep_checkpoint_every_n_hours
        self._prefix = os.path.join(self._directory, checkpoint_name)
        state = get_checkpoint_state(self._directory)
        self._maybe_delete = {}   # path -> save time, oldest first
        if state is not None:
            mtimes = get_checkpoint_mtimes(list(state.all_model_checkpoint_paths))
            for path, mtime in zip([p for p in state.all_model_checkpoint_paths if os.path.exists(p + ".index")],
                                   mtimes):
                self._maybe_delete[path] = mtime
            self._latest = state.model_checkpoint_path
        else:
            self._latest = None
        self._last_preserved = time.time()

    directory = property(lambda self: self._directory)
    latest_checkpoint = property(lambda self: self._latest)
    checkpoints = property(lambda self: list(self._maybe_delete))

    def _sweep(self):
        """Deletes the oldest checkpoints beyond max_to_keep, sparing one per keep_checkpoint_every_n_hours."""
        if self._max_to_keep is None:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            path, stamp = next(iter(self._maybe_delete.items()))
            del self._maybe_delete[path]
            if self._keep_every_hours is not None and stamp - self._keep_every_hours * 3600 >= self._last_preserved:
                self._last_preserved = stamp
                continue
            remove_checkpoint(path)

    def save(self, checkpoint_number=None):
        """Writes a new checkpoint (numbered checkpoint_number, else the checkpoint's incremented save_counter)
        with the default session; returns its path."""
        session = get_default_session()
        if session is None:
            raise ValueError("In graph mode a session must be the default session (with sess.as_default()).")
        from tinyflow.ops import state_ops
        counter = self._checkpoint.save_counter
        if not session.run(state_ops.is_variable_initialized(counter)):
            session.run(counter.initializer)
        number = session.run(state_ops.assign_add(counter, 1))
        if checkpoint_number is not None:
            number = int(checkpoint_number)
        os.makedirs(self._directory, exist_ok=True)
        path = self._checkpoint.write("%s-%d" % (self._prefix, number), session=session)
        self._maybe_delete.pop(path, None)
        self._maybe_delete[path] = time.time()
        self._latest = path
        self._sweep()
        update_checkpoint_state(self._directory, path, list(self._maybe_delete))
        return path


class PythonState:
    """tf.train.experimental.PythonState: Python state a checkpoint saves as a string. Subclasses give
    serialize() -> str and deserialize(string_value)."""

    def serialize(self):
        """The state as a string (saved in the checkpoint)."""
        raise NotImplementedError("%s must implement serialize()" % type(self).__name__)

    def deserialize(self, string_value):
        """Restores the state from what serialize() returned."""
        raise NotImplementedError("%s must implement deserialize()" % type(self).__name__)
