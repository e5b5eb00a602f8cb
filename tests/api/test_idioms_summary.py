"""tf.summary.histogram (TF's compact buckets, errors on NaN/Inf) and tf.summary.image, against TF 1.15
(tests/fixtures/idioms/summaries.json, written by make_summaries.py)."""
import json
import os
from paths import TESTS as _TESTS  # the tests/ folder
import struct
import sys
import zlib

import numpy as np
import pytest

import tinyflow as tf

sys.path.insert(0, os.path.join(_TESTS, "fixtures", "idioms"))
import make_summaries  # noqa: E402


_WANT = json.load(open(os.path.join(_TESTS, "fixtures", "idioms", "summaries.json")))


def _unfilter(raw, bpp):
    """PNG rows (filter byte + filtered bytes) back to pixels' bytes (the PNG spec's five filters)."""
    out, prev = [], np.zeros(raw.shape[1] - 1, np.int64)
    for row in raw:
        kind, cur = int(row[0]), row[1:].astype(np.int64)
        rec = np.zeros_like(cur)
        for i in range(len(cur)):
            a = rec[i - bpp] if i >= bpp else 0
            b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
            p = a + b - c
            pred = [0, a, b, (a + b) // 2,
                    a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c)
                    else c][kind]
            rec[i] = (cur[i] + pred) & 0xFF
        out.append(rec)
        prev = rec
    return np.array(out, np.uint8)


def _decode_png(data):
    """Pixels of a PNG (8-bit gray, RGB or RGBA, any filters)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        assert zlib.crc32(kind + body) & 0xFFFFFFFF == struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, _, color, _, _, _ = header
    c = {0: 1, 2: 3, 6: 4}[color]
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, 1 + w * c)
    return _unfilter(raw, c).reshape(h, w, c)


@pytest.mark.slow
def test_histograms_match_tf115():
    tf.reset_default_graph()
    with tf.Session() as sess:
        for name, values in make_summaries.HISTOGRAMS.items():
            data = sess.run(tf.summary.histogram(name, tf.constant(values, tf.float64)))
            got = tf.Summary.FromString(data).value[0].histo
            want = _WANT["histograms"][name]
            assert list(got.bucket) == want["bucket"], name
            np.testing.assert_allclose(got.bucket_limit, want["bucket_limit"], rtol=1e-12)
            for key in ("min", "max", "num", "sum", "sum_squares"):
                assert getattr(got, key) == pytest.approx(want[key], rel=1e-9), (name, key)


def test_histogram_of_nan_or_inf_raises_like_tf():
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32)
    with tf.name_scope("layer1"):
        h = tf.summary.histogram("weights", x)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Nan in summary histogram for: layer1/weights"):
            sess.run(h, {x: [1.0, np.nan]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="Infinity in summary histogram for: layer1/w"):
            sess.run(h, {x: [1.0, -np.inf]})


@pytest.mark.slow
def test_histogram_is_compact(tmp_path):
    tf.reset_default_graph()
    x = tf.constant(np.random.RandomState(0).normal(size=100000))
    summ = tf.summary.merge([tf.summary.histogram("w", x), tf.summary.scalar("s", tf.reduce_mean(x))])
    with tf.Session() as sess:
        data = sess.run(summ)
    assert len(data) < 20000  # TF's collapsed buckets: a few hundred at most, not every edge
    with tf.summary.FileWriter(str(tmp_path)) as writer:
        for step in range(3):
            writer.add_summary(data, step)
    assert sum(os.path.getsize(os.path.join(tmp_path, f)) for f in os.listdir(tmp_path)) < 3 * 40000


def test_images_match_tf115(tmp_path):
    tf.reset_default_graph()
    with tf.Session() as sess:
        for name, (array, max_outputs) in make_summaries.IMAGES.items():
            data = sess.run(tf.summary.image(name, tf.constant(array), max_outputs=max_outputs))
            got = tf.Summary.FromString(data).value
            want = _WANT["images"][name]
            assert [v.tag for v in got] == [w["tag"] for w in want]
            for v, w in zip(got, want):
                assert (v.image.height, v.image.width, v.image.colorspace) == (w["height"], w["width"], w["colorspace"])
                np.testing.assert_array_equal(_decode_png(v.image.encoded_image_string), np.array(w["pixels"]))
        with tf.summary.FileWriter(str(tmp_path)) as writer:
            writer.add_summary(data, 1)


def test_image_errors():
    tf.reset_default_graph()
    with pytest.raises(ValueError, match="4-D with last dim 1, 3, or 4"):
        tf.summary.image("bad", tf.zeros([2, 3, 3, 2]))
    with pytest.raises(TypeError, match="not in list of allowed values"):
        tf.summary.image("bad", tf.zeros([2, 3, 3, 1], tf.int32))
    x = tf.placeholder(tf.float32, [None, 2, 2, 1])
    s = tf.summary.image("img", x, max_outputs=2)
    with tf.Session() as sess:
        got = tf.Summary.FromString(sess.run(s, {x: np.array([[[[np.nan], [1.0]], [[2.0], [4.0]]]])})).value
    assert len(got) == 1  # fewer images than max_outputs
    px = _decode_png(got[0].image.encoded_image_string)
    assert px[0, 0, 0] == 255 and px[1, 1, 0] == 255 and px[0, 1, 0] == 63  # NaN is "red" (255 in gray)
