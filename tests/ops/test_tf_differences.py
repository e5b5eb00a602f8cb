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
