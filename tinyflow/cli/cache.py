"""`python -m tinyflow.cli.cache`: the persistent compilation cache's directory, entries and size;
`--clear` removes its files, not the directory (runtime/compile_cache.py; docs/speed.md)."""
import os
import sys

from tinyflow.runtime import compile_cache


def _files(path):
    return [e.path for e in os.scandir(path) if e.is_file(follow_symlinks=False)] if os.path.isdir(path) else []


def usage(path=None):
    """(directory, number of files, bytes) of the cache directory (default: the one tinyflow uses)."""
    path = path or os.path.abspath(os.path.expanduser(os.environ.get("TINYFLOW_CACHE_DIR")
                                                      or compile_cache.default_dir()))
    files = _files(path)
    return path, len(files), sum(os.path.getsize(f) for f in files)


def clear(path=None):
    """Removes the cache's files (the directory stays); returns how many."""
    files = _files(usage(path)[0])
    for f in files:
        os.remove(f)
    return len(files)


def main(argv):
    if "--clear" in argv:
        print("removed %d files" % clear())
    path, n, size = usage()
    print("%s: %d entries, %.1f MB" % (path, n, size / 1e6))


if __name__ == "__main__":
    main(sys.argv[1:])
