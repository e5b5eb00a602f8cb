"""tf.image's area resize against TF 1.15 (tests/fixtures/image/resize_area.npz, make_resize_area.py)
and PNG / GIF / BMP / JPEG decoding on a plain install (Pillow is a core dependency), as TF decodes."""
import io
import os

import numpy as np
import pytest
from PIL import Image

import tinyflow as tf

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "image", "resize_area.npz")


def test_resize_area_matches_tf115():
    data = np.load(FIXTURE)
    n = len([k for k in data.files if k.startswith("input_")])
    with tf.Graph().as_default(), tf.Session() as sess:
        outs = []
        for k in range(n):
            x, size, align = data["input_%d" % k], data["size_%d" % k], bool(data["align_%d" % k])
            if align or k % 2:
                outs.append(tf.image.resize_area(x if x.ndim == 4 else x[None], size, align_corners=align))
            else:
                outs.append(tf.image.resize_images(x, size, method=tf.image.ResizeMethod.AREA))
        assert outs[0].dtype == tf.float32 and outs[0].shape.as_list() == list(data["output_0"].shape)
        for k, got in enumerate(sess.run(outs)):
            np.testing.assert_allclose(got, data["output_%d" % k], rtol=2e-6, atol=2e-5, err_msg=str(k))
        x = tf.placeholder(tf.float32, [1, 4, 4, 1])
        with pytest.raises(LookupError, match="No gradient defined for operation .*ResizeArea"):
            tf.gradients(tf.reduce_sum(tf.image.resize_area(x, [2, 2])), x)   # as in TF 1.15


def _encoded(img, fmt, **kw):
    b = io.BytesIO()
    img.save(b, fmt, **kw)
    return b.getvalue()


def test_png_gif_bmp_jpeg_decode():
    rng = np.random.RandomState(0)
    a = (rng.rand(5, 6, 3) * 255).astype(np.uint8)
    png, bmp, jpeg = (_encoded(Image.fromarray(a), f) for f in ("PNG", "BMP", "JPEG"))
    gif = _encoded(Image.fromarray(a), "GIF", save_all=True, append_images=[Image.fromarray(255 - a)])
    frames = []   # a GIF's frames as TF 1.15 decodes them (checked: PIL's RGB frames equal TF's)
    im = Image.open(io.BytesIO(gif))
    for i in range(im.n_frames):
        im.seek(i)
        frames.append(np.asarray(im.convert("RGB")))
    with tf.Graph().as_default(), tf.Session() as sess:
        ops = [tf.image.decode_png(png), tf.image.decode_bmp(bmp), tf.image.decode_gif(gif),
               tf.image.decode_image(gif), tf.image.decode_image(bmp), tf.image.decode_jpeg(jpeg),
               tf.io.decode_png(png, channels=1), tf.image.decode_image(gif, expand_animations=False)]
        assert [o.shape.as_list() if o.shape.ndims is not None else None for o in ops] == [
            [None, None, None], [None, None, None], [None, None, None, 3], None, None, [None, None, None],
            [None, None, 1], [None, None, None]]
        out = sess.run(ops)
    np.testing.assert_array_equal(out[0], a)
    np.testing.assert_array_equal(out[1], a)
    np.testing.assert_array_equal(out[2], np.stack(frames))
    np.testing.assert_array_equal(out[3], np.stack(frames))
    np.testing.assert_array_equal(out[4], a)
    np.testing.assert_array_equal(out[5], np.asarray(Image.open(io.BytesIO(jpeg))))
    assert out[6].shape == (5, 6, 1)
    np.testing.assert_array_equal(out[7], frames[0])
