"""tf.nn behaviour the op specs do not pin down: TF's SAME padding, pooling edges, dropout,
cross-entropy gradients wrt labels, top-k ties, embedding shards and TF's error messages."""
import numpy as np
import pytest

import tinyflow as tf

from opspecs.nn import np_conv, np_pool


def run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


ARANGE = np.arange(1, 17, dtype=np.float64).reshape(1, 4, 4, 1)


# ---- convolution and pooling -----------------------------------------------------------------------
def test_same_padding_puts_the_odd_pixel_after():
    # n=4, k=3, stride 2: 1 pixel of padding in total, TF puts it after (bottom/right), not before
    w = np.ones((3, 3, 1, 1))
    got = run(tf.nn.conv2d(tf.constant(ARANGE), tf.constant(w), [1, 2, 2, 1], "SAME"))
    np.testing.assert_allclose(got, np_conv(ARANGE, w, (2, 2)))
    assert got[0, 0, 0, 0] == 1 + 2 + 3 + 5 + 6 + 7 + 9 + 10 + 11  # window starts at (0, 0): no top/left pad
    assert got[0, 1, 1, 0] == 11 + 12 + 15 + 16  # last window: padded bottom and right


def test_conv2d_static_shapes_and_nchw_agree():
    x = tf.placeholder(tf.float32, [None, 7, 6, 3])
    w = tf.constant(np.random.RandomState(0).randn(3, 2, 3, 5).astype(np.float32))
    assert tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME").shape.as_list() == [None, 4, 3, 5]
    assert tf.nn.conv2d(x, w, [1, 2, 3, 1], "VALID").shape.as_list() == [None, 3, 2, 5]
    assert tf.nn.conv2d(x, w, 1, "VALID", dilations=2).shape.as_list() == [None, 3, 4, 5]
    xv = np.random.RandomState(1).randn(2, 7, 6, 3).astype(np.float32)
    a = tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME")
    b = tf.nn.conv2d(tf.transpose(x, [0, 3, 1, 2]), w, [1, 1, 2, 2], "SAME", data_format="NCHW") \
        if hasattr(tf, "transpose") else None
    av = run(a, {x: xv})
    np.testing.assert_allclose(av, np_conv(xv, run(w), (2, 2)), rtol=1e-4, atol=1e-5)
    if b is not None:
        np.testing.assert_allclose(run(b, {x: xv}), av.transpose(0, 3, 1, 2), rtol=1e-5, atol=1e-5)


def test_conv2d_errors_in_tf_words():
    x = tf.placeholder(tf.float32, [1, 5, 5, 2])
    with pytest.raises(ValueError, match=r"Dimensions must be equal, but are 2 and 3 for 'Conv2D' \(op: 'Conv2D'\) "
                                         r"with input shapes: \[1,5,5,2\], \[3,3,3,4\]"):
        tf.nn.conv2d(x, tf.zeros([3, 3, 3, 4]), [1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="Negative dimension size caused by subtracting 7 from 5"):
        tf.nn.conv2d(x, tf.zeros([7, 1, 2, 4]), [1, 1, 1, 1], "VALID")
    with pytest.raises(ValueError, match="padding"):
        tf.nn.conv2d(x, tf.zeros([3, 3, 2, 4]), [1, 1, 1, 1], "FULL")
    with pytest.raises(ValueError, match="strides should be of length 1, 2 or 4 but was 3"):
        tf.nn.conv2d(x, tf.zeros([3, 3, 2, 4]), [1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="batch and depth"):
        tf.nn.conv2d(x, tf.zeros([3, 3, 2, 4]), [2, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="Shape must be rank 4 but is rank 3"):
        tf.nn.conv2d(tf.zeros([5, 5, 2]), tf.zeros([3, 3, 2, 4]), [1, 1, 1, 1], "SAME")


def test_conv2d_transpose_inverts_the_shape_of_a_strided_conv():
    v = tf.placeholder(tf.float32, [2, 3, 3, 4])
    w = tf.constant(np.ones((3, 3, 2, 4), np.float32))
    y = tf.nn.conv2d_transpose(v, w, [2, 6, 6, 2], [1, 2, 2, 1], "SAME")
    assert y.shape.as_list() == [2, 6, 6, 2]
    dyn = tf.placeholder(tf.float32, [None, 3, 3, 4])  # the autoencoder idiom: a dynamic batch size
    z = tf.nn.conv2d_transpose(dyn, w, tf.stack([tf.shape(dyn)[0], 6, 6, 2]), [1, 2, 2, 1], "SAME")
    assert z.shape.as_list() == [None, 6, 6, 2]
    assert run(z, {dyn: np.ones((3, 3, 3, 4))}).shape == (3, 6, 6, 2)
    with pytest.raises(ValueError, match="input channels does not match filter's input channels, 3 != 4"):
        tf.nn.conv2d_transpose(tf.zeros([2, 3, 3, 3]), w, [2, 6, 6, 2], [1, 2, 2, 1])
    with pytest.raises(ValueError, match="output_shape does not match filter's output channels, 5 != 2"):
        tf.nn.conv2d_transpose(v, w, [2, 6, 6, 5], [1, 2, 2, 1])


def test_max_pool_same_never_picks_the_padding():
    x = -ARANGE  # all negative: a zero pad would win if padding counted
    got = run(tf.nn.max_pool(tf.constant(x), [1, 3, 3, 1], [1, 2, 2, 1], "SAME"))
    np.testing.assert_allclose(got[0, :, :, 0], [[-1, -3], [-9, -11]])


def test_avg_pool_same_counts_only_real_elements():
    x = np.arange(1, 10, dtype=np.float32).reshape(1, 3, 3, 1)
    got = run(tf.nn.avg_pool(tf.constant(x), [1, 2, 2, 1], [1, 2, 2, 1], "SAME"))
    np.testing.assert_allclose(got[0, :, :, 0], [[3, 4.5], [7.5, 9]])
    np.testing.assert_allclose(got, np_pool(x, (2, 2), (2, 2), "SAME", np.nanmean))


def test_pool_gradient_with_unknown_batch():
    x = tf.placeholder(tf.float32, [None, 4, 4, 1])
    for pool in (tf.nn.max_pool, tf.nn.avg_pool):
        y = pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        g = tf.gradients(tf.reduce_sum(y), x)[0]
        assert g.shape.as_list() == [None, 4, 4, 1]
        gv = run(g, {x: ARANGE.astype(np.float32)})
        assert gv.sum() == pytest.approx(4.0)


def test_bias_add_checks_the_channel_dimension():
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
        tf.nn.bias_add(tf.zeros([2, 3]), tf.zeros([4]))
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
        tf.nn.bias_add(tf.zeros([2, 3]), tf.zeros([1, 3]))
    assert tf.nn.bias_add(tf.zeros([2, 3, 4, 5]), tf.zeros([3]), data_format="NCHW").shape.as_list() == [2, 3, 4, 5]


# ---- activations and losses ------------------------------------------------------------------------
@pytest.mark.slow
def test_leaky_relu_default_alpha_and_stable_losses():
    np.testing.assert_allclose(run(tf.nn.leaky_relu(tf.constant([-1.0, 2.0]))), [-0.2, 2.0])
    big = tf.constant([[1000.0, -1000.0, 0.0]])
    xent = tf.nn.softmax_cross_entropy_with_logits_v2(labels=[[0.0, 1.0, 0.0]], logits=big)
    np.testing.assert_allclose(run(xent), [2000.0])
    sig = tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.constant([1.0, 0.0, 1.0]),
                                                  logits=tf.constant([-200.0, 200.0, 200.0]))
    np.testing.assert_allclose(run(sig), [200.0, 200.0, 0.0], atol=1e-6)
    assert run(tf.nn.softplus(tf.constant([1000.0, -1000.0]))).tolist() == [1000.0, 0.0]


def test_softmax_cross_entropy_label_gradients_v1_vs_v2():
    labels = tf.constant([[0.2, 0.8]])
    logits = tf.constant([[1.0, 2.0]])
    v1 = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    v2 = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    assert tf.gradients(v1, labels) == [None]
    g = run(tf.gradients(v2, labels)[0])
    np.testing.assert_allclose(g, -np.log(np.exp([1.0, 2.0]) / np.exp([1.0, 2.0]).sum())[None], rtol=1e-6)
    with pytest.raises(ValueError, match="named arguments"):
        tf.nn.softmax_cross_entropy_with_logits(labels, logits)


def test_softmax_cross_entropy_shape_error():
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
        tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.zeros([2, 4]), logits=tf.zeros([2, 3]))


def test_sparse_softmax_cross_entropy_checks():
    logits = tf.zeros([2, 3])
    with pytest.raises(ValueError, match=r"Rank mismatch: Rank of labels \(received 2\) should equal rank of logits "
                                         r"minus 1 \(received 2\)\."):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.zeros([2, 1], tf.int32), logits=logits)
    with pytest.raises(ValueError, match=r"Shape mismatch: The shape of labels \(received \(3,\)\) should equal the "
                                         r"shape of logits except for the last dimension \(received \(2, 3\)\)\."):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.zeros([3], tf.int32), logits=logits)
    with pytest.raises(ValueError, match="Logits cannot be scalars"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.zeros([], tf.int32), logits=tf.constant(1.0))
    with pytest.raises(TypeError, match="int32, int64"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.zeros([2]), logits=logits)
    labels = tf.placeholder(tf.int64, [None])
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=tf.zeros([2, 3]))
    assert loss.dtype == tf.float32 and loss.shape.as_list() == [2]
    np.testing.assert_allclose(run(loss, {labels: [0, 2]}), [np.log(3)] * 2, rtol=1e-6)


def test_sigmoid_cross_entropy_shape_error():
    with pytest.raises(ValueError, match=r"logits and labels must have the same shape \(\(2, 3\) vs \(3,\)\)"):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.zeros([3]), logits=tf.zeros([2, 3]))


@pytest.mark.slow
def test_moments_and_l2():
    x = np.random.RandomState(0).randn(4, 3)
    mean, var = tf.nn.moments(tf.constant(x), axes=[0], keep_dims=True)
    assert mean.shape.as_list() == [1, 3]
    mv, vv = run([mean, var])
    np.testing.assert_allclose(mv, x.mean(0, keepdims=True))
    np.testing.assert_allclose(vv, x.var(0, keepdims=True))
    assert run(tf.nn.l2_loss(tf.constant([3.0, 4.0]))) == pytest.approx(12.5)
    np.testing.assert_allclose(run(tf.nn.l2_normalize(tf.constant([3.0, 4.0]), 0)), [0.6, 0.8], rtol=1e-6)


# ---- dropout ---------------------------------------------------------------------------------------
def test_dropout_keep_prob_one_is_the_identity():
    x = tf.placeholder(tf.float32, [3])
    assert tf.nn.dropout(x, keep_prob=1.0) is x
    assert tf.nn.dropout(x, rate=0.0) is x


@pytest.mark.slow
def test_dropout_statistics_and_scaling():
    x = tf.ones([200, 500])
    y = tf.nn.dropout(x, keep_prob=0.7)
    assert y.shape.as_list() == [200, 500]
    with tf.Session() as sess:
        a, b = sess.run(y), sess.run(y)
    kept = a != 0
    assert abs(kept.mean() - 0.7) < 0.01
    np.testing.assert_allclose(a[kept], 1 / 0.7, rtol=1e-6)
    assert abs(a.mean() - 1.0) < 0.02
    assert (a != b).any()  # a new mask each run


@pytest.mark.slow
def test_dropout_noise_shape_seed_and_tensor_keep_prob():
    tf.set_random_seed(1)
    x = tf.ones([50, 4])
    y = tf.nn.dropout(x, rate=0.5, noise_shape=[50, 1], seed=3)
    v = run(y)
    assert all(len(set(row)) == 1 for row in v)  # one decision per row
    np.testing.assert_array_equal(v, run(y))  # a fresh session replays the same stream
    kp = tf.placeholder(tf.float32, [])
    z = tf.nn.dropout(x, keep_prob=kp)
    np.testing.assert_array_equal(run(z, {kp: 1.0}), np.ones([50, 4]))


def test_dropout_errors():
    x = tf.ones([3])
    with pytest.raises(ValueError, match="Cannot specify both"):
        tf.nn.dropout(x, keep_prob=0.5, rate=0.5)
    with pytest.raises(ValueError, match=r"rate must be a scalar tensor or a float in the range \[0, 1\), got 1"):
        tf.nn.dropout(x, rate=1.0)
    with pytest.raises(ValueError, match="x has to be a floating point tensor"):
        tf.nn.dropout(tf.ones([3], tf.int32), rate=0.5)
    with pytest.raises(ValueError, match="You must provide a rate"):
        tf.nn.dropout(x)


# ---- top-k and embeddings --------------------------------------------------------------------------
def test_top_k_values_indices_and_ties():
    x = tf.constant([[1.0, 3.0, 3.0, 2.0], [5.0, 4.0, 6.0, 0.0]])
    values, indices = tf.nn.top_k(x, k=3)
    assert indices.dtype == tf.int32 and values.shape.as_list() == [2, 3]
    v, i = run([values, indices])
    np.testing.assert_array_equal(v, [[3, 3, 2], [6, 5, 4]])
    np.testing.assert_array_equal(i, [[1, 2, 3], [2, 0, 1]])  # equal values: lower index first
    with pytest.raises(ValueError, match="input must have last dimension >= k = 5 but is 4"):
        tf.nn.top_k(x, 5)


@pytest.mark.slow
def test_in_top_k():
    p = tf.constant([[0.1, 0.9, 0.5], [0.3, 0.3, 0.1]])
    got = run(tf.nn.in_top_k(p, tf.constant([2, 0], tf.int64), 1))
    assert got.dtype == np.bool_ and got.tolist() == [False, True]  # a tie counts as in the top k


@pytest.mark.skipif(not hasattr(tf, "gather"), reason="needs tf.gather (array ops)")
def test_embedding_lookup_single_table_and_gradient():
    table = tf.Variable(np.arange(12, dtype=np.float32).reshape(6, 2))
    ids = tf.constant([[0, 5], [5, 2]])
    emb = tf.nn.embedding_lookup(table, ids)
    assert emb.shape.as_list() == [2, 2, 2]
    g = tf.convert_to_tensor(tf.gradients(tf.reduce_sum(emb), table)[0])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        ev, gv = sess.run([emb, g])
    np.testing.assert_array_equal(ev, np.arange(12).reshape(6, 2)[[[0, 5], [5, 2]]])
    np.testing.assert_array_equal(np.asarray(gv)[:, 0], [1, 0, 1, 0, 0, 2])


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(tf, "concat"), reason="needs tf.concat (array ops)")
@pytest.mark.parametrize("strategy", ["mod", "div"])
def test_embedding_lookup_sharded(strategy):
    full = np.arange(14, dtype=np.float32).reshape(7, 2)
    rows = [np.arange(7)[i::3] for i in range(3)] if strategy == "mod" else [[0, 1, 2], [3, 4], [5, 6]]
    shards = [tf.constant(full[r]) for r in rows]
    ids = np.array([6, 0, 3, 4, 1])
    np.testing.assert_array_equal(run(tf.nn.embedding_lookup(shards, ids, partition_strategy=strategy)), full[ids])


def test_max_pool_gradient_goes_to_the_first_of_tied_maxima():
    x = tf.constant(np.ones((1, 4, 4, 1)))
    g = run(tf.gradients(tf.reduce_sum(tf.nn.max_pool(x, 2, 2, "VALID")), x)[0])
    np.testing.assert_array_equal(g[0, :, :, 0], [[1, 0, 1, 0], [0, 0, 0, 0], [1, 0, 1, 0], [0, 0, 0, 0]])


# ---- candidate sampling ----------------------------------------------------------------------------
@pytest.mark.slow
def test_unique_sampler_draws_distinct_ids_and_reports_expected_counts():
    labels = tf.constant([[0], [4]], tf.int64)
    ids, true_count, sampled_count = tf.nn.log_uniform_candidate_sampler(labels, 1, 5, True, 6, seed=3)
    assert ids.dtype == tf.int64 and true_count.shape.as_list() == [2, 1] and sampled_count.dtype == tf.float32
    with tf.Session() as sess:
        for _ in range(3):
            i, tc, sc = sess.run([ids, true_count, sampled_count])
            assert len(set(i.tolist())) == 5 and i.min() >= 0 and i.max() < 6
            assert (sc > 0).all() and tc[0, 0] > tc[1, 0]  # id 0 is the most likely
    ids, true_count, _ = tf.nn.uniform_candidate_sampler(labels, 1, 4, False, 8)
    np.testing.assert_allclose(run(true_count), [[0.5], [0.5]])  # p * num_sampled without unique
    with pytest.raises(ValueError, match="range is too small"):
        tf.nn.uniform_candidate_sampler(labels, 1, 9, True, 8)


@pytest.mark.slow
def test_nce_and_sampled_softmax_train_a_tiny_model():
    rng = np.random.RandomState(0)
    x = tf.constant(rng.randn(16, 4).astype(np.float32))
    labels = tf.constant(rng.randint(0, 3, (16, 1)))
    w = tf.Variable(np.zeros((12, 4), np.float32))
    b = tf.Variable(np.zeros(12, np.float32))
    loss = tf.reduce_mean(tf.nn.nce_loss(w, b, labels, x, 4, 12)) + \
        tf.reduce_mean(tf.nn.sampled_softmax_loss(w, b, labels, x, 4, 12))
    step = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss)
        for _ in range(30):
            sess.run(step)
        assert sess.run(loss) < first


def test_space_to_depth_shapes_and_errors():
    assert tf.nn.space_to_depth(tf.zeros([1, 4, 6, 3]), 2).shape.as_list() == [1, 2, 3, 12]
    assert tf.nn.depth_to_space(tf.zeros([1, 2, 3, 12]), 2).shape.as_list() == [1, 4, 6, 3]
    with pytest.raises(ValueError, match="Dimension size must be evenly divisible by 2 but is 5"):
        tf.nn.space_to_depth(tf.zeros([1, 4, 5, 3]), 2)
    with pytest.raises(ValueError, match="Dimension size must be evenly divisible by 4 but is 6"):
        tf.nn.depth_to_space(tf.zeros([1, 2, 2, 6]), 2)
    with pytest.raises(ValueError, match="must be at least minimum 2"):
        tf.nn.space_to_depth(tf.zeros([1, 4, 4, 3]), 1)


@pytest.mark.slow
def test_activation_gradients_at_the_kinks_follow_tf():
    x = tf.constant([0.0, 6.0])
    fns = {"relu": (tf.nn.relu, [0, 1]), "relu6": (tf.nn.relu6, [0, 0]), "elu": (tf.nn.elu, [1, 1]),
           "selu": (tf.nn.selu, [1.0507009873554805] * 2), "leaky_relu": (tf.nn.leaky_relu, [0.2, 1])}
    grads = {k: tf.gradients(fn(x), x)[0] for k, (fn, _) in fns.items()}
    got = run(grads)
    for k, (_, want) in fns.items():
        np.testing.assert_allclose(got[k], want, rtol=1e-6, err_msg=k)
