"""The compile pipeline: a fetch set -> one jitted function. Read this file first.

    Session.run(fetches, feed_dict)
      -> compile_fetch_set(fetches, feeds, targets)
           1. prune      passes/prune.py    the ops the fetches need, stopping at fed tensors
           2. feeds      here               every placeholder it reaches is fed (else TF's error)
           3. state      passes/state.py    which value of each variable every reader sees
           4. plan       lower/program.py   one record per op: rule, inputs, outputs, static, check
           5. render     lower/render.py    the records as Python source, one line per op
           6. jit        lower/jax_backend  exec the source, jax.jit it (donating updated variables
                                            when that can never lose one)
      <- Lowered: .program, .source, .fn, .jitted

A fetch set with an op whose output shape depends on run-time values (OpDef.dynamic_shape:
tf.boolean_mask's Where, tf.unique, ...) renders instead as jitted segments around those ops, which
run on concrete values in between (lower/segments.py, docs/dynamic_shapes.md); every other fetch
set is one jitted function.

Bodies of tf.cond / tf.while_loop take the same path with checks=False (lower/subgraph.py), and
the reference executor (lower/reference.py) runs the Program of step 4 op by op.
"""
from .. import errors
from ..passes import prune as prune_pass
from ..passes import state as state_pass
from . import jax_backend
from . import program as program_mod

# A step donates the buffers of the variables it updates (an update in place on the device) only
# when nothing can fail after dispatch that XLA cannot undo: no callback into Python in it, and
# updated variables of at least this many bytes, where keeping the old buffers until the call
# succeeds costs memory that matters. Below it the old values stay until the step has finished.
DONATE_MIN_BYTES = 64 << 20


def compile_fetch_set(fetches, feeds=(), targets=(), checks=True, donate_min_bytes=None, segments=True):
    """Lowers the fetch set (fetched Tensors, fed Tensors, target Operations) to a Lowered function.
    segments=False (a tf.cond / tf.while_loop body) never splits it around value-dependent shapes."""
    sub = prune_pass.prune(fetches, feeds, targets)                       # 1
    check_feeds(sub)                                                      # 2
    analysis = state_pass.analyze(sub.ops, sub.feeds)                     # 3
    program = program_mod.plan(sub, analysis, checks=checks, segments=segments)   # 4
    return jax_backend.build(program, donate=_donates(program, donate_min_bytes))   # 5, 6


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


def _donates(program, min_bytes):
    # segments: a later segment can fail (a dynamic op's error) after an earlier one ran
    if not program.rw_vars or program.callbacks or program.dynamic:
        return False
    min_bytes = DONATE_MIN_BYTES if min_bytes is None else min_bytes
    total = 0
    for v in program.rw_vars:
        n = v.outputs[0].shape.num_elements()
        if n is None:        # unknown until run: take it as big
            return True
        total += n * v.outputs[0].dtype.size
    return total >= min_bytes


def _tf_dtype_word(d):
    return {"float32": "float", "float64": "double"}.get(d.name, d.name)
