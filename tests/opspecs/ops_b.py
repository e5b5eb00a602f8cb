"""Issue 37's sqrtm/logm, extract_volume_patches, quantized ops, fractional pooling, extract_glimpse,
unicode_script and sparse cross: dtype/shape rules, gradients by finite differences, small values against
numpy here; TF 1.15's own numbers in tests/api/test_ops_b_names.py."""
import numpy as np

from opspecs import OpSpec

R = np.random.RandomState(11)
A = R.randn(3, 3)
SPD = A @ A.T + 3 * np.eye(3)
IMG = R.rand(1, 5, 5, 2).astype(np.float32)


def _sqrtm(a):
    w, v = np.linalg.eigh(a)
    return v @ np.diag(np.sqrt(w)) @ v.T


def _logm_real(a):
    w, v = np.linalg.eig(a)
    return np.real(v @ np.diag(np.log(w)) @ np.linalg.inv(v))


def _quantized(tf, x):
    q = tf.quantize(x, -1.0, 6.0, tf.quint8)
    c = tf.quantized_concat(3, [q.output, q.output], [q.output_min, -2.0], [q.output_max, 6.0])
    pools = [tf.nn.quantized_avg_pool(q.output, q.output_min, q.output_max, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"),
             tf.nn.quantized_max_pool(q.output, q.output_min, q.output_max, [1, 2, 2, 1], [1, 1, 1, 1], "VALID"),
             tf.nn.quantized_relu_x(q.output, 3.0, q.output_min, q.output_max),
             tf.nn.quantized_conv2d(q.output, tf.quantize(tf.ones([2, 2, 2, 3]), 0.0, 2.0, tf.quint8).output,
                                    q.output_min, q.output_max, 0.0, 2.0, [1, 1, 1, 1], "SAME")]
    return [tf.dequantize(q.output, q.output_min, q.output_max), c.output] + [p[0] for p in pools]


def _strings(tf, img):   # the glimpse: (1, 1) is its centre, its corner (0, -0.5) truncated to (0, 0)
    cross = tf.sparse.cross([tf.constant([["a"], ["b"]]), tf.constant([[1, 2], [3, 4]], tf.int64)])
    hashed = tf.sparse.cross_hashed([tf.constant([["a"], ["b"]])], num_buckets=10)
    return [tf.image.extract_glimpse(img, [2, 3], [[1.0, 1.0]], centered=False, normalized=False),
            tf.strings.unicode_script([97, 32, 0x416, 0x4E00]), cross.dense_shape, hashed.dense_shape]


SPECS = [
    OpSpec("sqrtm", lambda tf, a: tf.linalg.sqrtm(a), [SPD], _sqrtm, grad=True, rtol=1e-6),
    OpSpec("logm", lambda tf, a: tf.real(tf.linalg.logm(tf.cast(a, tf.complex128))), [SPD], _logm_real, rtol=1e-6),
    OpSpec("volume_patches", lambda tf, v: tf.extract_volume_patches(v, [1, 2, 2, 2, 1], [1, 1, 2, 1, 1], "SAME"),
           [R.randn(1, 3, 3, 2, 2)], grad=True),
    OpSpec("quantized", _quantized, [IMG * 6 - 1]),
    OpSpec("fractional_pools", lambda tf, x: tf.concat([   # one output: the gradient check takes the first
        tf.reshape(tf.nn.fractional_max_pool(x, [1.0, 1.5, 1.5, 1.0], True, True, deterministic=True, seed=1)[0], [-1]),
        tf.reshape(tf.nn.fractional_avg_pool(x, [1.0, 1.3, 1.7, 1.0], False, False, deterministic=True, seed=2)[0],
                   [-1])], 0), [R.randn(1, 5, 6, 2)], grad=True),
    OpSpec("glimpse_script_cross", _strings, [IMG], lambda img: [
        img[:, 0:2, 0:3], np.array([25, 0, 8, 17], np.int32), np.array([2, 2], np.int64), np.array([2, 1], np.int64)]),
]
