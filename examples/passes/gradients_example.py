"""The gradients pass, and a new pass that reads the same registry.

tf.gradients (passes/gradients.py) walks the ops between xs and ys in reverse and calls each op's
registered gradient rule, which builds more graph ops. The new pass reports which ops on that
path have which kind of rule: differentiable, "not differentiable" (grad=None), or none at all.

    python examples/passes/gradients_example.py
"""
import numpy as np

import tinyflow as tf
from tinyflow.graph.registry import NOT_SET, get_op_def
from tinyflow.passes.prune import prune


def gradient_rules(ys, xs):
    """A new pass: {op type: 'grad' | 'not differentiable' | 'missing'} for the ops between xs and ys."""
    between = set(prune(ys).ops) - set(prune(xs).ops) if xs else set(prune(ys).ops)
    kinds = {}
    for op in sorted(between, key=lambda o: o.index):
        g = get_op_def(op.type).grad
        kinds[op.type] = "missing" if g is NOT_SET else ("not differentiable" if g is None else "grad")
    return kinds


def main():
    x = tf.placeholder(tf.float64, [3], name="x")
    y = tf.reduce_sum(tf.sin(x) * x)
    dy = tf.gradients(y, x)[0]
    print("rules used:", gradient_rules([y], [x]))
    xv = np.array([0.0, 1.0, 2.0])
    got = tf.Session().run(dy, {x: xv})
    print("dy/dx =", got, " analytic:", np.cos(xv) * xv + np.sin(xv))
    return got, np.cos(xv) * xv + np.sin(xv)


if __name__ == "__main__":
    main()
