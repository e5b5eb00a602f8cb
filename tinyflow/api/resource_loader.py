"""tf.resource_loader: data files next to the calling script (TF's helpers for files shipped with code)."""
import inspect
import os


def get_data_files_path():
    """The folder of the file that calls this."""
    return os.path.dirname(os.path.abspath(inspect.getfile(inspect.stack()[1].frame)))


def get_root_dir_with_all_resources():
    """The folder holding the caller's data files (its own folder)."""
    return os.path.dirname(os.path.abspath(inspect.getfile(inspect.stack()[1].frame)))


def get_path_to_datafile(path):
    """`path` relative to the folder of the file that calls this."""
    caller = os.path.dirname(os.path.abspath(inspect.getfile(inspect.stack()[1].frame)))
    return os.path.join(caller, path)


def load_resource(path):
    """The bytes of the data file at `path` (relative to the caller's folder); IOError if missing."""
    caller = os.path.dirname(os.path.abspath(inspect.getfile(inspect.stack()[1].frame)))
    with open(os.path.join(caller, path), "rb") as f:
        return f.read()


def readahead_file_path(path, readahead="128M"):
    """`path` itself (TF's read-ahead cache applies to remote file systems only)."""
    return path
