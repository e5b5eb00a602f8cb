"""The matrix decompositions and solvers against TF 1.15's recorded outputs and gradients
(tests/fixtures/linalg/make_decomp.py) and finite differences."""
import os

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.graph.errors import InvalidArgumentError

F = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures", "linalg", "decomp.npz"))


def run(*fetches):
    with tf.Session() as s:
        return s.run(list(fetches))


def close(a, b, tol=1e-9):
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


@pytest.mark.slow
def test_self_adjoint_eig_reads_the_lower_triangle_and_has_tfs_gradient():
    x = tf.constant(F["nonsym"])
    e, v = tf.self_adjoint_eig(x)
    loss = tf.reduce_sum(e * F["w2"]) + tf.reduce_sum(tf.square(v) * F["w1"])
    ev = tf.linalg.eigvalsh(x)
    got = run(e, v, tf.gradients(loss, x)[0], ev, tf.gradients(tf.reduce_sum(ev * F["w2"]), x)[0])
    close(got[0], F["eig_e"])
    close(np.abs(got[1]), np.abs(F["eig_v"]))   # eigenvectors are defined up to sign
    close(got[2], F["eig_grad"])
    close(got[3], F["eigvals"])
    close(got[4], F["eigvals_grad"])
    assert tf.linalg.eigh is tf.self_adjoint_eig and e.shape.as_list() == [2, 4] and v.shape.as_list() == [2, 4, 4]


def test_cholesky_and_its_gradient():
    x = tf.constant(F["chol_in"])
    lo = tf.linalg.cholesky(x)
    got = run(lo, tf.gradients(tf.reduce_sum(lo * F["w1"]), x)[0])
    close(got[0], F["chol"])
    close(got[1], F["chol_grad"])


def test_cholesky_of_a_matrix_not_positive_definite_raises_tfs_error():
    with pytest.raises(InvalidArgumentError, match="Cholesky decomposition was not successful"):
        run(tf.cholesky(tf.constant([[1.0, 2.0], [2.0, 1.0]])))


@pytest.mark.slow
def test_svd_values_vectors_and_gradients():
    x = tf.constant(F["rect"])
    s, u, v = tf.svd(x)
    w1, w2, w3 = F["w1"], F["w2"], F["w3"]
    loss = tf.reduce_sum(s * w2[:, :3]) + tf.reduce_sum(tf.square(u) * w3) + tf.reduce_sum(tf.abs(v) * w1[:, :3, :3])
    s_only = tf.linalg.svd(x, compute_uv=False)
    full = tf.svd(x, full_matrices=True)
    got = run(s, u, v, tf.gradients(loss, x)[0], tf.gradients(tf.reduce_sum(s_only * w2[:, :3]), x)[0], full[1])
    close(got[0], F["svd_s"])
    close(np.abs(got[1]), np.abs(F["svd_u"]))
    close(np.abs(got[2]), np.abs(F["svd_v"]))
    close(got[3], F["svd_grad"], 1e-7)
    close(got[4], F["svd_s_only_grad"])
    assert list(got[5].shape) == list(F["svd_full_u_shape"]) and full[1].shape.as_list() == [2, 5, 5]
    close(np.matmul(got[1] * got[0][:, None, :], np.swapaxes(got[2], 1, 2)), F["rect"])


@pytest.mark.slow
def test_matrix_solve_and_triangular_solve_with_gradients():
    x, b = tf.constant(F["spd"]), tf.constant(F["rhs"])
    y, ya = tf.matrix_solve(x, b), tf.linalg.solve(x, b, adjoint=True)
    ga, gb = tf.gradients(tf.reduce_sum(y * F["rhs"][::-1]) + tf.reduce_sum(tf.square(ya)), [x, b])
    for g, k in zip(run(y, ya, ga, gb), ["solve", "solve_adj", "solve_ga", "solve_gb"]):
        close(g, F[k])
    t = tf.constant(F["trs_in"])
    y = tf.matrix_triangular_solve(t, b)
    yu = tf.linalg.triangular_solve(tf.matrix_transpose(t), b, lower=False, adjoint=True)
    ga, gb = tf.gradients(tf.reduce_sum(y * F["rhs"][::-1]) + tf.reduce_sum(tf.square(yu)), [t, b])
    for g, k in zip(run(y, yu, ga, gb), ["trs", "trs_u", "trs_ga", "trs_gb"]):
        close(g, F[k])


def test_solve_errors():
    with pytest.raises(InvalidArgumentError, match="not invertible"):
        run(tf.matrix_solve(tf.constant([[1.0, 2.0], [2.0, 4.0]]), tf.constant([[1.0], [1.0]])))
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        tf.matrix_solve(tf.zeros([3, 3]), tf.zeros([2, 1]))
    with pytest.raises(ValueError, match="rank 2"):
        tf.cholesky(tf.zeros([3]))
    with pytest.raises(TypeError, match="int32"):
        tf.svd(tf.zeros([2, 2], tf.int32))


@pytest.mark.slow
def test_qr_slogdet_logdet_lstsq_cholesky_solve():
    x = tf.constant(F["rect"])
    q, r = tf.qr(x)
    loss = tf.reduce_sum(tf.square(q) * F["w3"]) + tf.reduce_sum(tf.abs(r) * F["w1"][:, :3, :3])
    qf, rf = tf.linalg.qr(x, full_matrices=True)
    got = run(q, r, tf.gradients(loss, x)[0], qf, rf)
    close(np.abs(got[0]), np.abs(F["qr_q"]))
    close(np.abs(got[1]), np.abs(F["qr_r"]))
    close(got[2], F["qr_grad"])
    close(np.matmul(got[3], got[4]), F["rect"])
    assert got[3].shape == F["qr_full_q"].shape and got[4].shape == F["qr_full_r"].shape
    a, spd = tf.constant(F["a"]), tf.constant(F["spd"])
    sign, lad = tf.linalg.slogdet(a)
    ld = tf.linalg.logdet(spd)
    got = run(sign, lad, tf.gradients(lad * F["w2"][:, 0], a)[0], ld,
              tf.gradients(tf.reduce_sum(ld * F["w2"][:, 1]), spd)[0])
    for g, k in zip(got, ["slog_sign", "slog_lad", "slog_grad", "logdet", "logdet_grad"]):
        close(g, F[k])
    b = tf.constant(F["ls_b"])
    y, y2 = tf.matrix_solve_ls(x, b), tf.linalg.lstsq(x, b, l2_regularizer=0.5)
    ga, gb = tf.gradients(tf.reduce_sum(y * F["rhs"][:, :3]) + tf.reduce_sum(tf.square(y2)), [x, b])
    for g, k in zip(run(y, y2, ga, gb), ["ls", "ls_l2", "ls_ga", "ls_gb"]):
        close(g, F[k], 1e-7)
    close(run(tf.cholesky_solve(tf.cholesky(spd), tf.constant(F["rhs"])))[0], F["chol_solve"])


def test_gradient_matches_finite_differences():
    rng = np.random.RandomState(1)
    m = rng.randn(3, 3)
    a0 = m @ m.T + 3 * np.eye(3)
    x = tf.placeholder(tf.float64, [3, 3])
    w = rng.randn(3, 3)
    f = tf.reduce_sum(tf.cholesky(x) * np.tril(w)) + tf.reduce_sum(tf.linalg.eigvalsh(x) * w[0])
    g = tf.gradients(f, x)[0]
    with tf.Session() as s:
        grad = s.run(g, {x: a0})
        num = np.zeros_like(a0)
        for i in range(3):
            for j in range(i + 1):   # both ops read the lower triangle; move a symmetric pair together
                d = np.zeros_like(a0)
                d[i, j] = d[j, i] = 1e-6
                num[i, j] = (s.run(f, {x: a0 + d}) - s.run(f, {x: a0 - d})) / 2e-6
    sym = grad + grad.T - np.diag(np.diag(grad))
    np.testing.assert_allclose(np.tril(sym), num, rtol=1e-5, atol=1e-6)


def test_linear_operator_lower_triangular():
    op = tf.linalg.LinearOperatorLowerTriangular(tf.constant(F["tri"] + np.triu(np.ones((4, 4)), 1)))
    b = tf.constant(F["rhs"])
    got = run(op.to_dense(), op.matmul(b), op.matmul(b, adjoint=True), op.solve(b), op.log_abs_determinant(),
              op.matvec(tf.constant(F["w2"])))
    for g, k in zip(got, ["lo_dense", "lo_matmul", "lo_matmul_adj", "lo_solve", "lo_lad", "lo_matvec"]):
        close(g, F[k])
    assert op.shape.as_list() == list(F["lo_shape"])


def test_orthogonal_initializer_still_orthogonal():
    v = tf.get_variable("q_init", [4, 3], tf.float32, initializer=tf.orthogonal_initializer())
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        q = s.run(v)
    np.testing.assert_allclose(q.T @ q, np.eye(3), atol=1e-5)
