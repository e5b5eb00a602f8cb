"""A sequence classifier: BasicLSTMCell(128) over 30 steps of 32 features (tf.nn.dynamic_rnn), the
last output into a softmax over 5 classes; Adam, gradient clipping, and an accuracy fetch."""
import numpy as np
import tensorflow as tf

from _timing import Steps

BATCH, TIME, FEATURES, UNITS, CLASSES, STEPS = 32, 30, 32, 128, 5, 40


def main():
    rng = np.random.RandomState(0)
    seqs = rng.randn(BATCH * 4, TIME, FEATURES).astype(np.float32)
    labels = rng.randint(0, CLASSES, BATCH * 4).astype(np.int32)
    x = tf.placeholder(tf.float32, [None, TIME, FEATURES])
    y = tf.placeholder(tf.int32, [None])
    cell = tf.nn.rnn_cell.BasicLSTMCell(UNITS)
    outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    logits = tf.layers.dense(outputs[:, -1], CLASSES)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    opt = tf.train.AdamOptimizer(1e-3)
    grads, variables = zip(*opt.compute_gradients(loss))
    grads, _ = tf.clip_by_global_norm(grads, 5.0)
    train = opt.apply_gradients(zip(grads, variables))
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.cast(tf.argmax(logits, 1), tf.int32), y), tf.float32))
    steps = Steps()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(STEPS):
            j = (i % 4) * BATCH
            feed = {x: seqs[j:j + BATCH], y: labels[j:j + BATCH]}
            value = steps.run(lambda: sess.run([train, loss], feed)[1])
        acc = sess.run(accuracy, {x: seqs, y: labels})
    steps.report(loss=float(value), accuracy=float(acc))


if __name__ == "__main__":
    main()
