"""Dataset.interleave / flat_map / list_files and tf.data.experimental.parallel_interleave against the
orders TF 1.15 gives (tests/fixtures/tf115_data/o_data.py, o_files.py)."""
import os

import numpy as np
import pytest

import tinyflow as tf

LENS = [3, 0, 5, 1, 2, 4, 0, 6]
# TF 1.15's orders for range(8) mapped to range(10x, 10x + LENS[x]) (o_data.py)
TF_INTERLEAVE = {
    (1, 1): [0, 1, 2, 20, 21, 22, 23, 24, 30, 40, 41, 50, 51, 52, 53, 70, 71, 72, 73, 74, 75],
    (2, 1): [0, 1, 20, 2, 21, 22, 30, 23, 24, 40, 41, 50, 51, 52, 70, 53, 71, 72, 73, 74, 75],
    (3, 2): [0, 1, 20, 21, 2, 30, 22, 23, 40, 41, 50, 51, 24, 52, 53, 70, 71, 72, 73, 74, 75],
    (4, 3): [0, 1, 2, 20, 21, 22, 30, 40, 41, 23, 24, 50, 51, 52, 70, 71, 72, 53, 73, 74, 75],
    (8, 1): [0, 20, 30, 40, 50, 70, 1, 21, 41, 51, 71, 2, 22, 52, 72, 23, 53, 73, 24, 74, 75],
    (10, 2): [0, 1, 20, 21, 30, 40, 41, 50, 51, 70, 71, 2, 22, 23, 52, 53, 72, 73, 24, 74, 75]}
TF_PARALLEL = dict(TF_INTERLEAVE)
TF_PARALLEL.update({
    (4, 3): [0, 1, 2, 20, 21, 22, 30, 40, 41, 23, 24, 50, 70, 71, 72, 51, 52, 53, 73, 74, 75],
    (10, 2): [0, 1, 20, 21, 30, 40, 50, 51, 70, 71, 2, 22, 41, 52, 72, 73, 23, 24, 53, 74, 75]})


def _all(make, feed=None, initializable=False):
    with tf.Graph().as_default():
        ds = make()
        it = ds.make_initializable_iterator() if initializable else ds.make_one_shot_iterator()
        nxt, out = it.get_next(), []
        with tf.Session() as sess:
            if initializable:
                sess.run(it.initializer, feed)
            while True:
                try:
                    out.append(sess.run(nxt))
                except tf.errors.OutOfRangeError:
                    return out


def _inner(x):
    return tf.data.Dataset.range(10 * x, 10 * x + tf.gather(tf.constant(LENS, tf.int64), x))


@pytest.mark.parametrize("cycle,block", sorted(TF_INTERLEAVE))
def test_interleave_order_is_tfs(cycle, block):
    got = _all(lambda: tf.data.Dataset.range(len(LENS)).interleave(_inner, cycle_length=cycle, block_length=block))
    assert [int(x) for x in got] == TF_INTERLEAVE[cycle, block]


@pytest.mark.parametrize("cycle,block", sorted(TF_PARALLEL))
def test_parallel_interleave_order_is_tfs(cycle, block):
    for fn in (tf.data.experimental.parallel_interleave, tf.contrib.data.parallel_interleave):
        got = _all(lambda: tf.data.Dataset.range(len(LENS)).apply(fn(_inner, cycle_length=cycle, block_length=block)))
        assert [int(x) for x in got] == TF_PARALLEL[cycle, block]


def test_flat_map_concatenates_and_reads_the_element():
    got = _all(lambda: tf.data.Dataset.range(len(LENS)).flat_map(_inner))
    assert [int(x) for x in got] == TF_INTERLEAVE[1, 1]
    got = _all(lambda: tf.data.Dataset.range(4).flat_map(
        lambda x: tf.data.Dataset.from_tensors(tf.stack([x, x * 2])).repeat(x)))
    assert [list(map(int, x)) for x in got] == [[1, 2], [2, 4], [2, 4], [3, 6], [3, 6], [3, 6]]


def test_interleave_reads_a_fed_placeholder_and_checks_its_arguments():
    def make():
        n = tf.placeholder(tf.int64, [], name="n")
        make.n = n
        return tf.data.Dataset.range(3).interleave(lambda x: tf.data.Dataset.range(x * n, x * n + 2), cycle_length=2)
    with tf.Graph().as_default():
        ds = make()
        it = ds.make_initializable_iterator()
        nxt = it.get_next()
        assert ds.output_types == tf.int64 and ds.output_shapes.as_list() == []
        with tf.Session() as sess:
            sess.run(it.initializer, {make.n: 10})
            assert [int(sess.run(nxt)) for _ in range(6)] == [0, 10, 1, 11, 20, 21]
    with pytest.raises(TypeError, match="must return a `Dataset`"):
        tf.data.Dataset.range(3).interleave(lambda x: x + 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="cycle_length must be greater than zero"):
        _all(lambda: tf.data.Dataset.range(3).interleave(lambda x: tf.data.Dataset.range(x), cycle_length=0))


@pytest.fixture
def text_files(tmp_path):
    for i, name in enumerate(["b.txt", "a.txt", "c.txt", "z.csv"]):
        (tmp_path / name).write_text("".join("%s-%d\n" % (name[0], j) for j in range(i + 1)))
    return str(tmp_path)


def _names(elements):
    return [os.path.basename(x.decode()) for x in elements]


def test_list_files_unshuffled_is_sorted_and_feeds_interleave(text_files):
    d = text_files
    assert _names(_all(lambda: tf.data.Dataset.list_files(d + "/*.txt", shuffle=False))) == ["a.txt", "b.txt", "c.txt"]
    # every pattern's matches sorted together (TF: a c.txt twice, in order)
    assert _names(_all(lambda: tf.data.Dataset.list_files([d + "/c*", d + "/*.txt"], shuffle=False))) == [
        "a.txt", "b.txt", "c.txt", "c.txt"]
    lines = _all(lambda: tf.data.Dataset.list_files(d + "/*.txt", shuffle=False).interleave(
        lambda f: tf.data.TextLineDataset(f), cycle_length=2))
    assert [x.decode() for x in lines] == ["a-0", "b-0", "a-1", "c-0", "c-1", "c-2"]
    lines = _all(lambda: tf.data.Dataset.list_files(d + "/*.txt", shuffle=False).flat_map(
        lambda f: tf.data.TextLineDataset(f).skip(1)))
    assert [x.decode() for x in lines] == ["a-1", "c-1", "c-2"]
    with tf.Graph().as_default():
        ds = tf.data.Dataset.list_files(d + "/*.txt")
        assert ds.output_types == tf.string and ds.output_shapes.as_list() == []


def test_list_files_shuffles_by_default_with_tfs_seed_semantics(tmp_path):
    for i in range(12):
        (tmp_path / ("f%02d" % i)).write_text("x")
    d, expected = str(tmp_path), ["f%02d" % i for i in range(12)]

    def seeded_twice(seed):
        with tf.Graph().as_default():
            it = tf.data.Dataset.list_files(d + "/*", seed=seed).repeat(2).make_initializable_iterator()
            nxt = it.get_next()
            with tf.Session() as sess:
                runs = []
                for _ in range(2):
                    sess.run(it.initializer)
                    runs.append(_names(sess.run(nxt) for _ in range(24)))
                return runs
    first, second = seeded_twice(7)
    assert first == second                          # a seed: the same order at each initialization
    assert sorted(first[:12]) == expected and sorted(first[12:]) == expected
    assert first[:12] != expected and first[:12] != first[12:]   # shuffled, and reshuffled each epoch
    unseeded = [_names(_all(lambda: tf.data.Dataset.list_files(d + "/*"))) for _ in range(3)]
    assert all(sorted(u) == expected for u in unseeded) and len({tuple(u) for u in unseeded}) > 1


def test_list_files_without_a_match_is_tfs_error(text_files):
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"assertion failed: \[No files matched pattern: .*nothing"):
        _all(lambda: tf.data.Dataset.list_files(text_files + "/*.nothing"), initializable=True)


def test_list_files_pattern_may_be_fed(text_files):
    with tf.Graph().as_default():
        pattern = tf.placeholder(tf.string, [])
        it = tf.data.Dataset.list_files(pattern, shuffle=False).make_initializable_iterator()
        nxt = it.get_next()
        with tf.Session() as sess:
            sess.run(it.initializer, {pattern: text_files + "/*.csv"})
            assert _names([sess.run(nxt)]) == ["z.csv"]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(nxt)


def test_interleave_of_files_in_a_training_loop(text_files):
    """What real scripts do: list_files -> interleave(TextLineDataset) -> map(decode) -> batch."""
    with tf.Graph().as_default():
        ds = tf.data.Dataset.list_files(text_files + "/*.txt", shuffle=False).interleave(
            lambda f: tf.data.TextLineDataset(f).map(lambda line: tf.string_to_number(
                tf.string_split([line], "-").values[1], tf.int32)), cycle_length=3).batch(2)
        x = ds.make_one_shot_iterator().get_next()
        total = tf.reduce_sum(x)
        with tf.Session() as sess:
            got = [sess.run(total) for _ in range(3)]
    assert got == [0 + 0, 0 + 1, 1 + 2] and np.sum(got) == 4


@pytest.mark.parametrize("cycle,block", [(2, 1), (3, 2), (4, 3)])
def test_interleave_with_num_parallel_calls_keeps_tfs_deterministic_order(cycle, block):
    got = _all(lambda: tf.data.Dataset.range(len(LENS)).interleave(_inner, cycle_length=cycle, block_length=block,
                                                                   num_parallel_calls=2))
    assert [int(x) for x in got] == TF_INTERLEAVE[cycle, block]   # TF 1.15 (o_npc.py): interleave's order


def test_interleave_of_datasets_computed_from_string_elements():
    got = _all(lambda: tf.data.Dataset.from_tensor_slices(["a", "bb"]).interleave(
        lambda s: tf.data.Dataset.from_tensors(tf.strings.join([s, "-x"])).repeat(
            tf.cast(tf.strings.length(s), tf.int64)), cycle_length=2))
    assert [x.decode() for x in got] == ["a-x", "bb-x", "bb-x"]
