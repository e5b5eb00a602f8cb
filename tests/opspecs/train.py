"""Specs of the optimizers' update ops (train/training_ops.py).

Each graph creates the variable and its slots from the placeholders (their initializers run in
the same step, before the update), applies the op once and returns the new variable and slots;
the numpy references are TF 1.15's kernels (training_ops.cc) written out."""
import numpy as np

from opspecs import OpSpec
from tinyflow.api.train import training_ops as T
from tinyflow.ops.core.base import constant

R = np.random.RandomState(3)
W = R.randn(3, 2).astype(np.float32)
G = R.randn(3, 2).astype(np.float32)
S1 = (R.rand(3, 2) + 0.5).astype(np.float32)
S2 = (R.rand(3, 2) + 0.5).astype(np.float32)
S3 = R.randn(3, 2).astype(np.float32)
f = np.float32


def _apply(builder, n_refs, hyper):
    """build(tf, *placeholders): refs from the first n_refs placeholders, grad the last one."""
    def build(tf, *phs):
        refs = [tf.Variable(p, name="v%d" % i) for i, p in enumerate(phs[:n_refs])]
        with tf.control_dependencies([r.initializer for r in refs]):
            new_var = builder(refs, phs[-1], [tf.constant(h, tf.float32) for h in hyper])
        with tf.control_dependencies([new_var]):
            return [new_var] + [tf.identity(r._variable) for r in refs[1:]]
    return build


def _adam(w, m, v, g, b1p=f(0.9 ** 2), b2p=f(0.999 ** 2), lr=f(0.1), b1=f(0.9), b2=f(0.999), eps=f(1e-8)):
    m = m + (g - m) * (1 - b1)
    v = v + (g * g - v) * (1 - b2)
    return [w - lr * np.sqrt(1 - b2p) / (1 - b1p) * m / (np.sqrt(v) + eps), m, v]


def _rms(w, ms, mom, g, lr=f(0.1), rho=f(0.9), momentum=f(0.5), eps=f(1e-3)):
    ms = ms + (g * g - ms) * (1 - rho)
    mom = mom * momentum + lr * g / np.sqrt(ms + eps)
    return [w - mom, ms, mom]


def _crms(w, mg, ms, mom, g, lr=f(0.1), rho=f(0.9), momentum=f(0.5), eps=f(1e-3)):
    ms = ms + (g * g - ms) * (1 - rho)
    mg = mg + (g - mg) * (1 - rho)
    mom = mom * momentum + lr * g / np.sqrt(ms - mg * mg + eps)
    return [w - mom, mg, ms, mom]


def _adadelta(w, acc, upd, g, lr=f(1.0), rho=f(0.95), eps=f(1e-6)):
    acc = acc * rho + g * g * (1 - rho)
    u = np.sqrt(upd + eps) / np.sqrt(acc + eps) * g
    return [w - lr * u, acc, upd * rho + u * u * (1 - rho)]


def _ftrl(w, acc, lin, g, lr=f(0.1), l1=f(0.01), l2=f(0.02), power=-0.5, shrinkage=f(0)):
    new = acc + g * g
    p = f(-power)
    lin = lin + g + 2 * shrinkage * w - (new ** p - acc ** p) / lr * w
    quad = new ** p / lr + 2 * l2
    return [np.where(np.abs(lin) > l1, (np.sign(lin) * l1 - lin) / quad, 0), new, lin]


def _adagrad_da(w, acc, sq, g, lr=f(0.1), l1=f(0.5), l2=f(0.2), step=f(3)):
    acc, sq = acc + g, sq + g * g
    return [lr * np.sign(-acc) * np.maximum(np.abs(acc) - l1 * step, 0) / (l2 * step * lr + np.sqrt(sq)), acc, sq]


def _prox(v, lr, l1, l2):
    return np.sign(v) * np.maximum(np.abs(v) - lr * l1, 0) / (1 + lr * l2)


SPECS = [
    OpSpec("apply_gradient_descent", _apply(lambda r, g, h: T.apply_gradient_descent(r[0], h[0], g), 1, [0.1]),
           [W, G], lambda w, g: [w - f(0.1) * g]),
    OpSpec("apply_momentum_nesterov",
           _apply(lambda r, g, h: T.apply_momentum(r[0], r[1], h[0], g, h[1], use_nesterov=True), 2, [0.1, 0.9]),
           [W, S1, G], lambda w, a, g: [w - (g * f(0.1) + (a * f(0.9) + g) * f(0.9) * f(0.1)), a * f(0.9) + g]),
    OpSpec("apply_adagrad", _apply(lambda r, g, h: T.apply_adagrad(r[0], r[1], h[0], g), 2, [0.1]),
           [W, S1, G], lambda w, a, g: [w - f(0.1) * g / np.sqrt(a + g * g), a + g * g]),
    OpSpec("apply_adam", _apply(lambda r, g, h: T.apply_adam(*r, *h, g), 3,
                                [0.9 ** 2, 0.999 ** 2, 0.1, 0.9, 0.999, 1e-8]), [W, S3, S1, G], _adam),
    OpSpec("apply_rms_prop", _apply(lambda r, g, h: T.apply_rms_prop(*r, *h, g), 3, [0.1, 0.9, 0.5, 1e-3]),
           [W, S1, S2, G], _rms),
    OpSpec("apply_centered_rms_prop", _apply(lambda r, g, h: T.apply_centered_rms_prop(*r, *h, g), 4,
                                             [0.1, 0.9, 0.5, 1e-3]), [W, S3 * 0.1, S1, S2, G], _crms),
    OpSpec("apply_adadelta", _apply(lambda r, g, h: T.apply_adadelta(*r, *h, g), 3, [1.0, 0.95, 1e-6]),
           [W, S1, S2, G], _adadelta),
    OpSpec("apply_ftrl", _apply(lambda r, g, h: T.apply_ftrl(*r, g, *h, sqrt_power=True), 3,
                                [0.1, 0.01, 0.02, -0.5]), [W, S1, S3, G], _ftrl),
    OpSpec("apply_ftrl_power", _apply(lambda r, g, h: T.apply_ftrl(*r, g, *h), 3, [0.1, 0.01, 0.02, -0.7]),
           [W, S1, S3, G], lambda w, a, l, g: _ftrl(w, a, l, g, power=-0.7), rtol=1e-4),
    OpSpec("apply_ftrl_v2", _apply(lambda r, g, h: T.apply_ftrl_v2(*r, g, *h, sqrt_power=True), 3,
                                   [0.1, 0.01, 0.02, 0.5, -0.5]), [W, S1, S3, G],
           lambda w, a, l, g: _ftrl(w, a, l, g, shrinkage=f(0.5))),
    OpSpec("apply_proximal_gradient_descent",
           _apply(lambda r, g, h: T.apply_proximal_gradient_descent(r[0], *h, g), 1, [0.1, 0.5, 0.2]),
           [W, G], lambda w, g: [_prox(w - f(0.1) * g, f(0.1), f(0.5), f(0.2))]),
    OpSpec("apply_proximal_adagrad", _apply(lambda r, g, h: T.apply_proximal_adagrad(*r, *h, g), 2, [0.1, 0.5, 0.2]),
           [W, S1, G], lambda w, a, g: [_prox(w - f(0.1) / np.sqrt(a + g * g) * g, f(0.1) / np.sqrt(a + g * g),
                                              f(0.5), f(0.2)), a + g * g]),
    OpSpec("apply_adagrad_da", _apply(lambda r, g, h: T.apply_adagrad_da(*r, g, *h, constant(3, "int64")), 3,
                                      [0.1, 0.5, 0.2]), [W, S3, S1, G], _adagrad_da),
]


# ---- the sparse forms (SparseApply*): the rows at IDX (2 repeated: its rows summed first) ---------------
IDX = np.array([2, 0, 2], np.int32)
GR = R.randn(3, 2).astype(np.float32)


def _rows(ref):
    """The dense reference `ref` on the rows at IDX, a repeated index's gradient rows summed, written back."""
    def sparse(*args):
        refs, g = [np.array(a) for a in args[:-1]], args[-1]
        rows = np.unique(IDX)
        new = ref(*[r[rows] for r in refs], np.stack([g[IDX == k].sum(0) for k in rows]))
        for r, n in zip(refs, new):
            r[rows] = n
        return refs
    return sparse


def _sparse_adam(w, m, v, g, b1p=f(0.9 ** 2), b2p=f(0.999 ** 2), lr=f(0.1), b1=f(0.9), b2=f(0.999), eps=f(1e-8)):
    dense = np.zeros_like(w)
    np.add.at(dense, IDX, g)
    m, v = m * b1 + dense * (1 - b1), v * b2 + dense * dense * (1 - b2)
    return [w - lr * np.sqrt(1 - b2p) / (1 - b1p) * m / (np.sqrt(v) + eps), m, v]


def _ftrl_rows(w, acc, lin, g, lr=f(0.1), l1=f(0.01), l2=f(0.02)):
    new = acc + g * g
    lin = lin + g - (np.sqrt(new) - np.sqrt(acc)) / lr * w
    return [(np.clip(lin, -l1, l1) - lin) / (np.sqrt(new) / lr + 2 * l2), new, lin]



def _sparse(builder, n_refs, hyper):
    """_apply of builder(refs, grad rows, hypers, indices): a SparseApply* op at IDX."""
    return _apply(lambda r, g, h: builder(r, g, h, constant(IDX)), n_refs, hyper)


SPECS += [
    OpSpec("sparse_apply_momentum_nesterov",
           _sparse(lambda r, g, h, i: T.apply_momentum(r[0], r[1], h[0], g, h[1], True, indices=i), 2, [0.1, 0.9]),
           [W, S1, GR], _rows(lambda w, a, g: [w - (g * f(0.1) + (a * f(0.9) + g) * f(0.9) * f(0.1)),
                                               a * f(0.9) + g])),
    OpSpec("sparse_apply_adagrad", _sparse(lambda r, g, h, i: T.apply_adagrad(r[0], r[1], h[0], g, i), 2, [0.1]),
           [W, S1, GR], _rows(lambda w, a, g: [w - f(0.1) * g / np.sqrt(a + g * g), a + g * g])),
    OpSpec("sparse_apply_adam", _sparse(lambda r, g, h, i: T.apply_adam(*r, *h, g, i), 3,
                                        [0.9 ** 2, 0.999 ** 2, 0.1, 0.9, 0.999, 1e-8]), [W, S3, S1, GR], _sparse_adam),
    OpSpec("sparse_apply_rms_prop", _sparse(lambda r, g, h, i: T.apply_rms_prop(*r, *h, g, i), 3,
                                            [0.1, 0.9, 0.5, 1e-3]), [W, S1, S2, GR], _rows(_rms)),
    OpSpec("sparse_apply_centered_rms_prop", _sparse(lambda r, g, h, i: T.apply_centered_rms_prop(*r, *h, g, i), 4,
                                                     [0.1, 0.9, 0.5, 1e-3]), [W, S3 * 0.1, S1, S2, GR], _rows(_crms)),
    OpSpec("sparse_apply_adadelta", _sparse(lambda r, g, h, i: T.apply_adadelta(*r, *h, g, i), 3, [1.0, 0.95, 1e-6]),
           [W, S1, S2, GR], _rows(_adadelta)),
    OpSpec("sparse_apply_ftrl", _sparse(lambda r, g, h, i: T.apply_ftrl(*r, g, *h, sqrt_power=True, indices=i), 3,
                                        [0.1, 0.01, 0.02, -0.5]), [W, S1, S3, GR], _rows(_ftrl_rows)),
    OpSpec("sparse_apply_ftrl_v2", _sparse(lambda r, g, h, i: T.apply_ftrl_v2(*r, g, *h, indices=i), 3,
                                           [0.1, 0.01, 0.02, 0.5, -0.7]), [W, S1, S3, GR],
           _rows(lambda w, a, l, g: _ftrl_v2_rows(w, a, l, g)), rtol=1e-4),
    OpSpec("sparse_apply_proximal_gradient_descent",
           _sparse(lambda r, g, h, i: T.apply_proximal_gradient_descent(r[0], *h, g, i), 1, [0.1, 0.5, 0.2]),
           [W, GR], _rows(lambda w, g: [_prox(w - f(0.1) * g, f(0.1), f(0.5), f(0.2))])),
    OpSpec("sparse_apply_proximal_adagrad",
           _sparse(lambda r, g, h, i: T.apply_proximal_adagrad(*r, *h, g, i), 2, [0.1, 0.5, 0.2]), [W, S1, GR],
           _rows(lambda w, a, g: [_prox(w - f(0.1) / np.sqrt(a + g * g) * g, f(0.1) / np.sqrt(a + g * g), f(0.5),
                                        f(0.2)), a + g * g])),
    OpSpec("sparse_apply_adagrad_da", _sparse(lambda r, g, h, i: T.apply_adagrad_da(*r, g, *h, constant(3, "int64"), i),
                                              3, [0.1, 0.5, 0.2]), [W, S3, S1, GR], _rows(_adagrad_da)),
]


def _ftrl_v2_rows(w, acc, lin, g, lr=f(0.1), l1=f(0.01), l2=f(0.02), shrinkage=f(0.5), power=f(0.7)):
    new = acc + g * g
    lin = lin + g + 2 * shrinkage * w - (new ** power - acc ** power) / lr * w
    return [(np.clip(lin, -l1, l1) - lin) / (new ** power / lr + 2 * l2), new, lin]
