"""Specs of the array ops (ops/core/array_ops.py, indexing_ops.py, sequence_ops.py, matrix_ops.py). Ops
whose gradient rule builds another op are wrapped in tf.square with second_order=True, so the
gradient's own gradient rule runs too."""
import numpy as np

from opspecs import OpSpec

R = np.random.RandomState(7)
A = R.randn(3, 4).astype(np.float32)
B = R.randn(3, 4).astype(np.float32)
C = R.randn(2, 3, 4).astype(np.float32)
V = R.randn(4).astype(np.float32)
SQ = R.randn(3, 3).astype(np.float32)
IDX = np.array([2, 0, 2], np.int32)
COND = np.array([[True, False, True, False]] * 3)


def _reflect(x):
    return np.pad(x, [[1, 1], [2, 0]], mode="reflect")


SPECS = [
    OpSpec("reshape", lambda tf, x: tf.reshape(x, [-1, 6]), [C], lambda x: x.reshape(-1, 6), grad=True),
    OpSpec("expand_dims", lambda tf, x: tf.expand_dims(x, -1), [A], lambda x: x[..., None], grad=True),
    OpSpec("squeeze", lambda tf, x: tf.squeeze(x[None], [0]), [A], lambda x: x, grad=True),
    OpSpec("stack", lambda tf, x, y: tf.stack([x, y], axis=1), [A, B], lambda x, y: np.stack([x, y], 1), grad=True),
    OpSpec("unstack", lambda tf, x: tf.unstack(x, axis=1), [A], lambda x: list(np.moveaxis(x, 1, 0)), grad=True),
    OpSpec("identity", lambda tf, x: tf.identity(x), [A], lambda x: x, grad=True),
    OpSpec("identity_n", lambda tf, x, y: tf.identity_n([x * y, y]), [A, B], lambda x, y: [x * y, y], grad=True),
    OpSpec("placeholder_with_default", lambda tf, x: tf.placeholder_with_default(x, [None, 4]) * 2.0, [A],
           lambda x: 2 * x, grad=True),
    OpSpec("fill", lambda tf, v: tf.fill([2, 3], v), [np.float32(1.5)], lambda v: np.full([2, 3], v), grad=True),
    OpSpec("shape_size_rank", lambda tf, x: [tf.shape(x), tf.size(x), tf.rank(x)], [C],
           lambda x: [np.array(x.shape), x.size, x.ndim]),
    OpSpec("zeros_ones_like", lambda tf, x: tf.zeros_like(x) + tf.ones_like(x) * x, [A], lambda x: x, grad=True),
    OpSpec("stop_gradient", lambda tf, x: tf.stop_gradient(x) * x, [A], lambda x: x * x, grad=False),
    OpSpec("transpose_perm", lambda tf, x: tf.transpose(x, [2, 0, 1]), [C], lambda x: x.transpose(2, 0, 1),
           grad=True),
    OpSpec("transpose_default", lambda tf, x: tf.transpose(x), [C], lambda x: x.T, grad=True),
    OpSpec("invert_permutation", lambda tf, p: tf.invert_permutation(p), [np.array([2, 0, 1], np.int32)],
           np.argsort),
    OpSpec("concat", lambda tf, x, y: tf.square(tf.concat([x, y], 1)), [A, B],
           lambda x, y: np.concatenate([x, y], 1) ** 2, grad=True, second_order=True),
    OpSpec("concat_neg_axis", lambda tf, x, y: tf.concat([x, y], -2), [A, B],
           lambda x, y: np.concatenate([x, y], 0), grad=True),
    OpSpec("split", lambda tf, x: tf.split(x, 2, axis=1), [A], lambda x: np.split(x, 2, 1), grad=True),
    OpSpec("split_sizes", lambda tf, x: tf.split(x, [1, -1], axis=1), [A], lambda x: np.split(x, [1], 1),
           grad=True),
    OpSpec("slice", lambda tf, x: tf.square(tf.slice(x, [1, 1], [2, -1])), [A], lambda x: x[1:3, 1:] ** 2,
           grad=True, second_order=True),
    OpSpec("strided_slice", lambda tf, x: tf.strided_slice(x, [0, 1], [3, 4], [2, 2]), [A], lambda x: x[0:3:2, 1:4:2],
           grad=True),
    OpSpec("getitem", lambda tf, x: tf.square(x[::-1, None, 1:3, ...]), [C], lambda x: x[::-1, None, 1:3, ...] ** 2,
           grad=True, second_order=True),
    OpSpec("getitem_shrink", lambda tf, x: x[1, :, -1], [C], lambda x: x[1, :, -1], grad=True),
    OpSpec("gather", lambda tf, x, i: tf.square(tf.gather(x, i)), [A, IDX], lambda x, i: x[i] ** 2, grad=True,
           second_order=True),
    OpSpec("gather_axis1", lambda tf, x, i: tf.gather(x, i, axis=1), [C, IDX], lambda x, i: x[:, i], grad=True),
    OpSpec("gather_batch_dims", lambda tf, x, i: tf.gather(x, i, axis=2, batch_dims=1), [C, np.array([[3, 0], [1, 1]],
           np.int32)], lambda x, i: np.stack([x[b][:, i[b]] for b in range(2)]), grad=True),
    OpSpec("unsorted_segment_sum", lambda tf, x, i: tf.unsorted_segment_sum(x, i, 4), [A, IDX],
           lambda x, i: np.stack([x[i == k].sum(0) for k in range(4)]), grad=True),
    OpSpec("gather_nd", lambda tf, x: tf.square(tf.gather_nd(x, [[0, 1], [2, 3], [0, 1]])), [A],
           lambda x: x[[0, 2, 0], [1, 3, 1]] ** 2, grad=True, second_order=True),
    OpSpec("scatter_nd", lambda tf, u: tf.scatter_nd([[1], [3], [1]], u, [5, 4]), [A],
           lambda u: np.stack([0 * u[0], u[0] + u[2], 0 * u[0], u[1], 0 * u[0]]), grad=True),
    OpSpec("tile", lambda tf, x: tf.square(tf.tile(x, [2, 1, 3])), [C], lambda x: np.tile(x, [2, 1, 3]) ** 2,
           grad=True, second_order=True),
    OpSpec("pad", lambda tf, x: tf.square(tf.pad(x, [[1, 0], [0, 2]])), [A],
           lambda x: np.pad(x, [[1, 0], [0, 2]]) ** 2, grad=True, second_order=True),
    OpSpec("pad_value", lambda tf, x: tf.pad(x, [[0, 1], [1, 1]], constant_values=-1.5), [A],
           lambda x: np.pad(x, [[0, 1], [1, 1]], constant_values=-1.5), grad=True),
    OpSpec("pad_reflect", lambda tf, x: tf.square(tf.pad(x, [[1, 1], [2, 0]], "REFLECT")), [A],
           lambda x: _reflect(x) ** 2, grad=True, second_order=True),
    OpSpec("pad_symmetric", lambda tf, x: tf.pad(x, [[3, 0], [1, 4]], mode="symmetric"), [A],
           lambda x: np.pad(x, [[3, 0], [1, 4]], mode="symmetric"), grad=True),
    OpSpec("one_hot", lambda tf, i: tf.one_hot(i, 4), [IDX], lambda i: np.eye(4)[i]),
    OpSpec("one_hot_axis0", lambda tf, i: tf.one_hot(i, 3, on_value=5, off_value=-1, axis=0), [IDX],
           lambda i: np.where(np.eye(3)[i].T > 0, 5, -1)),
    OpSpec("range", lambda tf: [tf.range(5), tf.range(2, 11, 3), tf.range(0.0, 1.0, 0.25), tf.range(5, 0, -2)], [],
           lambda: [np.arange(5), np.arange(2, 11, 3), np.arange(0, 1, 0.25), np.arange(5, 0, -2)]),
    OpSpec("linspace", lambda tf, s, e: tf.linspace(s, e, 5), [np.float32(-1), np.float32(2)],
           lambda s, e: np.linspace(s, e, 5)),
    OpSpec("where_coords", lambda tf: tf.where(tf.constant(COND)), [], lambda: np.argwhere(COND)),
    OpSpec("select", lambda tf, c, x, y: tf.square(tf.where(c, x, y)), [COND, A, B],
           lambda c, x, y: np.where(c, x, y) ** 2, grad=True, second_order=True),
    OpSpec("select_rows", lambda tf, c, x, y: tf.where(c, x, y), [np.array([True, False, True]), A, B],
           lambda c, x, y: np.where(c[:, None], x, y), grad=True),
    OpSpec("reverse", lambda tf, x: tf.reverse(x, [0, -1]), [C], lambda x: x[::-1, :, ::-1], grad=True),
    OpSpec("reverse_sequence", lambda tf, x: tf.square(tf.reverse_sequence(x, [3, 1], seq_axis=1, batch_axis=0)),
           [C], lambda x: np.stack([x[0, [2, 1, 0]], x[1]]) ** 2, grad=True, second_order=True),
    OpSpec("cumsum", lambda tf, x: tf.cumsum(x, axis=1), [A], lambda x: np.cumsum(x, 1), grad=True),
    OpSpec("cumsum_exclusive_reverse", lambda tf, x: tf.cumsum(x, 1, exclusive=True, reverse=True), [A],
           lambda x: np.cumsum(x[:, ::-1], 1)[:, ::-1] - x, grad=True),
    OpSpec("diag", lambda tf, v: tf.diag(v), [V], np.diag, grad=True),
    OpSpec("diag_part", lambda tf, x: tf.diag_part(x), [SQ], np.diag, grad=True),
    OpSpec("matrix_diag", lambda tf, x: tf.matrix_diag(x), [A], lambda x: np.stack([np.diag(r) for r in x]),
           grad=True),
    OpSpec("matrix_diag_part", lambda tf, x: tf.matrix_diag_part(x), [C],
           lambda x: np.stack([np.diag(m) for m in x]), grad=True),
    OpSpec("eye", lambda tf: [tf.eye(3), tf.eye(2, 3, batch_shape=[2], dtype=tf.int32)], [],
           lambda: [np.eye(3), np.broadcast_to(np.eye(2, 3), (2, 2, 3))]),
    OpSpec("tensordot", lambda tf, x, y: tf.tensordot(x, y, [[1, 2], [2, 1]]), [C, C.transpose(0, 2, 1).copy()],
           lambda x, y: np.tensordot(x, y, [[1, 2], [2, 1]]), grad=True),
    OpSpec("tensordot_int", lambda tf, x, y: tf.tensordot(x, y, 1), [C, A.T.copy()],
           lambda x, y: np.tensordot(x, y, 1), grad=True),
    OpSpec("einsum_matmul", lambda tf, x, y: tf.einsum("ij,kj->ik", x, y), [A, B], lambda x, y: x @ y.T,
           grad=True),
    OpSpec("einsum_reduce", lambda tf, x, v: tf.einsum("bij,j->i", x, v), [C, V],
           lambda x, v: np.einsum("bij,j->i", x, v), grad=True),
    OpSpec("einsum_ellipsis", lambda tf, x, y: tf.einsum("...ij,jk->...ik", x, y), [C, A.T.copy()],
           lambda x, y: x @ y, grad=True),
    OpSpec("boolean_mask", lambda tf, x: tf.boolean_mask(x, [True, False, True]), [A], lambda x: x[[0, 2]],
           grad=True),
    OpSpec("boolean_mask_2d", lambda tf, x: tf.boolean_mask(x, tf.constant(COND), axis=1), [C],
           lambda x: x[:, COND], grad=True),
    OpSpec("broadcast_to", lambda tf, v: tf.broadcast_to(v, [3, 4]), [V], lambda v: np.broadcast_to(v, (3, 4)),
           grad=True),
    OpSpec("shape_n", lambda tf, x, y: tf.shape_n([x, y]), [C, V], lambda x, y: [np.array(x.shape), [4]]),
    OpSpec("meshgrid", lambda tf, x, y: tf.meshgrid(x, y), [V, V[:3].copy()], lambda x, y: np.meshgrid(x, y)),
    OpSpec("unique", lambda tf: list(tf.unique(tf.constant([4, 1, 4, 2, 1]))), [],
           lambda: [np.array([4, 1, 2]), np.array([0, 1, 0, 2, 1])]),
    OpSpec("sequence_mask", lambda tf, n: tf.sequence_mask(n, 4), [np.array([1, 3, 0], np.int32)],
           lambda n: np.arange(4) < n[:, None]),
]


# ---- sort, cumprod, roll, band/diag/transpose, cross, segments, bincount, scatter on variables ----
SEG_IDS = np.array([0, 0, 1, 3, 3, 3], np.int32)  # sorted; segment 2 is empty
SEG = R.permutation(24).reshape(6, 4).astype(np.float32) / 7 + 0.5  # distinct, nonzero: max/min/prod grads
USEG_IDS = np.array([1, 4, 1, -1, 0, 4], np.int32)  # unsorted; -1 is dropped; segments 2 and 3 are empty
ZMASK = np.ones((6, 4), np.float32)  # with SEG_IDS % 3: one zero in a segment, and two in another
ZMASK[0, 1] = ZMASK[2, 2] = ZMASK[4, 3] = ZMASK[5, 3] = 0


def _np_segments(x, ids, n, fn, empty):
    return np.stack([fn(x[ids == k], axis=0) if np.any(ids == k) else np.full(x.shape[1:], empty, x.dtype)
                     for k in range(n)])


def _np_cumprod_exclusive_reverse(x):
    r = np.cumprod(x[:, ::-1], axis=1)[:, ::-1]
    return np.concatenate([r[:, 1:], np.ones_like(r[:, :1])], axis=1)


def _np_band(x, lo, hi):
    i, j = np.indices(x.shape[-2:])
    return np.where(((lo < 0) | (i - j <= lo)) & ((hi < 0) | (j - i <= hi)), x, 0)


def _np_set_diag(x, d):
    out = x.copy()
    k = np.arange(min(x.shape[-2:]))
    out[..., k, k] = d
    return out


def _np_scatter(x, fn):
    out = x.copy()
    fn(out)
    return out


def _initialized(tf, x):
    """A variable holding x, and a control dependency that runs its initializer first (so a spec
    can fetch an update in a fresh Session)."""
    v = tf.Variable(x)
    return v, tf.control_dependencies([v.initializer])


def _scatter_spec(name, op, idx, np_update):
    def build(tf, x, u):
        v, first = _initialized(tf, x)
        with first:
            return getattr(tf, op)(v, idx, u)
    return build


SPECS += [
    OpSpec("sort", lambda tf, x: tf.sort(x), [A], lambda x: np.sort(x, axis=-1), grad=True),
    OpSpec("sort_desc_axis0", lambda tf, x: tf.sort(x, axis=0, direction="DESCENDING"), [C],
           lambda x: -np.sort(-x, axis=0), grad=True),
    OpSpec("argsort", lambda tf, x: tf.argsort(x, axis=1), [C], lambda x: np.argsort(x, axis=1, kind="stable")),
    OpSpec("argsort_ties_desc", lambda tf, x: tf.argsort(x, direction="DESCENDING", stable=True),
           [np.array([1, 3, 1, 3, 2], np.int32)], lambda x: np.argsort(-x, kind="stable")),
    OpSpec("cumprod", lambda tf, x: tf.cumprod(x, axis=1), [SEG], lambda x: np.cumprod(x, axis=1), grad=True),
    OpSpec("cumulative_logsumexp", lambda tf, x: tf.math.cumulative_logsumexp(x, axis=1), [SEG],
           lambda x: np.logaddexp.accumulate(x, axis=1), grad=True),
    OpSpec("cumulative_logsumexp_exclusive_reverse",
           lambda tf, x: tf.math.cumulative_logsumexp(x, 1, exclusive=True, reverse=True), [SEG],
           lambda x: np.concatenate([np.logaddexp.accumulate(x[:, :0:-1], axis=1)[:, ::-1],
                                     np.full((x.shape[0], 1), np.finfo(x.dtype).min)], axis=1)),
    OpSpec("cumprod_exclusive_reverse", lambda tf, x: tf.math.cumprod(x, 1, exclusive=True, reverse=True), [SEG],
           _np_cumprod_exclusive_reverse, grad=True),
    OpSpec("roll", lambda tf, x: tf.square(tf.roll(x, [1, -2], [0, 2])), [C],
           lambda x: np.roll(x, [1, -2], [0, 2]) ** 2, grad=True, second_order=True),
    OpSpec("matrix_transpose", lambda tf, x: tf.matrix_transpose(x), [C], lambda x: x.transpose(0, 2, 1),
           grad=True),
    OpSpec("matrix_band_part", lambda tf, x: tf.square(tf.matrix_band_part(x, 1, -1)), [C],
           lambda x: _np_band(x, 1, -1) ** 2, grad=True, second_order=True),
    OpSpec("linalg_band_part", lambda tf, x: tf.linalg.band_part(x, 0, 2), [A], lambda x: _np_band(x, 0, 2)),
    OpSpec("matrix_set_diag", lambda tf, x, d: tf.square(tf.matrix_set_diag(x, d)), [C, B[:2, :3].copy()],
           lambda x, d: _np_set_diag(x, d) ** 2, grad=True, second_order=True),
    OpSpec("cross", lambda tf, x, y: tf.square(tf.cross(x, y)), [C[..., :3].copy(), C[::-1, :, 1:].copy()],
           lambda x, y: np.cross(x, y) ** 2, grad=True, second_order=True),
    OpSpec("segment_sum", lambda tf, x: tf.segment_sum(x, SEG_IDS), [SEG],
           lambda x: _np_segments(x, SEG_IDS, 4, np.sum, 0), grad=True),
    OpSpec("segment_mean", lambda tf, x: tf.segment_mean(x, SEG_IDS), [SEG],
           lambda x: _np_segments(x, SEG_IDS, 4, np.mean, 0), grad=True),
    OpSpec("segment_max", lambda tf, x: tf.segment_max(x, SEG_IDS), [SEG],
           lambda x: _np_segments(x, SEG_IDS, 4, np.max, 0), grad=True),
    OpSpec("segment_min", lambda tf, x: tf.segment_min(x, SEG_IDS), [SEG],
           lambda x: _np_segments(x, SEG_IDS, 4, np.min, 0), grad=True),
    OpSpec("segment_prod", lambda tf, x: tf.segment_prod(x, SEG_IDS), [SEG],
           lambda x: _np_segments(x, SEG_IDS, 4, np.prod, 1), grad=True),
    OpSpec("segment_sum_int", lambda tf, x: tf.math.segment_sum(x, SEG_IDS), [SEG_IDS * 3],
           lambda x: _np_segments(x, SEG_IDS, 4, np.sum, 0)),
    OpSpec("unsorted_segment_max", lambda tf, x, i: tf.unsorted_segment_max(x, i, 5), [SEG, USEG_IDS],
           lambda x, i: _np_segments(x, i, 5, np.max, np.finfo(np.float32).min)),
    OpSpec("unsorted_segment_min", lambda tf, x, i: tf.unsorted_segment_min(x, i, 5), [SEG, USEG_IDS],
           lambda x, i: _np_segments(x, i, 5, np.min, np.finfo(np.float32).max)),
    # no empty segment here: the lowest float64 of an empty one would overflow the finite differences
    OpSpec("unsorted_segment_max_grad", lambda tf, x, i: tf.unsorted_segment_max(x, i, 3), [SEG, USEG_IDS % 3],
           lambda x, i: _np_segments(x, i, 3, np.max, 0), grad=True),
    OpSpec("unsorted_segment_min_grad", lambda tf, x, i: tf.unsorted_segment_min(x, i, 3), [SEG, USEG_IDS % 3],
           lambda x, i: _np_segments(x, i, 3, np.min, 0), grad=True),
    OpSpec("unsorted_segment_prod", lambda tf, x, i: tf.unsorted_segment_prod(x, i, 5), [SEG, USEG_IDS],
           lambda x, i: _np_segments(x, i, 5, np.prod, 1), grad=True),
    OpSpec("unsorted_segment_prod_zeros", lambda tf, x, i: tf.unsorted_segment_prod(x * tf.cast(ZMASK, x.dtype), i, 3),
           [SEG, SEG_IDS % 3], lambda x, i: _np_segments(x * ZMASK, i, 3, np.prod, 1), grad=True),
    OpSpec("unsorted_segment_mean", lambda tf, x, i: tf.unsorted_segment_mean(x, i, 5), [SEG, USEG_IDS],
           lambda x, i: _np_segments(x, i, 5, np.mean, 0), grad=True),
    OpSpec("bincount", lambda tf, w: [tf.bincount([3, 1, 1, 0]), tf.bincount([3, 1, -1, 0], weights=w, maxlength=4)],
           [V], lambda w: [np.array([1, 2, 0, 1]), np.array([w[3], w[1], 0, w[0]])]),   # (weights: TF drops -1)
    OpSpec("bincount_min_eq_max", lambda tf, a: tf.bincount(a, minlength=6, maxlength=6, dtype=tf.float32),
           [np.array([5, 1, 1, 9], np.int32)], lambda a: np.bincount(a, minlength=10)[:6]),
    OpSpec("confusion_matrix", lambda tf, l, p: tf.confusion_matrix(l, p, num_classes=4), [IDX, IDX[::-1].copy()],
           lambda l, p: np.histogram2d(l, p, bins=[np.arange(5)] * 2)[0]),
    OpSpec("scatter_update", _scatter_spec("scatter_update", "scatter_update", [2, 0], None), [A, B[:2].copy()],
           lambda x, u: _np_scatter(x, lambda o: o.__setitem__([2, 0], u))),
    OpSpec("scatter_add", _scatter_spec("scatter_add", "scatter_add", [1, 1], None), [A, B[:2].copy()],
           lambda x, u: _np_scatter(x, lambda o: np.add.at(o, [1, 1], u))),
    OpSpec("scatter_sub", _scatter_spec("scatter_sub", "scatter_sub", [[0], [2]], None), [A, C[:, :1].copy()],
           lambda x, u: _np_scatter(x, lambda o: np.subtract.at(o, [[0], [2]], u))),
    OpSpec("scatter_nd_update", _scatter_spec("scatter_nd_update", "scatter_nd_update", [[0, 1], [2, 3]], None),
           [A, V[:2].copy()], lambda x, u: _np_scatter(x, lambda o: o.__setitem__(([0, 2], [1, 3]), u))),
    OpSpec("scatter_nd_add", _scatter_spec("scatter_nd_add", "scatter_nd_add", [[1], [1]], None), [A, B[:2].copy()],
           lambda x, u: _np_scatter(x, lambda o: np.add.at(o, [1, 1], u))),
]
