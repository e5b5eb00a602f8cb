"""The prune pass, and a new pass written on top of it.

passes/prune.py turns a fetch set into the ordered list of ops that compute it (a Subgraph). A pass
is a plain function over that list. Here the new pass finds the *dead* ops of a graph: those no
fetch set of interest needs.

    python examples/passes/prune_example.py
"""
import tinyflow as tf
from tinyflow.passes.prune import prune


def dead_ops(graph, fetches):
    """A new pass: the ops of `graph` that computing `fetches` never runs."""
    live = set(prune(fetches).ops)
    return [op for op in graph.get_operations() if op not in live]


def main():
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    w = tf.Variable(tf.ones([4, 2]), name="w")
    y = tf.matmul(x, w, name="y")
    unused = tf.reduce_sum(tf.square(x), name="unused")  # noqa: F841 (built, never fetched)
    sub = prune([y], feeds=[x])
    print("ops that compute y:", [op.name for op in sub.ops])
    print("dead ops:", [op.name for op in dead_ops(tf.get_default_graph(), [y])])
    return sub


if __name__ == "__main__":
    main()
