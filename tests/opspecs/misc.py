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

X3 = R.randn(1, 3, 4, 3, 2).astype(np.float32)
W3 = R.randn(2, 2, 2, 2, 3).astype(np.float32)


def _np_conv3d(x, w):
    kd, kh, kw = w.shape[:3]
    n, d, h, wd, _ = x.shape
    out = np.zeros((n, d - kd + 1, h - kh + 1, wd - kw + 1, w.shape[4]), np.float64)
    for i in range(out.shape[1]):
        for j in range(out.shape[2]):
            for k in range(out.shape[3]):
                out[:, i, j, k] = np.tensordot(x[:, i:i + kd, j:j + kh, k:k + kw], w, 4)
    return out


def _np_conv3d_transpose(y, w, size):
    kd, kh, kw = w.shape[:3]
    out = np.zeros(size, np.float64)
    for i in range(y.shape[1]):
        for j in range(y.shape[2]):
            for k in range(y.shape[3]):
                out[:, i:i + kd, j:j + kh, k:k + kw] += np.tensordot(y[:, i, j, k], w, [[1], [4]])
    return out


def _np_conv3d_filter_grad(x, dy):
    """The gradient of a VALID, stride-1 conv3d w.r.t. its [2, 2, 2, in, out] filter."""
    out = np.zeros((2, 2, 2, x.shape[4], dy.shape[4]), np.float64)
    for a in range(2):
        for b in range(2):
            for c in range(2):
                win = x[:, a:a + dy.shape[1], b:b + dy.shape[2], c:c + dy.shape[3]]
                out[a, b, c] = np.tensordot(win, dy, [[0, 1, 2, 3], [0, 1, 2, 3]])
    return out


SPECS += [
    OpSpec("conv3d", lambda tf, x, w: tf.nn.conv3d(x, w, [1] * 5, "VALID"), [X3, W3], _np_conv3d, grad=True,
           rtol=1e-4, atol=1e-5),
    OpSpec("conv3d_transpose", lambda tf, y, w: tf.nn.conv3d_transpose(y, w, [1, 3, 4, 3, 2], [1] * 5, "VALID"),
           [R.randn(1, 2, 3, 2, 3).astype(np.float32), W3],
           lambda y, w: _np_conv3d_transpose(y, w, (1, 3, 4, 3, 2)), grad=True, rtol=1e-4, atol=1e-5),
    OpSpec("conv3d_backprop_filter_v2",
           lambda tf, x, dy: tf.nn.conv3d_backprop_filter_v2(x, [2, 2, 2, 2, 3], dy, [1] * 5, "VALID"),
           [X3, R.randn(1, 2, 3, 2, 3).astype(np.float32)], _np_conv3d_filter_grad, grad=True,
           rtol=1e-4, atol=1e-5),
    OpSpec("sparse_to_dense", lambda tf, v, d: tf.sparse_to_dense([[0], [2], [3]], [5], v, d),
           [np.array([1.5, -2.0, 0.5], np.float32), np.array(0.25, np.float32)],
           lambda v, d: np.array([v[0], d, v[1], v[2], d]), grad=True),
]
