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

Each entry tinyflow writes records what it was compiled for: JAX's cache key (a hash of the
program, the compile options, the backend and JAX's version) and a SHA-256 of the key and the
executable. An entry read under another key (two entries swapped or copied over each other) or
whose bytes changed is not run: a RuntimeWarning names it, and the step is compiled again (and
the entry rewritten). Entries written by JAX itself (no record) are compiled again silently.

An entry also records the seconds its compile took (JAX keeps whole seconds only: a 0.9 s compile
reads back as 0): a warm run's tiered program waits as long before its upgrade as the cold run did
(runtime/executables.py; before, every warm run compiled the optimized tier at once, 1-2 s of CPU).
"""
import contextlib
import hashlib
import os
import stat
import struct
import threading
import time
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
    _verify_entries()
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


_MAGIC = b"tinyflow-cache-entry-2\n"   # 2: with the compile's seconds


class _Compiles(threading.local):
    """This thread's compile: when it started (`compiling()`), and the seconds recorded in the entry
    it loaded (None: it compiled)."""
    started = None
    loaded = None


_THREAD = _Compiles()


@contextlib.contextmanager
def compiling():
    """Around a compile in this thread: the entry it writes records the seconds it took, and
    `loaded_seconds()` says afterwards what a loaded entry recorded."""
    _THREAD.started, _THREAD.loaded = time.perf_counter(), None
    try:
        yield
    finally:
        _THREAD.started = None


def loaded_seconds():
    """The compile seconds recorded in the entry this thread's latest compile loaded, or None."""
    return _THREAD.loaded


def _record(key, value, seconds=0.0):
    """An entry's bytes: the magic, the key it was compiled for, its compile seconds, SHA-256(key,
    seconds, value), value."""
    k, t = key.encode(), struct.pack("<d", seconds)
    return _MAGIC + struct.pack("<I", len(k)) + k + t + hashlib.sha256(k + b"\0" + t + value).digest() + value


def _verified(key, raw):
    """(executable bytes, compile seconds) of entry `raw` read under `key`, or None (compile again)
    when it was not written by tinyflow, was compiled for another key, or changed."""
    if not raw.startswith(_MAGIC):
        return None   # JAX's own entry, or an older tinyflow's: compiled again, rewritten
    at = len(_MAGIC)
    try:
        (n,) = struct.unpack_from("<I", raw, at)
    except struct.error:
        n = -1
    k, t = raw[at + 4:at + 4 + n], raw[at + 4 + n:at + 12 + n]
    digest, value = raw[at + 12 + n:at + 44 + n], raw[at + 44 + n:]
    if n < 0 or k != key.encode() or len(t) != 8 or hashlib.sha256(k + b"\0" + t + value).digest() != digest:
        why = ("was compiled for another program (%s)" % k.decode("utf-8", "replace")[:80] if n >= 0 and
               k != key.encode() else "is damaged (its checksum does not match)")
        warnings.warn("tinyflow: the compilation cache entry %s in %s %s: not used, compiling again"
                      % (key[:80], _DIR, why), RuntimeWarning)
        return None
    return value, struct.unpack("<d", t)[0]


class _VerifiedCache:
    """JAX's file cache, each entry written with its record (_record) and checked when read."""

    def __init__(self, base):
        self._base = base

    def get(self, key):
        raw = self._base.get(key)
        got = None if raw is None else _verified(key, raw)
        if got is not None:
            _THREAD.loaded = got[1]
            return got[0]
        if raw is not None:   # removed, so that the fresh compile is stored (JAX never overwrites)
            try:
                os.remove(os.path.join(str(getattr(self._base, "path", _DIR)), key + "-cache"))
            except OSError:
                pass
        return None

    def put(self, key, value):
        started = _THREAD.started
        self._base.put(key, _record(key, value, time.perf_counter() - started if started is not None else 0.0))

    def __getattr__(self, name):   # _path, clear, ...: the base cache's
        return getattr(self._base, name)


def _verify_entries():
    """Makes JAX's persistent cache in tinyflow's directory a _VerifiedCache (private JAX names: a
    JAX without them keeps its plain cache)."""
    try:
        from jax._src import compilation_cache as cc
        plain = cc.get_file_cache
    except (ImportError, AttributeError):
        return
    if getattr(plain, "tinyflow", False):
        return

    def get_file_cache(path):
        made = plain(path)
        if made is None or os.path.abspath(path) != _DIR:
            return made
        return _VerifiedCache(made[0]), made[1]
    get_file_cache.tinyflow = True
    cc.get_file_cache = get_file_cache


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


def _files(path):
    return [e.path for e in os.scandir(path) if e.is_file(follow_symlinks=False)] if os.path.isdir(path) else []


def usage(path=None):
    """(directory, number of files, bytes) of the cache directory (default: the one tinyflow uses)."""
    path = path or os.path.abspath(os.path.expanduser(os.environ.get("TINYFLOW_CACHE_DIR") or default_dir()))
    files = _files(path)
    return path, len(files), sum(os.path.getsize(f) for f in files)


def clear(path=None):
    """Removes the cache's files (the directory stays); returns how many."""
    files = _files(usage(path)[0])
    for f in files:
        os.remove(f)
    return len(files)
