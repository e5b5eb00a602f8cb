"""The compiled programs of one fetch set, one per shape of its feeds, and whether each may donate.

Why not jax.jit's own cache: it keeps every shape's program as long as the function lives (issue 31:
+2.1 GB over 1,200 batch sizes). Here each shape gets its own jit of a fresh wrapper, so dropping the
entry (least recently used beyond `size`, or Session.close) frees the program with everything JAX
cached for it. And the compiled program says what it will allocate (XLA's memory analysis): a step
that cannot fit is refused before dispatch, and one that needs much of the free memory does not
donate its variables' buffers, so that an allocation failure after dispatch leaves every variable
as it was (on the CPU too: Linux refuses an allocation larger than the machine, and XLA raises).
On an accelerator the free memory moves with every array the process keeps, so a donating program
is checked again before each call, and the program that keeps the old buffers runs when it must.
"""
import collections
import threading
import warnings

import jax

from tinyflow.graph import errors

# A step donates only when XLA's plan of it needs at most this share of the memory available when
# it is compiled: what is left is margin for the rest of the process and its neighbours.
DONATE_SHARE = 0.5


def memory():
    """(available, total) bytes of this machine's memory (Linux: MemAvailable and MemTotal + SwapTotal,
    a cgroup limit when lower); (None, None) where unknown."""
    try:
        with open("/proc/meminfo") as f:
            info = {line.split(":")[0]: int(line.split()[1]) * 1024 for line in f}
        available, total = info["MemAvailable"], info["MemTotal"] + info.get("SwapTotal", 0)
    except (OSError, KeyError, ValueError, IndexError):
        return None, None
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            limit = int(f.read().strip())   # "max" (no limit) is a ValueError
        available, total = min(available, limit), min(total, limit)
    except (OSError, ValueError):
        pass
    return available, total


def device_memory(device):
    """(available, total) bytes of an accelerator's memory from its allocator's statistics (the pool
    JAX took, less what is in use); (None, None) where the backend keeps none."""
    try:
        stats = device.memory_stats() or {}
        total = stats["bytes_limit"]
        return total - stats.get("bytes_in_use", 0), total
    except Exception:   # noqa: BLE001 (a backend without statistics)
        return None, None


def step_name(low):
    """The fetch set a message names: its fetches and targets."""
    names = [t.name for t in low.sub.fetches] + [op.name for op in low.sub.targets]
    return "[%s]" % ", ".join(names[:8] + (["... %d more" % (len(names) - 8)] if len(names) > 8 else []))


def out_of_memory(low, what):
    return errors.ResourceExhaustedError(None, None, "OOM when running the step %s: %s" % (step_name(low), what))


class Entry:
    """One shape's program: `call(*flat args)`, whether it donates, and whether the Session waits.
    `kept`: on an accelerator, a donating program's twin that keeps the old buffers, for a call when
    the device's free memory is short (`Executables.for_call`); made on first need."""
    __slots__ = ("compiled", "call", "donates", "waits", "need", "kept", "__weakref__")

    def __init__(self, compiled, donates, need):
        self.compiled, self.call, self.donates, self.need = compiled, self._first, donates, need
        self.waits, self.kept = not donates, None

    def _first(self, *args):
        """The first call; then JAX's C++ dispatch it made (`_call`, private: else the Compiled), 0.5 us less."""
        out = self.compiled(*args)
        self.call = getattr(self.compiled, "_call", None) or self.compiled
        return out


class Executables:
    """Per fetch set (Lowered): the Entry of each shape of the feeds, least recently used first out."""

    def __init__(self, low, size, platform, device=None):
        self.low, self.size, self.platform = low, size, platform
        self.device = device   # the Session's device (None: the platform's first)
        self.entries = collections.OrderedDict()
        self.lock = threading.Lock()
        self.last = (None, None)   # (key, Entry) of the latest get: the same shape again needs no lock

    def get(self, key, args):
        """The Entry for `key` (the shapes of the feeds), compiled for `args` when new."""
        last_key, entry = self.last
        if key == last_key:   # already the most recently used: nothing to reorder
            return entry
        with self.lock:   # the stateless path runs without the Session's lock
            entry = self.entries.get(key)
            if entry is None:
                entry = self.entries[key] = self._compile(args)
                while len(self.entries) > self.size:
                    self.entries.popitem(last=False)
            else:
                self.entries.move_to_end(key)
            self.last = (key, entry)
            return entry

    def memory(self):
        """(available, total) bytes where the step runs: the machine's on the CPU, the device's else."""
        if self.platform == "cpu":
            return memory()
        if self.device is None:
            self.device = jax.local_devices(backend=self.platform)[0]
        return device_memory(self.device)

    def for_call(self, entry, args):
        """The Entry to call now: on an accelerator a donating program runs only while the device has
        room for it (see DONATE_SHARE), else its twin that keeps the old buffers: an allocation that
        fails after dispatch must find them there."""
        if not entry.donates or self.platform == "cpu":
            return entry
        available, _ = self.memory()
        if available is None or entry.need is None or entry.need <= DONATE_SHARE * available:
            return entry
        if entry.kept is None:
            compiled, need = self._compiled(args, False)
            entry.kept = Entry(compiled, False, need)
        return entry.kept

    def forget(self, key):
        with self.lock:
            self.entries.pop(key, None)
            self.last = (None, None)

    def _compile(self, args):
        low, donate = self.low, self.low.donate
        compiled, need = self._compiled(args, donate)
        available, total = self.memory()
        if need is not None and total is not None and need > total:
            raise out_of_memory(low, "XLA's plan of it allocates %d bytes, more than the %d bytes of memory of this "
                                "machine" % (need, total))
        if donate and need is not None and available is not None and need > DONATE_SHARE * available:
            donate = False   # it could fail after dispatch: keep the old buffers until it has finished
            compiled, need = self._compiled(args, False)
        return Entry(compiled, donate, need)

    def _compiled(self, args, donate):
        flat = self.low.flat_fn

        def step(*a):   # a fresh function per shape: JAX's caches for it die with the entry
            return flat(*a)
        try:
            jitted = jax.jit(step, donate_argnums=tuple(range(len(self.low.rw_vars))) if donate else (),
                             compiler_options=self.low.compiler_options or None)   # lower/compiler_options.py
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", "Some donated buffers were not usable")   # harmless
                compiled = jitted.lower(*args).compile()
        except (MemoryError, jax.errors.JaxRuntimeError) as e:
            if not isinstance(e, MemoryError) and "RESOURCE_EXHAUSTED" not in str(e):
                raise
            raise out_of_memory(self.low, "out of memory while compiling it (%s)" % e) from e
        try:
            m = compiled.memory_analysis()
            need = m.temp_size_in_bytes + m.output_size_in_bytes - m.alias_size_in_bytes
        except Exception:   # noqa: BLE001 (a backend without the analysis: no refusal, no donation decision)
            need = None
        return compiled, need
