"""tf.gradients semantics (passes/gradients.py): which ops are visited, how partial gradients add
up, grad_ys, stop_gradient(s), unconnected and integer inputs, second order, Variables, TF's errors."""
import numpy as np
import pytest

import tinyflow as tf


def run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def test_only_ops_between_xs_and_ys_are_visited():
    x = tf.placeholder(tf.float32, [3], name="x")
    z = tf.placeholder(tf.float32, [3], name="z")
    side = tf.exp(z, name="side")  # on the way to y, but not from x
    y = tf.reduce_sum(x * 2.0 + side)
    before = len(tf.get_default_graph().get_operations())
    (gx,) = tf.gradients(y, [x])
    new = [op.name for op in tf.get_default_graph().get_operations()[before:]]
    assert all(n.startswith("gradients/") for n in new)
    assert not any("side_grad" in n for n in new)
    np.testing.assert_allclose(run(gx, {x: np.ones(3), z: np.ones(3)}), [2, 2, 2])


def test_tensor_used_several_times_gets_the_sum():
    x = tf.placeholder(tf.float32, [2])
    y = tf.reduce_sum(x * x + 3.0 * x + tf.sin(x))
    g = tf.gradients(y, x)[0]
    xv = np.array([0.5, -1.0], np.float32)
    np.testing.assert_allclose(run(g, {x: xv}), 2 * xv + 3 + np.cos(xv), rtol=1e-6)


def test_grad_ys_weights_the_output():
    x = tf.placeholder(tf.float32, [3])
    y = x * x
    g = tf.gradients(y, x, grad_ys=tf.constant([1.0, 10.0, 100.0]))[0]
    g_py = tf.gradients(y, x, grad_ys=[[1.0, 0.0, 2.0]])[0]  # a list: one grad_y per y
    out, out_py = run([g, g_py], {x: [1.0, 2.0, 3.0]})
    np.testing.assert_allclose(out, [2.0, 40.0, 600.0])
    np.testing.assert_allclose(out_py, [2.0, 0.0, 12.0])


def test_several_ys_are_summed():
    x = tf.placeholder(tf.float32, [3])
    q = x * x
    r = tf.reduce_sum(q * 3.0)
    g = tf.gradients([q, r], x)[0]
    twice = tf.gradients([r, r], x)[0]
    out, out2 = run([g, twice], {x: [1.0, 2.0, 3.0]})
    np.testing.assert_allclose(out, [8.0, 16.0, 24.0])
    np.testing.assert_allclose(out2, [12.0, 24.0, 36.0])


def test_stop_gradient_op_blocks_the_path():
    x = tf.placeholder(tf.float32, [3])
    g = tf.gradients(x * tf.stop_gradient(x), x)[0]
    np.testing.assert_allclose(run(g, {x: [1.0, 2.0, 3.0]}), [1.0, 2.0, 3.0])
    assert tf.gradients(tf.stop_gradient(x), x) == [None]


def test_stop_gradients_argument_as_in_tf_docs():
    a = tf.constant(0.0)
    b = 2 * a
    ga, gb = tf.gradients(a + b, [a, b], stop_gradients=[a, b])
    assert run([ga, gb]) == [1.0, 1.0]
    ga_full, gb_full = tf.gradients(a + b, [a, b])
    assert run([ga_full, gb_full]) == [3.0, 1.0]


def test_unconnected_xs_get_none_or_zeros():
    x = tf.placeholder(tf.float32, [3])
    other = tf.placeholder(tf.float32, [2, 2])
    y = tf.reduce_sum(x * 2.0)
    assert tf.gradients(y, [x, other])[1] is None
    zero = tf.gradients(y, other, unconnected_gradients=tf.UnconnectedGradients.ZERO)[0]
    zero_str = tf.gradients(y, other, unconnected_gradients="zero")[0]
    assert zero.shape.as_list() == [2, 2]
    np.testing.assert_array_equal(run(zero_str, {other: np.ones((2, 2))}), np.zeros((2, 2)))
    with pytest.raises(ValueError):
        tf.gradients(y, x, unconnected_gradients="sometimes")


def test_integer_tensors_get_no_gradient():
    i = tf.placeholder(tf.int32, [3])
    x = tf.placeholder(tf.float32, [3])
    y = tf.reduce_sum(tf.cast(i, tf.float32) * x)
    gi, gx = tf.gradients(y, [i, x])
    assert gi is None
    np.testing.assert_allclose(run(gx, {i: [1, 2, 3], x: np.zeros(3)}), [1, 2, 3])
    # a path through an integer tensor carries nothing back to floats
    y2 = tf.reduce_sum(tf.cast(tf.cast(x, tf.int32), tf.float32))
    assert tf.gradients(y2, x) == [None]


def test_second_order_and_gradients_are_graphs():
    z = tf.placeholder(tf.float32, [2])
    f = tf.reduce_sum(z * z * z)
    g1 = tf.gradients(f, z)[0]
    g2 = tf.gradients(g1, z)[0]
    g3 = tf.gradients(g2, z)[0]
    out = run([g1, g2, g3], {z: [1.0, -2.0]})
    np.testing.assert_allclose(out[0], [3.0, 12.0])
    np.testing.assert_allclose(out[1], [6.0, -12.0])
    np.testing.assert_allclose(out[2], [6.0, 6.0])


def test_hessians():
    x = tf.placeholder(tf.float64, [3])
    a = np.arange(9.0).reshape(3, 3)
    f = tf.reduce_sum(x * x * x) + tf.reduce_sum(x * tf.reduce_sum(tf.constant(a) * x, axis=1))
    h = tf.hessians(f, x)[0]
    assert h.shape.as_list() == [3, 3]
    xv = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(run(h, {x: xv}), np.diag(6 * xv) + a + a.T)
    m = tf.placeholder(tf.float32, [2, 2])
    hm, none = tf.hessians(tf.reduce_sum(m * m), [m, tf.placeholder(tf.float32, [1])])
    assert hm.shape.as_list() == [2, 2, 2, 2] and none is None
    np.testing.assert_allclose(run(hm, {m: np.ones((2, 2))}).reshape(4, 4), 2 * np.eye(4))


def test_gradient_wrt_variable_and_its_reads():
    v = tf.Variable([2.0, 3.0])
    use = tf.reduce_sum(v * v) + tf.reduce_sum(v.value() * 4.0) + tf.reduce_sum(v.read_value())
    gv = tf.gradients(use, v)[0]
    gv2 = tf.gradients(use, [v])[0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(gv), [9.0, 11.0])
        np.testing.assert_allclose(sess.run(gv2), [9.0, 11.0])


def test_wrt_intermediate_and_self():
    x = tf.placeholder(tf.float32, [2])
    h = x * 3.0
    y = tf.reduce_sum(h * h)
    gh, gx = tf.gradients(y, [h, x])
    same = tf.gradients(x, x)[0]
    out = run([gh, gx, same], {x: [1.0, 2.0]})
    np.testing.assert_allclose(out[0], [6.0, 12.0])
    np.testing.assert_allclose(out[1], [18.0, 36.0])
    np.testing.assert_allclose(out[2], [1.0, 1.0])


def test_broadcast_gradient_has_the_input_shape_with_unknown_dims():
    x = tf.placeholder(tf.float32, [None, 3])
    b = tf.placeholder(tf.float32, [3])
    s = tf.placeholder(tf.float32, [])
    y = tf.reduce_sum((x + b) * s)
    gx, gb, gs = tf.gradients(y, [x, b, s])
    assert gb.shape.as_list() == [3] and gs.shape.as_list() == []
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = run([gx, gb, gs], {x: xv, b: np.ones(3), s: 2.0})
    np.testing.assert_allclose(out[0], np.full((2, 3), 2.0))
    np.testing.assert_allclose(out[1], [4.0, 4.0, 4.0])
    np.testing.assert_allclose(out[2], (xv + 1).sum())


def test_compat_arguments_are_accepted():
    x = tf.placeholder(tf.float32, [2])
    y = tf.reduce_sum(x * x)
    for kw in ({"gate_gradients": True}, {"aggregation_method": tf.AggregationMethod.EXPERIMENTAL_TREE},
               {"colocate_gradients_with_ops": True}, {"aggregation_method": tf.AggregationMethod.ADD_N}):
        g = tf.gradients(y, x, **kw)[0]
        np.testing.assert_allclose(run(g, {x: [1.0, 2.0]}), [2.0, 4.0])


def test_gradient_op_names_use_the_gradients_scope():
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.reduce_sum(tf.exp(x, name="e"))
    g = tf.gradients(y, x)[0]
    g2 = tf.gradients(y, x, name="mygrads")[0]
    g3 = tf.gradients(y, x)[0]
    assert g.op.name.startswith("gradients/")
    assert g2.op.name.startswith("mygrads/")
    assert g3.op.name.startswith("gradients_1/")
    assert any(op.name.startswith("gradients/e_grad/") for op in tf.get_default_graph().get_operations())


def test_gradients_in_a_graph_that_is_not_the_default():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2])
        y = tf.reduce_sum(x * x * 2.0)
    gx = tf.gradients(y, x)[0]  # called outside g.as_default()
    assert gx.graph is g
    with tf.Session(graph=g) as sess:
        np.testing.assert_allclose(sess.run(gx, {x: [1.0, 2.0]}), [4.0, 8.0])


def test_unused_outputs_of_a_multi_output_op_count_as_zero():
    x = tf.placeholder(tf.float32, [3, 2])
    a, b, c = tf.unstack(x)
    g = tf.gradients(tf.reduce_sum(b * 5.0), x)[0]
    np.testing.assert_allclose(run(g, {x: np.ones((3, 2))}), [[0, 0], [5, 5], [0, 0]])


def test_errors_as_tf():
    x = tf.placeholder(tf.float32, [2])
    y = tf.reduce_sum(x)
    g2 = tf.Graph()
    with g2.as_default():
        other = tf.placeholder(tf.float32, [2])
    with pytest.raises(ValueError):
        tf.gradients(y, other)
    with pytest.raises(ValueError):
        tf.gradients([y, y], x, grad_ys=[tf.constant(1.0)])
    with pytest.raises(TypeError):
        tf.gradients(y, x, grad_ys=tf.constant(1, tf.int32))
    with pytest.raises(ValueError):
        tf.gradients(x, x, grad_ys=tf.constant([1.0, 2.0, 3.0]))
    # reduce_prod's gradient is not differentiable again: LookupError, as TF for an op with no gradient
    gp = tf.gradients(tf.reduce_prod(x), x)[0]
    with pytest.raises(LookupError):
        tf.gradients(gp, x)


def test_unknown_rank_and_dims():
    x = tf.placeholder(tf.float32)  # unknown rank
    b = tf.placeholder(tf.float32, [None])
    y = tf.reduce_sum(tf.reduce_mean(x * b + tf.square(x), axis=-1) * 2.0)
    gx, gb = tf.gradients(y, [x, b])
    assert gb.shape.as_list() == [None]
    out = run([gx, gb], {x: np.ones((2, 3), np.float32), b: np.arange(3, dtype=np.float32)})
    np.testing.assert_allclose(out[0], np.tile(2 * (np.arange(3) + 2) / 3, (2, 1)), rtol=1e-6)
    np.testing.assert_allclose(out[1], np.full(3, 4 / 3), rtol=1e-6)
