"""Specs of the ops whose output shape depends on run-time values (docs/dynamic_shapes.md): every
deciding input is a placeholder here, so each spec runs as jitted segments around its op."""
import numpy as np

from opspecs import OpSpec

R = np.random.RandomState(11)
X = R.randn(5, 3).astype(np.float32)
MASK = np.array([True, False, True, True, False])
PARTS = np.array([1, 0, 1, 2, 0], np.int32)
IDS = np.array([3, 1, 3, 0, 1, 1], np.int32)

SPECS = [
    OpSpec("boolean_mask_fed", lambda tf, x, m: tf.boolean_mask(x, m), [X, MASK], lambda x, m: x[m], grad=True),
    OpSpec("where_fed", lambda tf, m: tf.where(m), [MASK], lambda m: np.argwhere(m)),
    OpSpec("dynamic_partition", lambda tf, x, p: tf.square(tf.dynamic_partition(x, p, 3)[1]), [X, PARTS],
           lambda x, p: x[p == 1] ** 2, grad=True),
    OpSpec("dynamic_stitch", lambda tf, x, i: tf.square(tf.dynamic_stitch([i, tf.constant([5])], [x, x[:1]])),
           [X[:3].copy(), np.array([4, 0, 2], np.int32)],
           lambda x, i: np.stack([x[1], 0 * x[0], x[2], 0 * x[0], x[0], x[0]]) ** 2, grad=True),
    OpSpec("unique_with_counts", lambda tf, i: list(tf.unique_with_counts(i)), [IDS],
           lambda i: [np.array([3, 1, 0]), np.array([0, 1, 0, 2, 1, 1]), np.array([2, 3, 1])]),
    OpSpec("unique_fed", lambda tf, i: list(tf.unique(i)), [IDS],
           lambda i: [np.array([3, 1, 0]), np.array([0, 1, 0, 2, 1, 1])]),
    OpSpec("range_fed", lambda tf, n: tf.range(n[0]), [np.array([4], np.int32)], lambda n: np.arange(4)),
    OpSpec("slice_fed_bounds", lambda tf, x, i: tf.square(x[i[0]:i[0] + 2]), [X, np.array([2], np.int32)],
           lambda x, i: x[2:4] ** 2, grad=True),
    OpSpec("bincount_fed", lambda tf, i: tf.bincount(i), [IDS], lambda i: np.bincount(i)),
]
SPECS += [
    OpSpec("slice_fed_begin", lambda tf, x, i: tf.square(tf.slice(x, tf.concat([i, [0]], 0), [2, 3])),
           [X, np.array([1], np.int32)], lambda x, i: x[1:3] ** 2, grad=True),
    OpSpec("slice_fed_size", lambda tf, x, n: tf.square(tf.slice(x, [1, 0], tf.concat([n, [-1]], 0))),
           [X, np.array([3], np.int32)], lambda x, n: x[1:4] ** 2, grad=True),
]
SORTED_IDS = np.array([0, 0, 2, 3, 3], np.int32)
SPECS += [
    OpSpec("segment_sum_fed_ids", lambda tf, x, i: tf.square(tf.segment_sum(x, i)), [X, SORTED_IDS],
           lambda x, i: np.stack([x[i == j].sum(0) for j in range(4)]) ** 2, grad=True),
    OpSpec("unsorted_segment_sum_fed_n", lambda tf, x, i, n: tf.unsorted_segment_sum(x, i, n[0]),
           [X, SORTED_IDS, np.array([5], np.int32)],
           lambda x, i, n: np.stack([x[i == j].sum(0) for j in range(5)]), grad=True),
]
