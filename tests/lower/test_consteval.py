"""A value of constants alone with no numpy rule (lower/consteval.py) is computed by ONE jitted program
per op type, attrs and shapes, cached across graphs, instead of an eager XLA program per primitive;
its values are those of the same op fed at run time, bit for bit (at XLA's default options)."""
import jax.monitoring
import numpy as np

import tinyflow as tf

COMPILED = []   # names of the XLA programs compiled while ACTIVE
ACTIVE = [False]


def _listen(event, duration, **kw):
    if ACTIVE[0] and event == "/jax/core/compile/backend_compile_duration":
        COMPILED.append(kw.get("fun_name"))


jax.monitoring.register_event_duration_secs_listener(_listen)

# odd sizes: JAX's caches do not tell programs compiled under the suite's jax_disable_most_optimizations
# from those compiled without it, so no earlier test may have compiled these primitives' shapes
R = np.random.RandomState(7)
A, B = R.rand(7, 11) * 2 + 0.5, R.rand(7, 11) * 2 + 0.5
U, X = R.rand(7, 11), R.rand(7, 11) * 3 + 0.1


def _ops(a, b, u, x):
    """Rules of many primitives (igamma: 40-odd eager programs a call before), one reading a shape."""
    return {"igamma": tf.igamma(a, x), "lbeta": tf.lbeta(x),
            "one_hot": tf.one_hot(tf.cast(x, tf.int32), 4, on_value=u[0, 0], off_value=-1.0)}


def _run(fetches, feed=None):
    del COMPILED[:]
    ACTIVE[0] = True
    try:
        with tf.Session() as sess:
            return sess.run(fetches, feed)
    finally:
        ACTIVE[0] = False


def test_constants_fold_in_one_program_per_op_with_the_values_of_the_fed_op(production_compile):
    with tf.Graph().as_default():
        folded = _run(_ops(*map(tf.constant, (A, B, U, X))))
    per_op = [n for n in COMPILED if n != "jit(step)"]
    # one program per op whose rule computes (lbeta is 4 ops): none named after a primitive (jit(mul))
    assert set(per_op) <= {"jit(_apply)"} and len(per_op) <= 8, COMPILED
    with tf.Graph().as_default():   # the same ops and shapes again: nothing new to compile
        again = _run(_ops(*map(tf.constant, (A, B, U, X))))
    assert [n for n in COMPILED if n != "jit(step)"] == [], COMPILED
    for k in folded:
        assert folded[k].tobytes() == again[k].tobytes(), k
    for k in folded:   # each op fed on its own (a step of that op alone): the same bits
        with tf.Graph().as_default():
            phs = [tf.placeholder(tf.float64, v.shape) for v in (A, B, U, X)]
            fed = _run(_ops(*phs)[k], dict(zip(phs, (A, B, U, X))))
        assert fed.dtype == folded[k].dtype and fed.tobytes() == folded[k].tobytes(), k


def test_rules_that_need_concrete_values_still_fold():
    # a shape read in Python (static integer arguments), tf.where of constants (its rule runs eagerly)
    with tf.Graph().as_default():
        c = tf.constant([[1, 0], [0, 3]])
        got = _run({"where": tf.where(tf.not_equal(c, 0)), "scatter": tf.scatter_nd([[1], [3]], [5.0, 7.0], [5]),
                    "segment": tf.math.unsorted_segment_sum([1.0, 2.0, 4.0], [2, 0, 2], 3)})
    np.testing.assert_array_equal(got["where"], [[0, 0], [1, 1]])
    np.testing.assert_array_equal(got["scatter"], [0, 5, 0, 7, 0])
    np.testing.assert_array_equal(got["segment"], [2, 0, 5])
