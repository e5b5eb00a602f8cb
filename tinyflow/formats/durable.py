"""Crash-safe file steps shared by every checkpoint format (tinyflow's npz, TF's V2 bundle).

Saver.save runs them in TF's order, so that a crash (kill -9, power loss) at any point leaves the
checkpoint the `checkpoint` state file names complete and restorable:
  1. clean_leftovers(prefix): remove the temporary files of earlier saves that were killed
  2. the format writes the files of `prefix` (each through atomic_write: temp file, fsync, rename)
  3. the `checkpoint` state file is replaced atomically (atomic_write)
  4. only then are the checkpoints beyond max_to_keep deleted (remove_checkpoint)

`fault_point(name, path)` marks the steps; tests set `_fault_hook` to kill the process there.
"""
import errno
import glob
import os
import re
import socket
import tempfile
import time
import zlib

# Called as _fault_hook(point, path) at each marked step when set (tests inject crashes with it).
_fault_hook = None

_TMP_SUFFIX = ".tmp"
# Who writes a temporary file: this host (a hash of its name) and process, in the file's name, so
# that a save removes only what dead processes left, never a file another live process is writing.
_HOST = "%08x" % zlib.crc32(socket.gethostname().encode())
# A leftover of another host (a shared folder), whose process cannot be asked, goes after this long.
FOREIGN_LEFTOVER_SECS = 3600


def owner():
    """This process's tag: "<host hash>-<pid>"."""
    return "%s-%d" % (_HOST, os.getpid())


def owner_alive(tag):
    """Whether the process of an owner() tag may still be writing (True for another host's)."""
    host, _, pid = (tag or "").partition("-")
    if host != _HOST or not pid.isdigit():
        return host != _HOST and bool(pid)
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:   # PermissionError: it exists
        pass
    return True


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

    The temporary file is named ".<basename>.<host>-<pid>.<random>.tmp" (unique; its writer named),
    so clean_leftovers finds it if the process dies before the rename, and leaves it while it lives."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".%s.%s." % (os.path.basename(path), owner()), suffix=_TMP_SUFFIX, dir=folder)
    try:
        os.fchmod(fd, 0o666 & ~_umask())   # TF's mode (mkstemp's is 0600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        fault_point("temp_written", path)
        os.replace(tmp, path)
    except BaseException as e:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(e, OSError) and e.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
            from tinyflow.graph import errors
            raise errors.ResourceExhaustedError(None, None, "%s; %s: writing %d bytes failed, nothing of it was "
                                                "kept" % (path, e.strerror, len(data))) from e
        raise
    _fsync_dir(folder)
    fault_point("renamed", path)


def _umask():
    """The process's umask, read without changing it (Linux); else set and restored at once."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# ".<name><ext>.<host>-<pid>.<mkstemp's random part>.tmp" where <ext> is one of a checkpoint's own
# file endings, or the state file's temporaries ".<latest_filename>.<host>-<pid>.<random>.tmp"
# (older tinyflows wrote no <host>-<pid>).
_OWNED = r"\.(?:([0-9a-f]{8}-\d+)\.)?[A-Za-z0-9_]+%s$" % re.escape(_TMP_SUFFIX)
_LEFTOVER = re.compile(r"^\..+(?:\.npz|\.index|\.index\.pending|\.meta|\.data-\d{5}-of-\d{5})" + _OWNED)


def _abandoned(tag, path):
    """Whether a temporary file is a leftover: its process is dead (or unknown: an older tinyflow's),
    or it is another host's and older than FOREIGN_LEFTOVER_SECS."""
    if not tag or not owner_alive(tag):
        return True
    if tag.partition("-")[0] == _HOST:
        return False
    try:
        return time.time() - os.path.getmtime(path) > FOREIGN_LEFTOVER_SECS
    except OSError:
        return False


def clean_leftovers(prefix, latest_filename=None):
    """Removes the temporary files killed saves left in the folder of `prefix` (of any checkpoint
    there: a killed save of "model-2" is cleaned by the save of "model-3"), and the state file's.
    Returns the removed paths. A temporary file whose process still lives (another process saving
    into the same folder) is left alone."""
    folder = os.path.dirname(os.path.abspath(prefix))
    if not os.path.isdir(folder):
        return []
    state = re.compile(r"^\.%s" % re.escape(latest_filename or "checkpoint") + _OWNED)
    removed = []
    for name in os.listdir(folder):
        m = _LEFTOVER.match(name) or state.match(name)
        if m or name.endswith(".meta.tmp"):
            path = os.path.join(folder, name)
            if m and not _abandoned(m.group(1), path):
                continue
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
