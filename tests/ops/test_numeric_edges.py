"""TF 1.15's values at the edges the numeric batch of the differential corpus (spec_numeric.py) found
different, each fixed: fake-quant gradients multiply by their masks (inf or NaN gradients give NaN),
quantize_and_dequantize's gradient is the identity, searchsorted puts NaN first on the left, fftshift
takes a negative axis, overlap_and_add (inverse_stft) keeps a NaN where its frame lands, tf.repeat takes
fed repeats, an imported TF reduction over fed axes has TF's NaN rule and gradient, and the run-time
errors TF raises (dynamic_stitch, gather_tree, tridiagonal_solve). The numbers are TF 1.15's (oracle)."""
import re

import numpy as np
import pytest
from google.protobuf import text_format

import tinyflow as tf

NAN, INF = np.nan, np.inf

_REDUCTIONS = '''
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_DOUBLE } } }
node { name: "axes" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
node { name: "s" op: "Max" input: "x" input: "axes" attr { key: "T" value { type: DT_DOUBLE } }
       attr { key: "keep_dims" value { b: false } } attr { key: "Tidx" value { type: DT_INT32 } } }
node { name: "p" op: "Prod" input: "x" input: "axes" attr { key: "T" value { type: DT_DOUBLE } }
       attr { key: "keep_dims" value { b: true } } attr { key: "Tidx" value { type: DT_INT32 } } }
'''


def test_numeric_values_and_gradients_as_tf():
    g, x = tf.placeholder(tf.float32, [6]), tf.placeholder(tf.float32, [6])
    q = tf.placeholder(tf.float64, [4])
    qdq = tf.quantization.quantize_and_dequantize(q, -1.0, 1.0, num_bits=2, range_given=True)
    v, z = tf.placeholder(tf.float32, [1, 3]), tf.placeholder(tf.float32, [2, 3])
    seq = tf.constant([[-1.0, 0.0, 2.0]])
    re, im = tf.placeholder(tf.float32, [3, 3]), tf.placeholder(tf.float32, [3, 3])
    ga = tf.placeholder(tf.float64, [2, 3])
    gd = text_format.Parse(_REDUCTIONS, tf.GraphDef())
    mx, pr = tf.import_graph_def(gd, input_map={"x": ga, "axes": tf.shape(ga)[:1] * 0 + 1},
                                 return_elements=["s:0", "p:0"])
    xs, reps = tf.placeholder(tf.float32, [None, 2]), tf.placeholder(tf.int32, [None])
    rep = tf.repeat(xs, reps, axis=0)
    fetches = {
        "fq": tf.quantization.fake_quant_with_min_max_args_gradient(g, x, 0.0, 0.5, num_bits=16),
        "fv": list(tf.quantization.fake_quant_with_min_max_vars_gradient(g, x, 0.5, 6.5, num_bits=16)),
        "qdq": qdq, "qg": tf.gradients(qdq, q, grad_ys=tf.constant([1.0, -2.0, 3.0, 4.0], tf.float64))[0],
        "ss": [tf.searchsorted(seq, v, side="left"), tf.searchsorted(seq, v, side="right")],
        "sh": tf.signal.fftshift(z, axes=-1),
        "ist": tf.signal.inverse_stft(tf.complex(re, im), 4, 4, 4, window_fn=tf.signal.inverse_stft_window_fn(4)),
        "mx": mx, "pr": pr,
        "gmx": tf.gradients([mx, pr], ga, grad_ys=[tf.constant([1.0, 2.0], tf.float64),
                                                   tf.constant([[3.0], [4.0]], tf.float64)])[0],
        "rep": rep, "rep_grad": tf.convert_to_tensor(tf.gradients(tf.reduce_sum(rep * rep), xs)[0]),
        "empty_gather": tf.gather(tf.placeholder_with_default(np.zeros(0, np.float32), [0]),
                                  np.zeros((0, 5), np.int32)),
        "foldr_empty": tf.foldr(lambda a, e: a * 2 + e, tf.zeros([0], tf.int32), initializer=tf.constant(5)),
        "splits": tf.ragged.segment_ids_to_row_splits(reps),       # TF: the ids' dtype, int32
        "max_no_axis": tf.reduce_max(v, axis=[]),                     # a NaN stays (no reduction)
    }
    with tf.Session() as s:
        out = s.run(fetches, {g: [0.83, -5.4, 2.0, -INF, NAN, -0.5], x: [3.6, -3.5, 0.5, 2.0, -0.02, 2.0],
                              q: [-0.3, -1.5, -1.1, 0.9], v: [[NAN, 0.0, 2.0]], z: [[1, 2, 3], [4, 5, 6]],
                              re: np.arange(9).reshape(3, 3) / 4.0, im: np.ones((3, 3)) / 8.0,
                              ga: [[1.0, NAN, 3.0], [2.0, 2.0, 0.0]], xs: [[1, 2], [3, 4]], reps: [2, 0]})
    np.testing.assert_array_equal(out["fq"], [0.0, -0.0, 2.0, NAN, NAN, -0.0])      # g * 0 = NaN for inf and NaN
    np.testing.assert_array_equal(out["fv"][0], np.float32([0.83, -0.0, 2.0, -INF, NAN, -0.5]))
    assert np.isnan(out["fv"][1]) and np.isnan(out["fv"][2])
    np.testing.assert_array_equal(out["qdq"], [0.0, -2.0, -1.0, 1.0])
    np.testing.assert_array_equal(out["qg"], [1.0, -2.0, 3.0, 4.0])                  # the identity, also outside
    np.testing.assert_array_equal(out["ss"][0], [[0, 1, 2]])                           # NaN first on the left
    np.testing.assert_array_equal(out["ss"][1], [[3, 2, 3]])                           # and last on the right
    np.testing.assert_array_equal(out["sh"], [[3, 1, 2], [6, 4, 5]])
    np.testing.assert_allclose(out["ist"], np.float32([NAN, -0.375, 0.0, -0.125] * 3), atol=1e-6)   # NaN stays put
    np.testing.assert_array_equal(out["mx"], [3.0, 2.0])                               # Max skips NaN (TF's kernel)
    np.testing.assert_array_equal(out["pr"], [[NAN], [0.0]])
    np.testing.assert_array_equal(out["gmx"], [[NAN, 9.0, NAN], [1.0, 1.0, 16.0]])    # ties share Max's gradient
    np.testing.assert_array_equal(out["rep"], [[1, 2], [1, 2]])
    np.testing.assert_array_equal(out["rep_grad"], [[4, 8], [0, 0]])
    assert out["empty_gather"].shape == (0, 5)
    assert out["foldr_empty"] == 5 and out["splits"].dtype == np.int32
    np.testing.assert_array_equal(out["splits"], [0, 1, 1, 2])
    np.testing.assert_array_equal(out["max_no_axis"], [[NAN, 0.0, 2.0]])


def test_data_dependent_errors_as_tf():
    i1, i2 = tf.placeholder(tf.int32, [None]), tf.placeholder(tf.int32, [None])
    stitch = tf.dynamic_stitch([i1, i2], [tf.ones_like(i1), tf.ones_like(i2)])
    st, pa = tf.placeholder(tf.int32, [3, 1, 2]), tf.placeholder(tf.int32, [3, 1, 2])
    tree = tf.contrib.seq2seq.gather_tree(st, pa, [3], 9)
    d, r = tf.placeholder(tf.float64, [3, 3]), tf.placeholder(tf.float64, [3, 1])
    solve = tf.linalg.tridiagonal_solve(d, r)
    solve_grad = tf.gradients(solve, d)[0]
    thomas = tf.linalg.tridiagonal_solve(d, r, partial_pivoting=False)
    good = np.array([[1.0, 2, 0], [4, 5, 6], [0, 7, 8]])        # rows: superdiagonal, diagonal, subdiagonal
    zero_row, no_pivot = good.copy(), good.copy()
    zero_row[:, 1] = 0
    no_pivot[1, 0] = 0
    cases = [(stitch, {i1: [0, 2], i2: [1, -1, 3]}, "indices[1] is out of range"),
             (tree, {st: np.zeros((3, 1, 2)), pa: [[[0, 5]], [[1, -1]], [[0, 1]]]},
              "Saw invalid parent id -1 at (batch, time, beam) == (0, 0, 1)"),
             (tree, {st: np.zeros((3, 1, 2)), pa: [[[0, 1]], [[1, 3]], [[0, 1]]]},
              "Saw invalid parent id 3 at (batch, time, beam) == (0, 0, 1)"),
             (solve, {d: zero_row, r: np.ones((3, 1))}, "The matrix is not invertible."),
             (solve_grad, {d: zero_row, r: np.ones((3, 1))}, "The matrix is not invertible."),
             (thomas, {d: no_pivot, r: np.ones((3, 1))}, "requires pivoting"),
             (tf.linalg.lu(d)[0], {d: zero_row}, "Input is not invertible.")]
    with tf.Session() as s:
        for t, feed, message in cases:
            with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(message)):
                s.run(t, feed)
        a = np.array([[4.0, 1, 0], [7, 5, 2], [0, 8, 6]])           # what `good` stands for
        np.testing.assert_allclose(s.run(thomas, {d: good, r: np.ones((3, 1))}), np.linalg.solve(a, np.ones((3, 1))))
        np.testing.assert_array_equal(s.run(tree, {st: np.arange(6).reshape(3, 1, 2),
                                                   pa: [[[0, 1]], [[1, 0]], [[0, 1]]]}).ravel(), [1, 0, 2, 3, 4, 5])
