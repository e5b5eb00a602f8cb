"""tf.summary.histogram computed in the jitted step (ops/summary_ops.py HistogramBuckets): only the
bucket counts and statistics come back; the bytes are those of the host computation (which the
fixtures check against TF 1.15: test_formats_tf115.py, test_idioms_summary.py)."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.api import summary as summary_mod
from tinyflow.ops.summary_ops import LIMITS, STATS


def _values():
    rng = np.random.RandomState(1)
    v = rng.standard_normal(5000) * np.logspace(-14, 25, 5000)
    v[::97] = 0.0
    return v


def _same(got, want):
    """Buckets, limits, min, max, num exactly; the sums within float64 rounding: XLA's summation order
    is not numpy's pairwise one, nor TF's one by one."""
    for key in ("bucket", "bucket_limit"):
        assert list(getattr(got, key)) == list(getattr(want, key)), key
    for key in ("min", "max", "num"):
        assert getattr(got, key) == getattr(want, key), key
    for key in ("sum", "sum_squares"):
        assert getattr(got, key) == pytest.approx(getattr(want, key), rel=1e-12, abs=1e-300), key


@pytest.mark.parametrize("dtype", [tf.float64, tf.float32, tf.int32])
def test_step_histogram_bytes_equal_the_host_ones(dtype):
    tf.reset_default_graph()
    v = _values().astype(dtype.np) if dtype is not tf.int32 else np.arange(-50, 950, dtype=np.int32)
    x = tf.placeholder(dtype, [None])
    h = tf.summary.histogram("w", x)
    with tf.Session() as sess:
        got = sess.run(h, {x: v})
        # what the step hands back: the buckets vector, not the values
        plan = sess._make_plan(h, {x: v})
        assert [t.op.type for t in plan.lowered.sub.fetches] == ["HistogramBuckets"]
        assert plan.lowered.sub.fetches[0].shape.as_list() == [len(LIMITS) + STATS]
    histo = tf.Summary.FromString(got).value[0].histo
    _same(histo, tf.summary.HistogramProto(**summary_mod._histogram(v)))
    assert histo.num == v.size and sum(histo.bucket) == v.size


def test_empty_and_merged_histograms():
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 3])
    merged = tf.summary.merge([tf.summary.histogram("a", x), tf.summary.histogram("b", x * 2.0),
                               tf.summary.scalar("m", tf.reduce_sum(x))])
    with tf.Session() as sess:
        for v in (np.zeros((0, 3), np.float32), np.arange(12, dtype=np.float32).reshape(4, 3) - 5):
            s = tf.Summary.FromString(sess.run(merged, {x: v}))
            assert [val.tag for val in s.value] == ["a", "b", "m"]
            for val, scale in zip(s.value[:2], (1.0, 2.0)):
                _same(val.histo, tf.summary.HistogramProto(**summary_mod._histogram(v * scale)))


def test_extremes_fall_in_tfs_last_buckets():
    tf.reset_default_graph()
    big = np.finfo(np.float64).max
    x = tf.placeholder(tf.float64, [None])
    h = tf.summary.histogram("w", x)
    with tf.Session() as sess:
        for v in ([big], [-big], [1e-13, -1e-13, 0.0]):
            got = tf.Summary.FromString(sess.run(h, {x: np.array(v)})).value[0]
            assert got.SerializeToString() == tf.Summary.Value(
                tag="w", histo=tf.summary.HistogramProto(**summary_mod._histogram(np.array(v)))).SerializeToString()


def test_nan_and_inf_raise_tfs_error_from_the_step():
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None])
    with tf.name_scope("layer"):
        h = tf.summary.histogram("w", x)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Nan in summary histogram for: layer/w"):
            sess.run(h, {x: np.array([1.0, np.nan], np.float32)})
        with pytest.raises(tf.errors.InvalidArgumentError, match="Infinity in summary histogram for: layer/w"):
            sess.run(h, {x: np.array([1.0, -np.inf], np.float32)})


def test_device_bucket_index_is_the_binary_search():
    """The log estimate corrected against the limits gives np.searchsorted's bucket for every limit,
    its neighbours on both sides, the extremes and values over 50 decades (subnormals aside: XLA:CPU
    flushes them to zero)."""
    import jax
    import jax.numpy as jnp
    from tinyflow.ops.summary_ops import bucket_index, device_bucket_index
    finite = LIMITS[np.isfinite(LIMITS) & (LIMITS != 0)]   # (next to 0: subnormals)
    big = np.finfo(np.float64).max
    vals = np.concatenate([finite, np.nextafter(finite, np.inf), np.nextafter(finite, -np.inf),
                           [0.0, -0.0, 1e-300, -1e-300, np.inf, -np.inf, big, -big, 1e25, -1e25, 1.2e20],
                           np.random.RandomState(0).standard_normal(20000) * np.logspace(-20, 30, 20000)])
    got = np.asarray(jax.jit(device_bucket_index)(jnp.asarray(vals)))
    np.testing.assert_array_equal(got, bucket_index(vals))
