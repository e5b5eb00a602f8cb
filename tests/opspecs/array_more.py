"""issue 37's array ops (ops/array_more_ops.py) and the more reference scatters (ops/state_ops.py) against
numpy; their values against TF 1.15 are in tests/api/test_core_names.py."""
import numpy as np

from opspecs import OpSpec
from opspecs.array import _np_scatter, _scatter_spec

R = np.random.RandomState(9)
T = R.randn(4, 3)
U = R.randn(2, 3)
IMG = R.randn(2, 4, 6, 3)


def _np_s2b(x):   # block [2, 3], paddings [[0, 0], [1, 2]]
    x = np.pad(x, [(0, 0), (0, 0), (1, 2), (0, 0)])
    n, h, w, c = x.shape
    x = x.reshape(n, h // 2, 2, w // 3, 3, c).transpose(2, 4, 0, 1, 3, 5)
    return x.reshape(n * 6, h // 2, w // 3, c)


def _np_ts(x, u, op):
    out = x.copy()
    op(out, u)
    return out


SPECS = [
    OpSpec("tensor_scatter_update_add_sub", lambda tf, t, u: [
        tf.tensor_scatter_update(t, [[3], [0]], u), tf.tensor_scatter_add(t, [[1], [1]], u),
        tf.tensor_scatter_sub(t, [[2, 1], [0, 0]], u[:, 0])], [T, U],
        lambda t, u: [_np_ts(t, u, lambda o, v: o.__setitem__([3, 0], v)),
                      _np_ts(t, u, lambda o, v: np.add.at(o, [1, 1], v)),
                      _np_ts(t, u, lambda o, v: np.subtract.at(o, ([2, 0], [1, 0]), v[:, 0]))], grad=True),
    OpSpec("space_to_batch_nd", lambda tf, x: tf.space_to_batch_nd(x, [2, 3], [[0, 0], [1, 2]]), [IMG], _np_s2b,
           grad=True),
    OpSpec("batch_to_space_nd", lambda tf, x: tf.batch_to_space_nd(tf.space_to_batch_nd(x, [2, 3], [[0, 0], [1, 2]]),
                                                                   [2, 3], [[0, 0], [1, 2]]), [IMG], lambda x: x,
           grad=True),
    OpSpec("unravel_index", lambda tf, i: tf.unravel_index(i, [3, 4]), [np.array([5, 0, 11], np.int32)],
           lambda i: np.stack(np.unravel_index(i, (3, 4))).astype(np.int32)),
    OpSpec("setdiff1d", lambda tf, x: list(tf.setdiff1d(x, [2, 9])), [np.array([1, 2, 3, 2, 5], np.int32)],
           lambda x: [np.array([1, 3, 5], np.int32), np.array([0, 2, 4], np.int32)]),
    OpSpec("scatter_mul", _scatter_spec("scatter_mul", "scatter_mul", [1, 1], None), [T, U],
           lambda x, u: _np_scatter(x, lambda o: np.multiply.at(o, [1, 1], u))),
    OpSpec("scatter_div", _scatter_spec("scatter_div", "scatter_div", [0, 2], None), [T, U + 3.0],
           lambda x, u: _np_scatter(x, lambda o: np.divide.at(o, [0, 2], u))),
    OpSpec("scatter_max", _scatter_spec("scatter_max", "scatter_max", [3, 3], None), [T, U],
           lambda x, u: _np_scatter(x, lambda o: np.maximum.at(o, [3, 3], u))),
    OpSpec("scatter_min", _scatter_spec("scatter_min", "scatter_min", [2, 0], None), [T, U],
           lambda x, u: _np_scatter(x, lambda o: np.minimum.at(o, [2, 0], u))),
    OpSpec("scatter_nd_sub", _scatter_spec("scatter_nd_sub", "scatter_nd_sub", [[1], [1]], None), [T, U],
           lambda x, u: _np_scatter(x, lambda o: np.subtract.at(o, [1, 1], u))),
]
