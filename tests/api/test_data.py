"""tf.data: datasets, their transformations and iterators, against numpy and against feed_dict."""
import collections

import numpy as np
import pytest

import tinyflow as tf


def _all(dataset, session=None, feed=None, initializable=False):
    """Every element of `dataset`, read through get_next() until OutOfRangeError."""
    with tf.Graph().as_default():
        ds = dataset() if callable(dataset) else dataset
        it = ds.make_initializable_iterator() if initializable else ds.make_one_shot_iterator()
        nxt = it.get_next()
        out = []
        with tf.Session() as sess:
            if initializable:
                sess.run(it.initializer, feed)
            while True:
                try:
                    out.append(sess.run(nxt))
                except tf.errors.OutOfRangeError:
                    return out


def _flat(elements):
    return [np.asarray(e).tolist() for e in elements]


# ---- sources ---------------------------------------------------------------------------------
def test_from_tensor_slices_values_and_static_shapes():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    got = _all(lambda: tf.data.Dataset.from_tensor_slices(x))
    assert _flat(got) == x.tolist()
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices((x, np.arange(6)))
        assert ds.output_types == (tf.float32, tf.int64)
        assert [s.as_list() for s in ds.output_shapes] == [[2], []]
        assert ds.output_classes == (tf.Tensor, tf.Tensor)


def test_from_tensor_slices_python_lists_and_constant_tensors():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices([1.5, 2.5])
        assert ds.output_types == tf.float32  # Python floats are float32, as in TF
    got = _all(lambda: tf.data.Dataset.from_tensor_slices(tf.constant([[1, 2], [3, 4]])))
    assert _flat(got) == [[1, 2], [3, 4]]
    assert got[0].dtype == np.int32


def test_from_tensor_slices_dict_and_nested():
    feats = {"a": np.arange(3), "b": np.arange(3) * 10.0}
    labels = np.array([7, 8, 9])
    got = _all(lambda: tf.data.Dataset.from_tensor_slices((feats, labels)))
    assert [(e[0]["a"], e[0]["b"], e[1]) for e in got] == [(0, 0.0, 7), (1, 10.0, 8), (2, 20.0, 9)]
    assert isinstance(got[0][0], dict)


def test_from_tensor_slices_mismatched_sizes():
    with tf.Graph().as_default(), pytest.raises(ValueError, match="not compatible"):
        tf.data.Dataset.from_tensor_slices((np.zeros(3), np.zeros(4)))


def test_from_tensors_and_range():
    got = _all(lambda: tf.data.Dataset.from_tensors(np.array([1, 2, 3])))
    assert _flat(got) == [[1, 2, 3]]
    assert _flat(_all(lambda: tf.data.Dataset.range(5))) == list(range(5))
    assert _flat(_all(lambda: tf.data.Dataset.range(2, 11, 3))) == list(range(2, 11, 3))
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(3)
        assert ds.output_types == tf.int64 and ds.output_shapes.as_list() == []


def test_zip_and_concatenate():
    def zipped():
        a = tf.data.Dataset.range(4)
        b = tf.data.Dataset.from_tensor_slices(np.arange(3) * 2.0)
        return tf.data.Dataset.zip((a, b))
    assert [(int(x), float(y)) for x, y in _all(zipped)] == [(0, 0.0), (1, 2.0), (2, 4.0)]  # the shortest
    got = _all(lambda: tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(10, 12)))
    assert _flat(got) == [0, 1, 2, 10, 11]
    with tf.Graph().as_default(), pytest.raises(TypeError, match="different types"):
        tf.data.Dataset.range(3).concatenate(tf.data.Dataset.from_tensor_slices([1.0]))


def test_from_generator():
    def gen():
        for i in range(3):
            yield i, [i] * (i + 1)
    got = _all(lambda: tf.data.Dataset.from_generator(gen, (tf.int64, tf.float32), (tf.TensorShape([]), [None])))
    assert [(int(a), b.tolist()) for a, b in got] == [(0, [0.0]), (1, [1.0, 1.0]), (2, [2.0, 2.0, 2.0])]
    assert got[1][1].dtype == np.float32


# ---- transformations -------------------------------------------------------------------------
def test_batch_shapes_and_drop_remainder():
    x = np.arange(10)
    got = _all(lambda: tf.data.Dataset.from_tensor_slices(x).batch(4))
    assert _flat(got) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    got = _all(lambda: tf.data.Dataset.from_tensor_slices(x).batch(4, drop_remainder=True))
    assert _flat(got) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices(np.zeros((10, 3)))
        assert ds.batch(4).output_shapes.as_list() == [None, 3]
        assert ds.batch(4, drop_remainder=True).output_shapes.as_list() == [4, 3]
        nxt = ds.batch(4, drop_remainder=True).make_one_shot_iterator().get_next()
        assert nxt.shape.as_list() == [4, 3]


def test_padded_batch():
    def ds():
        return tf.data.Dataset.range(1, 5).map(lambda n: tf.fill([n], n)).padded_batch(2, padded_shapes=[None])
    got = _all(ds)
    assert _flat(got) == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]]]


def test_unbatch():
    got = _all(lambda: tf.data.Dataset.from_tensor_slices(np.arange(6)).batch(4).unbatch())
    assert _flat(got) == list(range(6))


def test_repeat_take_skip():
    r = lambda: tf.data.Dataset.range(3)  # noqa: E731
    assert _flat(_all(lambda: r().repeat(2))) == [0, 1, 2, 0, 1, 2]
    assert _flat(_all(lambda: r().repeat().take(7))) == [0, 1, 2, 0, 1, 2, 0]
    assert _flat(_all(lambda: r().skip(1))) == [1, 2]
    assert _flat(_all(lambda: r().take(-1))) == [0, 1, 2]
    assert _flat(_all(lambda: r().skip(5))) == []
    assert _flat(_all(lambda: r().repeat(2).skip(2).take(3))) == [2, 0, 1]


def test_shuffle_is_a_reproducible_permutation():
    got = _flat(_all(lambda: tf.data.Dataset.range(50).shuffle(10, seed=3)))
    assert sorted(got) == list(range(50))
    assert got != list(range(50))
    assert got == _flat(_all(lambda: tf.data.Dataset.range(50).shuffle(10, seed=3)))
    assert got != _flat(_all(lambda: tf.data.Dataset.range(50).shuffle(10, seed=4)))

    def graph_seeded():
        tf.set_random_seed(7)
        return tf.data.Dataset.range(50).shuffle(50)
    assert _flat(_all(graph_seeded)) == _flat(_all(graph_seeded))


def test_shuffle_buffer_bounds_displacement():
    # with a buffer of b elements, output i is one of the first i + b input elements
    got = _flat(_all(lambda: tf.data.Dataset.range(100).shuffle(5, seed=1)))
    assert all(v < i + 5 for i, v in enumerate(got))
    assert _flat(_all(lambda: tf.data.Dataset.range(20).shuffle(1, seed=1))) == list(range(20))


def test_shuffle_reshuffles_each_epoch():
    got = _flat(_all(lambda: tf.data.Dataset.range(20).shuffle(20, seed=2).repeat(2)))
    first, second = got[:20], got[20:]
    assert sorted(first) == sorted(second) == list(range(20))
    assert first != second
    same = _flat(_all(lambda: tf.data.Dataset.range(20).shuffle(20, seed=2, reshuffle_each_iteration=False)
                      .repeat(2)))
    assert same[:20] == same[20:]


def test_map_with_tf_ops():
    x = np.arange(6, dtype=np.int32)

    def ds():
        return tf.data.Dataset.from_tensor_slices(x).map(lambda v: (tf.cast(v, tf.float32) * 2, tf.one_hot(v, 6)))
    got = _all(ds)
    np.testing.assert_allclose([a for a, _ in got], x * 2.0)
    np.testing.assert_array_equal(np.stack([b for _, b in got]), np.eye(6, dtype=np.float32))
    assert got[0][0].dtype == np.float32
    with tf.Graph().as_default():
        d = ds()
        assert d.output_types == (tf.float32, tf.float32)
        assert [s.as_list() for s in d.output_shapes] == [[], [6]]


def test_map_dict_elements_and_batched_map():
    feats = {"x": np.arange(4.0), "y": np.arange(4) % 2}

    def ds():
        return (tf.data.Dataset.from_tensor_slices(feats)
                .map(lambda d: {"x2": d["x"] + 1.0, "label": tf.equal(d["y"], 1)})
                .batch(2).map(lambda d: (d["x2"] * 10, d["label"])))
    got = _all(ds)
    assert _flat([a for a, _ in got]) == [[10.0, 20.0], [30.0, 40.0]]
    assert _flat([b for _, b in got]) == [[False, True], [False, True]]


def test_map_captures_outer_tensors():
    # a constant is copied; a placeholder is fed when running the initializer
    got = _all(lambda: tf.data.Dataset.range(3).map(lambda v: v + tf.constant(100, tf.int64)))
    assert _flat(got) == [100, 101, 102]
    with tf.Graph().as_default():
        scale = tf.placeholder(tf.float32, [])
        ds = tf.data.Dataset.from_tensor_slices(np.ones(3, np.float32)).map(lambda v: v * scale)
        with pytest.raises(ValueError, match="make_initializable_iterator"):
            ds.make_one_shot_iterator()
        it = ds.make_initializable_iterator()
        nxt = it.get_next()
        with tf.Session() as sess:
            sess.run(it.initializer, {scale: 3.0})
            assert sess.run(nxt) == 3.0


def test_map_python_function_on_numpy():
    x = np.arange(4, dtype=np.float64).reshape(2, 2)
    got = _all(lambda: tf.data.Dataset.from_tensor_slices(x).map(lambda v: np.float32(np.sum(v)) ** 2))
    assert _flat(got) == [1.0, 25.0]
    assert got[0].dtype == (np.float32(1) ** 2).dtype   # the function's own dtype (numpy 1 promotes to float64)


@pytest.mark.slow
def test_map_random_ops_draw_per_element():
    got = _flat(_all(lambda: tf.data.Dataset.range(300).map(lambda v: tf.random_uniform([], seed=1))))
    assert len(set(got)) == 300 and all(0 <= u < 1 for u in got)


@pytest.mark.slow
def test_map_on_elements_of_different_shapes():
    def gen():
        for n in range(1, 200):
            yield np.arange(n)
    got = _all(lambda: tf.data.Dataset.from_generator(gen, tf.int64, [None]).map(lambda v: tf.reduce_sum(v) * 2))
    assert _flat(got) == [n * (n - 1) for n in range(1, 200)]


def test_map_assert_fails_at_its_element():
    def checked(v):
        with tf.control_dependencies([tf.Assert(v < 3, [v])]):
            return tf.identity(v)
    with tf.Graph().as_default():
        nxt = tf.data.Dataset.range(5).map(checked).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            assert [sess.run(nxt) for _ in range(3)] == [0, 1, 2]
            with pytest.raises(tf.errors.InvalidArgumentError, match="assertion failed"):
                sess.run(nxt)


def test_filter():
    got = _all(lambda: tf.data.Dataset.range(10).filter(lambda v: tf.equal(v % 3, 0)))
    assert _flat(got) == [0, 3, 6, 9]
    got = _all(lambda: tf.data.Dataset.from_tensor_slices((np.arange(5), np.arange(5) * 1.5))
               .filter(lambda a, b: b > 3.0))
    assert [int(a) for a, _ in got] == [3, 4]
    with tf.Graph().as_default(), pytest.raises(ValueError, match="scalar boolean"):
        tf.data.Dataset.range(3).filter(lambda v: v * 2)


def test_prefetch_cache_apply_and_experimental():
    got = _all(lambda: tf.data.Dataset.range(4).cache().prefetch(tf.data.experimental.AUTOTUNE)
               .apply(tf.data.experimental.shuffle_and_repeat(4, count=2, seed=1)))
    assert sorted(_flat(got)) == [0, 0, 1, 1, 2, 2, 3, 3]


# ---- iterators -------------------------------------------------------------------------------
def test_out_of_range_and_restart_with_fed_placeholder():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2])
        it = tf.data.Dataset.from_tensor_slices(x).batch(2).make_initializable_iterator()
        nxt = it.get_next()
        assert nxt.shape.as_list() == [None, 2]
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError, match="not been initialized"):
                sess.run(nxt)
            a = np.arange(6, dtype=np.float32).reshape(3, 2)
            sess.run(it.initializer, feed_dict={x: a})
            np.testing.assert_array_equal(sess.run(nxt), a[:2])
            np.testing.assert_array_equal(sess.run(nxt), a[2:])
            with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
                sess.run(nxt)
            with pytest.raises(tf.errors.OutOfRangeError):  # stays at the end
                sess.run(nxt)
            b = -np.ones((1, 2), np.float32)
            sess.run(it.initializer, feed_dict={x: b})   # restarts over new values
            np.testing.assert_array_equal(sess.run(nxt), b)


def test_iterators_are_per_session():
    with tf.Graph().as_default():
        nxt = tf.data.Dataset.range(3).make_one_shot_iterator().get_next()
        s1, s2 = tf.Session(), tf.Session()
        assert [s1.run(nxt), s1.run(nxt), s2.run(nxt)] == [0, 1, 0]


def test_one_shot_vs_initializable():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(2)
        one = ds.make_one_shot_iterator()
        init = tf.data.make_initializable_iterator(ds)  # the tf.compat.v1.data function
        with pytest.raises(ValueError, match="initializer"):
            one.initializer
        n1, n2 = one.get_next(), init.get_next()
        with tf.Session() as sess:
            assert sess.run(n1) == 0  # no initializer needed
            with pytest.raises(tf.errors.FailedPreconditionError):
                sess.run(n2)
            sess.run(init.initializer)
            assert [sess.run(n2), sess.run(n2)] == [0, 1]
            sess.run(init.initializer)
            assert sess.run(n2) == 0
            assert sess.run(n1) == 1
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(n1)
    assert tf.compat.v1.data.make_one_shot_iterator is tf.data.make_one_shot_iterator


def test_one_shot_rejects_placeholders():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        with pytest.raises(ValueError, match="Failed to capture"):
            tf.data.Dataset.from_tensor_slices(x).make_one_shot_iterator()


def test_fed_batch_size():
    with tf.Graph().as_default():
        n = tf.placeholder(tf.int64, [])
        it = tf.data.Dataset.range(10).batch(n).make_initializable_iterator()
        nxt = it.get_next()
        with tf.Session() as sess:
            sess.run(it.initializer, {n: 4})
            assert sess.run(nxt).tolist() == [0, 1, 2, 3]
            sess.run(it.initializer, {n: 7})
            assert sess.run(nxt).tolist() == list(range(7))


def test_from_structure_switches_datasets():
    with tf.Graph().as_default():
        train = tf.data.Dataset.from_tensor_slices(np.arange(6, dtype=np.float32)).batch(3)
        test = tf.data.Dataset.from_tensor_slices(-np.arange(2, dtype=np.float32)).batch(3)
        it = tf.data.Iterator.from_structure(train.output_types, train.output_shapes)
        train_init, test_init = it.make_initializer(train), it.make_initializer(test)
        nxt = it.get_next()
        total = tf.reduce_sum(nxt)
        with tf.Session() as sess:
            sess.run(train_init)
            assert sess.run(total) == 3.0
            sess.run(test_init)
            assert sess.run(nxt).tolist() == [0.0, -1.0]
            sess.run(train_init)
            assert sess.run(nxt).tolist() == [0.0, 1.0, 2.0]
        with pytest.raises(TypeError, match="types"):
            it.make_initializer(tf.data.Dataset.range(3))


def test_get_next_in_a_computation_and_namedtuple():
    Pair = collections.namedtuple("Pair", "a b")
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices(Pair(np.arange(3.0), np.ones(3)))
        nxt = ds.make_one_shot_iterator().get_next()
        assert isinstance(nxt, Pair)
        s = nxt.a + nxt.b
        with tf.Session() as sess:
            assert [sess.run(s) for _ in range(3)] == [1.0, 2.0, 3.0]


# ---- training: get_next() vs feed_dict -------------------------------------------------------
def _softmax_regression(x, y):
    W = tf.Variable(tf.zeros([4, 3], tf.float64))
    b = tf.Variable(tf.zeros([3], tf.float64))
    logits = tf.matmul(x, W) + b
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    return tf.train.GradientDescentOptimizer(0.5).minimize(loss), W, b


@pytest.mark.slow
def test_training_from_dataset_equals_feed_dict():
    rng = np.random.RandomState(0)
    X = rng.randn(50, 4)
    Y = np.eye(3)[rng.randint(0, 3, 50)]
    batches = [(X[i:i + 8], Y[i:i + 8]) for i in range(0, 50, 8)]

    with tf.Graph().as_default():
        xp = tf.placeholder(tf.float64, [None, 4])
        yp = tf.placeholder(tf.float64, [None, 3])
        it = tf.data.Dataset.from_tensor_slices((xp, yp)).batch(8).make_initializable_iterator()
        xb, yb = it.get_next()
        train, W, b = _softmax_regression(xb, yb)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(it.initializer, {xp: X, yp: Y})
            steps = 0
            while True:
                try:
                    sess.run(train)
                    steps += 1
                except tf.errors.OutOfRangeError:
                    break
            before_end = sess.run([W, b])
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(train)
            w_data, b_data = sess.run([W, b])
    assert steps == len(batches)
    np.testing.assert_array_equal(w_data, before_end[0])  # the failed step changed nothing

    with tf.Graph().as_default():
        xp = tf.placeholder(tf.float64, [None, 4])
        yp = tf.placeholder(tf.float64, [None, 3])
        train, W, b = _softmax_regression(xp, yp)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for xb, yb in batches:
                sess.run(train, {xp: xb, yp: yb})
            w_feed, b_feed = sess.run([W, b])
    assert np.abs(w_feed).max() > 0.01
    np.testing.assert_allclose(w_data, w_feed, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(b_data, b_feed, rtol=1e-12, atol=1e-12)


def test_initializer_inside_tf_group_runs():
    x = tf.placeholder(tf.float32, [None])
    it = tf.data.Dataset.from_tensor_slices(x).batch(2).make_initializable_iterator()
    nxt = it.get_next()
    v = tf.Variable(1.0)
    sess = tf.Session()
    sess.run(tf.group(tf.global_variables_initializer(), it.initializer), {x: np.arange(5.0)})
    assert sess.run(nxt).tolist() == [0.0, 1.0] and sess.run(v) == 1.0
    sess.run(tf.group(it.initializer), {x: np.arange(10.0, 13.0)})
    assert sess.run(nxt).tolist() == [10.0, 11.0]
