"""tf.nn's pooling and convolution variants the differential corpus (spec_nn.py) found wrong, against
numpy references: max_pool_v2/avg_pool_v2 and tf.nn.pool of every rank (pool dilated as TF dilates it),
3-D convolution and conv_transpose, the patch extractors (values copied: 0 * inf is not NaN), the
second-order gradients of the pools (TF's MaxPoolGradGrad) and of conv3d's filter gradient, and
scale_regularization_loss (a sum)."""
import itertools

import numpy as np
import pytest

import tinyflow as tf

R = np.random.RandomState(7)
INF, NAN = np.inf, np.nan


def np_pool(x, k, s, d, how):
    """VALID pooling of channels-last x: window k, strides s, dilation d (float64)."""
    nd = len(k)
    outs = [(n - (kk - 1) * dd - 1) // ss + 1 for n, kk, ss, dd in zip(x.shape[1:-1], k, s, d)]
    views = [x[(slice(None),) + tuple(slice(o * dd, o * dd + ss * (m - 1) + 1, ss)
                                      for o, dd, ss, m in zip(off, d, s, outs)) + (slice(None),)]
             for off in itertools.product(*(range(kk) for kk in k))]
    assert all(v.shape[1:1 + nd] == tuple(outs) for v in views)
    return np.max(views, 0) if how == "max" else np.mean(views, 0)


def np_patches(x, k, s, r):
    """VALID patches of channels-last x in TF's (window..., channel) order."""
    outs = [(n - (kk - 1) * rr - 1) // ss + 1 for n, kk, ss, rr in zip(x.shape[1:-1], k, s, r)]
    views = [x[(slice(None),) + tuple(slice(o * rr, o * rr + ss * (m - 1) + 1, ss)
                                      for o, rr, ss, m in zip(off, r, s, outs)) + (slice(None),)]
             for off in itertools.product(*(range(kk) for kk in k))]
    return np.stack(views, -2).reshape(views[0].shape[:-1] + (-1,))


def test_pools_of_every_rank_convolution_3d_patches_and_losses():
    x3, x4, x5 = R.randn(2, 7, 3), R.randn(2, 5, 6, 2), R.randn(1, 4, 5, 6, 2)
    w5 = R.randn(2, 1, 2, 2, 3)
    img = R.randn(2, 5, 6, 2)
    img[0, 1, 2, 0], img[1, 3, 4, 1], img[0, 4, 0, 1] = INF, -INF, NAN
    vol = R.randn(1, 3, 4, 5, 2)
    vol[0, 1, 2, 3, 0] = INF
    t = {
        "max_v2_1d": tf.nn.max_pool_v2(x3, 3, 2, "VALID"),
        "avg_v2_3d": tf.nn.avg_pool_v2(x5, [2, 2, 3], [1, 2, 1], "VALID"),
        "pool_max_dil": tf.nn.pool(x3, [2], "MAX", "VALID", dilation_rate=[3]),
        "pool_avg_dil": tf.nn.pool(x4, [2, 2], "AVG", "VALID", dilation_rate=[2, 1]),
        "pool_max_3d": tf.nn.pool(x5, [2, 2, 2], "MAX", "VALID", strides=[2, 1, 2]),
        "conv3d_dil": tf.nn.convolution(x5, w5, "VALID", dilation_rate=[1, 2, 2]),
        "image_patches": tf.image.extract_patches(img, [1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 2, 1], "VALID"),
        "volume_patches": tf.extract_volume_patches(vol, [1, 2, 2, 3, 1], [1, 1, 2, 1, 1], "VALID"),
        "int_patches": tf.extract_image_patches(tf.constant(np.arange(20, dtype=np.int32).reshape(1, 4, 5, 1)),
                                                [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "SAME"),
        "scale_reg": tf.nn.scale_regularization_loss(tf.constant([[1.0, 2.0], [3.0, 4.5]])),
    }
    dy = R.randn(1, 3, 2, 2, 3)
    t["transpose_3d"] = tf.nn.conv_transpose(dy, R.randn(2, 2, 2, 2, 3), [1, 4, 3, 5, 2], [1, 1, 2], "VALID")
    with tf.Session() as s:
        got = s.run(t)
    np.testing.assert_allclose(got["max_v2_1d"], np_pool(x3, [3], [2], [1], "max"))
    np.testing.assert_allclose(got["avg_v2_3d"], np_pool(x5, [2, 2, 3], [1, 2, 1], [1, 1, 1], "avg"))
    np.testing.assert_allclose(got["pool_max_dil"], np_pool(x3, [2], [1], [3], "max"))
    np.testing.assert_allclose(got["pool_avg_dil"], np_pool(x4, [2, 2], [1, 1], [2, 1], "avg"))
    np.testing.assert_allclose(got["pool_max_3d"], np_pool(x5, [2, 2, 2], [2, 1, 2], [1, 1, 1], "max"))
    patches = np_patches(x5, w5.shape[:3], [1, 1, 1], [1, 2, 2])   # (window..., in) order = w5's rows
    np.testing.assert_allclose(got["conv3d_dil"], patches @ w5.reshape(-1, 3), rtol=1e-10)
    np.testing.assert_array_equal(got["image_patches"], np_patches(img, [2, 3], [2, 1], [1, 2]))
    np.testing.assert_array_equal(got["volume_patches"], np_patches(vol, [2, 2, 3], [1, 2, 1], [1, 1, 1]))
    ints = np.pad(np.arange(20).reshape(1, 4, 5, 1), [(0, 0), (0, 0), (0, 1), (0, 0)])   # SAME: 1 column after
    np.testing.assert_array_equal(got["int_patches"], np_patches(ints, [2, 2], [2, 2], [1, 1]))
    assert got["scale_reg"] == 10.5
    assert got["transpose_3d"].shape == (1, 4, 3, 5, 2)


def test_pool_refuses_what_tf_refuses():
    x = tf.placeholder(tf.float32, [1, 6, 6, 1])
    for kwargs, msg in (({"padding": "SAME", "dilation_rate": [2, 2]}, "SAME padding is not implemented"),
                        ({"padding": "VALID", "strides": [3, 1]}, "strides > window_shape"),
                        ({"padding": "VALID", "strides": [2, 1], "dilation_rate": [1, 2]}, "in conjunction")):
        with pytest.raises(ValueError, match=msg):
            tf.nn.pool(x, [2, 2], "MAX", **kwargs)


def test_max_pool_grad_grad_takes_the_first_maximum_and_zero_for_nan_windows():
    """TF 1.15's MaxPoolGradGrad / MaxPool3DGradGrad (recorded with the oracle): each output takes the
    upstream value at the first element of its window equal to the pool's max; a window of NaN or -inf
    (whose max is the lowest float) takes 0."""
    x = np.array([[1, 1, 1, 1], [1, 1, NAN, NAN], [-INF, 2, NAN, NAN], [-INF, -INF, NAN, 3]], np.float32)
    g = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1) + 10
    xt, gt = tf.constant(x.reshape(1, 4, 4, 1)), tf.constant(g)
    outs, feed = [], {}
    for pool, xx, gg, k, st, pad in ((tf.nn.max_pool, xt, gt, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
                                     (tf.nn.max_pool, xt, gt, [1, 2, 2, 1], [1, 1, 1, 1], "SAME"),
                                     (tf.nn.max_pool3d, tf.reshape(xt, [1, 1, 4, 4, 1]),
                                      tf.reshape(gt, [1, 1, 4, 4, 1]), [1, 1, 2, 2, 1], [1, 1, 2, 2, 1], "VALID")):
        y = pool(xx, k, st, pad)
        upstream = tf.placeholder(tf.float32, y.shape)
        feed[upstream] = np.zeros(y.shape.as_list(), np.float32)
        first = tf.gradients(y, xx, grad_ys=upstream)[0]
        outs.append(tf.gradients(first, upstream, grad_ys=gg)[0])   # MaxPool(3D)GradGrad
    with tf.Session() as s:
        valid, same, valid3d = s.run(outs, feed)
    np.testing.assert_array_equal(valid.ravel(), [10, 12, 19, 25])
    np.testing.assert_array_equal(valid3d.ravel(), [10, 12, 19, 25])
    np.testing.assert_array_equal(same.reshape(4, 4), [[10, 11, 12, 13], [19, 19, 0, 0], [19, 19, 25, 25],
                                                       [0, 0, 25, 25]])


def test_conv3d_backprop_filter_has_tf_gradients():
    """conv3d_backprop_filter is bilinear in (input, out_backprop): its gradient wrt out_backprop with
    upstream G is conv3d(input, G), wrt input conv3d_backprop_input(G, out_backprop) (TF's rule)."""
    x, dy, gw = R.randn(1, 3, 4, 3, 2), R.randn(1, 2, 1, 3, 3), R.randn(2, 3, 1, 2, 3)
    xt, dyt = tf.constant(x), tf.constant(dy)
    f = tf.nn.conv3d_backprop_filter(xt, [2, 3, 1, 2, 3], dyt, [1, 1, 2, 1, 1], "VALID")
    gx, gdy = tf.gradients(f, [xt, dyt], grad_ys=tf.constant(gw))
    want_gdy = tf.nn.conv3d(xt, tf.constant(gw), [1, 1, 2, 1, 1], "VALID")
    want_gx = tf.nn.conv3d_transpose(dyt, tf.constant(gw), [1, 3, 4, 3, 2], [1, 1, 2, 1, 1], "VALID")
    with tf.Session() as s:
        a, b, c, d, fv = s.run([gx, gdy, want_gx, want_gdy, f])
    np.testing.assert_allclose(a, c, rtol=1e-10)
    np.testing.assert_allclose(b, d, rtol=1e-10)
    # and the filter gradient itself: sum over outputs of dy times the input patch
    patches = np_patches(x, [2, 3, 1], [1, 2, 1], [1, 1, 1])
    np.testing.assert_allclose(fv.reshape(-1, 3), np.einsum("nabcp,nabco->po", patches, dy), rtol=1e-10)
