"""The compile pipeline: a fetch set -> one jitted function. Read this file first.

    Session.run(fetches, feed_dict)
      -> compile_fetch_set(fetches, feeds, targets)
           1. prune      passes/prune.py    the ops the fetches need, stopping at fed tensors; which
                                            of them run a rule, which run a check
           2. feeds      here               every placeholder it reaches is fed (else TF's error)
           3. state      passes/state.py    which value of each variable every reader sees
           4. plan       lower/program.py   one record per op: rule, inputs, outputs, static, check;
                                            whether it runs in segments
           5. render     lower/render.py    the records as Python source, one line per op
                                            (a parameter: any function Program -> (source, lines))
           6. jit        lower/jax_backend  exec the source, jax.jit it (donating updated variables
                                            when that can never lose one)
      <- Lowered: .program, .source, .fn, .jitted

Each stage takes only what the stage before it handed on.

A fetch set with an op whose output shape depends on run-time values (OpDef.dynamic_shape:
tf.boolean_mask's Where, tf.unique, ...) renders instead as jitted segments around those ops, which
run on concrete values in between (lower/segments.py, docs/dynamic_shapes.md), and a huge one
(over SPLIT_STEPS steps) as jitted segments of equal size; every other fetch set is one jitted
function.

Bodies of tf.cond / tf.while_loop take the same path with checks=False (lower/subgraph.py), and
the reference executor (lower/reference.py) runs the Program of step 4 op by op.
"""
import os

from tinyflow.graph import errors
from tinyflow.passes import prune as prune_pass
from tinyflow.passes import state as state_pass
from tinyflow.lower import compiler_options, jax_backend
from tinyflow.lower import program as program_mod
from tinyflow.lower import render as render_mod

# Donating the buffers of the variables a step updates (an update in place on the device) is safe
# only when nothing can fail after dispatch that the Session could survive: a step calling back into
# Python (py_func, Print) can fail there, so it never donates; a run-time check (tf.Assert, an index
# range, check_numerics) gates the updates inside the step (a failed one returns the old values); and
# what is left, running out of memory, is ruled out before dispatch: runtime/executables.py compares
# XLA's memory analysis of each shape's program with the memory free on the device (the machine's on
# the CPU, the allocator's on an accelerator, there before every call) and runs the program that keeps
# the old buffers when the step needs much of it. "auto" (the default): that rule, on every platform;
# "always" / "never" override it ($TINYFLOW_DONATE or Session.donate). Not donating costs one more
# copy of the updated variables per step, and on an accelerator most of a small step's time.
DONATE = os.environ.get("TINYFLOW_DONATE", "auto")


def env_int(name, default):
    """The integer setting $name (default when unset); ValueError naming it for anything else."""
    text = os.environ.get(name, "").strip()
    try:
        return int(text) if text else default
    except ValueError:
        raise ValueError("tinyflow: $%s must be an integer, got %r" % (name, text)) from None

# A fetch set of more steps than this compiles as jitted segments of equal size, at most a fifth
# of it each, called in turn by a function that is not jitted. Why: XLA's compile time grows faster
# than the program (a chain of 5,000 ops and its gradient, 16k steps: 9 s; 20,000 ops: 129 s, as
# for the same chain hand-written in JAX; segments of 16k steps still took 99 s, of 4k steps 46 s).
# The price: no fusion across a cut, no donation, and each value crossing a cut is an argument of
# a call. 0: never split ($TINYFLOW_SPLIT_STEPS).
SPLIT_STEPS = env_int("TINYFLOW_SPLIT_STEPS", 20000)


def compile_fetch_set(fetches, feeds=(), targets=(), checks=True, donate=None, platform="cpu", segments=True,
                      render=render_mod.render, constants=None, stable_cuts=True):
    """Lowers the fetch set (fetched Tensors, fed Tensors, target Operations) to a Lowered function.
    segments=False (a tf.cond / tf.while_loop body) never splits it around value-dependent shapes.
    render: the render stage, Program -> (source, {line number: Step}); what it returns is what runs.
    constants: {fed Tensor: value} to compile the function for; stable_cuts=False: segments only around
    dynamic ops (lower/specialize.py)."""
    sub = prune_pass.prune(fetches, feeds, targets)                       # 1
    check_feeds(sub)                                                      # 2
    analysis = state_pass.analyze(sub)                                    # 3
    program = program_mod.plan(sub, analysis, checks, segments, SPLIT_STEPS if segments else 0, constants)   # 4
    program.stable_cuts = stable_cuts
    source, lines = render(program_mod.fuse_matmul_sums(program))        # 5 (an RNN's weight gradients: one dot)
    donates = _donates(program, donate)
    # The Session waits for a step's new values before storing them, so that a failure after
    # dispatch leaves the old ones, except for a donating step: its old buffers are gone at dispatch
    # and nothing can fail after it (see DONATE), so waiting would only keep the host from preparing
    # the next step.
    waits = not donates
    options = compiler_options.choose(program, platform)   # XLA options by what it holds (conv gradients, init)
    return jax_backend.build(program, source, lines, donates, waits, options)     # 6


def check_feeds(sub):
    """InvalidArgumentError (TF's message) for the first placeholder the fetch set runs unfed, and
    UnimplementedError for a host-computed op whose value another op would need inside the step."""
    for op in prune_pass.unfed_placeholders(sub):
        t = op.outputs[0]
        raise errors.InvalidArgumentError(
            op.node_def, op, "You must feed a value for placeholder tensor '%s' with dtype %s%s\n\t [[{{node %s}}]]"
            % (op.name, _tf_dtype_word(t.dtype), "" if t.shape.ndims is None else
               " and shape %s" % t.shape.as_proto_str(), op.name))
    ops = set(sub.ops)
    for op in prune_pass.host_ops(sub):
        if any(c in ops for t in op.outputs for c in t.consumers()):
            raise errors.UnimplementedError(op.node_def, op, "%s can only be fetched" % op.type)


def _donates(program, donate):
    """Whether the step donates its updated variables' buffers (see DONATE)."""
    # segments: a later segment can fail (a dynamic op's error) after an earlier one ran
    if not program.rw_vars or program.callbacks or program.segmented:
        return False
    donate = DONATE if donate is None else donate
    if donate in ("always", True):
        return True
    if donate in ("never", False):
        return False
    if donate != "auto":
        raise ValueError("tinyflow: donate must be 'auto', 'always' or 'never' ($TINYFLOW_DONATE or "
                         "Session.donate), got %r" % (donate,))
    return True


def _tf_dtype_word(d):
    return {"float32": "float", "float64": "double"}.get(d.name, d.name)
