"""Image codecs (tf.image.decode_png / decode_jpeg / decode_image / encode_png / encode_jpeg): host ops.

They run Pillow, a core dependency (TF decodes images in its core), imported when one first runs.
Decoded images are uint8 (or uint16 PNG) [height, width, channels]; `channels=0` keeps the file's.
"""
import io

import numpy as np

from tinyflow.graph import errors
from tinyflow.graph import dtypes as dt
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core import math_ops as M
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.host_ops import make_host_op, register_host_op
from tinyflow.ops.string_ops import as_strings

_MODES = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}


def _pil(op):
    try:
        from PIL import Image
    except ImportError:
        raise errors.UnimplementedError(op.node_def, op, "%s needs Pillow, one of tinyflow's own "
                                        "dependencies, missing here: pip install pillow" % op.type) from None
    return Image


def _decode(session, op, inputs):
    Image = _pil(op)
    data = bytes(np.asarray(inputs[0]).reshape(-1)[0])
    kind = op.attrs["kind"]
    try:
        img = Image.open(io.BytesIO(data))
        img.load()  # (decode_png also decodes a JPEG and the reverse, as TF's kernels do)
    except Exception:
        raise errors.InvalidArgumentError(op.node_def, op, {
            "png": "Invalid PNG data, size %d", "jpeg": "Invalid JPEG data or crop window, data size %d"}.get(
            kind, "Unknown image file format. One of JPEG, PNG, GIF, BMP required. (size %d)") % len(data)) from None
    if img.format == "GIF" and kind in ("gif", "any", "still"):   # its frames, RGB: [frames, height, width, 3]
        frames = []
        for i in range(getattr(img, "n_frames", 1) if kind != "still" else 1):
            img.seek(i)
            frames.append(np.asarray(img.convert("RGB")))
        return [np.stack(frames) if kind != "still" else frames[0]]
    if kind == "gif":
        raise errors.InvalidArgumentError(op.node_def, op, "Invalid GIF data (size %d)" % len(data))
    return [_pixels(Image, img, op.attrs["channels"], op.attrs["dtype"] is dt.uint16)]


def _pixels(Image, img, channels, depth16):
    """An opened still image as [height, width, channels] (channels 0: the file's), uint8 or uint16."""
    a = np.asarray(img)
    if a.dtype == bool:
        a = a.astype(np.uint8) * 255
    if a.ndim == 2 and img.mode not in ("I;16", "I;16B", "I") and img.mode != "L":
        img = img.convert("RGBA" if "transparency" in img.info else "RGB")
        a = np.asarray(img)
    if a.ndim == 2:
        a = a[:, :, None]
    have = a.shape[2]
    want = channels or have
    if want != have:
        if a.dtype != np.uint8:
            a = (a >> 8).astype(np.uint8) if a.dtype.itemsize > 1 else a
        img2 = Image.fromarray(a[:, :, 0] if have == 1 else a, _MODES[have]).convert(_MODES[want])
        a = np.asarray(img2)
        a = a[:, :, None] if a.ndim == 2 else a
    if depth16:
        a = a.astype(np.uint16) * 257 if a.dtype == np.uint8 else a.astype(np.uint16)
    else:
        a = (a >> 8).astype(np.uint8) if a.dtype.itemsize > 1 else a.astype(np.uint8)
    return np.ascontiguousarray(a)


def _decoded_shape(shapes, attrs, values):
    if attrs["kind"] == "gif":
        return [TensorShape([None, None, None, 3])]
    if attrs["kind"] == "any":   # a GIF gives 4-D, any other 3-D: TF leaves the rank unknown
        return [TensorShape(None)]
    return [TensorShape([None, None, attrs["channels"] or None])]


register_host_op("DecodeImageHost", _decoded_shape, lambda d, a: [a["dtype"]], _decode)


def _decode_by_format(session, op, inputs):
    # slim's tfexample_decoder.Image: a "raw" (or "RAW") format is the pixels' bytes, else a PNG/JPEG/GIF/BMP
    fmt = bytes(np.asarray(inputs[1]).reshape(-1)[0])
    if fmt in (b"raw", b"RAW"):
        data = bytes(np.asarray(inputs[0]).reshape(-1)[0])
        return [np.frombuffer(data, dtype=op.attrs["dtype"].as_numpy_dtype).copy()]
    return _decode(session, op, inputs[:1])


register_host_op("DecodeImageByFormat", lambda s, a, v: [TensorShape(None)], lambda d, a: [a["dtype"]],
                 _decode_by_format)


def decode_image_by_format(contents, image_format, channels=3, dtype=dt.uint8, name=None):
    """The image `contents` decoded as `image_format` says: raw bytes (1-D, to be reshaped) for "raw",
    else the PNG/JPEG/GIF/BMP it holds, [height, width, channels]."""
    return make_host_op("DecodeImageByFormat", [as_strings(contents, "contents"), as_strings(image_format, "format")],
                        {"kind": "image", "channels": int(channels), "dtype": dt.as_dtype(dtype)},
                        name=name or "DecodeImage").outputs[0]


def _decode_op(kind, contents, channels, dtype, name):
    if channels not in (0, 1, 3, 4):
        raise ValueError("channels must be 0, 1, 3 or 4, got %r" % (channels,))
    return make_host_op("DecodeImageHost", [as_strings(contents, "contents")],
                        {"kind": kind, "channels": int(channels), "dtype": dt.as_dtype(dtype)},
                        name=name or {"png": "DecodePng", "jpeg": "DecodeJpeg", "gif": "DecodeGif",
                                            "bmp": "DecodeBmp"}.get(kind, "DecodeImage")).outputs[0]


def decode_png(contents, channels=0, dtype=dt.uint8, name=None):
    """tf.image.decode_png: a PNG file's bytes as a uint8 (or uint16) [height, width, channels] image."""
    return _decode_op("png", contents, channels, dtype, name)


def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True, try_recover_truncated=False,
                acceptable_fraction=1, dct_method="", name=None):
    """tf.image.decode_jpeg: a JPEG file's bytes as a uint8 [height, width, channels] image."""
    return _decode_op("jpeg", contents, channels, dt.uint8, name)


def decode_gif(contents, name=None):
    """tf.image.decode_gif: every frame of a GIF, uint8 [frames, height, width, 3]."""
    return _decode_op("gif", contents, 0, dt.uint8, name)


def decode_bmp(contents, channels=0, name=None):
    """tf.image.decode_bmp: a BMP file's bytes as a uint8 [height, width, channels] image."""
    return _decode_op("bmp", contents, channels, dt.uint8, name)


def decode_image(contents, channels=None, dtype=dt.uint8, name=None, expand_animations=True):
    """tf.image.decode_image: PNG, JPEG or BMP bytes as [height, width, channels], a GIF's frames as
    [frames, height, width, 3] (TF's rank is unknown until it runs), or its first frame alone when
    not expand_animations (then always 3-D)."""
    dtype = dt.as_dtype(dtype)
    if dtype not in (dt.uint8, dt.uint16):   # TF: decoded as uint8, then convert_image_dtype's scaling
        img = _decode_op("any" if expand_animations else "still", contents, channels or 0, dt.uint8, name)
        return M.multiply(M.cast(img, dtype), 1.0 / 255)
    return _decode_op("any" if expand_animations else "still", contents, channels or 0, dtype, name)


def jpeg_shape(data):
    """[height, width, components] from a JPEG's frame header (its SOFn marker), or None if `data` is no JPEG."""
    if data[:2] != b"\xff\xd8":
        return None
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:   # fill byte
            i += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):   # markers without a length
            i += 2
            continue
        size = int.from_bytes(data[i + 2:i + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            if i + 10 > len(data):
                return None
            return [int.from_bytes(data[i + 5:i + 7], "big"), int.from_bytes(data[i + 7:i + 9], "big"), data[i + 9]]
        if marker in (0xD9, 0xDA) or size < 2:   # end of image or start of scan before any frame header
            return None
        i += 2 + size
    return None


def _extract_jpeg_shape(session, op, inputs):
    data = bytes(np.asarray(inputs[0]).reshape(-1)[0])
    got = jpeg_shape(data)
    if got is None:
        raise errors.InvalidArgumentError(op.node_def, op, "Invalid JPEG data, size %d" % len(data))
    return [np.array(got, op.attrs["output_type"].as_numpy_dtype)]


register_host_op("ExtractJpegShape", lambda s, a, v: [TensorShape([3])], lambda d, a: [a["output_type"]],
                 _extract_jpeg_shape)


def extract_jpeg_shape(contents, output_type=dt.int32, name=None):
    """tf.image.extract_jpeg_shape: [height, width, channels] of a JPEG from its header, without decoding it."""
    return make_host_op("ExtractJpegShape", [as_strings(contents, "contents")],
                        {"output_type": dt.as_dtype(output_type)}, name=name or "ExtractJpegShape").outputs[0]


def _decode_and_crop(session, op, inputs):
    y, x, h, w = (int(v) for v in np.asarray(inputs[1]).reshape(-1))
    image = _decode(session, op, inputs[:1])[0]
    if min(y, x) < 0 or h <= 0 or w <= 0 or y + h > image.shape[0] or x + w > image.shape[1]:
        raise errors.InvalidArgumentError(op.node_def, op, "Invalid JPEG data or crop window, data size %d"
                                          % len(bytes(np.asarray(inputs[0]).reshape(-1)[0])))
    return [np.ascontiguousarray(image[y:y + h, x:x + w])]


register_host_op("DecodeAndCropJpeg", lambda s, a, v: [TensorShape([None, None, a["channels"] or None])],
                 lambda d, a: [dt.uint8], _decode_and_crop)


def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                         try_recover_truncated=False, acceptable_fraction=1, dct_method="", name=None):
    """tf.image.decode_and_crop_jpeg: the window crop_window = [y, x, height, width] of a JPEG's image."""
    if channels not in (0, 1, 3, 4):
        raise ValueError("channels must be 0, 1, 3 or 4, got %r" % (channels,))
    window = convert_to_tensor(crop_window, dt.int32, name="crop_window")
    if not window.shape.is_compatible_with(TensorShape([4])):
        raise ValueError("crop_window must be a vector of 4 int32s, got shape %s" % window.shape)
    return make_host_op("DecodeAndCropJpeg", [as_strings(contents, "contents"), window],
                        {"kind": "jpeg", "channels": int(channels), "dtype": dt.uint8},
                        name=name or "DecodeAndCropJpeg").outputs[0]


def _encode(session, op, inputs):
    Image = _pil(op)
    a = np.asarray(inputs[0])
    if a.ndim != 3 or a.shape[2] not in _MODES:
        raise errors.InvalidArgumentError(op.node_def, op, "image must be 3-dimensional with 1 to 4 channels, got "
                                          "shape %s" % (list(a.shape),))
    if a.dtype == np.uint16 and a.shape[2] == 1:
        img = Image.fromarray(a[:, :, 0].astype(np.uint16), "I;16")
    else:
        if a.dtype == np.uint16:   # Pillow has no 16-bit LA/RGB/RGBA: 8 bits kept, each value's high byte
            a = (a >> 8).astype(np.uint8)
        img = Image.fromarray(a[:, :, 0] if a.shape[2] == 1 else a.astype(np.uint8), _MODES[a.shape[2]])
    buf = io.BytesIO()
    if op.attrs["format"] == "PNG":
        level = op.attrs["compression"]
        img.save(buf, format="PNG", compress_level=6 if level < 0 else level)
    else:
        img.save(buf, format="JPEG", quality=op.attrs["compression"])
    return [np.array(buf.getvalue(), dtype=object)]


register_host_op("EncodeImageHost", lambda s, a, v: [TensorShape([])], lambda d, a: [dt.string], _encode)


def encode_png(image, compression=-1, name=None):
    """tf.image.encode_png: a uint8 / uint16 [height, width, channels] image as PNG bytes."""
    x = convert_to_tensor(image)
    if x.dtype not in (dt.uint8, dt.uint16):
        raise TypeError("Value passed to parameter 'image' has DataType %s not in list of allowed values: uint8, "
                        "uint16" % x.dtype.name)
    return make_host_op("EncodeImageHost", [x], {"format": "PNG", "compression": int(compression)},
                        name=name or "EncodePng").outputs[0]


def encode_jpeg(image, format="", quality=95, name=None, **kwargs):
    """tf.image.encode_jpeg: a uint8 [height, width, channels] image as JPEG bytes."""
    x = convert_to_tensor(image, dt.uint8)
    return make_host_op("EncodeImageHost", [x], {"format": "JPEG", "compression": int(quality)},
                        name=name or "EncodeJpeg").outputs[0]
