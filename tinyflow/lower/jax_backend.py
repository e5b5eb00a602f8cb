"""The JAX backend: a rendered Program -> a Python function -> jax.jit.

The generated source calls each op type's rule as `op.MatMul(x, w, transpose_a=False, ...)`. Here
`op.MatMul` is an `OpCall`: it finds which Step the calling line is (by the line's number), runs the
op's lowering rule inside a `jax.named_scope` of the TF op name (so XLA's metadata names the op)
and, for a value known while tracing, computes it now (lower/consteval.py: numpy, or one cached
jitted program per op), so that `tf.reshape(x, tf.shape(y))` has a concrete shape inside jit. A rule
failing while tracing becomes InvalidArgumentError naming the op, before anything runs. The source is registered with
`linecache`, so a traceback through it shows the generated line.

Run-time checks (OpDef.check): when a fetch set has them, each updated variable it reads is kept
as it was unless all of them hold: row updates (SparseApply*, Scatter*) run under one `lax.cond`
(`gate`: in place on a donated table, or the old value handed back), the other updates' new values
are selected (`keep`, a select XLA fuses into a dense update); see render.gated. The jitted form
returns only "all ok" (`Lowered.flat_fn`), and on a failure `check_results` recomputes the data
for the message.
"""
import contextlib
import itertools
import linecache
import os
import re
import sys
import types
import warnings
import weakref

import jax
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import errors
from tinyflow.graph import dtypes as _dt
from tinyflow.graph.registry import get_op_def
from tinyflow.graph.shapes import TensorShape
from tinyflow.lower import consteval
from tinyflow.lower import render as render_mod
from tinyflow.lower.compiler_options import YNN_FLAG, YNN_NO_CONV
from tinyflow.lower.program import FUSED
from tinyflow.ops.conv_ops import EIGEN_CONVOLUTIONS
from tinyflow.ops.random_ops import RandomBlock, run_key

_COUNTER = itertools.count(1)
_SEGMENT = re.compile(r"segment_[0-9]+")
_TF = types.SimpleNamespace(TensorShape=TensorShape,
                            **{d.name: d for d in _dt.__dict__.values() if isinstance(d, _dt.DType)})


def apply(step, attrs, args):
    """Runs one Step's rule (its check rule for a check step) on traced or concrete values."""
    op, opdef = step.op, step.opdef
    rule = opdef.check if step.check else FUSED[step.rule] if step.rule else opdef.lower
    if step.with_check:   # the rule hands its check's value on after its outputs
        attrs = {**attrs, "_check": True}
    with jax.named_scope(op.name):
        try:
            if step.static:   # by numpy, or one cached jitted program (not one per primitive)
                out = consteval.value(opdef, rule, attrs, args, step.check)
            elif step.dynamic and not (step.check or opdef.stateful or opdef.needs_key or _traced(args)):
                out = consteval.jitted_value(rule, attrs, args, modes=1)   # between segments: one program
            else:
                out = rule(attrs, *args)
        except errors.OpError:
            raise
        except Exception as e:  # a failure while tracing: before anything is dispatched
            if isinstance(e, MemoryError) or "RESOURCE_EXHAUSTED" in str(e):   # a value computed while tracing
                raise errors.ResourceExhaustedError(op.node_def, op, "OOM while tracing: %s\n\t [[node %s (op: %s)]]"
                                                    % (e, op.name, op.type)) from e
            raise errors.InvalidArgumentError(op.node_def, op, "%s\n\t [[node %s (op: %s)]]"
                                              % (e, op.name, op.type)) from e
    if step.check:
        ok, *data = out
        if not isinstance(ok, jax.core.Tracer) and not bool(ok):  # decided while tracing: fails now
            raise check_failure(op, data)
        return out
    # one result: a rule may return it bare or as a 1-sequence (Split with num=1)
    if len(step.outs) == 1 and len(opdef.ref_inputs or op.outputs) == 1 and isinstance(out, (list, tuple)):
        return out[0]
    return out


def _traced(args):
    return any(isinstance(a, jax.core.Tracer) for a in args)


class OpCall:
    """An op type's name in the generated source: calls its rule for the Step on the calling line."""

    def __init__(self, op_type, where, shapes=None):
        self.op_type = op_type
        self.where = where   # {(file name, line number): Step}
        self.shapes = shapes   # {Step: its output shapes} of the dynamic steps run so far; "changed": True

    def _step(self):
        f = sys._getframe(2)
        return self.where[(f.f_code.co_filename, f.f_lineno)]

    def __call__(self, *args, **attrs):
        step = self._step()
        out = apply(step, _with_private(step.op, attrs), args)
        if step.dynamic:   # (between segments, on concrete values) whether its count ever changes
            shapes = tuple(np.shape(o) for o in (out if isinstance(out, (list, tuple)) else [out]))
            if self.shapes.setdefault(step, shapes) != shapes:
                self.shapes["changed"] = True
        return out

    def check(self, *args, **attrs):
        step = self._step()
        return apply(step, _with_private(step.op, attrs), args)

    def __repr__(self):
        return "<rule of %s>" % self.op_type


def _with_private(op, attrs):
    """The attrs of the source with the op's private ones (`_type`), which render leaves out."""
    private = {k: v for k, v in op.attrs.items() if render_mod.is_private(k)}
    return {**attrs, **private} if private else attrs


def _all_ok(*checks):
    ok = checks[0][0]
    for c in checks[1:]:
        ok = jnp.logical_and(ok, c[0])
    return ok


def _keep(ok, new, old):
    """new where every check holds, else old. A variable whose value changed shape takes new: the
    Session keeps its old value when a check failed (Session._failed_check)."""
    if new.shape != old.shape:
        return new
    if new.dtype == old.dtype:   # what jnp.where emits, as primitives (jnp.where is a jit of its own)
        return jax.lax.select(jax.lax.broadcast_in_dim(ok, new.shape, ()), new, old)
    return jnp.where(ok, new, old)


def _gate(ok, updates, olds, after):
    """updates() = (new values, after) when every check holds, else (olds, zeros), under one `lax.cond`
    (render.gated): XLA updates a donated table in place or hands it back untouched. An update that
    changes a variable's shape (validate_shape=False) cannot be a conditional's result: `keep` then."""
    if not isinstance(ok, jax.core.Tracer):   # every check was decided while tracing (and held)
        return updates()
    try:
        return jax.lax.cond(ok, updates, lambda: (olds, tuple(jnp.zeros_like(a) for a in after)))
    except TypeError:   # the branches' results differ in shape or dtype
        news, after = updates()
        return tuple(_keep(ok, new, old) for new, old in zip(news, olds)), after


def check_failure(op, data):
    """The error (InvalidArgumentError unless the op says) of op's failed check, from the check's data."""
    opdef = get_op_def(op.type)
    msg = opdef.check_message(op, *[np.asarray(d) for d in data])
    return opdef.check_error(op.node_def, op, "%s\n\t [[{{node %s}}]]" % (msg, op.name))


def _only_ok(fn):
    """fn with its check data dropped: the trailing fetch is just the bool 'all checks hold'."""
    def run(*args):
        finals, fetches = fn(*args)
        return finals, fetches[:-1] + (fetches[-1][0],)
    return run


_FULL_F32 = []


def tf_precision():
    """The scope a program is traced under: float32 dots and convolutions in float32, as TF 1.15
    computes them. JAX's default on NVIDIA GPUs since Ampere is TF32 (inputs rounded to a 10-bit
    mantissa: relative errors near 1e-3, which TF1 code never saw); the CPU computes float32 either
    way, so its programs are left as they are. `TINYFLOW_TF32=1` takes the faster TF32 on a GPU."""
    if not _FULL_F32:
        _FULL_F32.append(jax.default_backend() != "cpu" and os.environ.get("TINYFLOW_TF32", "0") != "1")
    return jax.default_matmul_precision("float32") if _FULL_F32[0] else contextlib.nullcontext()


@contextlib.contextmanager
def _tracing(eigen):
    """Where every trace of a fetch set runs (jitted, jaxpr, check data): tf_precision, and whether its
    convolutions run on XLA's own kernels (from its compiler options: ops/conv_ops.EIGEN_CONVOLUTIONS)."""
    token = EIGEN_CONVOLUTIONS.set(eigen)
    try:
        with tf_precision():
            yield
    finally:   # a trace that raised leaves no setting behind for the thread's next one
        EIGEN_CONVOLUTIONS.reset(token)


def _flat(fn, n_rw, n_ro, with_key, eigen=False):
    """fn(rw, ro, feeds, key) -> (finals, fetches) as flat(*rw, *ro, *feeds[, key]) -> (*finals,
    *fetches), traced under _tracing(eigen). Why: JAX's C++ dispatch is quickest on a flat list of arrays
    (nested tuples and a None cost about 0.5 us a call, a third of Session.run's own time on a tiny graph)."""
    a, b = n_rw, n_rw + n_ro

    def flat(*args):
        end = len(args) - 1 if with_key else len(args)
        with _tracing(eigen):
            finals, fetches = fn(args[:a], args[a:b], args[b:end], args[end] if with_key else None)
        return tuple(finals) + tuple(fetches)
    flat.__name__ = flat.__qualname__ = "fetch_set"   # XLA's metadata: jit(fetch_set)/MatMul/...
    return flat


class Lowered:
    """One fetch set, lowered: its Program, the generated source, the function and its jitted form.

    `fn(rw, ro, feeds, key) -> (finals, fetches)` (see program.Program); `call(rw, ro, feeds, key)`
    runs it jitted and returns the same. What Session.run calls is `jitted`, the same function with
    flat arguments and results: `jitted(*rw, *ro, *feeds[, key]) -> (*finals, *fetches)` (`flat_args`
    makes its arguments); it donates rw when `donate` (decided per fetch set by the pipeline). With
    `segments` (names of jitted segment functions: lower/segments.py) `fn` itself is not jitted:
    `jitted` calls the jitted segments and runs the dynamic ops between them. `specialized`: the same
    fetch set compiled for the values of the feeds that decide its shapes (lower/specialize.py), or None;
    `dynamic_shapes`: the output shapes its dynamic steps gave, "changed" once one gave another.
    """
    specialized = None

    def __init__(self, program, source, fn, donate, segments=(), waits=True, options=None):
        self.program = program
        self.sub = program.sub
        self.source = source
        self.fn = fn
        self.donate = donate
        self.waits = waits   # whether Session.run waits for the new values (decided by the pipeline)
        self.compiler_options = dict(options or {})   # XLA's, for this function (lower/compiler_options.py)
        self.rw_vars, self.ro_vars, self.updated = program.rw_vars, program.ro_vars, program.updated
        self.needs_key = program.needs_key
        self.checks = program.checks
        self._diagnose = None
        self.segments = tuple(segments)
        # what is jitted: fn with the check data left out, flat (see _flat)
        self.eigen = self.compiler_options.get(YNN_FLAG) == YNN_NO_CONV
        self.flat_fn = _flat(_only_ok(fn) if self.checks else fn, len(self.rw_vars), len(self.ro_vars),
                             self.needs_key, self.eigen)
        if program.segmented:   # each segment is jitted already; the ops between them need concrete values
            self.jitted = self.flat_fn
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # "donated buffers were not usable": harmless
            self.jitted = jax.jit(self.flat_fn, donate_argnums=tuple(range(len(self.rw_vars))) if donate else (),
                                  compiler_options=self.compiler_options or None)

    def flat_args(self, rw, ro, feeds, key=None):
        """The arguments of `jitted` for fn's (rw, ro, feeds, key)."""
        return tuple(rw) + tuple(ro) + tuple(feeds) + ((key,) if self.needs_key else ())

    def call(self, rw, ro, feeds, key=None):
        """(finals, fetches) of the jitted function (it donates rw when `donate`)."""
        out = self.jitted(*self.flat_args(rw, ro, feeds, key))
        n = len(self.updated)
        return out[:n], out[n:]

    def lower(self, rw, ro, feeds, key=None):
        """jax's Lowered of the jitted function for these arguments (`.compile()`: XLA's executable)."""
        self._one_function("XLA lowering")
        return self.jitted.lower(*self.flat_args(rw, ro, feeds, key))

    def check_results(self, *args):
        """Every check's (ok, *data) for these arguments: what a failed run is explained with. The
        jitted function hands back only whether all checks held; this one, compiled on the first
        failure, recomputes the data from the same arguments."""
        if self._diagnose is None:
            self._diagnose = self.fn if self.program.segmented else jax.jit(self.fn)
        with _tracing(self.eigen):   # traced (on the first failure) as the jitted function was
            return self._diagnose(*args)[1][-1][1]

    def jaxpr(self, *args):
        """JAX's view of this function for concrete arguments (see `example_args`)."""
        self._one_function("jaxpr")
        with _tracing(self.eigen):
            return jax.make_jaxpr(self.fn)(*args)

    def hlo(self, *args):
        """XLA's optimized HLO text for concrete arguments."""
        self._one_function("hlo")
        return self.lower(*args).compile().as_text()

    def _one_function(self, what):
        if self.program.segmented:
            why = ("has ops whose output shapes depend on run-time values" if self.program.dynamic else
                   "has %d steps, over $TINYFLOW_SPLIT_STEPS" % len(self.program.steps))
            raise errors.UnimplementedError(
                None, None, "This fetch set %s: it runs as %d jitted segments (%s), so it has no single %s; "
                "see .source" % (why, len(self.segments), ", ".join(self.segments), what))

    def __repr__(self):
        return "<Lowered %d ops>\n%s" % (len(self.sub.ops), self.source)


def build(program, source, lines, donate=False, waits=True, options=None):
    """Executes the rendered `source` of `program` ({line number: Step} in `lines`) into a function
    and jits it: a Lowered. The functions `segment_k` of a segmented Program are jitted one by one."""
    filename = "<tinyflow %d>" % next(_COUNTER)
    where = {(filename, n): step for n, step in lines.items()}
    shapes = {}
    calls = {t: OpCall(t, where, shapes) for t in {s.op.type for s in program.steps} | {s.rule for s in lines.values()}
             if t}
    ns = {"A": {**render_mod.attr_table(program.steps), **program.constants}, "op": types.SimpleNamespace(**calls),
          "tf": _TF, "np": np, "all_ok": _all_ok, "keep": _keep, "gate": _gate,
          "random_block": lambda key: RandomBlock(program.random_block, key, program.philox_ops)}
    exec(compile(source, filename, "exec"), ns)
    segments = [name for name in ns if _SEGMENT.fullmatch(name)] if program.segmented else []
    for name in segments:   # the main function finds them here when it runs: the jitted forms, with the
        ns[name] = jax.jit(ns[name], compiler_options=options or None)   # fetch set's XLA options
    lowered = Lowered(program, source, ns["fetch_set"], donate, segments, waits, options)
    lowered.dynamic_shapes = shapes
    # a traceback through the generated code shows its lines, for as long as the function lives
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    weakref.finalize(lowered, linecache.cache.pop, filename, None)
    return lowered


def example_args(lowered, values, feed_values=(), counter=0):
    """The argument tuple of `lowered.fn` from a dict of variable values and feed values."""
    rw = tuple(values[v] for v in lowered.rw_vars)
    ro = tuple(values[v] for v in lowered.ro_vars)
    key = run_key(counter, [0] * len(lowered.program.philox_ops)) if lowered.needs_key else None
    return rw, ro, tuple(feed_values), key
