"""Recompute: forward values recomputed in the backward pass, in a form XLA keeps.

passes/recompute.py (called by tf.gradients(..., checkpoints=...)) replaces the forward values a
gradient rule reads by the outputs of one Recompute op per segment:

    Recompute(gate, *inputs) -> the segment's values, recomputed from its inputs (checkpoints,
                                weights); `gate` is the gradient flowing into the segment

Why not just copy the segment's ops into the gradient graph: XLA's common-subexpression
elimination merges the copy with the forward ops, and the values stay alive from the forward pass
to the backward pass, exactly as without recomputation. `lax.optimization_barrier` does not help
on the CPU (the barrier is expanded away before CSE runs). What XLA keeps is a conditional whose
predicate it cannot evaluate: `lax.cond(g[0] == g[0], segment, segment, *inputs)` with the same
segment in both branches (so the result is the same whichever runs, NaN gradients included).
The op holds the forward ops themselves (attrs["ops"]) and runs their lowering rules inside the
branch.
The predicate reads the incoming gradient, so the recomputation cannot be scheduled before that
gradient exists: the recomputed values are born when the backward pass needs them, and die soon
after. docs/recompute.md has the measurements.
"""
import functools

from tinyflow.graph.core import Tensor, get_default_graph
from tinyflow.graph.registry import get_op_def, register_op
from tinyflow.passes.recompute import RECOMPUTE_GRAD_KEY  # graph collection of tf.recompute_grad's block values


def _static_shapes(shapes, attrs, values):
    return list(attrs["output_shapes"])


def _shapes(shapes, attrs, values):
    """The segment's shapes for the shapes (and constant values) known for its inputs: shape inference
    with fed shapes (passes/infer.py) reaches through a Recompute op."""
    from tinyflow.passes.infer import infer_ops
    inputs, outputs = attrs["inputs"], attrs["outputs"]
    try:
        found = infer_ops(attrs["ops"], dict(zip(inputs, shapes[1:])), dict(zip(inputs, values[1:])))
    except ValueError:   # (the forward values' static shapes then)
        return list(attrs["output_shapes"])
    return [found[t].merge_with(s) if t in found and found[t].is_compatible_with(s) else s
            for t, s in zip(outputs, attrs["output_shapes"])]


def _dtypes(dtypes, attrs):
    return list(attrs["Tout"])


def _run_segment(attrs, *values):
    """The segment's ops, in order, each by its own lowering rule (no graph copy: the op keeps the
    forward ops themselves in its attrs, as the gradient pass chose them)."""
    import jax
    env = dict(zip(attrs["inputs"], values))
    for op in attrs["ops"]:
        opdef, args = get_op_def(op.type), [env[t] for t in op.inputs]
        # as lower/program.py's static steps: a shape computation (Shape, or pure ops on values known
        # while tracing) stays known inside the branch, where a Reshape needs its shape as a value
        if opdef.static or not (opdef.stateful or any(isinstance(a, jax.core.Tracer) for a in args)):
            with jax.ensure_compile_time_eval():
                out = opdef.lower(op.attrs, *args)
        else:
            out = opdef.lower(op.attrs, *args)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        env.update(zip(op.outputs, outs))
    return tuple(env[t] for t in attrs["outputs"])


def _lower(attrs, gate, *inputs):
    import jax
    import jax.numpy as jnp

    # values known while tracing (constants, shapes) stay known inside the branch: closed over,
    # not passed as operands (a Reshape needs its shape as a concrete value)
    traced = [i for i, v in enumerate(inputs) if isinstance(v, jax.core.Tracer)]

    def segment(*operands):
        values = list(inputs)
        for i, v in zip(traced, operands):
            values[i] = v
        return _run_segment(attrs, *values)
    operands = [inputs[i] for i in traced]
    flat = jnp.ravel(gate)
    if flat.shape[0] == 0:   # nothing to read a predicate from: plain recomputation (XLA may merge it)
        return segment(*operands)
    first = flat[0]
    return jax.lax.cond(first == first, segment, segment, *operands)


def _grad(op, *grads):
    """A second derivative through checkpointed gradients: the recomputed values are the forward
    values, so their gradient is the forward ops' own (built on the forward tensors)."""
    from tinyflow.passes.gradients import gradients
    ins = op.inputs[1:]
    xs = [i for i, t in enumerate(ins) if t.dtype.is_floating]
    ys = [k for k, t in enumerate(op.outputs) if t.dtype.is_floating]
    out = [None] * len(op.inputs)
    if not xs or not ys:
        return out
    outputs = op.attrs["outputs"]
    gx = gradients([outputs[k] for k in ys], [ins[i] for i in xs], grad_ys=[grads[k] for k in ys])
    for g, i in zip(gx, xs):
        out[i + 1] = g
    return out


# attrs: ops (the forward ops, in order), inputs (the tensors they read from outside the segment, in
# the order of this op's inputs after the gate), outputs (the forward tensors recomputed), Tout,
# output_shapes, flops (a static estimate of the recomputation's cost, see passes/recompute.py)
register_op("Recompute", shape=_static_shapes, infer_shape=_shapes, dtype=_dtypes, grad=_grad, lower=_lower)


def recompute_grad(f):
    """TF 1.15's tf.recompute_grad: a function computing f(*args), whose intermediate values are
    not kept for the backward pass: tf.gradients recomputes them from the block's inputs (its
    outputs and inputs are kept). The block's ops must be pure (no variable updates)."""
    @functools.wraps(f)
    def inner(*args, **kwargs):
        graph = get_default_graph()
        mark = len(graph._ops)
        result = f(*args, **kwargs)
        outs = result if isinstance(result, (list, tuple)) else [result]
        kept = {t for t in outs if isinstance(t, Tensor)}
        for op in graph._ops[mark:]:
            for t in op.outputs:
                if t not in kept:
                    graph.add_to_collection(RECOMPUTE_GRAD_KEY, t)
        return result
    return inner
