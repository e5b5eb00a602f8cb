"""`python -m tinyflow.cli.cache [--clear]`: the compilation cache's directory, entries and size; --clear
removes its files (runtime/compile_cache.py: usage, clear; docs/speed.md)."""
import sys

from tinyflow.runtime import compile_cache

if __name__ == "__main__":
    if "--clear" in sys.argv[1:]:
        print("removed %d files" % compile_cache.clear())
    print("%s: %d entries, %.1f MB" % (lambda d, n, b: (d, n, b / 1e6))(*compile_cache.usage()))
