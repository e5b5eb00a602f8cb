"""An encoder-decoder (translation tutorial style): embeddings, a 3-layer LSTM encoder (dynamic_rnn),
its final state starting a 3-layer LSTM decoder fed the shifted targets (teacher forcing), a vocabulary
projection and a masked sequence loss; Adam with gradient clipping."""
import numpy as np
import tensorflow as tf

from _timing import Steps

BATCH, SRC, TGT, VOCAB, EMB, UNITS, LAYERS, STEPS = 32, 20, 20, 500, 64, 128, 3, 30


def cells():
    return tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(UNITS) for _ in range(LAYERS)])


def main():
    rng = np.random.RandomState(0)
    src = rng.randint(2, VOCAB, (BATCH * 4, SRC)).astype(np.int32)
    tgt = rng.randint(2, VOCAB, (BATCH * 4, TGT)).astype(np.int32)
    lengths = rng.randint(TGT // 2, TGT + 1, BATCH * 4).astype(np.int32)
    enc_in = tf.placeholder(tf.int32, [BATCH, SRC])
    dec_out = tf.placeholder(tf.int32, [BATCH, TGT])
    dec_len = tf.placeholder(tf.int32, [BATCH])
    dec_in = tf.concat([tf.ones([BATCH, 1], tf.int32), dec_out[:, :-1]], 1)   # 1: the GO symbol
    emb_src = tf.get_variable("emb_src", [VOCAB, EMB])
    emb_tgt = tf.get_variable("emb_tgt", [VOCAB, EMB])
    with tf.variable_scope("encoder"):
        _, state = tf.nn.dynamic_rnn(cells(), tf.nn.embedding_lookup(emb_src, enc_in), dtype=tf.float32)
    with tf.variable_scope("decoder"):
        outputs, _ = tf.nn.dynamic_rnn(cells(), tf.nn.embedding_lookup(emb_tgt, dec_in), initial_state=state)
    logits = tf.layers.dense(outputs, VOCAB)
    mask = tf.sequence_mask(dec_len, TGT, dtype=tf.float32)
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=dec_out, logits=logits)
    loss = tf.reduce_sum(xent * mask) / tf.reduce_sum(mask)
    opt = tf.train.AdamOptimizer(1e-3)
    grads, variables = zip(*opt.compute_gradients(loss))
    grads, _ = tf.clip_by_global_norm(grads, 5.0)
    train = opt.apply_gradients(zip(grads, variables))
    steps = Steps()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(STEPS):
            j = (i % 4) * BATCH
            feed = {enc_in: src[j:j + BATCH], dec_out: tgt[j:j + BATCH], dec_len: lengths[j:j + BATCH]}
            value = steps.run(lambda: sess.run([train, loss], feed)[1])
    steps.report(loss=float(value))


if __name__ == "__main__":
    main()
