"""The image functions of tf.keras.preprocessing.image (Keras-Preprocessing 1.1, TF 1.15's). The affine
warp is scipy.ndimage.affine_transform's (order 0/1 spline, fill modes nearest / constant / reflect /
wrap) written with numpy, so scipy is not needed. PIL (Pillow) is needed only for
files (load_img, flow_from_directory, array_to_img, brightness shifts): without it those raise ImportError.
"""
import numpy as np


def _pil():
    try:
        from PIL import Image, ImageEnhance
    except ImportError:
        raise ImportError("Could not import PIL.Image: image files and brightness shifts need Pillow "
                          "(pip install pillow).")
    return Image, ImageEnhance


# ---- arrays <-> images ---------------------------------------------------------------------------
def array_to_img(x, data_format="channels_last", scale=True, dtype="float32"):
    """A PIL image of a rank-3 array (scaled to 0..255 when `scale`)."""
    Image, _ = _pil()
    x = np.asarray(x, dtype=dtype)
    if x.ndim != 3:
        raise ValueError("Expected image array to have rank 3 (single image). Got array with shape: %s" % (x.shape,))
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError("Invalid data_format: %s" % data_format)
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        x_max = np.max(x)
        if x_max != 0:
            x /= x_max
        x *= 255
    if x.shape[2] in (3, 4):
        return Image.fromarray(x.astype("uint8"), "RGBA" if x.shape[2] == 4 else "RGB")
    if x.shape[2] == 1:
        if np.max(x) > 255:
            return Image.fromarray(x[:, :, 0].astype("int32"), "I")
        return Image.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError("Unsupported channel number: %s" % (x.shape[2],))


def img_to_array(img, data_format="channels_last", dtype="float32"):
    """A rank-3 float array of a PIL image (or anything np.asarray takes)."""
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError("Unknown data_format: %s" % data_format)
    x = np.asarray(img, dtype=dtype)
    if x.ndim == 3:
        return x.transpose(2, 0, 1) if data_format == "channels_first" else x
    if x.ndim == 2:
        return x.reshape((1,) + x.shape) if data_format == "channels_first" else x.reshape(x.shape + (1,))
    raise ValueError("Unsupported image shape: %s" % (x.shape,))


def save_img(path, x, data_format="channels_last", file_format=None, scale=True, **kwargs):
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and file_format in ("jpg", "jpeg"):
        img = img.convert("RGB")
    img.save(path, format=file_format, **kwargs)


_INTERPOLATIONS = {"nearest": 0, "bilinear": 2, "bicubic": 3, "hamming": 5, "box": 4, "lanczos": 1}


def load_img(path, grayscale=False, color_mode="rgb", target_size=None, interpolation="nearest"):
    """A PIL image of the file, converted to color_mode and resized to target_size (height, width)."""
    import io
    Image, _ = _pil()
    if grayscale is True:
        color_mode = "grayscale"
    with open(path, "rb") as f:
        img = Image.open(io.BytesIO(f.read()))
        modes = {"grayscale": ("L", ("L", "I;16", "I")), "rgba": ("RGBA", ("RGBA",)), "rgb": ("RGB", ("RGB",))}
        if color_mode not in modes:
            raise ValueError('color_mode must be "grayscale", "rgb", or "rgba"')
        if img.mode not in modes[color_mode][1]:
            img = img.convert(modes[color_mode][0])
        if target_size is not None and img.size != (target_size[1], target_size[0]):
            if interpolation not in _INTERPOLATIONS:
                raise ValueError("Invalid interpolation method {} specified. Supported methods are {}".format(
                    interpolation, ", ".join(_INTERPOLATIONS)))
            img = img.resize((target_size[1], target_size[0]), _INTERPOLATIONS[interpolation])
        return img


# ---- the affine warp (scipy.ndimage.affine_transform, in numpy) ---------------------------------
def _extend(idx, n, mode):
    """Integer indices outside [0, n) mapped as the fill mode extends the image."""
    if mode == "reflect":     # (d c b a | a b c d | d c b a)
        idx = np.mod(idx, 2 * n)
        return np.where(idx >= n, 2 * n - 1 - idx, idx)
    return np.clip(idx, 0, n - 1)


def _map_coord(c, n, mode):
    """scipy's map_coordinate: 'reflect' folds coordinates back, 'wrap' folds them into [0, n-1] with
    period n - 1 (first and last pixel overlap); 'nearest' clamps; 'constant' is left to the cval mask."""
    if n <= 1:
        return np.zeros_like(c)
    if mode == "wrap":
        sz = n - 1
        low = c < 0
        c = np.where(low, c + sz * (np.trunc(-c / sz) + 1), c)
        return np.where(c > n - 1, c - sz * np.trunc(c / sz), c)
    if mode == "nearest":
        return np.clip(c, 0, n - 1)
    if mode == "reflect":   # half-sample symmetric, folded as scipy folds it (this matters for order 0)
        sz2 = 2 * n
        low = np.where(c < -sz2, sz2 * np.trunc(-c / sz2) + c, c)
        low = np.where(low < -n, low + sz2, -low - 1)
        high = c - sz2 * np.trunc(c / sz2)
        high = np.where(high >= n, sz2 - high - 1, high)
        return np.where(c < 0, low, np.where(c > n - 1, high, c))
    return c


def _warp_channel(img, matrix, offset, order, mode, cval):
    h, w = img.shape
    rows, cols = np.meshgrid(np.arange(h, dtype=np.float64), np.arange(w, dtype=np.float64), indexing="ij")
    r = matrix[0, 0] * rows + matrix[0, 1] * cols + offset[0]
    c = matrix[1, 0] * rows + matrix[1, 1] * cols + offset[1]
    outside = (r < 0) | (r > h - 1) | (c < 0) | (c > w - 1) if mode == "constant" else None
    r, c = _map_coord(r, h, mode), _map_coord(c, w, mode)
    src = img.astype(np.float64)
    if order == 0:
        out = src[_extend(np.floor(r + 0.5).astype(np.int64), h, mode), _extend(np.floor(c + 0.5).astype(np.int64),
                                                                               w, mode)]
    else:
        r0, c0 = np.floor(r), np.floor(c)
        tr, tc = r - r0, c - c0
        r0, c0 = r0.astype(np.int64), c0.astype(np.int64)
        out = 0.
        for dr, wr in ((0, 1 - tr), (1, tr)):
            for dc, wc in ((0, 1 - tc), (1, tc)):
                out = out + wr * wc * src[_extend(r0 + dr, h, mode), _extend(c0 + dc, w, mode)]
    if outside is not None:
        out = np.where(outside, cval, out)
    return out.astype(img.dtype)


def transform_matrix_offset_center(matrix, x, y):
    o_x, o_y = float(x) / 2 + 0.5, float(y) / 2 + 0.5
    offset_matrix = np.array([[1, 0, o_x], [0, 1, o_y], [0, 0, 1]])
    reset_matrix = np.array([[1, 0, -o_x], [0, 1, -o_y], [0, 0, 1]])
    return np.dot(np.dot(offset_matrix, matrix), reset_matrix)


def apply_affine_transform(x, theta=0, tx=0, ty=0, shear=0, zx=1, zy=1, row_axis=0, col_axis=1, channel_axis=2,
                           fill_mode="nearest", cval=0., order=1):
    """Rotation (degrees), shift, shear (degrees) and zoom of one image about its centre, as Keras."""
    if fill_mode not in ("nearest", "constant", "reflect", "wrap"):
        raise ValueError("fill_mode must be 'nearest', 'constant', 'reflect' or 'wrap', got %r" % (fill_mode,))
    if order not in (0, 1):
        raise NotImplementedError("interpolation_order %r: only 0 and 1 (Keras' default) are implemented" % order)
    mats = []
    if theta != 0:
        t = np.deg2rad(theta)
        mats.append(np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1]]))
    if tx != 0 or ty != 0:
        mats.append(np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]]))
    if shear != 0:
        s = np.deg2rad(shear)
        mats.append(np.array([[1, -np.sin(s), 0], [0, np.cos(s), 0], [0, 0, 1]]))
    if zx != 1 or zy != 1:
        mats.append(np.array([[zx, 0, 0], [0, zy, 0], [0, 0, 1]]))
    if not mats:
        return x
    m = mats[0]
    for other in mats[1:]:
        m = np.dot(m, other)
    m = transform_matrix_offset_center(m, x.shape[row_axis], x.shape[col_axis])
    x = np.rollaxis(x, channel_axis, 0)
    x = np.stack([_warp_channel(ch, m[:2, :2], m[:2, 2], order, fill_mode, cval) for ch in x], axis=0)
    return np.rollaxis(x, 0, channel_axis + 1)


def flip_axis(x, axis):
    return np.asarray(x).swapaxes(axis, 0)[::-1, ...].swapaxes(0, axis)


def apply_channel_shift(x, intensity, channel_axis=0):
    """Adds `intensity` to every channel, clipped to the image's own min and max."""
    x = np.rollaxis(x, channel_axis, 0)
    min_x, max_x = np.min(x), np.max(x)
    x = np.stack([np.clip(ch + intensity, min_x, max_x) for ch in x], axis=0)
    return np.rollaxis(x, 0, channel_axis + 1)


def apply_brightness_shift(x, brightness):
    _, ImageEnhance = _pil()
    return img_to_array(ImageEnhance.Brightness(array_to_img(x)).enhance(brightness))


def random_rotation(x, rg, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.,
                    interpolation_order=1):
    theta = np.random.uniform(-rg, rg)
    return apply_affine_transform(x, theta=theta, channel_axis=channel_axis, fill_mode=fill_mode, cval=cval,
                                  order=interpolation_order)


def random_shift(x, wrg, hrg, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.,
                 interpolation_order=1):
    h, w = x.shape[row_axis], x.shape[col_axis]
    tx = np.random.uniform(-hrg, hrg) * h
    ty = np.random.uniform(-wrg, wrg) * w
    return apply_affine_transform(x, tx=tx, ty=ty, channel_axis=channel_axis, fill_mode=fill_mode, cval=cval,
                                  order=interpolation_order)


def random_shear(x, intensity, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.,
                 interpolation_order=1):
    shear = np.random.uniform(-intensity, intensity)
    return apply_affine_transform(x, shear=shear, channel_axis=channel_axis, fill_mode=fill_mode, cval=cval,
                                  order=interpolation_order)


def random_zoom(x, zoom_range, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.,
                interpolation_order=1):
    if len(zoom_range) != 2:
        raise ValueError("`zoom_range` should be a tuple or list of two floats. Received: %s" % (zoom_range,))
    zx, zy = (1, 1) if zoom_range[0] == 1 and zoom_range[1] == 1 else np.random.uniform(zoom_range[0],
                                                                                           zoom_range[1], 2)
    return apply_affine_transform(x, zx=zx, zy=zy, channel_axis=channel_axis, fill_mode=fill_mode, cval=cval,
                                  order=interpolation_order)


def random_channel_shift(x, intensity_range, channel_axis=0):
    return apply_channel_shift(x, np.random.uniform(-intensity_range, intensity_range), channel_axis=channel_axis)


def random_brightness(x, brightness_range):
    if len(brightness_range) != 2:
        raise ValueError("`brightness_range should be tuple or list of two floats. Received: %s"
                         % (brightness_range,))
    return apply_brightness_shift(x, np.random.uniform(brightness_range[0], brightness_range[1]))

