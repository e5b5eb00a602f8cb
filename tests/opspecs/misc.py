"""Specs of ops/misc_ops.py: HistogramFixedWidth, Bitcast, EnsureShape and ExtractImagePatches (its
gradient, the shared VjpGrad, against finite differences). TF 1.15's numbers: tests/api/test_core_extra.py."""
import numpy as np

from opspecs import OpSpec

R = np.random.RandomState(5)
V = R.uniform(-1, 6, 30).astype(np.float32)
IMG = R.randn(1, 5, 6, 2).astype(np.float32)


def _np_patches(x, k, s):
    n, h, w, c = x.shape
    rows = [[x[:, i:i + k[0], j:j + k[1], :].reshape(n, -1) for j in range(0, w - k[1] + 1, s[1])]
            for i in range(0, h - k[0] + 1, s[0])]
    return np.stack([np.stack(r, 1) for r in rows], 1)


SPECS = [
    OpSpec("histogram_fixed_width", lambda tf, v: tf.histogram_fixed_width(v, [0.0, 5.0], nbins=4), [V],
           lambda v: np.bincount(np.clip(((np.maximum(v, 0) / 1.25)).astype(int), 0, 3), minlength=4).astype(np.int32)),
    OpSpec("bitcast", lambda tf, v: tf.bitcast(v, tf.int32), [V], lambda v: v.view(np.int32)),
    OpSpec("ensure_shape", lambda tf, v: tf.ensure_shape(v, [None]) * 2.0, [V], lambda v: v * 2, grad=True),
    OpSpec("extract_image_patches", lambda tf, x: tf.extract_image_patches(x, [1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 1, 1],
                                                                           "VALID"),
           [IMG], lambda x: _np_patches(x, (2, 3), (2, 1)), grad=True),
]
EXEMPT = {"SerializeTensor": "host op: TF 1.15's bytes in tests/api/test_core_extra.py",
          "ParseTensor": "host op: tests/api/test_core_extra.py"}
