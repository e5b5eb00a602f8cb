"""More of tf.linalg: the matrix exponential, square root and logarithm, the LU decomposition, tridiagonal
matmul and solve (gradients by JAX's VJP of the same lowering, as linalg_decomp.py's), and pinv,
matrix_rank, normalize built from svd and norms as TF builds them."""
import jax
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import ShapeError, get_default_graph
from tinyflow.graph.registry import register_op, same_as_input
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core import array_ops as A
from tinyflow.ops.core import math_ops as M
from tinyflow.ops.core.base import convert_to_tensor, make_op
from tinyflow.ops.linalg_decomp import svd, vjp_grad
from tinyflow.ops.matrix_ops import matrix_transpose

__all__ = ["expm", "logm", "lu", "sqrtm", "matrix_rank", "normalize", "pinv", "tridiagonal_matmul", "tridiagonal_solve"]

_FLOATS = (dt.float32, dt.float64, dt.complex64, dt.complex128)


def _square(op_type):
    def rule(shapes, attrs, values):
        s = shapes[0]
        if s.ndims is not None and (s.ndims < 2 or not s[-1].is_compatible_with(s[-2])):
            raise ShapeError("Input matrix must be square, got shape %s for '%s'" % (s, op_type))
        return [s]
    return rule


register_op("MatrixExponential", shape=_square("MatrixExponential"), dtype=M.dtype_rule("MatrixExponential", _FLOATS),
            grad=vjp_grad, lower=lambda a, x: jax.scipy.linalg.expm(x).astype(x.dtype))


def expm(input, name=None):
    """The matrix exponential of a (batch of) square matrix."""
    return make_op("MatrixExponential", [convert_to_tensor(input, name="input")], name=name or "matrix_exponential")


# ---- MatrixSquareRoot and MatrixLogarithm: iterations of matrix products and inverses, so they run on
# every XLA backend (JAX's Schur-based sqrtm is CPU-only) -----------------------------------------------
def _eye_like(x):
    return jnp.broadcast_to(jnp.eye(x.shape[-1], dtype=x.dtype), x.shape)


def _db_sqrt(x, steps=40):
    """The principal square root by the product form of the Denman-Beavers iteration (M -> I, Y -> sqrt(x)),
    converged (a fixed point) long before `steps` for matrices without eigenvalues on the negative axis.
    Iterated in double precision (the rounding of forty float32 steps would show), rounded once."""
    dtype, x = x.dtype, x.astype(jnp.promote_types(x.dtype, jnp.float64))
    eye = _eye_like(x)

    def step(_, c):
        m, y = c
        mi = jnp.linalg.inv(m)
        return (eye + (m + mi) / 2) / 2, y @ (eye + mi) / 2
    return jax.lax.fori_loop(0, steps, step, (x, x))[1].astype(dtype)


@jax.custom_jvp
def _sqrtm(x):
    return _db_sqrt(x)


@_sqrtm.defjvp
def _sqrtm_jvp(primals, tangents):
    """d sqrt(A): the solution X of S X + X S = dA (TF's gradient solves the same Sylvester equation)."""
    s = _sqrtm(primals[0])
    n, eye = s.shape[-1], jnp.eye(s.shape[-1], dtype=s.dtype)
    kron = jnp.einsum("...ik,jl->...ijkl", s, eye) + jnp.einsum("ik,...lj->...ijkl", eye, s)
    kron = kron.reshape(s.shape[:-2] + (n * n, n * n))
    dx = jnp.linalg.solve(kron, tangents[0].reshape(s.shape[:-2] + (n * n, 1)))
    return s, dx.reshape(s.shape)


def _logm(x):
    """log(x) by inverse scaling and squaring: square roots until |x - I| < 1/4, then log(I + E) as the
    8-point Gauss-Legendre rule of its integral E (I + tE)^-1 over [0, 1] (the [8/8] Pade approximant),
    times 2^roots."""
    dtype, x = x.dtype, x.astype(jnp.complex128)
    eye = _eye_like(x)
    far = lambda c: (jnp.max(jnp.sum(jnp.abs(c[0] - eye), -2)) >= 0.25) & (c[1] < 60)   # noqa: E731
    root, k = jax.lax.while_loop(far, lambda c: (_db_sqrt(c[0]), c[1] + 1), (x, 0))
    e = root - eye
    t, w = np.polynomial.legendre.leggauss(8)
    log = sum(wi / 2 * e @ jnp.linalg.inv(eye + (ti + 1) / 2 * e) for ti, wi in zip(t, w))
    return (log * 2.0 ** k).astype(dtype)


register_op("MatrixSquareRoot", shape=_square("MatrixSquareRoot"), dtype=M.dtype_rule("MatrixSquareRoot", _FLOATS),
            grad=vjp_grad, lower=lambda a, x: _sqrtm(x))
register_op("MatrixLogarithm", shape=_square("MatrixLogarithm"),
            dtype=M.dtype_rule("MatrixLogarithm", (dt.complex64, dt.complex128)), grad=None,
            lower=lambda a, x: _logm(x) if x.ndim == 2 else jax.vmap(_logm)(x.reshape((-1,) + x.shape[-2:])
                                                                               ).reshape(x.shape))


def sqrtm(input, name=None):
    """The principal square root of each square matrix (tf.linalg.sqrtm, tf.matrix_square_root)."""
    return make_op("MatrixSquareRoot", [convert_to_tensor(input, name="input")], name=name or "MatrixSquareRoot")


def logm(input, name=None):
    """The principal logarithm of each complex square matrix (TF 1.15's logm takes complex64/128 only)."""
    return make_op("MatrixLogarithm", [convert_to_tensor(input, name="input")], name=name or "MatrixLogarithm")


def _lu_lower(a, x):
    lu_, piv, perm = jax.lax.linalg.lu(x)
    return lu_.astype(x.dtype), perm.astype(a["output_idx_type"].np)



def _lu_check(a, x):
    """TF's kernel: the smallest |pivot| (U's diagonal) must be > 0 (a NaN pivot fails too)."""
    if not jnp.size(x):
        return (jnp.asarray(True),)
    u = jnp.abs(jnp.diagonal(jax.lax.linalg.lu(jnp.asarray(x))[0], axis1=-2, axis2=-1))
    return (jnp.all(u > 0),)


register_op("Lu", shape=lambda s, a, v: [_square("Lu")(s, a, v)[0], s[0][:-1] if s[0].ndims else TensorShape(None)],
            dtype=lambda d, a: [M.dtype_rule("Lu", _FLOATS, names=("input",))(d, a)[0], a["output_idx_type"]],
            grad=None, lower=_lu_lower, check=_lu_check, check_message=lambda op: "Input is not invertible.")


def lu(input, output_idx_type=dt.int32, name=None):
    """(lu, p): L (unit lower, below the diagonal) and U packed in one matrix, and the permutation p with
    input[p] = L @ U."""
    out = make_op("Lu", [convert_to_tensor(input, name="input")], {"output_idx_type": dt.as_dtype(output_idx_type)},
                  name=name or "Lu")
    return tuple(out)


def _tri_matmul_lower(a, sup, main, sub, rhs):
    # superdiag[..., i] is A[i, i+1] (its last entry unused); subdiag[..., i] is A[i, i-1] (its first unused)
    up = jnp.concatenate([sup[..., :-1, None] * rhs[..., 1:, :], jnp.zeros_like(rhs[..., :1, :])], -2)
    down = jnp.concatenate([jnp.zeros_like(rhs[..., :1, :]), sub[..., 1:, None] * rhs[..., :-1, :]], -2)
    return (main[..., None] * rhs + up + down).astype(rhs.dtype)


register_op("TridiagonalMatMul", shape=lambda s, a, v: [s[3]], dtype=same_as_input(3), grad=vjp_grad,
            lower=_tri_matmul_lower)


def _split_diagonals(diagonals, diagonals_format, name):
    if diagonals_format == "sequence":
        return [convert_to_tensor(d, name=name) for d in diagonals]
    d = convert_to_tensor(diagonals, name="diagonals")
    if diagonals_format == "compact":
        return [d[..., 0, :], d[..., 1, :], d[..., 2, :]]
    if diagonals_format == "matrix":
        from tinyflow.ops.matrix_ops import matrix_diag_part
        n = d.shape[-1].value
        if n is None:
            raise ValueError("tinyflow's tridiagonal ops need the matrix size known")
        main = matrix_diag_part(d)
        sup = A.pad(matrix_diag_part(d[..., :-1, 1:]), [[0, 0]] * (d.shape.ndims - 2) + [[0, 1]])
        sub = A.pad(matrix_diag_part(d[..., 1:, :-1]), [[0, 0]] * (d.shape.ndims - 2) + [[1, 0]])
        return [sup, main, sub]
    raise ValueError("Unrecognized diagonals_format: %s" % diagonals_format)


def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None):
    """A @ rhs for the tridiagonal A given by its diagonals ("compact" [..., 3, M], "sequence" or "matrix")."""
    with get_default_graph().name_scope(name or "tridiagonal_matmul"):
        sup, main, sub = _split_diagonals(diagonals, diagonals_format, "diagonal")
        return make_op("TridiagonalMatMul", [sup, main, sub, convert_to_tensor(rhs, name="rhs")])


def _tri_dense(sup, main, sub):
    n = main.shape[-1]
    i = jnp.arange(n)
    dense = jnp.zeros(main.shape + (n,), main.dtype)
    dense = dense.at[..., i, i].set(main)
    dense = dense.at[..., i[:-1], i[1:]].set(sup[..., :-1])
    return dense.at[..., i[1:], i[:-1]].set(sub[..., 1:])


def _tri_solve_check(a, d, r):
    """TF's kernel's test for a singular system, on its own elimination's pivots: Gaussian elimination
    with partial pivoting (LAPACK's dgtsv) or, without pivoting, the Thomas algorithm fails where a pivot
    is exactly 0 (a 1x1 system: where its value is). The data: whether the matrix is 1x1."""
    d = jnp.asarray(d)   # (numpy when folded: indexed below by the scan's traced step)
    sup, main, sub = d[..., 0, :], d[..., 1, :], d[..., 2, :]
    n = main.shape[-1]
    if n <= 1:
        return jnp.all(main != 0), jnp.asarray(n == 1)
    if not a.get("partial_pivoting", True):
        def thomas(u, i):
            denom = main[..., i] - sub[..., i] * u
            return sup[..., i] / denom, jnp.all(denom != 0)
        _, oks = jax.lax.scan(thomas, sup[..., 0] / main[..., 0], jnp.arange(1, n))
        return jnp.all(main[..., 0] != 0) & jnp.all(oks), jnp.asarray(False)

    def pivot(carry, i):   # carry: the pivot row's diagonal and superdiagonal entries of U
        u0, u1 = carry
        s = sub[..., i + 1]
        keep = jnp.abs(u0) >= jnp.abs(s)
        f_keep, f_swap = s / u0, u0 / s
        nu0 = jnp.where(keep, main[..., i + 1] - f_keep * u1, u1 - f_swap * main[..., i + 1])
        nu1 = jnp.where(keep, sup[..., i + 1], -f_swap * sup[..., i + 1])
        return (nu0, nu1), jnp.all(~keep | (u0 != 0))
    (last, _), oks = jax.lax.scan(pivot, (main[..., 0], sup[..., 0]), jnp.arange(n - 1))
    return jnp.all(oks) & jnp.all(last != 0), jnp.asarray(False)


def _tri_solve_message(op, scalar):
    if scalar:
        return "The matrix is not invertible: it is a scalar with value zero."
    if not op.attrs.get("partial_pivoting", True):
        return "The matrix is either not invertible, or requires pivoting. Try setting partial_pivoting = True."
    return "The matrix is not invertible."


register_op("TridiagonalSolve", shape=lambda s, a, v: [s[1]], dtype=same_as_input(1), grad=vjp_grad,
            lower=lambda a, d, r: jnp.linalg.solve(_tri_dense(d[..., 0, :], d[..., 1, :], d[..., 2, :]), r)
            .astype(r.dtype), check=_tri_solve_check, check_message=_tri_solve_message)


def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False, conjugate_rhs=False,
                      name=None, partial_pivoting=True):
    """x with A @ x = rhs for the tridiagonal A given by its diagonals (rhs [..., M, K], or [..., M] when
    diagonals_format is "sequence"... as TF: a vector rhs gives a vector)."""
    with get_default_graph().name_scope(name or "tridiagonal_solve"):
        sup, main, sub = _split_diagonals(diagonals, diagonals_format, "diagonal")
        rhs = convert_to_tensor(rhs, name="rhs")
        if transpose_rhs:
            rhs = matrix_transpose(rhs, conjugate=conjugate_rhs)
        elif conjugate_rhs:
            rhs = M.conj(rhs)
        vector = rhs.shape.ndims == main.shape.ndims
        if vector:
            rhs = A.expand_dims(rhs, -1)
        out = make_op("TridiagonalSolve", [A.stack([sup, main, sub], axis=-2), rhs],
                      {"partial_pivoting": bool(partial_pivoting)})
        out = A.squeeze(out, axis=[-1]) if vector else out
        return matrix_transpose(out) if transpose_rhs and not vector else out


def pinv(a, rcond=None, validate_args=False, name=None):
    """The Moore-Penrose pseudo-inverse by the SVD; singular values below rcond * max are dropped
    (rcond defaults to 10 * max(rows, cols) * eps, TF's)."""
    with get_default_graph().name_scope(name or "pinv"):
        a = convert_to_tensor(a, name="a")
        if rcond is None:
            dims = a.shape.as_list()[-2:]
            rcond = 10.0 * max(dims) * np.finfo(a.dtype.np).eps
        s, u, v = svd(a, full_matrices=False)
        cutoff = M.multiply(M.scalar_like(rcond, s), M.reduce_max(s, axis=-1, keepdims=True))
        s_inv = M.where_v2(M.greater(s, cutoff), M.realdiv(M.ones_like_scalar(s), s), M.zeros_like(s))
        return M.matmul(M.multiply(v, A.expand_dims(s_inv, -2)), u, adjoint_b=True)


def matrix_rank(a, tol=None, validate_args=False, name=None):
    """The number of singular values above tol (default: max singular value * max(rows, cols) * eps)."""
    with get_default_graph().name_scope(name or "matrix_rank"):
        a = convert_to_tensor(a, name="a")
        s = svd(a, compute_uv=False)
        if tol is None:
            dims = a.shape.as_list()[-2:]
            tol = M.multiply(M.reduce_max(s, axis=-1, keepdims=True),
                             M.scalar_like(max(dims) * np.finfo(a.dtype.np).eps, s))
        else:
            tol = convert_to_tensor(tol, dtype=s.dtype)
        return M.reduce_sum(M.cast(M.greater(s, tol), dt.int32), axis=-1)


def normalize(tensor, ord="euclidean", axis=None, name=None):
    """(tensor / norm, norm), the norm over `axis` kept as size-1 dimensions."""
    from tinyflow.ops.linalg_ops import norm
    with get_default_graph().name_scope(name or "normalize"):
        t = convert_to_tensor(tensor, name="tensor")
        n = norm(t, ord=ord, axis=axis, keepdims=True)
        return M.realdiv(t, n), n
