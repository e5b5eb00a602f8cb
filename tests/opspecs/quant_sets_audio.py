"""Fake quantization, tf.sets and tf.audio (issue 37): dtype/shape rules and gradients here; values against
TF 1.15 in tests/api/test_core_names.py (family quant_sets)."""
import numpy as np

from opspecs import OpSpec

R = np.random.RandomState(4)
X = (R.randn(4, 3) * 3).astype(np.float32)


def _fq(tf, x):
    x32 = tf.cast(x, tf.float32)
    return tf.cast(tf.quantization.fake_quant_with_min_max_args(x32, -2.0, 2.0) * 0.5
                   + tf.quantization.fake_quant_with_min_max_vars(x32, -1.5, 2.5)
                   + tf.quantization.fake_quant_with_min_max_vars_per_channel(x32, [-1.0, -2.0, -3.0],
                                                                              [1.0, 2.0, 3.0]), tf.float64)


SPECS = [
    OpSpec("fake_quant", _fq, [X.astype(np.float64)]),
    OpSpec("fake_quant_gradients", lambda tf, g: [
        tf.quantization.fake_quant_with_min_max_args_gradient(g, g * 2.0),
        *tf.quantization.fake_quant_with_min_max_vars_gradient(g, g * 3.0, -1.0, 1.0),
        *tf.quantization.fake_quant_with_min_max_vars_per_channel_gradient(g, g, [-1.0] * 3, [1.0] * 3)], [X]),
    OpSpec("sets", lambda tf, a: [tf.sets.union(a, a[::-1]).values,
                                  tf.sets.size(tf.SparseTensor([[0, 0], [1, 1]], a[0], [2, 2]))],
           [np.array([[1, 2], [3, 3]], np.int32)], lambda a: [np.array([1, 2, 3, 1, 2, 3], np.int32),
                                                             np.array([1, 1], np.int32)]),
    OpSpec("wav", lambda tf, x: tf.audio.decode_wav(tf.audio.encode_wav(x, 8000))[0], [X[:, :2] / 8.0],
           lambda x: np.round(x * 32768) / 32768, atol=1e-4),
]

# piecewise constant: finite differences see 0; TF's straight-through gradients are checked against TF's
# recorded numbers in tests/api/test_core_names.py
GRAD_EXEMPT = {t: "straight-through gradient (TF's), checked against TF 1.15 in test_core_names.py"
               for t in ("FakeQuantWithMinMaxArgs", "FakeQuantWithMinMaxVars", "FakeQuantWithMinMaxVarsPerChannel")}
GRAD_EXEMPT["StraightThrough"] = ("quantize_and_dequantize's identity gradient (TF 1.15's), checked against TF "
                                  "in test_numeric_edges.py and the diff corpus")
SPECS += [OpSpec("quantize_and_dequantize", lambda tf, x: tf.quantization.quantize_and_dequantize(
    x, -1.0, 1.0, range_given=True), [np.linspace(-1, 1, 7).astype(np.float32)],
    lambda x: np.round(x * 127) / 127)]


def _sparse_round_trip(tf, v):
    sp = tf.SparseTensor([[0, 1], [1, 0], [1, 2]], v, [2, 3])
    back = tf.deserialize_many_sparse(tf.serialize_many_sparse(sp), tf.float32, rank=2)
    return [back.indices, back.values, tf.serialize_sparse(sp)]


SPECS += [OpSpec("sparse_serialization", _sparse_round_trip, [np.array([1.5, -2.0, 3.0], np.float32)])]


SPECS += [
    OpSpec("is_jpeg", lambda tf, x: tf.image.is_jpeg(tf.image.encode_png(tf.cast(x, tf.uint8))),
           [np.zeros((2, 2, 3), np.float32)], lambda x: np.bool_(False)),
    OpSpec("nms_with_scores", lambda tf, b: tf.image.non_max_suppression_with_scores(b, [0.9, 0.8], 2, 0.5)[0],
           [np.array([[0, 0, 1, 1], [0, 0, 1, 1.05]], np.float32)], lambda b: np.array([0], np.int32)),
]

SPECS += [
    OpSpec("searchsorted", lambda tf, s: [tf.searchsorted(s, [[2.0, 9.0]]), tf.searchsorted(s, [[2.0]], side="right")],
           [np.array([[1.0, 2.0, 3.0]], np.float32)], lambda s: [np.array([[1, 3]], np.int32),
                                                                np.array([[2]], np.int32)]),
    OpSpec("decode_compressed", lambda tf, x: tf.io.decode_compressed(tf.as_string(x)),
           [np.array([1], np.int32)]),
]
