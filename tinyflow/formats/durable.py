"""Crash-safe file steps shared by every checkpoint format (tinyflow's npz, TF's V2 bundle).

Saver.save runs them in TF's order, so that a crash (kill -9, power loss) at any point leaves the
checkpoint the `checkpoint` state file names complete and restorable:
  1. clean_leftovers(prefix): remove the temporary files of earlier saves that were killed
  2. the format writes the files of `prefix` (each through atomic_write: temp file, fsync, rename)
  3. the `checkpoint` state file is replaced atomically (atomic_write)
  4. only then are the checkpoints beyond max_to_keep deleted (remove_checkpoint)

`fault_point(name, path)` marks the steps; tests set `_fault_hook` to kill the process there.
"""
import glob
import os
import re
import tempfile

# Called as _fault_hook(point, path) at each marked step when set (tests inject crashes with it).
_fault_hook = None

_TMP_SUFFIX = ".tmp"


def fault_point(point, path=None):
    """Marks a step of a save (a no-op unless a test set `_fault_hook`)."""
    if _fault_hook is not None:
        _fault_hook(point, path)


def _fsync_dir(folder):
    try:  # make a rename durable too (not possible on every platform)
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


def atomic_write(path, data):
    """Writes bytes to `path` through a temporary file in the same directory: write, fsync, rename.

    The temporary file is named ".<basename>.<random>.tmp", so clean_leftovers finds it if the
    process dies before the rename."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".%s." % os.path.basename(path), suffix=_TMP_SUFFIX, dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        fault_point("temp_written", path)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    _fsync_dir(folder)
    fault_point("renamed", path)


# ".<name><ext>.<mkstemp's random part>.tmp" where <ext> is one of a checkpoint's own file endings,
# or the state file's temporaries ".<latest_filename>.<random>.tmp".
_LEFTOVER = re.compile(r"^\..+(\.npz|\.index|\.index\.pending|\.meta|\.data-\d{5}-of-\d{5})\.[A-Za-z0-9_]+%s$"
                       % re.escape(_TMP_SUFFIX))


def clean_leftovers(prefix, latest_filename=None):
    """Removes the temporary files killed saves left in the folder of `prefix` (of any checkpoint
    there: a killed save of "model-2" is cleaned by the save of "model-3"), and the state file's.
    Returns the removed paths. Two processes saving into one folder at once are not supported (as
    in TF, they would also overwrite each other's `checkpoint` file)."""
    folder = os.path.dirname(os.path.abspath(prefix))
    if not os.path.isdir(folder):
        return []
    state = re.compile(r"^\.%s\.[A-Za-z0-9_]+%s$" % (re.escape(latest_filename or "checkpoint"),
                                                      re.escape(_TMP_SUFFIX)))
    removed = []
    for name in os.listdir(folder):
        if _LEFTOVER.match(name) or state.match(name) or name.endswith(".meta.tmp"):
            path = os.path.join(folder, name)
            try:
                os.remove(path)
                removed.append(path)
            except OSError:
                pass
    return removed


def checkpoint_files(prefix):
    """The files of checkpoint `prefix` in every format, index first (see remove_checkpoint)."""
    names = [prefix + ".index", prefix + ".index.pending", prefix + ".npz"]
    names += sorted(glob.glob(glob.escape(prefix) + ".data-[0-9][0-9][0-9][0-9][0-9]-of-[0-9][0-9][0-9][0-9][0-9]"))
    return names + [prefix + ".meta"]


def remove_checkpoint(prefix):
    """Deletes the files of checkpoint `prefix`: the index first, so a crash half-way leaves no
    index that names missing data."""
    for path in checkpoint_files(prefix):
        if os.path.lexists(path):
            os.remove(path)
        fault_point("deleted", path)
