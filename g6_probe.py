import numpy as np
import tinyflow as tf
n = tf.placeholder(tf.int32, [])
x = tf.placeholder(tf.float32, [2, 1])
def body(i, seq):
    nxt = tf.reduce_mean(seq, axis=1, keepdims=True) * 0.5 + tf.cast(i, tf.float32)
    return i + 1, tf.concat([seq, nxt], 1)
i, seq = tf.while_loop(lambda i, s: i < n, body, [tf.constant(0), x],
                       shape_invariants=[tf.TensorShape([]), tf.TensorShape([2, None])])
print(seq.shape)
# a key/value cache that grows: attention of the newest query over all the keys so far
w = tf.constant(np.arange(9, dtype=np.float32).reshape(3, 3) / 10)
def body2(t, cache, out):
    q = tf.tanh(tf.matmul(out, w))                       # [1, 3]
    cache = tf.concat([cache, q], 0)                     # [t+1, 3]
    att = tf.nn.softmax(tf.matmul(q, cache, transpose_b=True))   # [1, t+1]
    return t + 1, cache, tf.matmul(att, cache) + 0.1
t, cache, out = tf.while_loop(lambda t, c, o: t < 5, body2,
                              [tf.constant(0), tf.zeros([0, 3]), tf.constant([[1., 2., 3.]])],
                              shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, 3]), tf.TensorShape([1, 3])])
with tf.Session() as s:
    print(repr(s.run(seq, {n: 3, x: [[1.], [2.]]})))
    print(repr(s.run(seq, {n: 0, x: [[1.], [2.]]})))
    r = s.run([cache, out])
    print(repr(r[0]), repr(r[1]))
