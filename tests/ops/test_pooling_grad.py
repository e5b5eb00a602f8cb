"""Pooling gradients bit for bit as TF 1.15's CPU kernels (tests/fixtures/pooling/pooling.npz, written
by tests/fixtures/pooling/make.py): MaxPoolGrad gives each window's gradient to its FIRST maximum
(row-major), MaxPool3DGrad to every element within 1e-5 of the maximum, AvgPoolGrad/AvgPool3DGrad
multiply by T(1 / count); overlapping windows add up in TF's order. Inputs are full of ties and the
upstream gradients span 2**-12..2**12, so a different tie rule or summation order shows."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf

from paths import TESTS

_DIR = os.path.join(TESTS, "fixtures", "pooling")
_CASES = json.load(open(os.path.join(_DIR, "pooling.json")))["cases"]
_ARRAYS = np.load(os.path.join(_DIR, "pooling.npz"))
# the fast subset (python -m pytest -m "not slow") keeps one case of each kind
_FAST = {"max_2x2s2_same_odd", "max_3x3s2_same", "avg_3x3s2_same", "max3d_2s2_valid", "avg3d_3s2_same"}


def _pool(case, x, nchw=False):
    nd = len(case["ksize"])
    full = lambda v: [1, 1] + v if nchw else [1] + v + [1]  # noqa: E731
    fmt = {(2, False): "NHWC", (2, True): "NCHW", (3, False): "NDHWC", (3, True): "NCDHW"}[nd, nchw]
    fn = {(2, "max"): tf.nn.max_pool, (2, "avg"): tf.nn.avg_pool,
          (3, "max"): tf.nn.max_pool3d, (3, "avg"): tf.nn.avg_pool3d}[nd, case["op"]]
    return fn(x, full(case["ksize"]), full(case["strides"]), case["padding"], data_format=fmt)


def _bits(a):
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


@pytest.mark.parametrize("case", [pytest.param(c, marks=() if c["name"] in _FAST else pytest.mark.slow)
                                  for c in _CASES], ids=[c["name"] for c in _CASES])
def test_pool_gradient_is_tf_bit_for_bit(case):
    name = case["name"]
    x, g, want_y, want = (_ARRAYS[name + "/" + k] for k in ("x", "g", "y", "dx"))
    xt = tf.constant(x)
    y = _pool(case, xt)
    dx = tf.gradients(y, xt, grad_ys=tf.constant(g))[0]
    assert dx.op.type == case["grad_op"]
    with tf.Session() as sess:
        got_y, got = sess.run([y, dx])
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(_bits(got), _bits(want))
    if case["op"] == "max":
        np.testing.assert_array_equal(got_y, want_y)
    else:
        tol = 2e-3 if x.dtype == np.float16 else 1e-6
        np.testing.assert_allclose(got_y, want_y, rtol=tol, atol=tol)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["max_3x3s2_same", "avg_2x3s3x1_same", "max3d_3s2_same", "avg3d_3s1_same"])
def test_channels_first_gradient_is_the_same_bits(name):
    case = next(c for c in _CASES if c["name"] == name)
    x, g, want = (_ARRAYS[name + "/" + k] for k in ("x", "g", "dx"))
    first = lambda a: np.moveaxis(a, -1, 1)  # noqa: E731
    xt = tf.constant(first(x))
    dx = tf.gradients(_pool(case, xt, nchw=True), xt, grad_ys=tf.constant(first(g)))[0]
    with tf.Session() as sess:
        np.testing.assert_array_equal(_bits(sess.run(dx)), _bits(first(want)))


@pytest.mark.slow
def test_max_pool_gradient_never_goes_to_the_padding():
    # every real element is -inf: the first real one still takes the gradient, as in TF's scan
    x = tf.constant(np.full((1, 3, 3, 1), -np.inf, np.float32))
    dx = tf.gradients(tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"), x)[0]
    got = tf.Session().run(dx)[0, :, :, 0]
    np.testing.assert_array_equal(got, [[1, 0, 1], [0, 0, 0], [1, 0, 1]])


def test_pool3d_shapes_and_errors():
    x = tf.placeholder(tf.float32, [None, 5, 6, 7, 2])
    assert tf.nn.max_pool3d(x, [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "SAME").shape.as_list() == [None, 3, 3, 4, 2]
    assert tf.nn.avg_pool3d(x, [1, 3, 3, 3, 1], [1, 1, 2, 1, 1], "VALID").shape.as_list() == [None, 3, 2, 5, 2]
    with pytest.raises(ValueError, match="data_format"):
        tf.nn.max_pool3d(x, [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "SAME", data_format="NHWC")
    with pytest.raises(ValueError):
        tf.nn.max_pool3d(tf.placeholder(tf.float32, [2, 3, 4, 5]), [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "SAME")


def test_first_max_of_tiling_windows_is_the_scan():
    """Windows that tile the input (a text CNN's max over time) take the first maximum by two
    reductions instead of TF's scan: the same index with ties, NaNs (first or later), infinities."""
    import jax
    from tinyflow.ops import pooling_ops as P
    rng = np.random.RandomState(0)
    x = rng.randint(0, 3, (2, 12, 6, 3)).astype(np.float32)
    x[0, 0, 0, 0], x[0, 5, 1, 1], x[1, 3, 3, 2], x[1, 7, 4, 0] = np.nan, np.nan, -np.inf, np.inf
    x[1, :, 5, :] = -np.inf
    for ksize, strides, padding in [([12, 1], [1, 1], "VALID"), ([3, 3], [3, 3], "VALID"), ([5, 2], [5, 2], "VALID")]:
        attrs = dict(ksize=[1] + ksize + [1], strides=[1] + strides + [1], padding=padding, data_format="NHWC")
        geo = P.pool_geometry(x.shape, attrs)
        for data in (x, np.nan_to_num(x, posinf=9, neginf=-9).astype(np.int32)):
            block, scan = jax.jit(lambda v: (P._block_first_max(v, geo), P._scan_first_max(v, geo)))(data)
            np.testing.assert_array_equal(np.asarray(block), np.asarray(scan))
