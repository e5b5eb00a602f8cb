"""Convolutions whose filter covers a whole spatial dimension (a text CNN's [3, emb, 1, n] filter) run
as 1-D convolutions with that dimension folded into the channels: the forward value and both gradients
must be the plain convolution's, for either spanned dimension, both data formats, strides and
dilation in the other dimension. References are float64 numpy sums (tests/opspecs/nn.py)."""
import numpy as np
import pytest

import tinyflow as tf

from opspecs.nn import np_conv, np_conv_transpose, np_pads

R = np.random.RandomState(4)


def np_conv_filter_grad(x, dy, kshape, s, padding):
    """d(sum(np_conv(x, w) * dy)) / dw for an NHWC x and HWIO filter shape kshape."""
    kh, kw = kshape[:2]
    t, _, oh = np_pads(x.shape[1], kh, s[0], 1, padding)
    lft, _, ow = np_pads(x.shape[2], kw, s[1], 1, padding)
    xp = np.pad(x.astype(np.float64), [(0, 0), (t, kh), (lft, kw), (0, 0)])
    dw = np.zeros(kshape)
    for a in range(kh):
        for c in range(kw):
            patch = xp[:, a:a + s[0] * oh:s[0], c:c + s[1] * ow:s[1]]
            dw[a, c] = np.einsum("nijc,nijo->co", patch, dy)
    return dw


CASES = [  # x (NHWC), filter, strides, padding: each filter covers all of H or all of W
    ((2, 7, 6, 3), (3, 6, 3, 4), (1, 1), "VALID"),      # text CNN: the filter spans the width
    ((2, 7, 6, 1), (4, 6, 1, 5), (2, 1), "VALID"),      # ... with a stride along the sequence
    ((2, 6, 6, 2), (2, 6, 2, 3), (1, 6), "SAME"),       # SAME with one output column pads nothing
    ((2, 5, 7, 3), (5, 3, 3, 4), (1, 2), "VALID"),      # the filter spans the height
    ((1, 4, 4, 2), (4, 4, 2, 3), (1, 1), "VALID"),      # both: a dense layer
]


@pytest.mark.parametrize("nchw", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["NHWC", "NCHW"])
@pytest.mark.parametrize("xs,ws,s,padding", [CASES[0]] + [pytest.param(*c, marks=pytest.mark.slow) for c in CASES[1:]])
def test_spanning_filter_conv_and_gradients(xs, ws, s, padding, nchw):
    x, w = R.randn(*xs).astype(np.float32), R.randn(*ws).astype(np.float32)
    want = np_conv(x, w, s, padding)
    dy = R.randn(*want.shape).astype(np.float32)
    to = (lambda a: np.transpose(a, (0, 3, 1, 2))) if nchw else (lambda a: a)
    fmt = "NCHW" if nchw else "NHWC"
    strides = [1, 1] + list(s) if nchw else [1] + list(s) + [1]
    xt, wt = tf.constant(to(x)), tf.constant(w)
    y = tf.nn.conv2d(xt, wt, strides, padding, data_format=fmt)
    dx, dw = tf.gradients(y, [xt, wt], grad_ys=tf.constant(to(dy)))
    with tf.Session() as sess:
        got_y, got_dx, got_dw = sess.run([y, dx, dw])
    np.testing.assert_allclose(got_y, to(want), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_dx, to(np_conv_transpose(dy, w, xs, s, padding)), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_dw, np_conv_filter_grad(x, dy, ws, s, padding), rtol=1e-5, atol=1e-5)


@pytest.mark.slow
def test_spanning_filter_with_dilation_in_the_other_dimension():
    x, w = R.randn(2, 9, 5, 2).astype(np.float32), R.randn(3, 5, 2, 3).astype(np.float32)
    xt, wt = tf.constant(x), tf.constant(w)
    y = tf.nn.conv2d(xt, wt, [1, 1, 1, 1], "VALID", dilations=[1, 2, 1, 1])
    w_dilated = np.zeros((5, 5, 2, 3), np.float32)
    w_dilated[::2] = w
    dy = R.randn(2, 5, 1, 3).astype(np.float32)
    dx = tf.gradients(y, xt, grad_ys=tf.constant(dy))[0]
    with tf.Session() as sess:
        got_y, got_dx = sess.run([y, dx])
    np.testing.assert_allclose(got_y, np_conv(x, w_dilated, (1, 1), "VALID"), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_dx, np_conv_transpose(dy, w_dilated, x.shape, (1, 1), "VALID"), rtol=1e-5,
                               atol=1e-5)


def test_a_spanning_forward_is_a_convolution_only_where_convolutions_run_on_eigen():
    """The forward of a spanning filter lowers as a matmul, except in a fetch set whose convolutions run
    on XLA's own kernels (a training step: lower/compiler_options.py), where a 1-D convolution is
    faster (a text CNN's step 66 -> 38 ms); both give the convolution's values."""
    x, w = R.randn(2, 7, 6, 3).astype(np.float32), R.randn(3, 6, 3, 4).astype(np.float32)
    xt, wt = tf.placeholder(tf.float32, x.shape), tf.placeholder(tf.float32, w.shape)
    y = tf.nn.conv2d(xt, wt, [1, 1, 1, 1], "VALID", name="span")
    dw = tf.gradients(tf.reduce_sum(y), wt)[0]
    feed = {xt: x, wt: w}
    with tf.Session() as sess:
        alone, trained = sess.run(y, feed), sess.run([y, dw], feed)[0]
        forward_hlo, step_hlo = sess.lowered(y, feed).hlo, sess.lowered([y, dw], feed).hlo
    for got in (alone, trained):
        np.testing.assert_allclose(got, np_conv(x, w, (1, 1), "VALID"), rtol=1e-5, atol=1e-5)
    assert "span/dot_general" in forward_hlo and "span/conv_general_dilated" not in forward_hlo
    assert "span/conv_general_dilated" in step_hlo and "span/dot_general" not in step_hlo
    # what `.jaxpr` prints is what was compiled: traced in the same scope
    with tf.Session() as sess:
        forward_jaxpr, step_jaxpr = str(sess.lowered(y, feed).jaxpr), str(sess.lowered([y, dw], feed).jaxpr)
    assert "dot_general" in forward_jaxpr and "conv_general_dilated" not in forward_jaxpr
    assert "conv_general_dilated" in step_jaxpr and "dot_general" not in step_jaxpr
