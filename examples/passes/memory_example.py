"""The memory planner, and a new planning strategy plugged into it.

passes/memory.py computes the liveness of every value a fetch set computes, decides which ops
run in place, and gives each buffer an offset in one arena. A strategy is a function from the
buffers (each with .size, .start, .end) to one offset per buffer; here a first-fit by start step.

    python examples/passes/memory_example.py
"""
import tinyflow as tf
from tinyflow.passes.infer import infer
from tinyflow.passes.memory import plan_memory
from tinyflow.passes.prune import prune


def first_fit(buffers):
    """A new strategy: in order of first use, the lowest offset not overlapping a live buffer."""
    placed, offsets = [], [0] * len(buffers)
    for i in sorted(range(len(buffers)), key=lambda i: buffers[i].start):
        b, off = buffers[i], 0
        for o, p in sorted(((offsets[j], buffers[j]) for j in placed), key=lambda e: e[0]):
            if p.end >= b.start and p.start <= b.end and off < o + p.size and o < off + b.size:
                off = o + p.size
        offsets[i] = off
        placed.append(i)
    return offsets


def main():
    x = tf.placeholder(tf.float32, [None, 256], name="x")
    h = x
    for i in range(4):
        h = tf.nn.relu(tf.layers.dense(h, 256, name="d%d" % i))
    y = tf.reduce_sum(h)
    sub = prune([y], feeds=[x])
    shapes = infer(y, feed_shapes={x: [32, 256]})
    sizes = {t: s.num_elements() * d.np.itemsize for t, (s, d) in shapes.items()}
    for strategy in (None, first_fit):
        plan = plan_memory(sub, sizes, planner=strategy)
        print("%-10s arena %7d bytes, lower bound %7d, naive %7d, overlaps %d" % (
            plan.strategy, plan.planned_bytes, plan.lower_bound_bytes, plan.naive_bytes, len(plan.overlaps())))
    tf.print_graph(y, feed_dict={x: [32, 256]}, plan=True)
    return plan


if __name__ == "__main__":
    main()
