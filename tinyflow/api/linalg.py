"""tf.linalg: TF 1.15's linear-algebra namespace (matmul and friends; the names other op families
own, such as einsum and eye, are looked up on first use)."""
import importlib

from tinyflow.ops.linalg_ops import matrix_determinant as det, matrix_inverse as inv, norm, trace  # noqa: F401
from tinyflow.ops.core.math_ops import matmul
from tinyflow.ops.matrix_ops import cross, matrix_band_part as band_part, matrix_set_diag as set_diag  # noqa: F401
from tinyflow.ops.matrix_ops import matrix_transpose
from tinyflow.ops.linalg_decomp import (cholesky, cholesky_solve, log_matrix_determinant as slogdet, logdet,  # noqa: F401
                                        matrix_solve as solve, matrix_solve_ls as lstsq, qr,
                                        matrix_triangular_solve as triangular_solve, self_adjoint_eig as eigh,
                                        self_adjoint_eigvals as eigvalsh, svd)
from tinyflow.api.linear_operator import *  # noqa: F401,F403 (LinearOperator and its family)
from tinyflow.api.linear_operator import __all__ as _operators
from tinyflow.ops.linalg_more_ops import (expm, logm, lu, matrix_rank, normalize, pinv, tridiagonal_matmul,  # noqa: F401
                                          sqrtm, tridiagonal_solve)
from tinyflow.ops.matrix_ops import diag as tensor_diag, diag_part as tensor_diag_part  # noqa: F401
from tinyflow.ops.core import array_ops
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.graph.core import get_default_graph

__all__ = list(_operators) + [
    "expm", "logm", "lu", "matrix_rank", "normalize", "pinv", "tridiagonal_matmul", "tridiagonal_solve", "tensor_diag",
    "tensor_diag_part", "adjoint", "band_part", "cholesky", "cholesky_solve", "cross", "det", "eigh", "eigvalsh",
    "inv", "logdet", "lstsq", "matmul", "matvec", "matrix_transpose", "norm",
    "qr", "set_diag", "slogdet", "solve", "sqrtm", "svd", "trace", "transpose", "triangular_solve"]


transpose = matrix_transpose


def adjoint(matrix, name=None):
    """The conjugate transpose of a (batch of) matrix."""
    return matrix_transpose(matrix, name=name or "adjoint", conjugate=True)


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None):
    """a @ b for a (batch of) matrix a and a (batch of) vector b."""
    with get_default_graph().name_scope(name or "MatVec"):
        b = array_ops.expand_dims(convert_to_tensor(b, name="b"), -1)
        return array_ops.squeeze(matmul(a, b, transpose_a=transpose_a, adjoint_a=adjoint_a), axis=[-1])


_ELSEWHERE = {"einsum": "einsum", "tensordot": "tensordot", "eye": "eye", "diag_part": "matrix_diag_part",
              "diag": "matrix_diag", "band_part": "matrix_band_part", "global_norm": "global_norm"}


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x^2, axis), epsilon)) (tf.nn.l2_normalize)."""
    from tinyflow.ops.nn_ops import l2_normalize as _l2_normalize
    return _l2_normalize(x, axis=axis, epsilon=epsilon, name=name, dim=dim)


def __getattr__(name):
    if name in _ELSEWHERE:
        value = getattr(importlib.import_module("tinyflow"), _ELSEWHERE[name], None)
        if value is not None:
            return value
    raise AttributeError("module 'tinyflow.linalg' has no attribute %r" % name)
