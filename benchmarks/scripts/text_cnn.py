"""A text CNN for sentence classification (Kim 2014, the well-known TF1 tutorial): embeddings
[seq 56, 128] as a one-channel image, filters 3/4/5 x 128 spanning the embedding (VALID), max-pool
over time, dropout, softmax over 2 classes, L2 on the output layer; Adam."""
import numpy as np
import tensorflow as tf

from _timing import Steps

BATCH, SEQ, VOCAB, EMB, FILTERS, STEPS = 64, 56, 5000, 128, 128, 30


def main():
    rng = np.random.RandomState(0)
    words = rng.randint(0, VOCAB, (BATCH * 4, SEQ)).astype(np.int32)
    labels = np.eye(2, dtype=np.float32)[rng.randint(0, 2, BATCH * 4)]
    x = tf.placeholder(tf.int32, [None, SEQ])
    y = tf.placeholder(tf.float32, [None, 2])
    keep = tf.placeholder(tf.float32)
    emb = tf.Variable(tf.random_uniform([VOCAB, EMB], -1.0, 1.0))
    h = tf.expand_dims(tf.nn.embedding_lookup(emb, x), -1)
    pooled = []
    for size in (3, 4, 5):
        with tf.name_scope("conv-maxpool-%d" % size):
            w = tf.Variable(tf.truncated_normal([size, EMB, 1, FILTERS], stddev=0.1))
            b = tf.Variable(tf.constant(0.1, shape=[FILTERS]))
            c = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, w, [1, 1, 1, 1], padding="VALID"), b))
            pooled.append(tf.nn.max_pool(c, [1, SEQ - size + 1, 1, 1], [1, 1, 1, 1], padding="VALID"))
    features = tf.nn.dropout(tf.reshape(tf.concat(pooled, 3), [-1, 3 * FILTERS]), keep)
    w_out = tf.get_variable("w_out", [3 * FILTERS, 2], initializer=tf.glorot_uniform_initializer())
    logits = tf.nn.xw_plus_b(features, w_out, tf.Variable(tf.constant(0.1, shape=[2])))
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    loss += 0.1 * tf.nn.l2_loss(w_out)
    train = tf.train.AdamOptimizer(1e-3).minimize(loss)
    steps = Steps()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(STEPS):
            j = (i % 4) * BATCH
            feed = {x: words[j:j + BATCH], y: labels[j:j + BATCH], keep: 0.5}
            value = steps.run(lambda: sess.run([train, loss], feed)[1])
    steps.report(loss=float(value))


if __name__ == "__main__":
    main()
