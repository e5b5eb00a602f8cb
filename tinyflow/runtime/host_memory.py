"""The host allocator: keep freed blocks for the next step instead of handing them back to the system.

XLA:CPU allocates a compiled program's temporaries as one block per call (its "preallocated temp") and
frees it when the call ends; that block is usually tens of MB. glibc's malloc serves a block above its
mmap threshold with a fresh mmap and unmaps it on free, and its threshold adapts to freed sizes only up
to 32 MiB. So a step whose temporaries exceed 32 MiB faulted every page of them in again on every call:
the CIFAR-style CNN of benchmarks/scripts (46.7 MB of temporaries) took 11,400 page faults and ~20 ms
of system time per 130 ms step, 0.6 s of CPU over a 20-step script (docs/speed.md section 13). TF 1.15
keeps its own allocator's memory in the same way.

`keep_freed_memory()` raises glibc's mmap and trim thresholds (M_MMAP_THRESHOLD, M_TRIM_THRESHOLD) once
per process, on the first Session: blocks up to the threshold come from the heap and a freed one is
reused by the next call. The cost: up to the trim threshold of freed memory stays with the process
(twice the mmap threshold: at most 1 GiB, and 1/16 of the machine's memory). Left alone: a process
whose user chose glibc's malloc settings (MALLOC_*_ environment variables, GLIBC_TUNABLES), another C
library, and `TINYFLOW_KEEP_FREED_MEMORY=0`. Blocks over 64 MiB allocated on XLA's worker threads are
still mapped per call (glibc's per-thread arenas are heaps of at most 64 MiB; docs/speed.md section 13).
"""
import ctypes
import os

from tinyflow.runtime import executables

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3   # glibc's mallopt parameters (malloc.h)
MOST = 1 << 29   # the mmap threshold; the trim threshold is twice it, as glibc's own adaptation sets it
_applied = None   # None: not tried yet; else the threshold set (0: left alone)


def _glibc():
    try:
        return os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc")
    except (AttributeError, ValueError, OSError):
        return False


def keep_freed_memory():
    """Raises glibc's mmap/trim thresholds once per process (see the module's docstring); returns the
    mmap threshold set in bytes, 0 where it left malloc alone."""
    global _applied
    if _applied is not None:
        return _applied
    _applied = 0
    user_set = any(k.startswith("MALLOC_") and k.endswith("_") for k in os.environ) or "GLIBC_TUNABLES" in os.environ
    if os.environ.get("TINYFLOW_KEEP_FREED_MEMORY", "1") == "0" or user_set or not _glibc():
        return 0
    total_memory = executables.memory()[1]
    threshold = MOST if not total_memory else min(MOST, total_memory // 32)
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        return 0
    # mallopt answers 0 when it refuses a value (then malloc is as it was)
    if mallopt(M_MMAP_THRESHOLD, ctypes.c_int(threshold)) and mallopt(M_TRIM_THRESHOLD, ctypes.c_int(2 * threshold)):
        _applied = threshold
    return _applied
