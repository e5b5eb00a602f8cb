"""tinyflow's values where it differs from TF 1.15 on purpose (docs/differences.md): TF's value there is
undefined behaviour or a plain bug, and tinyflow keeps the sound one. And the TF conventions the
differential corpus settled (tests/ops/test_diffcorpus.py), each checked against TF 1.15's number."""
import numpy as np

import tinyflow as tf

NAN, INF = np.nan, np.inf


def test_kept_differences_and_tf_conventions():
    x = tf.placeholder(tf.float32, [None])
    y = tf.placeholder(tf.float32, [None])
    m = tf.placeholder(tf.float32, [2, 1])
    z = tf.placeholder(tf.float32, [None])
    fetches = {
        # differences kept: the sound values
        "cast_i32": tf.cast(x, tf.int32), "cast_u8": tf.cast(x, tf.uint8),
        "saturate_i32": tf.saturate_cast(x, tf.int32), "euclid": tf.math.reduce_euclidean_norm(m, axis=1),
        "truncatediv": tf.truncatediv(y, tf.constant([2.0, 2.0, 2.0])),
        # TF 1.15's conventions (its numbers, recorded with the oracle)
        "max": tf.maximum(z, z[::-1]), "reduce_max": tf.reduce_max(z), "argmax": tf.argmax(z),
        "sign": tf.sign(z), "abs_grad": tf.gradients(tf.abs(z), z)[0],
        "log_sigmoid_grad": tf.gradients(tf.log_sigmoid(z), z)[0], "digamma": tf.digamma(z),
        "floordiv": tf.floordiv(z, tf.constant([INF, INF, 2.0, -INF])),
        "empty": tf.reshape(tf.placeholder_with_default(np.zeros((0, 3), np.float32), [0, 3]), [0, -1]),
        "pool": tf.reshape(tf.nn.max_pool(tf.reshape(z, [1, 1, 4, 1]), [1, 1, 2, 1], [1, 1, 2, 1], "VALID"), [2]),
    }
    with tf.Session() as s:
        out = s.run(fetches, {x: [3e9, -3e9, 300.0, 2.7], y: [7.0, -7.0, 5.5], m: [[-3.0], [2.0]],
                              z: [NAN, 1.0, -0.0, 1.0]})
    np.testing.assert_array_equal(out["cast_i32"], [2147483647, -2147483648, 300, 2])    # TF: INT_MIN, INT_MIN
    np.testing.assert_array_equal(out["cast_u8"], [255, 0, 255, 2])                     # TF: wraps (300 -> 44)
    np.testing.assert_array_equal(out["saturate_i32"], [2147483647, -2147483648, 300, 2])  # TF: INT_MIN for 3e9
    np.testing.assert_array_equal(out["euclid"], [3.0, 2.0])                              # TF: [-3, 2]
    np.testing.assert_array_equal(out["truncatediv"], [3.0, -3.0, 2.0])                  # TF: [3.5, -3.5, 2.75]
    # maximum(x, y) = x < y ? y : x; NaN ignored by reductions and argmax; sign(nan) = 0
    np.testing.assert_array_equal(out["max"], [NAN, 1.0, 1.0, 1.0])
    assert out["reduce_max"] == 1.0 and out["argmax"] == 1
    np.testing.assert_array_equal(out["sign"], [0.0, 1.0, 0.0, 1.0])
    np.testing.assert_array_equal(out["abs_grad"], [0.0, 1.0, 0.0, 1.0])
    assert out["log_sigmoid_grad"][2] == 0.5
    assert out["digamma"][2] == INF
    np.testing.assert_array_equal(out["floordiv"], [NAN, 0.0, -0.0, -0.0])   # numpy: 1 // -inf = -1
    np.testing.assert_array_equal(out["pool"], [1.0, 1.0])
    assert out["empty"].shape == (0, 3) and fetches["empty"].shape.as_list() == [0, 3]   # TF's -1 of an empty tensor


def test_stateless_random_is_deterministic_with_tf_shapes_and_dtypes():
    """Kept difference: the stateless ops' values come from JAX's stream (not TF's Philox numbers);
    what a program relies on holds: TF's shape and dtype, one seed one sample, another seed another."""
    seed = tf.placeholder(tf.int64, [2])
    u = tf.random.stateless_uniform([3, 4], seed, dtype=tf.float64)
    n = tf.random.stateless_normal([500], seed)
    t = tf.random.stateless_truncated_normal([500], seed)
    with tf.Session() as s:
        a = s.run([u, n, t], {seed: [1, 2]})
        b = s.run([u, n, t], {seed: [1, 2]})
        c = s.run(u, {seed: [1, 3]})
    assert a[0].dtype == np.float64 and a[0].shape == (3, 4) and a[1].dtype == np.float32
    assert all(np.array_equal(x, y) for x, y in zip(a, b)) and not np.array_equal(a[0], c)
    assert 0 <= a[0].min() and a[0].max() < 1 and abs(a[1].mean()) < 0.2 and np.abs(a[2]).max() <= 2


def test_complex_expm1_past_pi_is_exp_minus_one():
    """Kept difference: TF 1.15's complex expm1 is wrong once |Im z| > pi (e.g. expm1(2 + 5.7i): TF
    12.59 + 14.33i, the value 5.17 - 4.07i); tinyflow's is exp(z) - 1 everywhere."""
    z = np.array([2 + 5.7j, 0.5 - 4.0j, -1 + 3.0j, 1e-3 + 1e-3j])
    with tf.Session() as s:
        got = s.run(tf.math.expm1(tf.placeholder_with_default(z, [4])))
    np.testing.assert_allclose(got, np.expm1(z), rtol=1e-12)


def test_igamma_gradient_at_a_tiny_a():
    """Open difference: d/da igamma(a, x) at a below 1e-30 (TF's series: -0.084 at x = 1, tinyflow's 0, the
    limit -E1(1) = -0.219): tinyflow's value is finite, and ordinary a keep the finite-difference gradient."""
    a = tf.placeholder_with_default(np.array([1.1754944e-38, 0.7], np.float64), [2])
    g = tf.gradients(tf.math.igamma(a, tf.ones([2], tf.float64)), a)[0]
    near = tf.math.igamma(tf.constant([0.7 + 1e-5, 0.7 - 1e-5], tf.float64), tf.ones([2], tf.float64))
    with tf.Session() as s:
        got, (up, down) = s.run([g, near])
    assert np.isfinite(got[0]) and abs(got[1] - (up - down) / 2e-5) < 1e-6


def test_sparse_kept_differences():
    """Kept (spec_sparse.py): sparse.add of inputs out of row-major order adds them as dense tensors
    (TF's kernel merges lists it assumes sorted); SparseTensor * scalar has a gradient (TF 1.15's fails)."""
    a = tf.SparseTensor(np.array([[2], [0]], np.int64), tf.constant([1.0, 2.0]), np.array([3], np.int64))
    b = tf.SparseTensor(np.array([[0]], np.int64), tf.constant([5.0]), np.array([3], np.int64))
    k = tf.constant(3.0)
    prod = a * k
    with tf.Session() as s:
        added, g = s.run([tf.sparse.add(a, b), tf.gradients(prod.values, [a.values, k])])
    np.testing.assert_array_equal(added.indices, [[0], [2]])
    np.testing.assert_array_equal(added.values, [7.0, 1.0])
    np.testing.assert_array_equal(g[0], [3.0, 3.0])
    assert g[1] == 3.0


def test_numeric_batch_kept_differences():
    """spec_numeric.py's kept differences: tinyflow's sound values where TF's are undefined behaviour."""
    x = tf.placeholder(tf.float32, [4])
    i = tf.placeholder(tf.int32, [3])
    with tf.Session() as s:
        out = s.run([tf.to_int32(x), tf.to_int64(x), tf.is_strictly_increasing(i), tf.is_non_decreasing(i)],
                    {x: [NAN, INF, -3e9, 2.7], i: [-1, 3, -2147483648]})
    np.testing.assert_array_equal(out[0], [0, 2147483647, -2147483648, 2])     # TF: INT_MIN for the first three
    np.testing.assert_array_equal(out[1], [0, 2 ** 63 - 1, -3000000000, 2])    # TF: INT64_MIN for NaN and inf
    assert not out[2] and not out[3]                      # TF: True (3 - INT_MIN wraps to a positive difference)


def test_avg_pool3d_of_the_lowest_float_and_dilated_depthwise_keep_sound_values():
    """Kept differences (spec_nn.py): TF 1.15's AvgPool3D skips elements equal to the lowest float32
    (Eigen's padding sentinel; [-max, 1] averages to 1 there), tinyflow averages them; TF's CPU depthwise
    kernels ignore dilations, tinyflow dilates (as a one-channel dilated conv2d)."""
    m = np.finfo(np.float32).max
    x = tf.constant(np.array([-m, 1.0, 2.0, 4.0], np.float32).reshape(1, 1, 1, 4, 1))
    img = np.random.RandomState(3).randn(1, 5, 5, 1).astype(np.float32)
    w = np.random.RandomState(4).randn(2, 2, 1, 1).astype(np.float32)
    dw = tf.nn.depthwise_conv2d_native(img, w, [1, 1, 1, 1], "VALID", dilations=[1, 2, 2, 1])
    conv = tf.nn.conv2d(img, w, [1, 1, 1, 1], "VALID", dilations=[1, 2, 2, 1])
    with tf.Session() as s:
        avg, a, b = s.run([tf.nn.avg_pool3d(x, [1, 1, 1, 2, 1], [1, 1, 1, 2, 1], "VALID"), dw, conv])
    np.testing.assert_allclose(avg.ravel(), [-m / 2, 3.0])   # TF: [1, 3]
    assert a.shape == (1, 3, 3, 1)
    np.testing.assert_allclose(a, b, rtol=1e-6)


def test_convert_image_dtype_narrowing_int_min_keeps_the_sound_value():
    """Kept difference (spec_vision.py): int32 -> int8 of INT_MIN is -128 (TF 1.15: 127, its floordiv
    overflows on abs(INT_MIN))."""
    x = tf.constant(np.array([-2 ** 31, 2 ** 31 - 1, 0], np.int32))
    with tf.Session() as s:
        out = s.run([tf.image.convert_image_dtype(x, tf.int8, saturate=True), tf.image.convert_image_dtype(x, tf.int8)])
    for o in out:
        np.testing.assert_array_equal(o, [-128, 127, 0])


def test_utf8_case_mapping_keeps_what_follows_a_nul():
    """Kept difference (docs/differences.md, strings batch): TF 1.15's upper/lower with encoding="utf-8" drop
    everything from a NUL byte on (b"a\\x00b" -> b"A"); tinyflow maps the whole string."""
    with tf.Graph().as_default(), tf.Session() as s:
        out = s.run([tf.strings.upper([b"a\x00b\xff"], encoding="utf-8"),
                     tf.strings.lower([b"A\x00B"], encoding="utf-8")])
    assert out[0].tolist() == [b"A\x00B\xef\xbf\xbd"] and out[1].tolist() == [b"a\x00b"]


def test_fingerprint_of_empty_string_rows():
    """Kept difference (strings batch): tf.fingerprint of string rows with no element reads uninitialized
    memory in TF 1.15; tinyflow gives each such row the Fingerprint64 of no bytes."""
    import farmhash
    with tf.Graph().as_default(), tf.Session() as s:
        out = s.run(tf.fingerprint(tf.constant(np.zeros([2, 0], object), tf.string)))
    assert out.shape == (2, 8) and bytes(out[1]) == farmhash.fingerprint64(b"").to_bytes(8, "little")


def test_adagrad_rsqrt_of_an_infinite_accumulator_is_exact():
    """Kept difference (spec_updates.py): TF's vectorized rsqrt is NaN at +inf inside a SIMD packet (its scalar
    tail 0); tinyflow's is exact, so an accumulator made inf by a huge gradient stops the update (rsqrt 0)."""
    v = tf.Variable(np.ones([9], np.float32))
    opt = tf.train.AdagradOptimizer(0.1)
    step = opt.apply_gradients([(tf.constant(np.full([9], 3e38, np.float32)), v)])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(step)
        assert np.isinf(s.run(opt.get_slot(v, "accumulator"))).all()
        np.testing.assert_array_equal(s.run(v), np.ones([9]))   # TF: NaN in the first 8 (a packet), 1 in the 9th


def test_png_16bit_alpha_keeps_the_high_byte_and_overlaps_nms_selects_once():
    """Open: a 16-bit PNG of 2-4 channels keeps only each value's high byte (Pillow has no 16-bit LA, RGB or
    RGBA); 16-bit gray is exact. Kept: non_max_suppression_overlaps of a box that does not overlap itself
    selects it once (TF 1.15 repeats it)."""
    rgba = np.array([[[0x1234, 0xABCD, 0x00FF, 0xFFFF]]], np.uint16)
    ov = np.array([[0.2, 0.1], [0.1, 1.0]], np.float32)
    with tf.Session() as s:
        back4, back3, picked = s.run([tf.image.decode_png(tf.image.encode_png(rgba), dtype=tf.uint16),
                                      tf.image.decode_png(tf.image.encode_png(rgba[..., :3]), dtype=tf.uint16),
                                      tf.image.non_max_suppression_overlaps(ov, [0.9, 0.5], 5, 0.5)])
    np.testing.assert_array_equal(back4, (rgba >> 8) * 257)
    np.testing.assert_array_equal(back3, (rgba[..., :3] >> 8) * 257)
    assert sorted(picked.tolist()) == sorted(set(picked.tolist()))
