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

Tiers (CPU): a short script's cost is mostly XLA's compile, a long run's its steps. So a shape's
first program is compiled with cheaper XLA options (lower/compiler_options.first_tier, chosen from
its ops), and once the fetch set has run for tier_ratio() times that compile's seconds (from each of
its calls to the next call of any first-tier program, each counted up to that: a program's results
are read before the next run starts, so that is its run, and an evaluation called once per epoch is
not credited with the training steps between its calls), the same lowered module is compiled with
the fetch set's own options in a background thread and replaces it between two calls. Both take the
same arguments, donate the same buffers and compute the same values within float32 rounding; the new program is
taken only if its memory plan allows what the first one did, and a failed compile leaves the first.
"""
import atexit
import collections
import threading
import time
import warnings
import weakref

import jax

from tinyflow.graph import errors
from tinyflow.lower import compiler_options
from tinyflow.runtime import compile_cache

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
    __slots__ = ("compiled", "call", "donates", "waits", "need", "kept", "tier", "__weakref__")

    def __init__(self, compiled, donates, need, tier=None):
        self.compiled, self.call, self.donates, self.need = compiled, self._first, donates, need
        self.waits, self.kept, self.tier = not donates, None, tier
        if tier is not None:
            self.call, tier.entry = tier.call, self

    def _first(self, *args):
        """The first call; then JAX's C++ dispatch it made (`_call`, private: else the Compiled), 0.5 us less."""
        out = self.compiled(*args)
        self.call = getattr(self.compiled, "_call", None) or self.compiled
        return out


class Tier:
    """A first-tier program's way to the optimized one (see the module's doc): `call` counts the time
    the fetch set runs and starts the compile; the Entry's `compiled` and `call` change when it is done."""

    def __init__(self, table, lowered, compile_s):
        self.table, self.lowered, self.compile_s = table, lowered, max(compile_s, 1e-3)
        self.entry, self.spent, self.thread = None, 0.0, None
        self.ratio = compiler_options.tier_ratio()

    # (Tier, perf_counter) of the latest call of any first-tier program: the time until the next such
    # call is that program's run (GAT's evaluation, 20-44 ms once per epoch, was credited with the
    # epoch's 150 ms training step too, and paid a 12 s optimized compile for its 122 calls)
    # (held weakly: a closed Session's programs go)
    latest = (lambda: None, 0.0)

    def call(self, *args):
        now = time.perf_counter()
        previous, since = Tier.latest
        Tier.latest = (weakref.ref(self), now)
        previous = previous()
        if previous is not None:
            previous.credit(now - since)
        return self.entry.compiled(*args)

    def credit(self, seconds):
        """Counts `seconds` (up to one compile's) of this program's running; starts the upgrade when
        they reach tier_ratio() times its compile."""
        self.spent += min(seconds, self.compile_s)
        if self.thread is None and self.spent >= self.ratio * self.compile_s:
            self.thread = threading.Thread(target=self.upgrade, name="tinyflow-tier", daemon=True)
            self.thread.start()
            atexit.register(self.thread.join)   # never exit while XLA compiles in it

    def upgrade(self):
        entry = self.entry
        try:
            with compile_cache.compiling():
                compiled = self.lowered.compile()   # the fetch set's own options (jax.jit's)
        except Exception:   # noqa: BLE001 (the first tier runs on; it was compiled from the same module)
            return
        need = _need(compiled)
        if entry.donates and not self.table.may_donate(need):   # (then the first tier, as it did)
            return
        self.lowered, entry.compiled, entry.need = None, compiled, need
        entry.call = getattr(compiled, "_call", None) or compiled


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
            compiled, need, _ = self._compiled(args, False)
            entry.kept = Entry(compiled, False, need)
        return entry.kept

    def forget(self, key):
        with self.lock:
            self.entries.pop(key, None)
            self.last = (None, None)

    def _compile(self, args):
        low, donate = self.low, self.low.donate
        compiled, need, tier = self._compiled(args, donate, tiers=True)
        available, total = self.memory()
        if need is not None and total is not None and need > total:
            raise out_of_memory(low, "XLA's plan of it allocates %d bytes, more than the %d bytes of memory of this "
                                "machine" % (need, total))
        if donate and not self.may_donate(need):
            donate = False   # it could fail after dispatch: keep the old buffers until it has finished
            compiled, need, tier = self._compiled(args, False, tiers=True)
        return Entry(compiled, donate, need, tier)

    def may_donate(self, need):
        available, _ = self.memory()
        return need is None or available is None or need <= DONATE_SHARE * available

    def _compiled(self, args, donate, tiers=False):
        """(program, its memory need, its Tier or None) for `args`: a first tier only with `tiers`."""
        flat = self.low.flat_fn

        def step(*a):   # a fresh function per shape: JAX's caches for it die with the entry
            return flat(*a)
        try:
            jitted = jax.jit(step, donate_argnums=tuple(range(len(self.low.rw_vars))) if donate else (),
                             compiler_options=self.low.compiler_options or None)   # lower/compiler_options.py
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", "Some donated buffers were not usable")   # harmless
                traced = jitted.trace(*args)
                lowered = traced.lower()
                first = compiler_options.first_tier(self.low.compiler_options, self.platform, self.low.sub.ops,
                                                    bool(self.low.updated), traced.jaxpr) if tiers else {}
                t0 = time.perf_counter()
                with compile_cache.compiling():
                    compiled = lowered.compile(first or None)
                # a cache hit: the seconds its compile took, as the entry recorded them
                compile_s = compile_cache.loaded_seconds() or time.perf_counter() - t0
        except (MemoryError, jax.errors.JaxRuntimeError) as e:
            if not isinstance(e, MemoryError) and "RESOURCE_EXHAUSTED" not in str(e):
                raise
            raise out_of_memory(self.low, "out of memory while compiling it (%s)" % e) from e
        if first.get(compiler_options.OPT_LEVEL_FLAG) == 0:   # (see LEVEL0_COMPILE_SHARE)
            compile_s *= compiler_options.LEVEL0_COMPILE_SHARE
        return compiled, _need(compiled), Tier(self, lowered, compile_s) if first else None


def _need(compiled):
    """The bytes XLA's plan of the program allocates (None: a backend without the analysis)."""
    try:
        m = compiled.memory_analysis()
        return m.temp_size_in_bytes + m.output_size_in_bytes - m.alias_size_in_bytes
    except Exception:   # noqa: BLE001 (no refusal, no donation decision)
        return None
