"""Checkpoint files a user can read with numpy alone, written atomically (tf.train.Saver's format),
and the `checkpoint` state file (tf.train.latest_checkpoint).

A checkpoint with prefix P is two files:
  P.npz    a plain numpy archive (np.load(P + ".npz", allow_pickle=False)): one array per variable,
           keyed by its checkpoint name ("w", "w/Adam", "global_step"); bfloat16 is stored as its
           uint16 bits (the index says so)
  P.index  JSON: {"format": "tinyflow-checkpoint-1", "data": "<P's basename>.npz", "size": bytes,
           "sha256": hex digest of P.npz, "variables": {name: {"dtype": "float32", "shape": [3, 2]}}}
and the directory's `checkpoint` file, in TF's text format (model_checkpoint_path: "..."), names
the latest ones. Every file is written to a temporary file, fsync'ed and renamed over the old
one, in an order (write_checkpoint) that leaves a complete checkpoint after a crash at any point.
Nothing is ever pickled.
"""
import hashlib
import io
import json
import os
import tempfile
import zipfile

import numpy as np

from .. import errors
from ..graph import dtypes as dt

FORMAT = "tinyflow-checkpoint-1"
_STATE = "checkpoint"


class _MissingCheckpointError(errors.NotFoundError, ValueError):
    """A checkpoint that does not exist: tf.errors.NotFoundError, and a ValueError as TF 1.15 raises."""


# ---- files ------------------------------------------------------------------------------------------
def _atomic_write(path, data):
    """Writes bytes to path through a temporary file in the same directory, fsync and rename."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".%s." % os.path.basename(path), suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    try:  # make the rename durable too (not possible on every platform)
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


def _npz_bytes(arrays):
    """An .npz archive of {name: array} (np.savez's format, written member by member so any name works)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, a in arrays.items():
            with zf.open(name + ".npy", "w", force_zip64=True) as f:
                np.lib.format.write_array(f, np.asarray(a, order="C"), allow_pickle=False)
    return buf.getvalue()


def _storable(a, dtype):
    """An array numpy can store without pickling (bfloat16 as its bits)."""
    return a.view(np.uint16) if dtype == dt.bfloat16 else a


def _stored(a, dtype):
    return a.view(dtype.np) if dtype == dt.bfloat16 else a


def write_checkpoint(prefix, named_arrays):
    """Writes {name: (DType, numpy array)} as the checkpoint `prefix`.

    Two-phase, so that some complete checkpoint survives a crash at any point: the new index is
    written first as `prefix.index.pending`, then the data file replaces the old one, then the
    pending index is renamed over the old index. A reader that finds the data newer than the
    index (a crash between the last two steps) rolls forward to the pending index."""
    data = _npz_bytes({n: _storable(a, d) for n, (d, a) in named_arrays.items()})
    index = {"format": FORMAT, "data": os.path.basename(prefix) + ".npz", "size": len(data),
             "sha256": hashlib.sha256(data).hexdigest(),
             "variables": {n: {"dtype": d.name, "shape": list(a.shape)} for n, (d, a) in named_arrays.items()}}
    _atomic_write(prefix + ".index.pending", json.dumps(index, indent=1).encode())
    _atomic_write(prefix + ".npz", data)
    os.replace(prefix + ".index.pending", prefix + ".index")


def _read_index(path):
    """The parsed index file at path (DataLossError if it is not a valid tinyflow index)."""
    try:
        with open(path, "rb") as f:
            index = json.loads(f.read().decode())
        if index.get("format") != FORMAT:
            raise ValueError("unknown format %r" % index.get("format"))
        variables = {n: (dt.as_dtype(v["dtype"]), tuple(v["shape"])) for n, v in index["variables"].items()}
        return index, variables
    except (ValueError, KeyError, TypeError, UnicodeDecodeError, AttributeError) as e:
        raise errors.DataLossError(None, None, "Unable to read checkpoint index %s: %s (not a tinyflow checkpoint, "
                                   "or a corrupted one)" % (path, e)) from None


def _matches(index, data):
    return len(data) == index["size"] and hashlib.sha256(data).hexdigest() == index["sha256"]


class CheckpointReader:
    """Reads a checkpoint (tf.train.NewCheckpointReader): validates the index and the checksum."""

    def __init__(self, prefix):
        self._prefix = prefix
        if not os.path.exists(prefix + ".index"):
            raise _MissingCheckpointError(None, None, "Unsuccessful TensorSliceReader constructor: Failed to find any "
                                          "matching files for %s" % prefix)
        index, self._vars = _read_index(prefix + ".index")
        data_path = os.path.join(os.path.dirname(prefix), index["data"])
        if not os.path.exists(data_path):
            raise errors.NotFoundError(None, None, "Checkpoint data file %s of %s not found" % (data_path, prefix))
        with open(data_path, "rb") as f:
            data = f.read()
        if not _matches(index, data) and os.path.exists(prefix + ".index.pending"):
            pending, pending_vars = _read_index(prefix + ".index.pending")
            if _matches(pending, data):  # a save that crashed after writing its data: roll forward
                index, self._vars = pending, pending_vars
        if len(data) != index["size"]:
            raise errors.DataLossError(None, None, "Checkpoint data file %s is truncated: %d bytes, the index says %d"
                                       % (data_path, len(data), index["size"]))
        if hashlib.sha256(data).hexdigest() != index["sha256"]:
            raise errors.DataLossError(None, None, "Checksum does not match for checkpoint data file %s" % data_path)
        self._data = data

    def get_variable_to_shape_map(self):
        return {n: list(s) for n, (d, s) in self._vars.items()}

    def get_variable_to_dtype_map(self):
        return {n: d for n, (d, s) in self._vars.items()}

    def has_tensor(self, name):
        return name in self._vars

    def get_tensor(self, name):
        """The stored value of `name` (NotFoundError if it is not in the checkpoint)."""
        if name not in self._vars:
            raise errors.NotFoundError(None, None, "Key %s not found in checkpoint" % name)
        try:
            with np.load(io.BytesIO(self._data), allow_pickle=False) as z:
                a = z[name]
        except Exception as e:
            raise errors.DataLossError(None, None, "Cannot read %s from checkpoint %s: %s"
                                       % (name, self._prefix, e)) from None
        dtype, shape = self._vars[name]
        a = _stored(a, dtype)
        if a.dtype != dtype.np or a.shape != shape:
            raise errors.DataLossError(None, None, "Checkpoint %s: %s is stored as %s %s, the index says %s %s"
                                       % (self._prefix, name, a.dtype, a.shape, dtype.name, list(shape)))
        return a


def NewCheckpointReader(filepattern):
    return CheckpointReader(filepattern)


def list_variables(ckpt_dir_or_file):
    """[(name, shape)] of a checkpoint (a prefix or a directory with a `checkpoint` file), sorted by name."""
    reader = CheckpointReader(_resolve(ckpt_dir_or_file))
    return sorted((n, s) for n, s in reader.get_variable_to_shape_map().items())


def load_variable(ckpt_dir_or_file, name):
    """The value of one variable in a checkpoint, as numpy."""
    if name.endswith(":0"):
        name = name[:-2]
    return CheckpointReader(_resolve(ckpt_dir_or_file)).get_tensor(name)


def _resolve(ckpt_dir_or_file):
    if os.path.isdir(ckpt_dir_or_file):
        latest = latest_checkpoint(ckpt_dir_or_file)
        if latest is None:
            raise ValueError("Couldn't find 'checkpoint' file or checkpoints in given directory %s" % ckpt_dir_or_file)
        return latest
    return ckpt_dir_or_file


# ---- the `checkpoint` state file ----------------------------------------------------------------------
class CheckpointState:
    """The parsed `checkpoint` file: model_checkpoint_path and all_model_checkpoint_paths."""

    def __init__(self, model_checkpoint_path, all_model_checkpoint_paths=()):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)

    def __repr__(self):
        return _state_text(self.model_checkpoint_path, self.all_model_checkpoint_paths)


def _state_text(latest, all_paths):
    lines = ["model_checkpoint_path: %s" % json.dumps(latest)]
    lines += ["all_model_checkpoint_paths: %s" % json.dumps(p) for p in all_paths]
    return "\n".join(lines) + "\n"


def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None, latest_filename=None,
                            save_relative_paths=False):
    """Writes the `checkpoint` file of save_dir (paths relative to it when save_dir is relative, as TF)."""
    all_paths = list(all_model_checkpoint_paths or [])
    if not all_paths or all_paths[-1] != model_checkpoint_path:
        all_paths.append(model_checkpoint_path)

    def rel(p):
        if save_relative_paths or not (os.path.isabs(save_dir) or os.path.isabs(p)):
            return os.path.relpath(p, save_dir)
        return p
    text = _state_text(rel(model_checkpoint_path), [rel(p) for p in all_paths])
    _atomic_write(os.path.join(save_dir, latest_filename or _STATE), text.encode())


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The CheckpointState of a directory, or None when it has no `checkpoint` file."""
    path = os.path.join(checkpoint_dir, latest_filename or _STATE)
    if not os.path.exists(path):
        return None
    latest, all_paths = None, []
    with open(path) as f:
        for line in f:
            key, _, value = line.strip().partition(":")
            if not value.strip():
                continue
            try:
                value = json.loads(value.strip())
            except ValueError:
                raise errors.DataLossError(None, None, "Unable to parse checkpoint state file %s" % path) from None
            if key == "model_checkpoint_path":
                latest = value
            elif key == "all_model_checkpoint_paths":
                all_paths.append(value)
    if latest is None:
        raise ValueError("Invalid checkpoint state loaded from %s" % checkpoint_dir)
    fix = lambda p: p if os.path.isabs(p) else os.path.join(checkpoint_dir, p)  # noqa: E731
    return CheckpointState(fix(latest), [fix(p) for p in all_paths])


def checkpoint_exists(checkpoint_prefix):
    return os.path.exists(checkpoint_prefix + ".index")


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the newest checkpoint named in checkpoint_dir's `checkpoint` file, or None."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state and checkpoint_exists(state.model_checkpoint_path):
        return state.model_checkpoint_path
    return None


def _remove_checkpoint(prefix):
    for ext in (".npz", ".data-00000-of-00001", ".index", ".index.pending", ".meta"):
        if os.path.exists(prefix + ext):
            os.remove(prefix + ext)
