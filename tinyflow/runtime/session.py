"""Session: runs fetch sets of a graph as jitted functions; holds the variables as device arrays.

Session.run's hot path: one dict lookup keyed by the fetch structure and the feed keys (a
FetchPlan), the feed conversions and shape checks, the jitted call, the numpy results. Everything
else (resolving names, the compile pipeline of lower/pipeline.py) happens once per fetch set.

State is never lost: a step's new variable values are stored only once the step has finished (a
step donating its buffers stores them at once: it donates only when XLA's memory analysis says it
fits well in the free memory, checked before every call on an accelerator, runtime/executables.py);
a step that fails after dispatch (a py_func raising, out of memory, Ctrl-C) leaves every variable
as it was. Runs from several threads are safe: a lock covers reading the variables, dispatch and
storing the new values, so runs that write variables are serialized and lose no update. A fetch
set that touches no variable runs through a closure without the lock (`_stateless_call`).
"""
import atexit
import collections
import enum
import threading
import warnings
from dataclasses import dataclass, field

import jax
import numpy as np

from tinyflow.graph import errors
from tinyflow.graph.nest import flatten
from tinyflow.graph.core import (Operation, Tensor, _default_sessions, get_default_graph, get_default_session)  # noqa: F401
from tinyflow.graph.registry import FromFetched, SessionValue, get_op_def
from tinyflow.lower import jax_backend, pipeline, specialize
from tinyflow.ops.random_ops import run_key
from tinyflow.passes import prune as prune_pass
from tinyflow.runtime import compile_cache, executables, host_memory, placement as placements
from tinyflow.runtime.config import ConfigProto
from tinyflow.runtime import fetches as fetch_util


def _pick_device(config):
    """config: None, "cpu", "gpu", "gpu fusion" or a ConfigProto. No GPU: the CPU, with a warning."""
    want = None
    if isinstance(config, str):
        want = "gpu" if config.lower().startswith("gpu") else "cpu"
    elif isinstance(config, ConfigProto) and config.device_count.get("GPU", 1) == 0:
        want = "cpu"
    if want is None:
        return None
    if want == "gpu":
        try:
            return jax.devices("gpu")[0]
        except RuntimeError:
            warnings.warn("tinyflow: no GPU is available; running on the CPU.", RuntimeWarning, stacklevel=3)
            return jax.devices("cpu")[0]
    return jax.devices("cpu")[0]


def _placement_for(config):
    """A DataPlacement for tf.distribute.DataParallel (given as config, or as ConfigProto's
    `data_parallel`), or None; `python -m tinyflow --data-parallel` makes it every Session's default."""
    from tinyflow.runtime import placement
    dp = config if hasattr(config, "devices") and hasattr(config, "shard_variables") else None
    if dp is None and isinstance(config, ConfigProto):
        dp = config.extra.get("data_parallel")
    if dp is None:
        dp = placement.DEFAULT
    return None if dp is None else placement.DataPlacement(dp.devices, dp.shard_variables)


class Kind(enum.Enum):
    """What one leaf of a fetch structure is."""
    TENSOR = 1        # a value the jitted function returns (payload: its index among the fetches)
    TARGET = 2        # an op run for its effect (the leaf's value is None)
    HOST = 3          # computed by the Session from its own state (a SessionValue host rule)
    HOST_COMPUTE = 4  # computed by the Session from fetched values (a FromFetched host rule; payload: a function)


@dataclass
class FetchPlan:
    """One fetch structure with one feed-key order: all Session.run needs on its hot path."""
    rebuild: object                  # flat list of leaf values -> the caller's structure
    kinds: list                      # (Kind, payload) per leaf
    feed_specs: list                 # (Tensor, numpy dtype, static dims) per key of feed_dict, in its order
    order: tuple = None              # positions of the caller's feeds in the function's order (None: same)
    lowered: object = None           # jax_backend.Lowered, or None when nothing is jitted
    host: list = field(default_factory=list)    # tensors of SessionValue ops, in leaf order
    after: list = field(default_factory=list)   # FromFetched ops run for their effect after the step
    single: bool = False             # the fetch is one tensor: return its value bare
    plain_feeds: bool = True         # the feed_dict's values are the function's feeds, in order
    stateless: object = None         # feed_dict -> results, for a fetch set that touches no state


def _cache_size():
    return pipeline.env_int("TINYFLOW_CACHE_SIZE", 128)


# What a collective says when a process of the job is gone (gloo on the CPU, the coordination service)
_PEER_LOST = ("Gloo", "Connection reset by peer", "Connection closed by peer", "heartbeat", "UNAVAILABLE")


def _shape_cache_size():
    return pipeline.env_int("TINYFLOW_SHAPE_CACHE_SIZE", 8)


_ODict = collections.OrderedDict
class _ExitGate:
    """Runs of other threads end before the interpreter tears JAX down at exit: a daemon thread (a
    queue runner, a Supervisor service) stopped inside a JAX call aborts the process ("FATAL:
    exception not rethrown", SIGABRT) where TF exits 0. At exit a run of another thread raises
    CancelledError (a queue runner ends quietly on it) and the exit waits for the runs under way
    (api/train/queue_runner.py cancels the queues first, so no enqueue stays blocked)."""

    def __init__(self):
        self.exiting, self.active = False, 0
        self.cond = threading.Condition()

    def enter(self):
        with self.cond:
            if self.exiting and threading.current_thread() is not threading.main_thread():
                raise errors.CancelledError(None, None, "Session.run: the process is exiting")
            self.active += 1

    def leave(self):
        with self.cond:
            self.active -= 1
            self.cond.notify_all()

    def close(self, timeout=10.0):
        with self.cond:
            self.exiting = True
            self.cond.wait_for(lambda: self.active == 0, timeout)


EXIT_GATE = _ExitGate()
atexit.register(EXIT_GATE.close)   # after jax's own hooks were registered: runs before them

_STAGED = object()   # the first part of the key of a fetch set's HostSteps in the Session's plan cache
_PLAIN = "plain run"   # the plan of a fetch set that needs no host stage


class _LRU(collections.OrderedDict):
    """A dict that forgets its least recently used entries beyond `size` (the executable caches)."""

    def __init__(self, size):
        super().__init__()
        self.size = size

    def get(self, key):
        value = super().get(key)
        if value is not None:
            self.move_to_end(key)
        return value

    def put(self, key, value):
        self[key] = value
        while len(self) > self.size:
            self.popitem(last=False)


_DeviceAttributes = collections.namedtuple("_DeviceAttributes", "name device_type memory_limit_bytes incarnation")


def _flatten_dict_items(dictionary):
    """TF's nest.flatten_dict_items: a key that is a structure is flattened with its value, leaf to leaf."""
    out = {}
    for key, value in dictionary.items():
        keys, values = (flatten(key), flatten(value)) if isinstance(key, tuple) else ([key], [value])
        if getattr(key, "_fetched_type", None) is not None:   # a SparseTensor: its 3 tensors, as TF's _feed_fn
            keys, values = list(key), list(value)             # (a RaggedTensor's values may be one again)
        if len(keys) != len(values):
            raise ValueError("Could not flatten dictionary. Key had %d elements, but value had %d elements. Key: %s, "
                             "value: %s." % (len(keys), len(values), keys, values))
        out.update(_flatten_dict_items(dict(zip(keys, values))) if key is not keys[0] else zip(keys, values))
    return out


class Session:
    """tf.Session: `run(fetches, feed_dict)` on one graph; variables live here as device arrays.

    tinyflow's own settings: `executable_cache_size` (fetch sets kept compiled, least recently used
    first out; default 128 or $TINYFLOW_CACHE_SIZE), `donate` ("auto", "always" or "never": whether a
    step updates its variables in place, see pipeline.DONATE). Memory budget: each fetch set keeps
    the programs of at most $TINYFLOW_SHAPE_CACHE_SIZE (8) shapes of its feeds, least recently used
    first out (runtime/executables.py); close() frees them all."""

    @staticmethod
    def reset(target, containers=None, config=None):
        """tf.Session.reset: TF clears a server's resource containers. A local target ("") has nothing
        to clear (each tinyflow Session owns its variables); a remote one is an UnimplementedError."""
        if target not in ("", "local") and not str(target).startswith("local"):
            raise errors.UnimplementedError(None, None, "Session.reset(%r): tinyflow has no remote TF servers whose "
                                                        "containers it could reset" % (target,))

    def __init__(self, target="", graph=None, config=None, device=None):
        # config: a ConfigProto, or TinyFlow's "cpu" / "gpu" / "gpu fusion"; device= is TinyFlow's keyword
        config = device if device is not None else config
        self._graph = graph if graph is not None else get_default_graph()
        self._values = {}      # VariableV2 op -> device array
        self._plans = _LRU(_cache_size())      # (fetch structure key, feed keys) -> FetchPlan
        self._compiled = _LRU(_cache_size())   # (fetch tensors, targets, fed tensors) -> Lowered
        self._counter = 0
        self._philox_runs = {}   # seeded random op -> how many runs executed it (ops/random_ops.run_key)
        self._closed = False
        self._device = _pick_device(config)
        self._placement = _placement_for(config)   # None: one device
        self._default_ctx = []
        self._lock = threading.RLock()
        self.donate = None   # pipeline.DONATE
        host_memory.keep_freed_memory()   # once per process: steps reuse freed temporaries

    graph = property(lambda self: self._graph)
    graph_def = property(lambda self: self._graph)
    sess_str = property(lambda self: "")

    @property
    def executable_cache_size(self):
        return self._plans.size

    @executable_cache_size.setter
    def executable_cache_size(self, n):
        self._plans.size = self._compiled.size = max(1, int(n))

    # ---- context management --------------------------------------------------------------------
    def __enter__(self):
        _default_sessions.append(self)
        self._default_ctx.append(self._graph.as_default())
        self._default_ctx[-1].__enter__()
        return self

    def __exit__(self, *exc):
        self._default_ctx.pop().__exit__(*exc)
        if _default_sessions and _default_sessions[-1] is self:
            _default_sessions.pop()
        self.close()

    def as_default(self):
        sess = self

        class _Ctx:
            def __enter__(self):
                _default_sessions.append(sess)
                return sess

            def __exit__(self, *exc):
                _default_sessions.remove(sess)
        return _Ctx()

    def close(self):
        """Frees the variables and every compiled function of this session."""
        with self._lock:
            self._closed = True
            self._values = {}
            self._plans.clear()
            self._compiled.clear()

    # ---- run -----------------------------------------------------------------------------------
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs the ops and evaluates the tensors in `fetches`, with `feed_dict` substituted."""
        self._check_open()
        feed_dict = feed_dict or {}
        if any(isinstance(k, tuple) for k in feed_dict):   # an LSTMStateTuple key: TF feeds its leaves
            feed_dict = _flatten_dict_items(feed_dict)
        EXIT_GATE.enter()
        try:
            if self._graph._host_stage:  # string and queue ops run on the host between jitted steps
                return self._run_staged(fetches, feed_dict)
            return self._run(fetches, feed_dict)
        finally:
            EXIT_GATE.leave()

    def _run_staged(self, fetches, feed_dict):
        """Session.run for a graph holding ops XLA cannot run (strings, files, queues): a fetch set
        that needs them is cut into host and device steps once (passes/host_split.py), kept in this
        Session's plan cache, and run by the host stage (runtime/host_stage.py), its device steps by `_run`."""
        from tinyflow.passes import host_split   # loaded by the first graph with strings
        from tinyflow.runtime import host_stage
        try:
            key = (_STAGED, fetch_util.structure_key(fetches), tuple(feed_dict))
        except TypeError:
            key = None
        with self._lock:
            plan = self._plans.get(key) if key is not None else None
        if plan is None:
            elements = [self._resolve_fetch(f) for f in fetch_util.flatten(fetches)]
            feeds = [self._resolve_feed(k) for k in feed_dict]
            sub = prune_pass.prune([e for e in elements if isinstance(e, Tensor)], feeds,
                                   [e for e in elements if isinstance(e, Operation)])
            steps = host_split.split(sub, feeds)
            plan = _PLAIN if steps is None else (steps, elements, fetch_util.rebuilder(fetches))
            if key is not None:
                with self._lock:
                    self._plans.put(key, plan)
        if plan is _PLAIN:
            return self._run(fetches, feed_dict)
        steps, elements, rebuild = plan
        return rebuild(host_stage.run(steps, self, feed_dict.values(), elements, self._run))

    def _run(self, fetches, feed_dict):
        """Session.run without the host stage: every fetch and feed is numeric (or a host op)."""
        plans = self._plans
        try:
            key = (fetches if type(fetches) is Tensor else fetch_util.structure_key(fetches), tuple(feed_dict))
            plan = _ODict.get(plans, key)   # the C methods: this is the hot path
        except TypeError:  # unhashable fetch or feed key: the slow path explains
            key, plan = None, None
        if plan is None:
            plan = self._make_plan(fetches, feed_dict)
            if key is not None:
                plans.put(key, plan)
        else:
            plans.move_to_end(key)
        if plan.stateless is not None:
            return plan.stateless(feed_dict)
        return self._call(plan, feed_dict)

    def _feed_values(self, plan, feed_dict):
        """The fed values in the function's order: the caller's, then those the Session makes."""
        feeds = _checked_feeds(feed_dict.values(), plan.feed_specs)
        if plan.plain_feeds:
            return tuple(feeds)
        if plan.order is not None:
            feeds = [feeds[i] for i in plan.order]
        if plan.lowered is not None and plan.lowered.sub.host_fed:
            # last of the checks: a tf.data iterator's batch is taken only for a run that will happen
            feeds += [v for op in plan.lowered.sub.host_fed for v in get_op_def(op.type).host(self, op, ())]
        return tuple(feeds)

    def _call(self, plan, feed_dict):
        try:
            return self._call_unchecked(plan, feed_dict)
        except jax.errors.JaxRuntimeError as e:   # an accelerator reports a failed step when a value is read
            raise self._dispatch_error(plan.lowered, (), e) from e

    def _call_unchecked(self, plan, feed_dict):
        low = plan.lowered
        if low is None:
            self._feed_values(plan, feed_dict)   # the feeds are checked even when nothing is jitted
            return plan.rebuild([self._host_value(t) for t in plan.host] if plan.host else [None] * len(plan.kinds))
        placement = self._placement
        with self._lock:
            values = self._values
            try:
                rw = tuple([values[v] for v in low.rw_vars]) if low.rw_vars else ()
                ro = tuple([values[v] for v in low.ro_vars]) if low.ro_vars else ()
            except KeyError:
                raise self._uninitialized(low) from None
            feeds = self._feed_values(plan, feed_dict)
            if low.specialized is not None:   # compiled for the values of the feeds deciding its shapes
                low = low.specialized.lowered(feeds)
            if placement is not None:
                feeds = placement.put_feeds(low.sub.feeds, feeds)
            key = None
            if low.needs_key:
                self._counter += 1
                philox = low.program.philox_ops   # each op's executions so far: TF's stream position
                key = run_key(self._counter, [self._philox_runs.get(op, 0) for op in philox])
            outs = self._dispatch(low, low.flat_args(rw, ro, feeds, key))
            n = len(low.updated)
            finals, outs = outs[:n], outs[n:]
            if low.checks and not outs[-1]:
                raise self._failed_check(low, finals, ro, feeds, key)
            for v, val in zip(low.updated, finals):
                values[v] = val
            if key is not None:
                for op in low.program.philox_ops:
                    self._philox_runs[op] = self._philox_runs.get(op, 0) + 1
        if placement is not None:
            outs = [placement.fetch(o) for o in outs]
        if plan.single:
            return _to_numpy(outs[0])
        results = [None] * len(plan.kinds)
        host = iter(plan.host)
        for i, (kind, payload) in enumerate(plan.kinds):
            if kind is Kind.TENSOR:
                results[i] = _to_numpy(outs[payload])
            elif kind is Kind.HOST:
                results[i] = self._host_value(next(host))
            elif kind is Kind.HOST_COMPUTE:
                results[i] = payload(outs)
        for compute in plan.after:
            compute(outs)
        return plan.rebuild(results)

    def _dispatch(self, low, args):
        """The jitted call (Lowered.jitted: flat arguments, (*finals, *fetches) back); the new variable
        values are ready (the step finished) when it returns. A failure after dispatch raises TF's
        error for it, every variable as it was."""
        outs, donates, waits = (), low.donate, low.waits
        try:
            if self._placement is not None:
                if placements.PEERS is not None:   # a process of the job died: refused before dispatch
                    placements.PEERS.check()
                outs = self._placement.jitted(low)(*args)
                donates = low.donate and self._placement.may_donate
                waits = not donates
            elif low.program.segmented:
                outs = low.jitted(*args)
            else:   # one program per shape of the feeds (runtime/executables.py): it says whether it donates
                if self._device is not None:
                    with jax.default_device(self._device):
                        outs, donates, waits = self._executable_call(low, args)
                else:
                    outs, donates, waits = self._executable_call(low, args)
            if low.updated and waits:   # (not a donating step on the CPU: see executables.py)
                jax.block_until_ready(outs[:len(low.updated)])
            return outs
        except errors.OpError:
            raise
        except KeyboardInterrupt:
            if donates:   # Ctrl-C while waiting: the old buffers are gone; the step runs on, its results stand
                for v, val in zip(low.updated, outs):
                    self._values[v] = val
            raise
        except Exception as e:
            raise self._dispatch_error(low, args[:len(low.rw_vars)], e) from e

    def _executable_call(self, low, args):
        """Calls the program (runtime/executables.py) of this fetch set for the shapes of these feeds,
        compiled and checked against the memory there is for a new shape: (outs, donates, waits)."""
        table = self._table(low)
        key = tuple([a.shape for a in args[len(low.rw_vars) + len(low.ro_vars):]])
        entry = table.for_call(table.get(key, args), args)
        try:
            return entry.call(*args), entry.donates, entry.waits
        except TypeError:   # a variable changed shape (validate_shape=False): compiled again (nothing ran)
            table.forget(key)
            entry = table.for_call(table.get(key, args), args)
            return entry.call(*args), entry.donates, entry.waits

    def _table(self, low):
        table = low.__dict__.get("executables")
        if table is None:
            table = low.executables = executables.Executables(low, _shape_cache_size(), self._platform(), self._device)
        return table

    def _dispatch_error(self, low, rw, e):
        from tinyflow.ops import script_ops
        err = script_ops.pending_error()   # a py_func that raised: its TF error (or KeyboardInterrupt)
        if err is not None:
            return err
        lost = [v.name for v, a in zip(low.rw_vars, rw) if low.donate and a.is_deleted()]
        msg = str(e) + ("\n\tVariables lost with their donated buffers: %s" % ", ".join(lost) if lost else "")
        if "RESOURCE_EXHAUSTED" in msg or "Out of memory" in msg or "out of memory" in msg:
            return errors.ResourceExhaustedError(None, None, msg)
        if self._placement is not None and any(m in msg for m in _PEER_LOST):
            if placements.PEERS is not None:   # names the process that went (api/distribute/liveness.py)
                return placements.PEERS.error(msg)
            return errors.UnavailableError(None, None, "tinyflow: process %d of the data-parallel job could not "
                                           "finish the step: another process failed or died (%s)"
                                           % (jax.process_index(), msg))
        if isinstance(e, jax.errors.JaxRuntimeError):
            return errors.UnknownError(None, None, msg)
        return e

    def _stateless_call(self, plan):
        """Session.run of `plan` when its fetch set reads no variable, draws no random key, has no
        run-time check and runs on the default device, fetching only tensors: `_call` without the
        lock or any variable (nothing to keep consistent), one closure over what it needs. Why: on a
        tiny graph Session.run's own Python is most of the cost of a call."""
        low, specs, rebuild, kinds, single = plan.lowered, plan.feed_specs, plan.rebuild, plan.kinds, plan.single
        array, checked_feeds = np.array, _checked_feeds
        dispatch_error = self._dispatch_error
        table = None if low.program.segmented else self._table(low)
        jitted, known = low.jitted, []   # known: the one Entry of feeds whose shapes are all static
        static = table is not None and all(s[2] is not None and None not in s[2] for s in specs)

        def call(feed_dict):
            feeds = checked_feeds(feed_dict.values(), specs)
            try:   # one program per shape of the feeds (runtime/executables.py)
                entry = known[0] if known else table and table.get(tuple([f.shape for f in feeds]), feeds)
                known.extend([entry] if static and not known else ())   # (no other shape can evict it)
                outs = (jitted if entry is None else entry.call)(*feeds)
                if single:   # (an accelerator reports a failed callback here, when the value is read)
                    a = array(outs[0])
                    return a[()] if a.ndim == 0 else a
                return rebuild([_to_numpy(outs[i]) for _, i in kinds])
            except errors.OpError:
                raise
            except Exception as e:
                raise dispatch_error(low, (), e) from e
        return call

    def _uninitialized(self, low):
        for v in list(low.rw_vars) + list(low.ro_vars):
            if v not in self._values:
                return errors.FailedPreconditionError(
                    v.node_def, v, "Attempting to use uninitialized value %s\n\t [[{{node %s}}]]" % (v.name, v.name))
        return errors.FailedPreconditionError(None, None, "Attempting to use an uninitialized value")

    def _failed_check(self, low, finals, ro, feeds, key):
        """The InvalidArgumentError of the first failed run-time check. The variables the function
        read and updated come back unchanged (`keep`), so they are stored again (the others stay). A
        value that changed shape (validate_shape=False) cannot be kept inside the step: the old one
        stays (a donated buffer no output of its shape could take was not consumed)."""
        rw_set = set(low.rw_vars)
        for v, val in zip(low.updated, finals):
            old = self._values.get(v)
            if v in rw_set and not (old is not None and np.shape(old) != np.shape(val) and not _deleted(old)):
                self._values[v] = val
        rw = tuple(self._values[v] for v in low.rw_vars)
        rw = tuple(jax.numpy.array(a, copy=True) for a in rw) if low.donate else rw
        for op, (ok, *data) in zip(low.checks, low.check_results(rw, ro, feeds, key)):
            if not ok:
                return jax_backend.check_failure(op, data)
        return errors.InvalidArgumentError(None, None, "a run-time check failed")

    def _host_value(self, t):
        return get_op_def(t.op.type).host(self, t.op, ())[t.value_index]

    # ---- the slow path: one fetch set, resolved and compiled ---------------------------------------
    def _make_plan(self, fetches, feed_dict):
        compile_cache.setup()  # JAX's persistent compilation cache, once per process
        leaves = fetch_util.flatten(fetches)
        elements = [self._resolve_fetch(f) for f in leaves]
        feed_tensors, feed_specs = [], []
        for k in feed_dict:
            t = self._resolve_feed(k)
            feed_tensors.append(t)
            feed_specs.append((t, t.dtype.np, t.shape.as_tuple()))
        fetch_tensors, targets, host, kinds = [], [], [], []

        def fetched(t):
            if t not in fetch_tensors:
                fetch_tensors.append(t)
            return fetch_tensors.index(t)

        for e in elements:
            rule = get_op_def((e if isinstance(e, Operation) else e.op).type).host
            if isinstance(rule, FromFetched):
                kinds.append((Kind.HOST_COMPUTE, self._host_plan(e, fetched)))
            elif isinstance(e, Operation):
                if isinstance(rule, SessionValue):
                    raise TypeError("Op %s has no value to run" % e.name)
                targets.append(e)
                kinds.append((Kind.TARGET, None))
            elif isinstance(rule, SessionValue):
                host.append(e)
                kinds.append((Kind.HOST, None))
            else:
                kinds.append((Kind.TENSOR, fetched(e)))
        plan = FetchPlan(fetch_util.rebuilder(fetches), kinds, feed_specs, host=host)
        if not fetch_tensors and not targets:
            return plan
        # the function takes its feeds in one order whatever the feed_dict's order: one compile
        canonical = sorted(set(feed_tensors), key=lambda t: (t.op.index, t.value_index))
        if canonical != feed_tensors:
            plan.order = tuple(feed_tensors.index(t) for t in canonical)
        # host-computed ops reached through control dependencies (tf.group(..., iterator.initializer))
        # run after the call, for their effect; what they read is fetched too, so they are found
        # before the fetch set compiles (once)
        planned = {e for (k, _), e in zip(kinds, elements) if k is Kind.HOST_COMPUTE}
        plan.after = [self._host_plan(op, fetched) for op in prune_pass.prune(fetch_tensors, canonical, targets).ops
                      if isinstance(get_op_def(op.type).host, FromFetched) and op not in planned]
        plan.lowered = low = self.compiled(fetch_tensors, targets, canonical)
        plan.plain_feeds = plan.order is None and not low.sub.host_fed
        plan.single = (not isinstance(fetches, (list, tuple, dict)) and kinds[0][0] is Kind.TENSOR
                       and not plan.after)
        if (plan.plain_feeds and not (low.updated or low.rw_vars or low.ro_vars or low.needs_key or low.checks
                                      or plan.after)
                and self._placement is None and self._device is None
                and all(k is Kind.TENSOR for k, _ in kinds)):
            plan.stateless = self._stateless_call(plan)
        return plan

    def _host_plan(self, e, fetched):
        """How to compute tensor or op `e` (a FromFetched host rule) after the run: its inputs are fetched
        by the jitted function (through `fetched`), or computed on the host the same way."""
        op = e if isinstance(e, Operation) else e.op
        parts = []
        # an op may name tensors computed in the step for its rule to read instead (a histogram's buckets)
        for t in op.attrs.get("_host_inputs", op.inputs):
            if isinstance(get_op_def(t.op.type).host, FromFetched):
                parts.append(self._host_plan(t, fetched))
            else:
                parts.append(lambda outs, j=fetched(t): _to_numpy(outs[j]))
        rule = get_op_def(op.type).host
        index = None if isinstance(e, Operation) else e.value_index

        def compute(outs):
            values = rule(self, op, [part(outs) for part in parts])
            return None if index is None else values[index]
        return compute

    def compiled(self, fetch_tensors, targets, feed_tensors):
        """The Lowered function of a fetch set (lower/pipeline.py), cached by fetches, targets and
        fed tensors (in this order: the function takes its feeds in it)."""
        ckey = (tuple(fetch_tensors), tuple(targets), tuple(feed_tensors))
        lowered = self._compiled.get(ckey)
        if lowered is None:
            lowered = pipeline.compile_fetch_set(fetch_tensors, feed_tensors, targets,
                                                 donate=self.donate, platform=self._platform())
            deciding = specialize.deciding_feeds(lowered.program)
            if deciding and self._placement is None:   # shapes decided by fed values: compiled for them too
                lowered.specialized = specialize.Specializations(
                    lowered, deciding, lambda constants, stable_cuts: pipeline.compile_fetch_set(
                        fetch_tensors, feed_tensors, targets, donate=self.donate, platform=self._platform(),
                        constants=constants, stable_cuts=stable_cuts), _shape_cache_size())
            self._compiled.put(ckey, lowered)
        return lowered

    def _platform(self):
        if self._device is not None:
            return self._device.platform
        return jax.default_backend()

    def _resolve_fetch(self, f):
        if f is None or isinstance(f, (bool, int, float, complex, np.ndarray, np.generic)):
            raise TypeError("Fetch argument %r has invalid type %r, must be a string or Tensor. (Can not convert a "
                            "%s into a Tensor or Operation.)" % (f, type(f), type(f).__name__))
        try:
            return self._graph.as_graph_element(f, allow_tensor=True, allow_operation=True)
        except TypeError as e:
            raise TypeError("Fetch argument %r has invalid type %r, must be a string or Tensor. (%s)"
                            % (f, type(f), e)) from None
        except (ValueError, KeyError) as e:
            msg = e.args[0] if e.args else str(e)
            raise ValueError("Fetch argument %r cannot be interpreted as a Tensor. (%s)" % (f, msg)) from None

    def _resolve_feed(self, k):
        try:
            t = self._graph.as_graph_element(k, allow_tensor=True, allow_operation=False)
        except Exception as e:
            msg = e.args[0] if e.args else str(e)
            raise TypeError("Cannot interpret feed_dict key as Tensor: %s" % msg) from None
        return t

    def list_devices(self):
        """TF's Session.list_devices(): name, device_type, memory_limit_bytes, incarnation of each device."""
        kinds = [("CPU", jax.devices("cpu"))] + ([("GPU", jax.devices())] if jax.default_backend() == "gpu" else [])
        return [_DeviceAttributes("/job:localhost/replica:0/task:0/device:%s:%d" % (k, i), k, 268435456 if k == "CPU"
                                  else int(d.memory_stats()["bytes_limit"]), int(d.id))
                for k, devices in kinds for i, d in enumerate(devices)]

    # ---- tinyflow extras -----------------------------------------------------------------------
    def lowered(self, fetches, feed_dict=None):
        """The Lowered function of this fetch set: `.source`, and `.jaxpr()` / `.hlo()` for these feeds."""
        feed_dict = feed_dict or {}
        plan = self._make_plan(fetches, feed_dict)
        if plan.lowered is None:
            raise ValueError("Nothing to lower: the fetches hold no tensor or op")
        feeds = self._feed_values(plan, feed_dict)
        low, jitted = plan.lowered, None
        if low.specialized is not None and plan.stateless is None:   # what runs (lower/specialize.py)
            low = low.specialized.lowered(feeds)
        if self._placement is not None:
            feeds = self._placement.put_feeds(low.sub.feeds, feeds)
            jitted = self._placement.jitted(low)
        return _BoundLowered(low, jax_backend.example_args(low, self._values, feeds), jitted)

    def memory_report(self, fetches, feed_dict=None, planner=None, verify="auto", xla=True, planners=None):
        """tinyflow's memory plan of this fetch set beside XLA's (see runtime/memory_report.py)."""
        from tinyflow.runtime import memory_report
        return memory_report.memory_report(self, fetches, feed_dict, planner, verify, xla, planners)

    def _variable_value(self, var_op):
        """The current value of a variable as numpy (FailedPreconditionError if uninitialized)."""
        return self._variable_values([var_op])[0]

    def _variable_values(self, var_ops):
        """[numpy value] of `var_ops`, all from one moment (no step of another thread stores between
        two of them): what a Saver writes. FailedPreconditionError for an uninitialized one."""
        fetch = np.array if self._placement is None else self._placement.fetch
        self._check_open()
        with self._lock:   # copied out under the lock: the next step may donate these buffers
            arrays = [self._values.get(v) for v in var_ops]
            for v, a in zip(var_ops, arrays):
                if a is None:
                    raise errors.FailedPreconditionError(v.node_def, v, "Attempting to use uninitialized value %s"
                                                         % v.name)
            return [fetch(a) for a in arrays]

    def _check_open(self):
        """TF's error for a closed Session (Variable.load, Saver.save and restore after close())."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")

    def _set_variable(self, var_op, value):
        self._check_open()
        a = np.asarray(value, var_op.attrs["dtype"].np)
        if self._placement is not None:
            a = self._placement.put_variable(a)
        elif self._device is not None:
            a = jax.device_put(a, self._device)
        else:
            a = jax.device_put(a)
        with self._lock:
            self._values[var_op] = a

    def _is_initialized(self, var_op):
        return var_op in self._values


class _BoundLowered:
    """A Lowered function with the arguments of one call: source, jaxpr and hlo as text."""

    def __init__(self, lowered, args, jitted=None):
        self._lowered, self._args = lowered, args
        self._jitted = jitted if jitted is not None else lowered.jitted   # a data-parallel Session's own

    source = property(lambda self: self._lowered.source)
    jaxpr = property(lambda self: self._lowered.jaxpr(*self._args))
    hlo = property(lambda self: self._jitted.lower(*self._lowered.flat_args(*self._args)).compile().as_text())
    function = property(lambda self: self._lowered)
    args = property(lambda self: self._args)
    jitted = property(lambda self: self._jitted)

    def __repr__(self):
        return self.source


class InteractiveSession(Session):
    """A Session that installs itself as the default session (for shells and notebooks)."""

    def __init__(self, target="", graph=None, config=None, device=None):
        super().__init__(target, graph, config, device)
        _default_sessions.append(self)

    def close(self):
        super().close()
        if self in _default_sessions:
            _default_sessions.remove(self)


def _short(value, limit=120):
    """A value's repr for an error message, cut short (a feed can be megabytes)."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "...(%d characters)" % len(text)


def _checked_feeds(values, specs):
    """The fed values as numpy of their tensors' dtypes, shapes checked (_convert_feed). The common
    case is tested inline first, on Session.run's hot path: a numpy array of the tensor's dtype
    (numpy's builtin dtypes are singletons) and static shape."""
    feeds = []
    for value, spec in zip(values, specs):
        if type(value) is not np.ndarray or value.dtype is not spec[1] or value.shape != spec[2]:
            value = _convert_feed(value, *spec)
        feeds.append(value)
    return feeds


def _convert_feed(value, tensor, np_dtype, dims):
    """A feed value as numpy of the tensor's dtype; ValueError naming the tensor on a shape mismatch."""
    if type(value) is np.ndarray and value.dtype == np_dtype:
        a = value
    elif isinstance(value, (Tensor,)):
        raise TypeError("The value of a feed cannot be a tf.Tensor object. Acceptable feed values include Python "
                        "scalars, strings, lists, numpy ndarrays, or TensorHandles. For reference, the tensor object "
                        "was %s which was passed to the feed with key %s." % (value, tensor))
    else:
        try:
            a = np.asarray(value)
            if a.dtype.kind == "O" and np_dtype.kind not in "USO":   # None, a dict, 2**70: numpy's own error
                a = np.asarray(value, dtype=np_dtype)                # (TF's: TypeError, OverflowError)
            if a.dtype.kind in "US" and np_dtype.kind not in "USO":
                raise ValueError("could not convert string to %s: %s" % (np_dtype.name, _short(value)))
            if a.dtype.kind in "iu" and np_dtype.kind in "iu" and not isinstance(value, (np.ndarray, np.generic)):
                _check_python_ints(a, value, np_dtype)
            a = a.astype(np_dtype, copy=False)
        except (TypeError, ValueError, OverflowError) as e:
            if isinstance(e, TypeError) and str(e).startswith("Type of feed value"):
                raise
            raise (ValueError if isinstance(e, ValueError) else type(e))(
                "Cannot feed value %s (of type %s) for Tensor %r: %s" % (_short(value), type(value).__name__,
                                                                         tensor.name, e)) from None
    if dims is not None and a.shape != dims:
        shape = a.shape
        if len(shape) != len(dims) or any(d is not None and d != s for d, s in zip(dims, shape)):
            raise ValueError("Cannot feed value of shape %r for Tensor %r, which has shape %r"
                             % (shape, tensor.name, "(%s%s)" % (", ".join("?" if d is None else str(d) for d in dims),
                                                                 "," if len(dims) == 1 else "")))
    return a


def _check_python_ints(a, value, np_dtype):
    """TF's TypeError for Python ints that do not fit the tensor's integer type (numpy's wrap, as TF's)."""
    info = np.iinfo(np_dtype)
    if a.size and (a.min() < info.min or a.max() > info.max):
        raise TypeError("Type of feed value %s with type %s is not compatible with Tensor type %s. Try explicitly "
                        "setting the type of the feed tensor to a larger type (e.g. int64)."
                        % (_short(value), type(value), np_dtype.type))


def _to_numpy(x):
    """A fetched device array as a writable numpy value (0-d arrays as numpy scalars, as TF gives)."""
    a = np.array(x)
    return a[()] if a.ndim == 0 else a


def _deleted(value):
    """Whether a device array's buffer is gone (donated to a step); numpy values never are."""
    return bool(getattr(value, "is_deleted", lambda: False)())
