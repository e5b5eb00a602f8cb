"""tf.contrib.image.rotate / translate / transform against TF 1.15's recorded outputs
(tests/fixtures/contrib_image/make_fixture.py): NEAREST and BILINEAR, batched and single images."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "contrib_image", "image.json")) as f:
    TF = json.load(f)
IMG = np.asarray(TF["image"], np.float32)
T = TF["transforms"]
CASES = {
    "rotate_nearest": lambda im: tf.contrib.image.rotate(im, [0.5, -1.2]),
    "rotate_bilinear": lambda im: tf.contrib.image.rotate(im, 0.7, interpolation="BILINEAR"),
    "translate_bilinear": lambda im: tf.contrib.image.translate(im, [[1.5, -0.5], [-2.25, 1.0]],
                                                                interpolation="BILINEAR"),
    "transform_nearest": lambda im: tf.contrib.image.transform(im, T),
    "transform_bilinear": lambda im: tf.contrib.image.transform(im, T, interpolation="BILINEAR"),
    "rotate_3d": lambda im: tf.contrib.image.rotate(im[0], 2.0, interpolation="BILINEAR"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tf(name):
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(CASES[name](tf.constant(IMG)))
    np.testing.assert_allclose(got, TF[name], rtol=1e-5, atol=1e-5)


def test_bad_interpolation():
    with tf.Graph().as_default(), pytest.raises(ValueError, match="interpolation"):
        tf.contrib.image.rotate(tf.constant(IMG), 0.1, interpolation="BICUBIC")
