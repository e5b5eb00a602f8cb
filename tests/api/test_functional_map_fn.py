"""tf.map_fn over strings (dtype=tf.string, string elements) runs on the host, with TF 1.15's results
(tests/fixtures/strings/tf115_map_fn_strings.py printed them); numeric maps stay XLA while loops."""
import numpy as np
import pytest

import tinyflow as tf


def test_map_fn_with_string_results_and_elements_is_tfs():
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.constant(["a b", "c", "d e f"])
        r = tf.map_fn(lambda t: tf.strings.join([t, "!"]), x, dtype=tf.string)
        assert r.dtype == tf.string and r.shape.as_list() == [3]
        assert [v.decode() for v in sess.run(r)] == ["a b!", "c!", "d e f!"]
        r2 = tf.map_fn(lambda i: tf.as_string(i * 10), tf.constant([1, 2, 3]), dtype=tf.string)
        assert [v.decode() for v in sess.run(r2)] == ["10", "20", "30"]
        r3 = tf.map_fn(lambda t: tf.string_to_number(t) * 2, tf.constant(["1.5", "2"]), dtype=tf.float32)
        assert sess.run(r3).tolist() == [3.0, 4.0]
        a, b = sess.run(tf.map_fn(lambda t: (t, tf.strings.length(t)), x, dtype=(tf.string, tf.int32)))
        assert [v.decode() for v in a] == ["a b", "c", "d e f"] and b.tolist() == [3, 1, 5]
        raw = tf.map_fn(lambda t: tf.reduce_sum(tf.cast(tf.decode_raw(t, tf.uint8), tf.int32)),
                        tf.constant([b"\x01\x02", b"\x05\x06"]), dtype=tf.int32)
        assert sess.run(raw).tolist() == [3, 11]


def test_map_fn_over_a_fed_batch_of_unknown_size_reading_an_outer_tensor():
    with tf.Graph().as_default(), tf.Session() as sess:
        batch = tf.placeholder(tf.string, [None])
        suffix = tf.placeholder(tf.string, [])
        r = tf.map_fn(lambda s: tf.strings.join([s, suffix], separator="-"), batch, dtype=tf.string)
        assert r.shape.as_list() == [None]
        assert [v.decode() for v in sess.run(r, {batch: ["x", "y"], suffix: "z"})] == ["x-z", "y-z"]
        assert sess.run(r, {batch: np.array([], object), suffix: "z"}).shape == (0,)
    with pytest.raises(TypeError, match="fn's output does not match dtype"):
        tf.map_fn(lambda s: tf.strings.length(s), tf.constant(["a"]), dtype=tf.string)


def test_numeric_map_fn_is_still_the_differentiable_loop():
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float32, [3])
        y = tf.map_fn(lambda v: v * v, x)
        g, = tf.gradients(tf.reduce_sum(y), x)
        got_y, got_g = sess.run([y, g], {x: [1.0, 2.0, 3.0]})
        assert got_y.tolist() == [1.0, 4.0, 9.0] and got_g.tolist() == [2.0, 4.0, 6.0]
