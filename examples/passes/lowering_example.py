"""The compile pipeline stage by stage, and a replacement for one of its stages.

lower/pipeline.py turns a fetch set into one jitted function: prune -> feeds -> state -> plan ->
render -> jit (docs/LOWERING.md walks it). Each stage is a plain function on the previous one's
result, so a stage can be looked at, or swapped, on its own. Here the render stage is replaced by
one that also counts each op's FLOPs in the generated comments (a "cost model" pass), through
`compile_fetch_set(..., render=...)`: the source it returns is the one that is jitted and run.

    python examples/passes/lowering_example.py
"""
import numpy as np

import tinyflow as tf
from tinyflow.lower import jax_backend, pipeline, program, render
from tinyflow.passes import prune, state


def matmul_flops(step):
    """2*m*n*k of a MatMul whose shapes are known, else None (a per-op rule of our own)."""
    if step.op.type != "MatMul":
        return None
    a, b = (t.shape.as_list() for t in step.op.inputs)
    ta, tb = step.op.attrs.get("transpose_a"), step.op.attrs.get("transpose_b")
    m, k = (a[1], a[0]) if ta else (a[0], a[1])
    n = b[0] if tb else b[1]
    return None if None in (m, k, n) else 2 * m * n * k


def render_with_flops(prog):
    """render.render, with '  flops=N' added to the comment of each MatMul line."""
    source, lines = render.render(prog)
    text = source.split("\n")
    for number, step in lines.items():
        flops = matmul_flops(step)
        if flops is not None:
            text[number - 1] += "  flops=%d" % flops
    return "\n".join(text), lines


def main():
    x = tf.placeholder(tf.float32, [8, 4], name="x")
    w = tf.Variable(np.full((4, 3), 0.5, np.float32), name="w")
    y = tf.reduce_sum(tf.matmul(x, w), name="y")
    sub = prune.prune([y], [x])                         # 1. the ops y needs, given x
    prog = program.plan(sub, state.analyze(sub))        # 3-4. one record per op
    print(render_with_flops(prog)[0])                   # 5. our own render, on its own
    low = pipeline.compile_fetch_set([y], [x], render=render_with_flops)   # the pipeline with it
    with tf.Session() as sess:
        sess.run(w.initializer)
        args = jax_backend.example_args(low, sess._values, [np.ones((8, 4), np.float32)])
        _, (value,) = low.call(*args)                   # runs the source render_with_flops made
    print("y =", value)
    return low.source, float(value)


if __name__ == "__main__":
    main()
