"""tf.linalg: TF 1.15's linear-algebra namespace (matmul and friends; the names other op families
own, such as einsum and eye, are looked up on first use)."""
import importlib

from .ops.linalg_ops import matrix_determinant as det, matrix_inverse as inv, norm, trace  # noqa: F401
from .ops.math_ops import matmul
from .ops.base import convert_to_tensor
from .graph.core import get_default_graph

__all__ = ["det", "inv", "matmul", "matvec", "matrix_transpose", "norm", "trace", "transpose"]


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Transposes the last two dimensions of `a` (rank >= 2), keeping batch dimensions."""
    import tinyflow
    a = convert_to_tensor(a, name="a")
    rank = a.shape.ndims
    if rank is None:
        raise ValueError("tinyflow's matrix_transpose needs a known rank, got %s" % a)
    if rank < 2:
        raise ValueError("Argument 'a' should be a (batch) matrix, with rank >= 2.  Found: %s" % a.shape)
    return tinyflow.transpose(a, list(range(rank - 2)) + [rank - 1, rank - 2], name=name)


transpose = matrix_transpose


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None):
    """a @ b for a (batch of) matrix a and a (batch of) vector b."""
    import tinyflow
    with get_default_graph().name_scope(name or "MatVec"):
        b = tinyflow.expand_dims(convert_to_tensor(b, name="b"), -1)
        return tinyflow.squeeze(matmul(a, b, transpose_a=transpose_a, adjoint_a=adjoint_a), axis=[-1])


_ELSEWHERE = {"einsum": "einsum", "tensordot": "tensordot", "eye": "eye", "diag_part": "matrix_diag_part",
              "diag": "matrix_diag", "band_part": "matrix_band_part", "qr": "qr", "cholesky": "cholesky"}


def __getattr__(name):
    if name in _ELSEWHERE:
        value = getattr(importlib.import_module("tinyflow"), _ELSEWHERE[name], None)
        if value is not None:
            return value
    raise AttributeError("module 'tinyflow.linalg' has no attribute %r" % name)
