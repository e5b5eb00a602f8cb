"""The shape-inference pass, and a new pass that uses its result.

passes/infer.py completes every tensor's shape for concrete feed shapes (forward and backward
sweeps over each op's shape rules). The new pass sums the bytes of the activations a fetch set
computes: what a naive executor, keeping every value, would allocate.

    python examples/passes/infer_example.py
"""
import tinyflow as tf
from tinyflow.passes.infer import infer


def activation_bytes(fetches, feed_shapes):
    """A new pass: bytes of every value computed (not fed, not a variable), from inferred shapes."""
    total = 0
    for t, (shape, dtype) in infer(fetches, feed_shapes=feed_shapes).items():
        if t.op.type in ("Placeholder", "VariableV2") or not shape.is_fully_defined():
            continue
        total += shape.num_elements() * dtype.np.itemsize
    return total


def main():
    x = tf.placeholder(tf.float32, [None, 784], name="x")
    h = tf.layers.dense(x, 128, activation=tf.nn.relu)
    logits = tf.layers.dense(h, 10)
    shapes = infer(logits, feed_shapes={x: [64, 784]})
    print("static shape of logits:", logits.shape, "-> inferred for a batch of 64:", shapes[logits][0])
    for batch in (1, 64, 1024):
        print("batch %4d: %d bytes of activations" % (batch, activation_bytes(logits, {x: [batch, 784]})))
    return shapes


if __name__ == "__main__":
    main()
