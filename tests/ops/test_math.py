"""Math ops beyond the registry specs: TF's dtype rules, Python operators, op names, argument
spellings (axis/reduction_indices/keepdims/keep_dims) and TF's build-time errors."""
import numpy as np
import pytest

import tinyflow as tf


def run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


# ---- dtype rules --------------------------------------------------------------------------------
def test_no_implicit_promotion_between_tensors():
    x = tf.constant([1.0, 2.0])
    i = tf.constant([1, 2])
    with pytest.raises(TypeError, match="Input 'y' of 'Add' Op has type int32 that does not match type float32"):
        tf.add(x, i)
    with pytest.raises(TypeError):
        x + i
    with pytest.raises(TypeError):
        x * tf.constant([1.0, 2.0], tf.float64)
    with pytest.raises(TypeError):
        tf.matmul(tf.ones([2, 2]), tf.ones([2, 2], tf.float64))
    with pytest.raises(TypeError):
        tf.add_n([x, i])
    with pytest.raises(TypeError):
        i + 2.5  # a Python float does not fit an int32 tensor


def test_python_numbers_take_the_tensor_dtype():
    for dtype in (tf.float16, tf.float32, tf.float64, tf.int32, tf.int64, tf.int8):
        t = tf.placeholder(dtype, [2])
        for out in (t + 1, 1 + t, t * 2, 2 * t, t - 1, 1 - t, tf.maximum(t, 0), t ** 2, t // 2, t % 3):
            assert out.dtype == dtype
    x = tf.placeholder(tf.float64, [2])
    assert (x + np.float32(1.5)).dtype == tf.float64
    assert (np.array([1.0, 2.0], np.float32) + tf.constant([1.0, 2.0])).dtype == tf.float32


def test_truediv_of_integers_is_float():
    cases = {tf.int8: tf.float32, tf.int16: tf.float32, tf.uint8: tf.float32, tf.int32: tf.float64,
             tf.int64: tf.float64}
    for src, dst in cases.items():
        a = tf.constant([7, 3], src)
        b = tf.constant([2, 4], src)
        assert (a / b).dtype == dst and tf.truediv(a, b).dtype == dst and tf.divide(a, b).dtype == dst
    assert (tf.constant([1.0]) / 2).dtype == tf.float32
    np.testing.assert_allclose(run(tf.constant([7, -7]) / 2), [3.5, -3.5])


@pytest.mark.slow
def test_floor_division_and_mod_follow_python():
    iv, jv = np.array([7, -7, 7, -7], np.int32), np.array([2, 2, -2, -2], np.int32)
    i, j = tf.constant(iv), tf.constant(jv)
    xv, yv = np.array([7.5, -7.5, 7.5, -7.5], np.float32), np.array([2.0, 2.0, -2.0, -2.0], np.float32)
    x, y = tf.constant(xv), tf.constant(yv)
    out = run([i // j, i % j, x // y, x % y, tf.div(i, j), tf.div(x, y), tf.truncatediv(i, j), tf.truncatemod(i, j),
               tf.mod(i, j), tf.floor_div(i, j)])
    np.testing.assert_array_equal(out[0], iv // jv)
    np.testing.assert_array_equal(out[1], iv % jv)
    np.testing.assert_array_equal(out[2], xv // yv)
    np.testing.assert_array_equal(out[3], xv % yv)
    np.testing.assert_array_equal(out[4], iv // jv)
    np.testing.assert_allclose(out[5], xv / yv)
    np.testing.assert_array_equal(out[6], [3, -3, -3, 3])
    np.testing.assert_array_equal(out[7], [1, -1, 1, -1])
    np.testing.assert_array_equal(out[8], iv % jv)
    np.testing.assert_array_equal(out[9], iv // jv)
    assert out[0].dtype == np.int32 and out[2].dtype == np.float32


def test_float_only_ops_reject_integers_and_logic_needs_bool():
    i = tf.constant([1, 2])
    for fn in (tf.exp, tf.log, tf.sqrt, tf.sigmoid, tf.tanh, tf.floor, tf.is_nan, tf.sin):
        with pytest.raises(TypeError, match="not in list of allowed values"):
            fn(i)
    with pytest.raises(TypeError):
        tf.logical_and(tf.constant([1.0]), tf.constant([0.0]))
    with pytest.raises(TypeError):
        tf.reduce_any(tf.constant([1.0]))
    # tf.reduce_sum(bool) is TinyFlow's count of True (TF rejects it): see test_tinyflow_api.py
    with pytest.raises(TypeError):
        tf.constant([1.0]) < tf.constant([True])


@pytest.mark.slow
def test_casts():
    f = tf.constant([1.7, -1.7, 2.5, -0.5])
    out = run([tf.cast(f, tf.int32), tf.cast(f, tf.int64), tf.to_int32(f), tf.to_int64(f), tf.to_double(f),
               tf.to_float(tf.constant([1, 2])), tf.cast(f, tf.bool), tf.cast(tf.constant([True, False]), tf.int32),
               tf.cast([1.7, -1.7], tf.int64)])
    np.testing.assert_array_equal(out[0], [1, -1, 2, 0])
    assert out[1].dtype == np.int64 and out[3].dtype == np.int64 and out[2].dtype == np.int32
    assert out[4].dtype == np.float64 and out[5].dtype == np.float32
    np.testing.assert_array_equal(out[6], [True, True, True, True])
    np.testing.assert_array_equal(out[7], [1, 0])
    np.testing.assert_array_equal(out[8], [1, -1])
    assert tf.cast(f, tf.float32) is f  # no op when the dtype is already right
    assert tf.cast(f, "float64").dtype == tf.float64 and tf.cast(f, np.int32).dtype == tf.int32
    assert tf.to_float(tf.constant([1])).op.name.startswith("ToFloat")
    sat = run(tf.saturate_cast(tf.constant([-300.0, 5.7, 300.0]), tf.uint8))
    np.testing.assert_array_equal(sat, [0, 5, 255])
    assert sat.dtype == np.uint8


def test_cast_gradient_between_floats():
    x = tf.placeholder(tf.float32, [2])
    y = tf.reduce_sum(tf.cast(x, tf.float64) * tf.constant([2.0, 3.0], tf.float64))
    g = tf.gradients(y, x)[0]
    assert g.dtype == tf.float32
    np.testing.assert_allclose(run(g, {x: [1.0, 1.0]}), [2.0, 3.0])


def test_round_is_half_to_even_and_keeps_integers():
    v = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 3.49], np.float32)
    np.testing.assert_array_equal(run(tf.round(tf.constant(v))), np.round(v))
    i = tf.constant([1, 2])
    assert tf.round(i) is i


# ---- Python operators ---------------------------------------------------------------------------
@pytest.mark.slow
def test_every_python_operator():
    a, b = np.array([[1.5, -2.0], [3.0, 0.5]], np.float32), np.array([[2.0, 1.0], [-1.0, 4.0]], np.float32)
    x, y = tf.constant(a), tf.constant(b)
    m, n = tf.constant([True, False, True]), tf.constant([True, True, False])
    mv, nv = np.array([True, False, True]), np.array([True, True, False])
    ops = [x + y, x - y, x * y, x / y, x // y, x % y, x ** 2, x @ y, -x, abs(x), x < y, x <= y, x > y, x >= y,
           2 + x, 2 - x, 2 * x, 2 / x, 2 // x, 2 % x, 2 ** x, m & n, m | n, m ^ n, ~m, True & m, False | n,
           a @ y]
    want = [a + b, a - b, a * b, a / b, a // b, a % b, a ** 2, a @ b, -a, np.abs(a), a < b, a <= b, a > b, a >= b,
            2 + a, 2 - a, 2 * a, 2 / a, 2 // a, 2 % a, 2 ** a, mv & nv, mv | nv, mv ^ nv, ~mv, True & mv,
            False | nv, a @ b]
    for got, w, t in zip(run(ops), want, ops):
        assert isinstance(t, tf.Tensor)
        np.testing.assert_allclose(got, w, rtol=1e-6)


def test_operators_on_variables():
    v = tf.Variable([1.0, 2.0])
    out = [v + 1, 1 - v, v * v, -v, v / 2, v ** 2, abs(v), v > 1.5, v @ tf.ones([2, 1]) if False else v * 1]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(out)
    np.testing.assert_allclose(got[0], [2, 3])
    np.testing.assert_allclose(got[1], [0, -1])
    np.testing.assert_allclose(got[2], [1, 4])
    np.testing.assert_allclose(got[3], [-1, -2])
    np.testing.assert_array_equal(got[7], [False, True])


def test_equality_is_identity_and_tensors_hash():
    x = tf.constant([1.0])
    y = tf.constant([1.0])
    assert x == x and x != y and not (x == 1.0)
    assert {x: 1, y: 2}[x] == 1
    assert isinstance(tf.equal(x, y), tf.Tensor)
    with pytest.raises(TypeError):
        bool(x > 0)


def test_operator_op_names_as_tf():
    x = tf.constant([1.0, 2.0])
    names = [(x + 1).op.name, (x + 1).op.name, (x - 1).op.name, (x * 2).op.name, (x / 2).op.name,
             (x // 2).op.name, (x % 2).op.name, (x ** 2).op.name, (-x).op.name]
    assert names == ["add", "add_1", "sub", "mul", "truediv", "floordiv", "mod", "pow", "Neg"]
    with tf.name_scope("s"):
        assert (x + 1).op.name == "s/add"
    # names are unique case-insensitively, as in TF: "add" and "add_1" exist, so tf.add gives "Add_2"
    assert tf.add(x, 1).op.name == "Add_2" and tf.add(x, 1, name="plus").op.name == "plus"
    assert tf.add(x, 2).op.type == "Add" and (x + 1).op.type == "AddV2" and tf.multiply(x, 2).op.type == "Mul"
    assert tf.clip_by_value(x, 0.0, 1.0).op.name == "clip_by_value"
    assert tf.matmul(tf.ones([2, 2]), tf.ones([2, 2])).op.type == "MatMul"
    assert tf.matmul(tf.ones([3, 2, 2]), tf.ones([2, 2])).op.type == "BatchMatMulV2"
    assert tf.reduce_sum(x).op.name == "Sum" and tf.argmax(x).op.name == "ArgMax"


# ---- matmul -------------------------------------------------------------------------------------
def test_matmul_shapes_and_errors():
    with pytest.raises(ValueError, match=r"Dimensions must be equal, but are 3 and 4 for 'MatMul.*' \(op: 'MatMul'\) "
                                         r"with input shapes: \[2,3\], \[4,5\]\."):
        tf.matmul(tf.ones([2, 3]), tf.ones([4, 5]))
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
        tf.matmul(tf.ones([3]), tf.ones([3, 4]))
    with pytest.raises(ValueError):
        tf.matmul(tf.ones([2, 3]), tf.ones([2, 3]), transpose_a=True, adjoint_a=True)
    p = tf.placeholder(tf.float32, [None, 3])
    assert tf.matmul(p, tf.ones([3, 5])).shape.as_list() == [None, 5]
    assert tf.matmul(tf.ones([7, 1, 2, 3]), tf.ones([4, 3, 5])).shape.as_list() == [7, 4, 2, 5]
    assert tf.matmul(tf.ones([2, 3]), tf.ones([2, 5]), transpose_a=True).shape.as_list() == [3, 5]


def test_batch_matmul_values():
    r = np.random.RandomState(0)
    a, b = r.randn(2, 3, 4).astype(np.float32), r.randn(2, 5, 4).astype(np.float32)
    out = run(tf.matmul(tf.constant(a), tf.constant(b), transpose_b=True))
    np.testing.assert_allclose(out, a @ np.swapaxes(b, 1, 2), rtol=1e-5)


# ---- reductions ---------------------------------------------------------------------------------
@pytest.mark.slow
def test_reduction_argument_spellings():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = tf.constant(a)
    out = run([tf.reduce_sum(x, axis=1), tf.reduce_sum(x, reduction_indices=[0, 2]), tf.reduce_sum(x, 1, True),
               tf.reduce_mean(x, axis=-1, keep_dims=True), tf.reduce_max(x, axis=(0, 1)), tf.reduce_min(x),
               tf.reduce_prod(x + 1, axis=[]), tf.reduce_sum(x, axis=tf.constant(2)),
               tf.reduce_sum(x, axis=None, keepdims=True)])
    np.testing.assert_allclose(out[0], a.sum(1))
    np.testing.assert_allclose(out[1], a.sum((0, 2)))
    np.testing.assert_allclose(out[2], a.sum(1, keepdims=True))
    np.testing.assert_allclose(out[3], a.mean(-1, keepdims=True))
    np.testing.assert_allclose(out[4], a.max((0, 1)))
    assert out[5] == 0
    np.testing.assert_allclose(out[6], a + 1)
    np.testing.assert_allclose(out[7], a.sum(2))
    assert out[8].shape == (1, 1, 1)
    assert tf.reduce_sum(x, 1, keepdims=True).shape.as_list() == [2, 1, 4]
    with pytest.raises(ValueError):
        tf.reduce_sum(x, axis=1, reduction_indices=1)
    with pytest.raises(ValueError):
        tf.reduce_sum(x, keepdims=True, keep_dims=True)
    with pytest.raises(ValueError, match="Invalid reduction dimension 3 for input with 3 dimensions"):
        tf.reduce_sum(x, axis=3)


@pytest.mark.slow
def test_integer_and_bool_reductions_keep_dtypes():
    i = tf.constant([[1, 2], [3, 5]])
    b = tf.constant([[True, False], [True, True]])
    out = run([tf.reduce_sum(i), tf.reduce_mean(i), tf.reduce_mean(i, 0), tf.reduce_any(b, 1), tf.reduce_all(b, 0),
               tf.reduce_prod(i)])
    assert out[0] == 11 and out[0].dtype == np.int32
    assert out[1] == 2 and out[1].dtype == np.int32  # integer mean truncates, as TF
    np.testing.assert_array_equal(out[2], [2, 3])
    np.testing.assert_array_equal(out[3], [True, True])
    np.testing.assert_array_equal(out[4], [True, False])
    assert out[5] == 30


@pytest.mark.slow
def test_argmax_argmin_and_count_nonzero():
    a = np.array([[1, 9, 3], [7, 2, 8]], np.float32)
    x = tf.constant(a)
    am, am0, ami, amd = tf.argmax(x, 1), tf.argmax(x), tf.argmin(x, axis=-1, output_type=tf.int32), \
        tf.argmax(x, dimension=0)
    assert am.dtype == tf.int64 and ami.dtype == tf.int32 and am.shape.as_list() == [2]
    out = run([am, am0, ami, amd, tf.count_nonzero(tf.constant([[0, 1, 2], [0, 0, 3]]), axis=1),
               tf.count_nonzero(tf.constant([True, False, True])), tf.count_nonzero(x, keepdims=True, dtype=tf.int32)])
    np.testing.assert_array_equal(out[0], [1, 2])
    np.testing.assert_array_equal(out[1], [1, 0, 1])
    np.testing.assert_array_equal(out[2], [0, 1])
    np.testing.assert_array_equal(out[3], [1, 0, 1])
    np.testing.assert_array_equal(out[4], [2, 1])
    assert out[5] == 2 and out[5].dtype == np.int64
    assert out[6].shape == (1, 1) and out[6].dtype == np.int32
    with pytest.raises(TypeError):
        tf.argmax(x, output_type=tf.float32)


@pytest.mark.slow
def test_reduce_logsumexp_is_stable():
    a = np.array([[1000.0, 1000.0], [-1000.0, -999.0]], np.float32)
    out = run([tf.reduce_logsumexp(tf.constant(a), axis=1), tf.reduce_logsumexp(tf.constant([-np.inf, -np.inf]))])
    np.testing.assert_allclose(out[0], [1000 + np.log(2), -999 + np.log1p(np.exp(-1))], rtol=1e-6)
    assert out[1] == -np.inf


# ---- add_n, clip, misc --------------------------------------------------------------------------
def test_add_n_and_clip_by_value():
    x = tf.constant([1.0, 5.0, -3.0])
    assert tf.add_n([x]) is x
    assert tf.add_n([x], name="only").op.name == "only"
    with pytest.raises(ValueError):
        tf.add_n([])
    with pytest.raises(ValueError):
        tf.add_n([tf.ones([2]), tf.ones([3])])
    out = run([tf.add_n([x, x, [1.0, 1.0, 1.0]]), tf.clip_by_value(x, -1.0, 2.0),
               tf.clip_by_value(x, tf.constant([0.0, 0.0, -5.0]), 4.0)])
    np.testing.assert_allclose(out[0], [3, 11, -5])
    np.testing.assert_allclose(out[1], [1, 2, -1])
    np.testing.assert_allclose(out[2], [1, 4, -3])
    with pytest.raises(ValueError):  # clip values may not broadcast t to a bigger shape
        tf.clip_by_value(x, tf.zeros([2, 3]), 1.0)


def test_scalar_mul_and_math_namespaces():
    x = tf.constant([1.0, 2.0])
    np.testing.assert_allclose(run(tf.scalar_mul(3.0, x)), [3, 6])
    with pytest.raises(ValueError):
        tf.scalar_mul(tf.constant([1.0, 2.0]), x)
    assert tf.math.exp is tf.exp and tf.math.reduce_sum is tf.reduce_sum
    np.testing.assert_allclose(run(tf.math.divide_no_nan(x, tf.constant([0.0, 4.0]))), [0.0, 0.5])
    np.testing.assert_allclose(run(tf.linalg.matmul(tf.ones([2, 3]), tf.ones([3, 1]))), np.full((2, 1), 3.0))
    assert tf.math.log_sigmoid is tf.log_sigmoid


def test_special_values():
    v = np.array([1.0, np.nan, np.inf, -np.inf, 0.0], np.float32)
    x = tf.constant(v)
    out = run([tf.is_nan(x), tf.is_inf(x), tf.is_finite(x), tf.sign(x), tf.maximum(x, 0.0)])
    np.testing.assert_array_equal(out[0], np.isnan(v))
    np.testing.assert_array_equal(out[1], np.isinf(v))
    np.testing.assert_array_equal(out[2], np.isfinite(v))
    np.testing.assert_array_equal(out[3][[0, 2, 3, 4]], [1, 1, -1, 0])
    assert out[0].dtype == np.bool_


def test_gradients_reduce_to_each_input_shape():
    x = tf.placeholder(tf.float32, [2, 3])
    row = tf.placeholder(tf.float32, [3])
    col = tf.placeholder(tf.float32, [2, 1])
    s = tf.placeholder(tf.float32, [])
    y = tf.reduce_sum(tf.maximum(x * row - col, s) / (s + 3.0))
    grads = tf.gradients(y, [x, row, col, s])
    assert [g.shape.as_list() for g in grads] == [[2, 3], [3], [2, 1], []]


def test_integer_shape_arithmetic_is_known_at_build_time():
    x = tf.placeholder(tf.float32, [2, 3, 4])
    flat = tf.reshape(x, [tf.shape(x)[0], tf.shape(x)[1] * tf.shape(x)[2]])
    assert flat.shape.as_list() == [2, 12]
    assert tf.reduce_sum(x, axis=tf.rank(x) - 1).shape.as_list() == [2, 3]
    p = tf.placeholder(tf.int32, [])
    assert tf.reshape(x, [p * 2, -1]).shape.as_list() == [None, None]  # run-time values stay unknown


@pytest.mark.slow
def test_linalg_namespace_and_norm_arguments():
    a = np.array([[2.0, 1.0], [0.5, 3.0]], np.float32)
    x = tf.constant(a)
    out = run([tf.linalg.inv(x), tf.linalg.det(x), tf.linalg.trace(x), tf.linalg.norm(x),
               tf.linalg.matvec(x, [1.0, 2.0]), tf.linalg.transpose(tf.ones([4, 2, 3]))])
    np.testing.assert_allclose(out[0], np.linalg.inv(a), rtol=1e-5)
    np.testing.assert_allclose(out[1], np.linalg.det(a), rtol=1e-5)
    np.testing.assert_allclose(out[2], 5.0)
    np.testing.assert_allclose(out[3], np.linalg.norm(a), rtol=1e-6)
    np.testing.assert_allclose(out[4], a @ [1.0, 2.0])
    assert out[5].shape == (4, 3, 2)
    with pytest.raises(ValueError):
        tf.norm(x, ord=2, axis=[0, 1])  # the spectral norm is not supported (TF: not either)
    with pytest.raises(ValueError):
        tf.norm(x, ord=0.5)
    with pytest.raises(ValueError):
        tf.matrix_inverse(tf.ones([2, 3]))


def test_lists_holding_tensors_are_packed():
    a, b = tf.constant(1.0), tf.constant(2.0)
    v = tf.Variable(5.0)
    out = [tf.reduce_sum([a, b]), tf.maximum([a, b, 3.0], 0.0), tf.convert_to_tensor([[a, 1.0], [2.0, b]]), [a, v] * a]
    assert out[2].shape.as_list() == [2, 2] and out[2].dtype == tf.float32
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(out)
    assert got[0] == 3.0
    np.testing.assert_allclose(got[1], [1, 2, 3])
    np.testing.assert_allclose(got[2], [[1, 1], [2, 2]])
    np.testing.assert_allclose(got[3], [1, 5])


def test_max_and_min_over_nothing_give_the_identity():
    sess = tf.Session()
    got = sess.run([tf.reduce_max(tf.zeros([0])), tf.reduce_min(tf.zeros([0])),
                    tf.reduce_max(tf.zeros([0], tf.int32)), tf.reduce_max(tf.ones([2, 0]), axis=1)])
    assert got[0] == -np.inf and got[1] == np.inf and got[2] == np.iinfo(np.int32).min
    np.testing.assert_array_equal(got[3], [-np.inf, -np.inf])


def test_string_constants_are_fetched_as_bytes():
    hello = tf.constant("hello")  # strings run on the host (tests/*/test_strings_*.py), fetched as TF gives them
    assert tf.Session().run(hello) == b"hello"
