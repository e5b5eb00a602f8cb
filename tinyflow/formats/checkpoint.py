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
import glob
import hashlib
import io
import json
import os
import stat
import zipfile

import numpy as np

from tinyflow.graph import errors
from tinyflow.graph import dtypes as dt
from tinyflow.formats.durable import atomic_write, fault_point, owner, owner_alive, remove_checkpoint

FORMAT = "tinyflow-checkpoint-1"
_STATE = "checkpoint"


class _MissingCheckpointError(errors.NotFoundError, ValueError):
    """A checkpoint that does not exist: tf.errors.NotFoundError, and a ValueError as TF 1.15 raises."""


# ---- files ------------------------------------------------------------------------------------------
_atomic_write = atomic_write      # older name, kept for callers
_remove_checkpoint = remove_checkpoint
_MAX_INDEX_BYTES = 64 << 20       # an index is small JSON; a larger "index" is not read


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

    Two-phase, so that some complete checkpoint survives a crash at any point, also two crashes in
    a row on the same prefix: first what an earlier killed save left is settled (_settle), then the
    new index is written as `prefix.index.pending`, the data file replaces the old one, and the
    pending index is renamed over the old index. A reader that finds the data newer than the index
    (a crash between the last two steps) rolls forward to the pending index."""
    folder = os.path.dirname(os.path.abspath(prefix))
    for pending in glob.glob(os.path.join(glob.escape(folder), "*.index.pending")):  # killed saves of any prefix
        _settle(pending[:-len(".index.pending")])
    data = _npz_bytes({n: _storable(a, d) for n, (d, a) in named_arrays.items()})
    index = {"format": FORMAT, "data": os.path.basename(prefix) + ".npz", "size": len(data),
             "sha256": hashlib.sha256(data).hexdigest(), "writer": owner(),
             "variables": {n: {"dtype": d.name, "shape": list(a.shape)} for n, (d, a) in named_arrays.items()}}
    atomic_write(prefix + ".index.pending", json.dumps(index, indent=1).encode())
    atomic_write(prefix + ".npz", data)
    os.replace(prefix + ".index.pending", prefix + ".index")
    fault_point("renamed", prefix + ".index")


def _settle(prefix):
    """Finishes what a killed save of `prefix` left: a pending index whose data is in place is
    committed (the save had got that far); any other pending index is dropped (its data never
    replaced the old data, which the current index still describes)."""
    pending = prefix + ".index.pending"
    if not os.path.lexists(pending):
        return
    try:
        index, _ = _read_index(pending)
        if owner_alive(index.get("writer")):   # another live process is saving it now: not a leftover
            return
        if _matches(index, _read_data(prefix, index, pending)):
            os.replace(pending, prefix + ".index")
            return
    except (errors.OpError, OSError):
        pass
    try:
        os.remove(pending)
    except FileNotFoundError:   # another process committed or dropped it meanwhile
        pass


def _regular_file_size(path, what):
    """The size of `path`, which must be a regular file (not a device, fifo or directory)."""
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise errors.DataLossError(None, None, "Checkpoint %s %s is not a regular file" % (what, path))
    return st.st_size


def _read_data(prefix, index, index_path):
    """The bytes of the data file of checkpoint `prefix`. The data file is always the prefix's own
    `<prefix>.npz` (an index naming any other file is rejected: it must not make us read a file
    outside the checkpoint), a regular file in the prefix's folder (a symlink out is rejected) of
    exactly the size the index records (checked before reading)."""
    own = os.path.basename(prefix) + ".npz"
    if index["data"] != own:
        raise errors.DataLossError(None, None, "Checkpoint index %s names data file %r; the data of this checkpoint "
                                   "is its own file %r" % (index_path, index["data"], own))
    path = os.path.join(os.path.dirname(prefix), own)
    if not os.path.lexists(path):
        raise errors.NotFoundError(None, None, "Checkpoint data file %s of %s not found" % (path, prefix))
    real_dir = os.path.dirname(os.path.realpath(path))
    if real_dir != os.path.realpath(os.path.dirname(os.path.abspath(prefix))):
        raise errors.DataLossError(None, None, "Checkpoint data file %s is a link to %s, outside the checkpoint's "
                                   "folder" % (path, os.path.realpath(path)))
    size = _regular_file_size(path, "data file")
    if size != index["size"]:
        raise errors.DataLossError(None, None, "Checkpoint data file %s is %d bytes, the index %s says %d (truncated "
                                   "or overwritten)" % (path, size, index_path, index["size"]))
    with open(path, "rb") as f:
        return f.read(size)


def _read_index(path):
    """The parsed index file at path, validated as data (DataLossError naming it if it is not a
    valid tinyflow index): sizes and shapes are non-negative integers and the arrays it lists fit
    in the data size it records, so nothing it says can make a reader allocate more than that."""
    if _regular_file_size(path, "index") > _MAX_INDEX_BYTES:
        raise errors.DataLossError(None, None, "Unable to read checkpoint index %s: larger than %d bytes"
                                   % (path, _MAX_INDEX_BYTES))
    try:
        with open(path, "rb") as f:
            index = json.loads(f.read(_MAX_INDEX_BYTES).decode())
        if not isinstance(index, dict) or index.get("format") != FORMAT:
            raise ValueError("unknown format %r" % (index.get("format") if isinstance(index, dict) else index,))
        size, digest, data = index["size"], index["sha256"], index["data"]
        if type(size) is not int or size < 0:
            raise ValueError("bad size %r" % (size,))
        if not (isinstance(digest, str) and len(digest) == 64) or not isinstance(data, str):
            raise ValueError("bad sha256 or data entry")
        if not isinstance(index["variables"], dict):
            raise ValueError("'variables' is not a mapping")
        variables, total = {}, 0
        for n, v in index["variables"].items():
            dtype, shape = dt.as_dtype(v["dtype"]), v["shape"]
            if not isinstance(shape, list) or any(type(d) is not int or d < 0 for d in shape) or len(shape) > 64:
                raise ValueError("bad shape %r of %r" % (shape, n))
            total += int(np.prod(shape, dtype=object)) * np.dtype(dtype.np).itemsize
            variables[n] = (dtype, tuple(shape))
        if total > size:
            raise ValueError("its arrays need %d bytes, more than the %d bytes of data it records" % (total, size))
        return index, variables
    except (ValueError, KeyError, TypeError, UnicodeDecodeError, AttributeError, RecursionError) as e:
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
        data_path = os.path.join(os.path.dirname(prefix), os.path.basename(prefix) + ".npz")
        try:
            data = _read_data(prefix, index, prefix + ".index")
            ok = _matches(index, data)
        except errors.DataLossError:
            data, ok = None, False
        if not ok and os.path.lexists(prefix + ".index.pending"):
            try:  # a save that crashed after writing its data: roll forward
                pending, pending_vars = _read_index(prefix + ".index.pending")
                pending_data = _read_data(prefix, pending, prefix + ".index.pending")
                if _matches(pending, pending_data):
                    index, self._vars, data, ok = pending, pending_vars, pending_data, True
            except errors.DataLossError:
                pass
        if data is None:
            data = _read_data(prefix, index, prefix + ".index")  # raises the index's own error
        if not ok:
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
        dtype, shape = self._vars[name]
        try:
            a = _read_member(self._data, name, _storable(np.empty(0, dtype.np), dtype).dtype, shape)
        except Exception as e:
            raise errors.DataLossError(None, None, "Cannot read %s from checkpoint %s: %s"
                                       % (name, self._prefix, e)) from None
        a = _stored(a, dtype)
        if a.dtype != dtype.np or a.shape != shape:
            raise errors.DataLossError(None, None, "Checkpoint %s: %s is stored as %s %s, the index says %s %s"
                                       % (self._prefix, name, a.dtype, a.shape, dtype.name, list(shape)))
        return a


def _read_member(data, name, np_dtype, shape):
    """Array `name` of the .npz bytes `data`, after checking its .npy header says the dtype and
    shape the (validated) index records: a crafted header cannot make numpy allocate more."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        info = zf.getinfo(name + ".npy")
        if info.file_size > len(data):
            raise ValueError("member %s claims %d bytes" % (info.filename, info.file_size))
        with zf.open(info) as f:
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                hshape, fortran, hdtype = np.lib.format.read_array_header_1_0(f)
            elif version == (2, 0):
                hshape, fortran, hdtype = np.lib.format.read_array_header_2_0(f)
            else:
                raise ValueError("unsupported .npy version %s" % (version,))
            if tuple(hshape) != tuple(shape) or hdtype != np_dtype:
                raise ValueError("stored as %s %s, the index says %s %s" % (hdtype, list(hshape), np_dtype,
                                                                            list(shape)))
        with zf.open(info) as f:
            return np.lib.format.read_array(f, allow_pickle=False)


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
    if _regular_file_size(path, "state file") > _MAX_INDEX_BYTES:
        raise errors.DataLossError(None, None, "Unable to parse checkpoint state file %s: too large" % path)
    with open(path, "rb") as f:
        try:
            text = f.read(_MAX_INDEX_BYTES).decode("utf-8")
        except UnicodeDecodeError:
            raise errors.DataLossError(None, None, "Unable to parse checkpoint state file %s" % path) from None
    for line in text.splitlines():
        key, _, value = line.strip().partition(":")
        if not value.strip():
            continue
        try:
            value = json.loads(value.strip())
        except (ValueError, RecursionError):
            raise errors.DataLossError(None, None, "Unable to parse checkpoint state file %s" % path) from None
        if not isinstance(value, str) or "\0" in value:
            raise errors.DataLossError(None, None, "Unable to parse checkpoint state file %s: %s is not a path"
                                       % (path, key))
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
