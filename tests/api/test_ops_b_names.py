"""Issue 37's ops of TF 1.15 (sqrtm/logm, extract_volume_patches, quantization, fractional pooling,
extract_glimpse, unicode_script, sparse cross) against TF 1.15's recorded values (tests/fixtures/ops_b):
each case set is one graph run in one session.run."""
import pytest
import recorded_cases

cases, VALUES = recorded_cases.load('ops_b', 'ops_b_cases')


@pytest.mark.parametrize("fn_name", recorded_cases.params(cases))
def test_against_tf115(fn_name):
    # the quantized ops' integers and floats are TF's bit for bit; the matrix functions are iterations
    recorded_cases.check(cases, VALUES, fn_name, tol=0 if fn_name.startswith("quantiz") else 1e-5)


@pytest.mark.slow   # ~2.5 CPU-s: the pools, their gradients and two Session runs
def test_fractional_pools_given_tf115_sequences():
    """TF's values and gradients of fractional_max/avg_pool, given the pooling sequences TF drew (tinyflow's
    generator is not TF's), and tinyflow's own sequences: from 0 to the size in steps floor or ceil of
    the ratio, the same every run when deterministic, with the op's values equal to its lowering's."""
    import jax
    import numpy as np
    import tinyflow as tf
    from tinyflow.ops.fractional_pool_ops import pool_values
    want = {k.split("/", 1)[1]: VALUES[k] for k in VALUES.files if k.startswith("fractional_cases/")}
    x = want["x"]

    @jax.jit
    def all_cases(x):   # one program for every case: value and gradient given TF's sequences
        out = []
        for i, (pool, ratio, pseudo, overlap) in enumerate(cases.FRACTIONAL):
            y, vjp = jax.vjp(lambda v: pool_values(pool, v, want["rows%d" % i], want["cols%d" % i], overlap), x)
            out.append((y, vjp(want["w%d" % i])[0]))
        return out
    for i, (y, grad) in enumerate(all_cases(x)):
        np.testing.assert_allclose(y, want["y%d" % i], rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(grad, want["grad%d" % i], rtol=1e-5, atol=1e-6)
    chosen = cases.FRACTIONAL[::3][:1] + cases.FRACTIONAL[4:5]   # a max (deterministic), an average
    with tf.Graph().as_default():
        xt = tf.constant(x)
        outs = [tf.nn.fractional_max_pool(xt, r, p, o, deterministic=True, seed=3) if pool == "max" else
                tf.nn.fractional_avg_pool(xt, r, p, o) for pool, r, p, o in chosen]
        grads = tf.gradients([tf.reduce_sum(o.output) for o in outs], xt)
        with tf.Session() as sess:
            first, again = sess.run(outs), sess.run(outs + grads)
    for (pool, ratio, pseudo, overlap), (y, rows, cols), (_, rows2, _) in zip(chosen, first, again):
        for seq, n, r in ((rows, 9, ratio[1]), (cols, 11, ratio[2])):
            m = int(n // r)
            assert seq.dtype == np.int64 and len(seq) == m + 1 and seq[0] == 0 and seq[-1] == n
            assert set(np.diff(seq)) <= {n // m, -(-n // m)}, seq
        if pool == "max":   # deterministic: the same sequences in every run
            np.testing.assert_array_equal(rows, rows2)
        np.testing.assert_allclose(y, jax.jit(pool_values, static_argnums=(0, 4))(pool, x, rows, cols, overlap),
                                   rtol=1e-6)
    assert again[-1].shape == x.shape and np.isfinite(again[-1]).all()


def test_quantize_refuses_what_tf_refuses():
    import tinyflow as tf
    with tf.Graph().as_default():
        q = tf.quantize([1.0], 3.0, 1.0, tf.quint8)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                                 match="input_max_range must be larger than input_min_range"):
            sess.run(q)
        with pytest.raises(ValueError, match="'HALF_TO_EVEN' is only supported for mode 'SCALED'"):
            tf.quantize([1.0], 0.0, 1.0, tf.quint8, round_mode="HALF_TO_EVEN")
        with pytest.raises(TypeError, match="not in list of allowed values"):
            tf.quantize([1.0], 0.0, 1.0, tf.int8)
