"""tf.image.psnr, ssim and ssim_multiscale as TF 1.15's image_ops_impl.py builds them (a Gaussian 11x11
window, depthwise and VALID; MS-SSIM over 5 scales of 2x2 average pooling), from graph ops."""
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import get_default_graph
from tinyflow.ops.core import math_ops as M
from tinyflow.ops.core.array_ops import pad, reshape, stack
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.conv_ops import depthwise_conv2d
from tinyflow.ops.pooling_ops import avg_pool
from tinyflow.api.image_adjust import convert_image_dtype

__all__ = ["psnr", "ssim", "ssim_multiscale"]

_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def _prepare(a, b, max_val, names=("a", "b")):
    a, b = convert_to_tensor(a, name=names[0]), convert_to_tensor(b, name=names[1])
    if a.shape.ndims is not None and a.shape.ndims < 3:
        raise ValueError("Shape must be at least rank 3 but is rank %d for %s" % (a.shape.ndims, a.name))
    if not a.shape.is_compatible_with(b.shape):
        raise ValueError("Shapes %s and %s are incompatible (%s, %s)" % (a.shape, b.shape, a.name, b.name))
    max_val = convert_image_dtype(M.cast(max_val, a.dtype), dt.float32)
    return convert_image_dtype(a, dt.float32), convert_image_dtype(b, dt.float32), max_val


def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio (dB) of each image of a and b (the last three axes)."""
    with get_default_graph().name_scope(name or "PSNR"):
        a, b, max_val = _prepare(a, b, max_val)
        mse = M.reduce_mean(M.squared_difference(a, b), [-3, -2, -1])
        ln10 = M.log(M.cast(10.0, dt.float32))
        return M.subtract(M.divide(M.multiply(M.cast(20.0, dt.float32), M.log(max_val)), ln10),
                          M.multiply(M.cast(np.float32(10 / np.log(10)), dt.float32), M.log(mse)), name="psnr")


def _gauss(size, sigma, channels):
    coords = np.arange(size, dtype=np.float32) - np.float32(size - 1) / 2
    g = np.square(coords) * np.float32(-0.5 / np.square(np.float32(sigma)))
    g = (g[None, :] + g[:, None]).reshape(-1)
    g = np.exp(g - g.max())
    g = (g / g.sum()).astype(np.float32).reshape(size, size, 1, 1)
    return np.tile(g, [1, 1, channels, 1])


def _ssim_per_channel(x, y, max_val, filter_size, filter_sigma, k1, k2):
    shape = x.shape.as_list()
    if None in shape[-3:]:
        raise ValueError("ssim needs the image size and channels of %s known, got %s" % (x.name, x.shape))
    if shape[-3] < filter_size or shape[-2] < filter_size:
        raise ValueError("The images %s are smaller than the filter size %d" % (x.shape, filter_size))
    kernel = _gauss(filter_size, filter_sigma, shape[-1])

    def reducer(v):
        flat = reshape(v, [-1] + shape[-3:]) if len(shape) != 4 else v
        out = depthwise_conv2d(flat, kernel, strides=[1, 1, 1, 1], padding="VALID")
        return out if len(shape) == 4 else reshape(out, [-1 if d is None else d for d in shape[:-3]]
                                                     + out.shape.as_list()[1:])
    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    mean0, mean1 = reducer(x), reducer(y)
    num0 = mean0 * mean1 * 2.0
    den0 = M.square(mean0) + M.square(mean1)
    luminance = (num0 + c1) / (den0 + c1)
    num1 = reducer(x * y) * 2.0
    den1 = reducer(M.square(x) + M.square(y))
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    return M.reduce_mean(luminance * cs, [-3, -2]), M.reduce_mean(cs, [-3, -2])


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
    """The structural similarity of each image pair (the mean over channels), TF's Gaussian window."""
    with get_default_graph().name_scope("SSIM"):
        x, y, max_val = _prepare(img1, img2, max_val, ("img1", "img2"))
        return M.reduce_mean(_ssim_per_channel(x, y, max_val, filter_size, filter_sigma, k1, k2)[0], [-1])


def ssim_multiscale(img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11, filter_sigma=1.5,
                    k1=0.01, k2=0.03):
    """MS-SSIM: the contrast-structure terms of len(power_factors) scales (2x2 average pooling, odd sizes
    padded symmetrically) and the SSIM of the last, weighted geometrically."""
    from tinyflow.ops.nn_ops import relu
    with get_default_graph().name_scope("MS-SSIM"):
        x, y, max_val = _prepare(img1, img2, max_val, ("img1", "img2"))
        head, mcs = x.shape.as_list()[:-3], []
        if None in x.shape.as_list()[-3:]:
            raise ValueError("ssim_multiscale needs the image size and channels of %s known" % x.name)
        for k in range(len(power_factors)):
            with get_default_graph().name_scope("Scale%d" % k):
                if k > 0:
                    tail = x.shape.as_list()[-3:]
                    flat = [reshape(v, [-1] + tail) for v in (x, y)]
                    if tail[0] % 2 or tail[1] % 2:
                        flat = [pad(v, [[0, 0], [0, tail[0] % 2], [0, tail[1] % 2], [0, 0]], mode="SYMMETRIC")
                                for v in flat]
                    x, y = [avg_pool(v, [1, 2, 2, 1], [1, 2, 2, 1], "VALID") for v in flat]
                    x, y = [reshape(v, [-1 if d is None else d for d in head] + v.shape.as_list()[1:])
                            for v in (x, y)]
                ssim_pc, cs = _ssim_per_channel(x, y, max_val, filter_size, filter_sigma, k1, k2)
                mcs.append(relu(cs))
        mcs.pop()
        values = stack(mcs + [relu(ssim_pc)], axis=-1)
        return M.reduce_mean(M.reduce_prod(M.pow(values, np.array(power_factors, np.float32)), [-1]), [-1])
