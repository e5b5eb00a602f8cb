"""JAX's persistent compilation cache for tinyflow: the second run of a script skips XLA compiling.

TF1 users re-run the same script all day; without a cache every process compiles every fetch set
again (the CNN example: ~3 s of its ~9 s start). `setup()` points JAX's persistent cache at a
directory the first time a Session builds a step (not at `import tinyflow`, which stays light):

    $TINYFLOW_CACHE_DIR                  the directory (default: $XDG_CACHE_HOME/tinyflow/jax,
                                         i.e. ~/.cache/tinyflow/jax)
    TINYFLOW_COMPILATION_CACHE=0         no persistent cache (also: off, false, no)
    TINYFLOW_CACHE_MIN_COMPILE_SECS      only what took longer than this to compile is stored (default 0:
                                         everything, small steps too; JAX's own default is 1 s)
    TINYFLOW_CACHE_MAX_BYTES             its bound (default 1 GiB; -1: none), kept by `trim` at setup

`python -m tinyflow.cli.cache` prints the directory, its entries and size; `--clear` empties it.

A cache directory set by the user for JAX itself (`jax_compilation_cache_dir`) is left as it is.
The cache holds compiled executables that the process loads and runs, so it must be private: a
directory owned by someone else, or writable by group or others, is refused with a warning and
the process compiles as if there were no cache. tinyflow creates it with mode 0700.
"""
import os
import stat
import warnings

_DONE = False
_DIR = None

DEFAULT_MIN_COMPILE_SECS = 0.0
DEFAULT_MAX_BYTES = 1 << 30


def default_dir():
    """The cache directory tinyflow uses when $TINYFLOW_CACHE_DIR is not set."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tinyflow", "jax")


def enabled_by_env():
    """False when $TINYFLOW_COMPILATION_CACHE turns the cache off."""
    return os.environ.get("TINYFLOW_COMPILATION_CACHE", "1").strip().lower() not in ("0", "off", "false", "no", "")


def cache_dir():
    """The directory in use, or None (not set up yet, disabled, or refused)."""
    return _DIR


def _private_dir(path):
    """Creates `path` (mode 0700) if needed; returns a reason it must not be used, or None."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        st = os.stat(path)
    except OSError as e:
        return "cannot create it (%s)" % e
    if not stat.S_ISDIR(st.st_mode):
        return "it is not a directory"
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return "it belongs to another user"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return "others may write to it"
    return None


def setup():
    """Turns on JAX's persistent compilation cache once per process (idempotent, cheap after the
    first call). Returns the cache directory, or None when it is off."""
    global _DONE, _DIR
    if _DONE:
        return _DIR
    _DONE = True
    import jax
    if jax.config.jax_compilation_cache_dir:  # the user's own JAX setting wins
        _DIR = jax.config.jax_compilation_cache_dir
        return _DIR
    if not enabled_by_env():
        return None
    path = os.path.abspath(os.path.expanduser(os.environ.get("TINYFLOW_CACHE_DIR") or default_dir()))
    problem = _private_dir(path)
    if problem is not None:
        warnings.warn("tinyflow: not using the compilation cache %s: %s" % (path, problem), RuntimeWarning)
        return None
    try:
        min_secs = float(os.environ.get("TINYFLOW_CACHE_MIN_COMPILE_SECS", DEFAULT_MIN_COMPILE_SECS))
    except ValueError:
        min_secs = DEFAULT_MIN_COMPILE_SECS
    jax.config.update("jax_compilation_cache_dir", path)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", min_secs)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)  # small executables too
    max_bytes = os.environ.get("TINYFLOW_CACHE_MAX_BYTES", "")
    max_bytes = int(max_bytes) if max_bytes.lstrip("-").isdigit() else DEFAULT_MAX_BYTES
    if max_bytes >= 0:   # JAX's own eviction (jax_compilation_cache_max_size) needs the filelock package
        trim(path, max_bytes)
    _reset_jax_cache_state()
    _DIR = path
    return _DIR


def _reset_jax_cache_state():
    """JAX decides once, at its first compile, whether a persistent cache is in use; anything
    compiled before tinyflow's first step (a jnp call while building the graph) fixed "no".
    Make it look again (a private JAX function: without it the cache starts in the next process)."""
    try:
        from jax._src import compilation_cache as cc
        cc.reset_cache()
    except Exception:  # a JAX without it: the setting still holds for later processes' first compile
        pass


def _reset_for_tests():
    """Forget the setup (tests that call setup() with other settings)."""
    global _DONE, _DIR
    _DONE, _DIR = False, None


def trim(path, max_bytes):
    """Keeps the cache bounded: over max_bytes, removes the files used least recently (JAX touches an
    entry it loads) until it holds at most 3/4 of it. Returns how many it removed."""
    removed = 0
    try:
        files = sorted((max(st.st_atime, st.st_mtime), st.st_size, e.path) for e in os.scandir(path)
                       if e.is_file(follow_symlinks=False) for st in [e.stat()])
        total = sum(f[1] for f in files)
        for _, size, f in (files if total > max_bytes else ()):
            if total <= max_bytes * 3 // 4:
                break
            os.remove(f)
            total, removed = total - size, removed + 1
    except OSError:   # another process trimming it too: leave the rest
        pass
    return removed
