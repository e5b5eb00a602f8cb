"""Matrix decompositions and solvers as TF 1.15 has them: self_adjoint_eig(vals), svd, cholesky, qr,
matrix_solve, matrix_triangular_solve, log_matrix_determinant (+ logdet, cholesky_solve, matrix_solve_ls
built from them). Each op's gradient is one shared op, VjpGrad, whose lowering is the VJP of the forward
op's own lowering; the lowerings read what TF's kernels read (the lower triangle for eig and cholesky), so
the gradients are TF's."""
import jax
import jax.numpy as jnp

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import ShapeError, get_default_graph
from tinyflow.graph.registry import get_op_def, register_op
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core.base import convert_to_tensor, make_op
from tinyflow.ops.core.math_ops import dtype_rule

__all__ = ["cholesky", "cholesky_solve", "log_matrix_determinant", "logdet", "matrix_solve", "matrix_solve_ls",
           "matrix_triangular_solve", "qr", "self_adjoint_eig", "self_adjoint_eigvals", "svd"]

_REAL = (dt.float32, dt.float64)


def _dims(s, op, square=False):
    """The batch dims and the matrix dims of input shape s (None when unknown); TF's rank errors."""
    if s.ndims is None:
        return None
    if s.ndims < 2:
        raise ShapeError("Shape must be at least rank 2 but is rank %d for '%s'" % (s.ndims, op))
    d = s.as_list()
    if square and not s[-1].is_compatible_with(s[-2]):
        raise ShapeError("Dimensions must be equal, but are %s and %s for '%s'" % (d[-2], d[-1], op))
    return d[:-2], d[-2], d[-1]


def _min(m, n):
    return None if m is None or n is None else min(m, n)


def _shapes(fn, op, square=False):
    """A shape rule from fn(batch, m, n, attrs) -> [dims lists]; unknown rank gives unknown shapes."""
    def rule(shapes, attrs, values):
        d = _dims(shapes[0], op, square)
        if d is None:
            return [TensorShape(None)] * len(fn([], None, None, attrs))
        return [TensorShape(x) for x in fn(*d, attrs)]
    return rule


def _solve_shape(op):
    def rule(shapes, attrs, values):
        a, b = _dims(shapes[0], op, True), _dims(shapes[1], op)
        if a is not None and b is not None:
            if not TensorShape(a[0]).is_compatible_with(TensorShape(b[0])):
                raise ShapeError("Batch shapes of matrix %s and rhs %s must be equal for '%s'"
                                 % (shapes[0], shapes[1], op))
            if not TensorShape([a[1]]).is_compatible_with(TensorShape([b[1]])):
                raise ShapeError("Dimensions must be equal, but are %s and %s for '%s'" % (a[1], b[1], op))
        return [shapes[1]]
    return rule


def _swap(x):
    return jnp.swapaxes(x, -1, -2)


def _lower_sym(x):
    """The symmetric matrix TF's eig and cholesky kernels see: the lower triangle of x, mirrored."""
    return jnp.tril(x) + _swap(jnp.tril(x, -1))


def _eig(a, x):
    w, v = jnp.linalg.eigh(_lower_sym(x), symmetrize_input=False)
    return (w, v) if a["compute_v"] else (w, jnp.zeros((0,), x.dtype))


def _cholesky(a, x):
    sym = (x + _swap(x)) / 2   # the value reads the lower triangle; the gradient is TF's symmetric one
    s = sym + jax.lax.stop_gradient(_lower_sym(x) - sym)
    return jax.lax.linalg.cholesky(s, symmetrize_input=False)


def _svd(a, x):
    if not a["compute_uv"]:
        empty = jnp.zeros((0,), x.dtype)
        return jnp.linalg.svd(x, compute_uv=False), empty, empty
    u, s, vh = jnp.linalg.svd(x, full_matrices=a["full_matrices"])
    return s, u, _swap(vh)


def _triangular(a, m, b):
    m = jnp.tril(m) if a["lower"] else jnp.triu(m)
    return jax.lax.linalg.triangular_solve(m, b, left_side=True, lower=a["lower"], transpose_a=a["adjoint"])


def _solve_check(a, m, b):
    return (jnp.all(jnp.isfinite(jnp.linalg.solve(m, b))),)


def vjp_grad(op, *grads):
    """The gradient of an op whose lowering JAX differentiates as TF does (every decomposition here,
    ExtractImagePatches): VjpGrad(inputs..., output grads...) -> one gradient per input."""
    from tinyflow.ops.core.array_ops import zeros_like
    grads = [zeros_like(o) if g is None else g for o, g in zip(op.outputs, grads)]
    attrs = dict(op.attrs, forward=op.type, n_in=len(op.inputs))
    attrs.pop("_gradient_op_type", None)
    out = make_op("VjpGrad", list(op.inputs) + grads, attrs, name=op.name + "_grad")
    return out if isinstance(out, list) else [out]


def _grad_lower(a, *arrays):
    n, fwd = a["n_in"], get_op_def(a["forward"])
    attrs = {k: v for k, v in a.items() if k not in ("forward", "n_in")}
    outs, vjp = jax.vjp(lambda *xs: fwd.lower(attrs, *xs), *arrays[:n])
    cts = arrays[n:]
    got = vjp(tuple(cts) if isinstance(outs, tuple) else cts[0])
    return got[0] if n == 1 else tuple(got)


def _grad_check(a, *arrays):
    """The forward op's own run-time check on its inputs: TF's gradient reads the forward's outputs,
    so it fails where the forward does (a singular tridiagonal system, a Cholesky of no PD matrix)."""
    attrs = {k: v for k, v in a.items() if k not in ("forward", "n_in")}
    return get_op_def(a["forward"]).check(attrs, *arrays[:a["n_in"]])


register_op("VjpGrad", shape=lambda s, a, v: list(s[:a["n_in"]]), dtype=lambda d, a: list(d[:a["n_in"]]),
            grad=None, lower=_grad_lower, check=_grad_check,
            check_message=lambda op, *data: get_op_def(op.attrs["forward"]).check_message(op, *data),
            check_when=lambda op: (get_op_def(op.attrs["forward"]).check is not None
                                   and get_op_def(op.attrs["forward"]).check_when is None))
_rule = dtype_rule  # (the dtype rules: real matrices, as TF's kernels on CPU and GPU take them)
register_op("SelfAdjointEigV2", dtype=lambda d, a: _rule("SelfAdjointEigV2", _REAL, names=("input",))(d, a) * 2,
            shape=_shapes(lambda b, m, n, a: [b + [m], b + [m, n] if a["compute_v"] else [0]],
                          "SelfAdjointEigV2", True), grad=vjp_grad, lower=_eig)
register_op("Cholesky", shape=_shapes(lambda b, m, n, a: [b + [m, n]], "Cholesky", True),
            dtype=_rule("Cholesky", _REAL, names=("input",)), grad=vjp_grad, lower=_cholesky,
            check=lambda a, x: (jnp.all(jnp.isfinite(_cholesky(a, x))),),
            check_message=lambda op: "Cholesky decomposition was not successful. The input might not be valid.")


def _svd_shape(b, m, n, a):
    if not a["compute_uv"]:
        return [b + [_min(m, n)], [0], [0]]
    full = a["full_matrices"]
    return [b + [_min(m, n)], b + [m, m if full else _min(m, n)], b + [n, n if full else _min(m, n)]]


register_op("Svd", shape=_shapes(_svd_shape, "Svd"), dtype=lambda d, a: _rule("Svd", _REAL, names=("input",))(d, a) * 3,
            grad=vjp_grad, lower=_svd)
register_op("Qr", dtype=lambda d, a: _rule("Qr", _REAL, names=("input",))(d, a) * 2, grad=vjp_grad,
            shape=_shapes(lambda b, m, n, a: ([b + [m, m], b + [m, n]] if a["full_matrices"]
                                              else [b + [m, _min(m, n)], b + [_min(m, n), n]]), "Qr"),
            lower=lambda a, x: tuple(jnp.linalg.qr(x, mode="complete" if a["full_matrices"] else "reduced")))
register_op("LogMatrixDeterminant", shape=_shapes(lambda b, m, n, a: [b, b], "LogMatrixDeterminant", True),
            dtype=lambda d, a: _rule("LogMatrixDeterminant", _REAL, names=("input",))(d, a) * 2, grad=vjp_grad,
            lower=lambda a, x: tuple(jnp.linalg.slogdet(x)))
register_op("MatrixSolve", shape=_solve_shape("MatrixSolve"), grad=vjp_grad,
            dtype=_rule("MatrixSolve", _REAL, names=("matrix", "rhs")),
            lower=lambda a, m, b: jnp.linalg.solve(_swap(m) if a["adjoint"] else m, b),
            check=lambda a, m, b: _solve_check(a, _swap(m) if a["adjoint"] else m, b),
            check_message=lambda op: "Input matrix is not invertible.")
register_op("MatrixTriangularSolve", shape=_solve_shape("MatrixTriangularSolve"), grad=vjp_grad,
            dtype=_rule("MatrixTriangularSolve", _REAL, names=("matrix", "rhs")), lower=_triangular)


def _t(x, name):
    return convert_to_tensor(x, name=name)


def self_adjoint_eig(tensor, name=None):
    """(e, v): the eigenvalues (ascending) and eigenvectors (columns) of each self-adjoint matrix in
    the last two dimensions; only the lower triangle is read."""
    return tuple(make_op("SelfAdjointEigV2", [_t(tensor, "tensor")], {"compute_v": True},
                         name=name or "self_adjoint_eig"))


def self_adjoint_eigvals(tensor, name=None):
    """The eigenvalues (ascending) of each self-adjoint matrix in the last two dimensions."""
    return make_op("SelfAdjointEigV2", [_t(tensor, "tensor")], {"compute_v": False},
                   name=name or "self_adjoint_eigenvals")[0]


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """(s, u, v) with tensor = u @ diag(s) @ v^T (TF's order: v, not its transpose); s alone when
    compute_uv is False."""
    out = make_op("Svd", [_t(tensor, "tensor")], {"compute_uv": bool(compute_uv),
                                                  "full_matrices": bool(full_matrices)}, name=name or "Svd")
    return tuple(out) if compute_uv else out[0]


def cholesky(input, name=None):
    """The lower-triangular Cholesky factor of each symmetric positive-definite matrix (lower triangle read)."""
    return make_op("Cholesky", [_t(input, "input")], name=name or "Cholesky")


def qr(input, full_matrices=False, name=None):
    """(q, r): the QR decomposition of each matrix in the last two dimensions."""
    return tuple(make_op("Qr", [_t(input, "input")], {"full_matrices": bool(full_matrices)}, name=name or "Qr"))


def log_matrix_determinant(input, name=None):
    """(sign, log_abs_determinant) of each square matrix (tf.linalg.slogdet)."""
    return tuple(make_op("LogMatrixDeterminant", [_t(input, "input")], name=name or "LogMatrixDeterminant"))


def matrix_solve(matrix, rhs, adjoint=False, name=None):
    """x with matrix @ x = rhs (matrix^T @ x = rhs if adjoint), for each matrix in the batch."""
    return make_op("MatrixSolve", [_t(matrix, "matrix"), _t(rhs, "rhs")], {"adjoint": bool(adjoint)},
                   name=name or "MatrixSolve")


def matrix_triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """x with matrix @ x = rhs for lower (or upper) triangular matrices; the other triangle is ignored."""
    return make_op("MatrixTriangularSolve", [_t(matrix, "matrix"), _t(rhs, "rhs")],
                   {"lower": bool(lower), "adjoint": bool(adjoint)}, name=name or "MatrixTriangularSolve")


def logdet(matrix, name=None):
    """log(det(matrix)) of Hermitian positive-definite matrices, through their Cholesky factor."""
    from tinyflow.ops.core.math_ops import log, multiply, reduce_sum, scalar_like
    from tinyflow.ops.matrix_ops import matrix_diag_part
    with get_default_graph().name_scope(name or "logdet"):
        chol = cholesky(_t(matrix, "matrix"))
        return multiply(scalar_like(2.0, chol), reduce_sum(log(matrix_diag_part(chol)), axis=[-1]))


def cholesky_solve(chol, rhs, name=None):
    """x with A @ x = rhs, given chol = cholesky(A)."""
    with get_default_graph().name_scope(name or "cholesky_solve"):
        y = matrix_triangular_solve(_t(chol, "chol"), _t(rhs, "rhs"), lower=True, adjoint=False)
        return matrix_triangular_solve(chol, y, lower=True, adjoint=True)


def matrix_solve_ls(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """The least-squares solution of matrix @ x = rhs (+ l2_regularizer * |x|^2) by the normal equations
    and their Cholesky factor, as TF's fast path; the minimum-norm solution when rows < columns."""
    from tinyflow.ops.core.math_ops import add, matmul, scalar_like
    from tinyflow.ops.matrix_ops import matrix_set_diag, matrix_diag_part
    with get_default_graph().name_scope(name or "matrix_solve_ls"):
        a, b = _t(matrix, "matrix"), _t(rhs, "rhs")
        m, n = a.shape[-2].value, a.shape[-1].value
        if m is None or n is None:
            raise ValueError("matrix_solve_ls needs the matrix dimensions of %s known" % a.name)
        gram = matmul(a, a, transpose_a=True) if m >= n else matmul(a, a, transpose_b=True)
        gram = matrix_set_diag(gram, add(matrix_diag_part(gram), scalar_like(float(l2_regularizer), gram)))
        chol = cholesky(gram)
        if m >= n:
            return cholesky_solve(chol, matmul(a, b, transpose_a=True))
        return matmul(a, cholesky_solve(chol, b), transpose_a=True)
