"""Session: runs fetch sets of a graph as jitted functions; holds the variables as device arrays.

Session.run's hot path: one dict lookup keyed by the fetch structure and the feed keys, the feed
conversions and shape checks, the jitted call, the numpy results. Everything else (resolving
names, pruning, checking placeholders, lowering) happens once per fetch set, on a cache miss.
"""
import warnings

import jax
import numpy as np

from .. import errors
from ..graph.core import Operation, Tensor, get_default_graph
from ..graph.registry import get_op_def
from ..lower import jax_backend
from ..passes import prune as prune_pass
from . import fetches as fetch_util

_default_sessions = []


def get_default_session():
    """The innermost session of a `with sess:` / `as_default()` block (or an InteractiveSession)."""
    return _default_sessions[-1] if _default_sessions else None


def _session_for(session, element):
    sess = session or get_default_session()
    if sess is None:
        raise ValueError("Cannot evaluate tensor using `eval()`: No default session is registered. Use `with "
                         "sess.as_default()` or pass an explicit session to `eval(session=sess)`")
    if sess.graph is not element.graph:
        raise ValueError("Cannot use the given session to evaluate tensor: the tensor's graph is different "
                         "from the session's graph.")
    return sess


class ConfigProto:
    """The parts of TF's ConfigProto tinyflow reads: device_count ({'GPU': 0} forces the CPU)."""

    def __init__(self, device_count=None, allow_soft_placement=True, log_device_placement=False, **kwargs):
        self.device_count = dict(device_count or {})
        self.allow_soft_placement = allow_soft_placement
        self.log_device_placement = log_device_placement
        self.gpu_options = kwargs.get("gpu_options")
        self.extra = kwargs


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


class _Runner:
    """One cached fetch set with a given feed-key order: all run() needs on its hot path."""
    __slots__ = ("lowered", "feed_specs", "rebuild", "n_fetch", "host", "rw", "ro", "updated", "needs_key",
                 "call", "fetch_kinds", "single", "checks", "auto_feeds", "after")


class Session:
    """tf.Session: `run(fetches, feed_dict)` on one graph; variables live here as device arrays."""

    def __init__(self, target="", graph=None, config=None, device=None):
        # config: a ConfigProto, or TinyFlow's "cpu" / "gpu" / "gpu fusion"; device= is TinyFlow's keyword
        config = device if device is not None else config
        self._graph = graph if graph is not None else get_default_graph()
        self._values = {}      # VariableV2 op -> device array
        self._runners = {}     # (fetch structure key, feed keys) -> _Runner
        self._lowered = {}     # (fetch tensors, targets, fed tensors) -> Lowered
        self._counter = 0
        self._closed = False
        self._device = _pick_device(config)
        self._default_ctx = []

    graph = property(lambda self: self._graph)
    graph_def = property(lambda self: self._graph)
    sess_str = property(lambda self: "")

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
        self._closed = True
        self._values = {}
        self._runners = {}

    # ---- run -----------------------------------------------------------------------------------
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs the ops and evaluates the tensors in `fetches`, with `feed_dict` substituted."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        feed_dict = feed_dict or {}
        if self._graph._host_stage:  # string and queue ops run on the host around the jitted step
            from . import host_stage
            return host_stage.run(self, fetches, feed_dict)
        return self._run(fetches, feed_dict)

    def _run(self, fetches, feed_dict):
        """Session.run without the host stage: every fetch and feed is numeric (or a host op)."""
        try:
            key = (fetch_util.structure_key(fetches), tuple(feed_dict))
            runner = self._runners.get(key)
        except TypeError:  # unhashable fetch or feed key: the slow path explains
            key, runner = None, None
        if runner is None:
            runner = self._make_runner(fetches, feed_dict)
            if key is not None:
                self._runners[key] = runner
        return self._call(runner, feed_dict)

    def _feed_values(self, r, feed_dict):
        """The fed values in the function's order: the user's, then those the Session makes (host_feed)."""
        feeds = tuple([_convert_feed(value, *spec) for value, spec in zip(feed_dict.values(), r.feed_specs)])
        return feeds + self._made_feeds(r) if r.auto_feeds else feeds

    def _made_feeds(self, r):
        # last of the checks: a tf.data iterator's batch is taken only for a run that will happen
        return tuple(v for op in r.auto_feeds for v in get_op_def(op.type).host_feed(self, op))

    def _call(self, r, feed_dict):
        feeds = tuple([_convert_feed(value, *spec) for value, spec in zip(feed_dict.values(), r.feed_specs)])
        values = self._values
        try:
            rw = tuple([values[v] for v in r.rw])
            ro = tuple([values[v] for v in r.ro])
        except KeyError:
            raise self._uninitialized(r) from None
        if r.auto_feeds:
            feeds += self._made_feeds(r)
        key = None
        if r.needs_key:
            self._counter += 1
            key = np.uint32(self._counter)
        if r.call is None:
            return r.rebuild([self._host_value(op) for op in r.host]) if r.host else r.rebuild([None] * r.n_fetch)
        if self._device is not None:
            with jax.default_device(self._device):
                outs, new = r.call(rw, ro, feeds, key)
        else:
            outs, new = r.call(rw, ro, feeds, key)
        if r.checks and not outs[-1]:
            raise self._failed_check(r, new, ro, feeds, key)
        for v, val in zip(r.updated, new):
            values[v] = val
        if r.single:
            return _to_numpy(outs[0])
        results = [None] * r.n_fetch
        host = iter(r.host)
        for i, (kind, j) in enumerate(r.fetch_kinds):
            if kind == 1:
                results[i] = _to_numpy(outs[j])
            elif kind == 2:
                results[i] = self._host_value(next(host))
            elif kind == 3:
                results[i] = j(outs)
        for plan in r.after:
            plan(outs)
        return r.rebuild(results)

    def _uninitialized(self, r):
        for v in list(r.rw) + list(r.ro):
            if v not in self._values:
                return errors.FailedPreconditionError(
                    v.node_def, v, "Attempting to use uninitialized value %s\n\t [[{{node %s}}]]" % (v.name, v.name))
        return errors.FailedPreconditionError(None, None, "Attempting to use an uninitialized value")

    def _failed_check(self, r, new, ro, feeds, key):
        """The InvalidArgumentError of the first failed run-time check. The variables the function
        read were donated; it gave them back unchanged, so they are stored again (the others stay)."""
        for v, val in zip(r.updated, new):
            if v in r.rw:
                self._values[v] = val
        rw = tuple(self._values[v] for v in r.rw)
        for op, (ok, *data) in zip(r.checks, r.lowered.check_results(rw, ro, feeds, key)):
            if not ok:
                return jax_backend.check_failure(op, data)
        return errors.InvalidArgumentError(None, None, "a run-time check failed")

    def _host_value(self, op):
        return get_op_def(op.type).host(self, op)

    # ---- the slow path: one fetch set, resolved, pruned and lowered ------------------------------
    def _make_runner(self, fetches, feed_dict):
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
            if get_op_def((e if isinstance(e, Operation) else e.op).type).host_compute is not None:
                kinds.append((3, self._host_plan(e, fetched)))
            elif isinstance(e, Operation):
                if get_op_def(e.type).host is not None:
                    raise TypeError("Op %s has no value to run" % e.name)
                targets.append(e)
                kinds.append((0, None))
            elif get_op_def(e.op.type).host is not None:
                host.append(e.op)
                kinds.append((2, None))
            else:
                kinds.append((1, fetched(e)))
        r = _Runner()
        r.feed_specs = feed_specs
        r.rebuild = fetch_util.rebuilder(fetches)
        r.n_fetch = len(elements)
        r.host = host
        r.fetch_kinds = kinds
        r.single = not isinstance(fetches, (list, tuple, dict)) and kinds[0][0] == 1
        r.auto_feeds, r.after = (), ()
        if not fetch_tensors and not targets:
            r.call, r.lowered, r.rw, r.ro, r.updated, r.needs_key, r.checks = None, None, (), (), (), False, ()
            return r
        sub = prune_pass.prune(fetch_tensors, feed_tensors, targets)
        r.auto_feeds = prune_pass.host_fed_ops(sub)
        feed_tensors = feed_tensors + [t for op in r.auto_feeds for t in op.outputs]
        # host-computed ops reached through control dependencies (tf.group(..., iterator.initializer))
        # run after the call, for their effect
        planned = {e for (k, _), e in zip(kinds, elements) if k == 3}
        r.after = [self._host_plan(op, fetched) for op in sub.ops
                   if get_op_def(op.type).host_compute is not None and op not in planned]
        r.single = r.single and not r.after
        lowered = self.lowered_for(fetch_tensors, targets, feed_tensors)
        r.lowered = lowered
        r.rw, r.ro, r.updated, r.needs_key = lowered.rw_vars, lowered.ro_vars, lowered.updated, lowered.needs_key
        r.checks = lowered.checks
        r.call = lowered.jitted
        return r

    def _host_plan(self, e, fetched):
        """How to compute tensor or op `e` (OpDef.host_compute) after the run: its inputs are fetched
        by the jitted function (through `fetched`), or computed on the host the same way."""
        op = e if isinstance(e, Operation) else e.op
        parts = []
        for t in op.inputs:
            if get_op_def(t.op.type).host_compute is not None:
                parts.append(self._host_plan(t, fetched))
            else:
                parts.append(lambda outs, j=fetched(t): _to_numpy(outs[j]))
        rule = get_op_def(op.type).host_compute
        index = None if isinstance(e, Operation) else e.value_index

        def compute(outs):
            values = rule(self, op, [part(outs) for part in parts])
            return None if index is None else values[index]
        return compute

    def lowered_for(self, fetch_tensors, targets, feed_tensors):
        """The Lowered function of a fetch set (cached by fetches, targets and fed tensors)."""
        ckey = (tuple(fetch_tensors), tuple(targets), tuple(feed_tensors))
        lowered = self._lowered.get(ckey)
        if lowered is None:
            sub = prune_pass.prune(fetch_tensors, feed_tensors, targets)
            for op in prune_pass.unfed_placeholders(sub):
                if any(t not in feed_tensors for t in op.outputs):
                    t = op.outputs[0]
                    raise errors.InvalidArgumentError(
                        op.node_def, op, "You must feed a value for placeholder tensor '%s' with dtype %s%s\n\t "
                        "[[{{node %s}}]]" % (op.name, _tf_dtype_word(t.dtype),
                                             "" if t.shape.ndims is None else " and shape %s" % t.shape.as_proto_str(),
                                             op.name))
            for op in prune_pass.host_ops(sub):
                if any(c in sub.ops for t in op.outputs for c in t.consumers()):
                    raise errors.UnimplementedError(op.node_def, op, "%s can only be fetched" % op.type)
            lowered = jax_backend.lower(sub)
            self._lowered[ckey] = lowered
        return lowered

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

    # ---- tinyflow extras -----------------------------------------------------------------------
    def lowered(self, fetches, feed_dict=None):
        """The Lowered function of this fetch set: `.source`, and `.jaxpr()` / `.hlo()` for these feeds."""
        feed_dict = feed_dict or {}
        runner = self._make_runner(fetches, feed_dict)
        if runner.lowered is None:
            raise ValueError("Nothing to lower: the fetches hold no tensor or op")
        feeds = self._feed_values(runner, feed_dict)
        return _BoundLowered(runner.lowered, jax_backend.example_args(runner.lowered, self._values, feeds))

    def memory_report(self, fetches, feed_dict=None, planner=None, verify=True, xla=True):
        """tinyflow's memory plan of this fetch set beside XLA's (see client/memory_report.py)."""
        from . import memory_report
        return memory_report.memory_report(self, fetches, feed_dict, planner, verify, xla)

    def _variable_value(self, var_op):
        """The current value of a variable as numpy (FailedPreconditionError if uninitialized)."""
        if var_op not in self._values:
            raise errors.FailedPreconditionError(var_op.node_def, var_op,
                                                 "Attempting to use uninitialized value %s" % var_op.name)
        return np.asarray(self._values[var_op])

    def _set_variable(self, var_op, value):
        a = np.asarray(value, var_op.attrs["dtype"].np)
        self._values[var_op] = jax.device_put(a, self._device) if self._device is not None else jax.device_put(a)

    def _is_initialized(self, var_op):
        return var_op in self._values


class _BoundLowered:
    """A Lowered function with the arguments of one call: source, jaxpr and hlo as text."""

    def __init__(self, lowered, args):
        self._lowered, self._args = lowered, args

    source = property(lambda self: self._lowered.source)
    jaxpr = property(lambda self: self._lowered.jaxpr(*self._args))
    hlo = property(lambda self: self._lowered.hlo(*self._args))
    function = property(lambda self: self._lowered)
    args = property(lambda self: self._args)

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


def _tf_dtype_word(d):
    return {"float32": "float", "float64": "double"}.get(d.name, d.name)


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
            if a.dtype.kind in "USO" and np_dtype.kind not in "USO":
                raise ValueError("could not convert string to %s: %r" % (np_dtype.name, value))
            a = a.astype(np_dtype, copy=False)
        except (TypeError, ValueError) as e:
            raise ValueError("Cannot feed value %r for Tensor %r: %s" % (value, tensor.name, e)) from None
    if dims is not None and a.shape != dims:
        shape = a.shape
        if len(shape) != len(dims) or any(d is not None and d != s for d, s in zip(dims, shape)):
            raise ValueError("Cannot feed value of shape %r for Tensor %r, which has shape %r"
                             % (shape, tensor.name, "(%s)" % ", ".join("?" if d is None else str(d) for d in dims)
                                + ("," if len(dims) == 1 else "")))
    return a


def _to_numpy(x):
    """A fetched device array as a writable numpy value (0-d arrays as numpy scalars, as TF gives)."""
    a = np.array(x)
    return a[()] if a.ndim == 0 else a
