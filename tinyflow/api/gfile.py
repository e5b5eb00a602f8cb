"""tf.gfile (and tf.io.gfile's lowercase names): TF's file functions on the local file system."""
import glob as _glob
import os
import shutil

__all__ = ["Copy", "DeleteRecursively", "Exists", "FastGFile", "GFile", "Glob", "IsDirectory", "ListDirectory",
           "MakeDirs", "MkDir", "Open", "Remove", "Rename", "Stat", "Walk"]


class GFile:
    """A file object (TF's GFile): read, write, readline, iteration, with-block."""

    def __init__(self, name, mode="r"):
        self._f = open(name, mode)

    def __getattr__(self, name):
        return getattr(self._f, name)

    def __iter__(self):
        return iter(self._f)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f.close()

    def size(self):
        return os.fstat(self._f.fileno()).st_size


FastGFile = Open = GFile


def Exists(filename):
    return os.path.exists(filename)


def IsDirectory(dirname):
    return os.path.isdir(dirname)


def MakeDirs(dirname):
    os.makedirs(dirname, exist_ok=True)


def MkDir(dirname):
    os.mkdir(dirname)


def ListDirectory(dirname):
    return os.listdir(dirname)


def Glob(filename):
    return _glob.glob(filename)


def Remove(filename):
    os.remove(filename)


def DeleteRecursively(dirname):
    shutil.rmtree(dirname) if os.path.isdir(dirname) else os.remove(dirname)


def Rename(oldname, newname, overwrite=False):
    if os.path.exists(newname) and not overwrite:
        from tinyflow.graph.errors import AlreadyExistsError
        raise AlreadyExistsError(None, None, "file already exists: %s" % newname)
    os.replace(oldname, newname)


def Copy(oldpath, newpath, overwrite=False):
    if os.path.exists(newpath) and not overwrite:
        from tinyflow.graph.errors import AlreadyExistsError
        raise AlreadyExistsError(None, None, "file already exists: %s" % newpath)
    shutil.copyfile(oldpath, newpath)


def Stat(filename):
    return os.stat(filename)


def Walk(top, in_order=True):
    return os.walk(top, topdown=in_order)


# tf.io.gfile's names for the same functions
exists, isdir, makedirs, mkdir, listdir, glob, remove, rmtree, rename, copy, stat, walk = (
    Exists, IsDirectory, MakeDirs, MkDir, ListDirectory, Glob, Remove, DeleteRecursively, Rename, Copy, Stat, Walk)


# tensorflow.python.lib.io.file_io: what gfile wraps in TF, under its own names
FileIO = GFile
file_exists = Exists
get_matching_files = Glob
recursive_create_dir = MakeDirs
create_dir = MkDir
delete_file = Remove
delete_recursively = DeleteRecursively
is_directory = IsDirectory
list_directory = ListDirectory


def read_file_to_string(filename, binary_mode=False):
    """The whole file: bytes with binary_mode, else str."""
    with GFile(filename, "rb" if binary_mode else "r") as f:
        return f.read()


def write_string_to_file(filename, file_content):
    """Writes the file anew with file_content (str or bytes)."""
    with GFile(filename, "wb" if isinstance(file_content, bytes) else "w") as f:
        f.write(file_content)


def atomic_write_string_to_file(filename, contents, overwrite=True):
    """Writes to a temporary file beside filename, then renames it into place."""
    tmp = "%s.tmp%s" % (filename, os.getpid())
    write_string_to_file(tmp, contents)
    try:
        Rename(tmp, filename, overwrite)
    except Exception:
        Remove(tmp)
        raise
