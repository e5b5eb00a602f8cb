"""tf.linalg.LinearOperator and LinearOperatorLowerTriangular as TF 1.15 has them: a lower-triangular
matrix (the upper triangle of `tril` is ignored) that multiplies, solves and gives its determinant
without forming anything beyond its own dense matrix."""
from tinyflow.graph.core import get_default_graph
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core import array_ops, math_ops
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.linalg_decomp import matrix_triangular_solve
from tinyflow.ops.matrix_ops import matrix_band_part, matrix_diag_part, matrix_transpose

__all__ = ["LinearOperator", "LinearOperatorLowerTriangular"]


class LinearOperator:
    """The base class: subclasses give _to_dense, _matmul, _solve and _log_abs_determinant."""

    def __init__(self, dtype, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        self.dtype, self.name = dtype, name
        self.is_non_singular, self.is_self_adjoint = is_non_singular, is_self_adjoint
        self.is_positive_definite, self.is_square = is_positive_definite, is_square

    def _scope(self, name):
        return get_default_graph().name_scope("%s/%s" % (self.name, name))

    @property
    def shape(self):
        return TensorShape(self._shape())

    @property
    def batch_shape(self):
        return self.shape[:-2]

    @property
    def domain_dimension(self):
        return self.shape[-1]

    @property
    def range_dimension(self):
        return self.shape[-2]

    def shape_tensor(self, name="shape_tensor"):
        with self._scope(name):
            return array_ops.shape(self.to_dense())

    def to_dense(self, name="to_dense"):
        """The dense matrix of the operator."""
        with self._scope(name):
            return self._to_dense()

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """A @ x (A^T @ x if adjoint; x transposed first if adjoint_arg)."""
        with self._scope(name):
            return math_ops.matmul(self._to_dense(), convert_to_tensor(x, name="x"), transpose_a=adjoint,
                                   transpose_b=adjoint_arg)

    def matvec(self, x, adjoint=False, name="matvec"):
        """A @ x for a (batch of) vector x."""
        with self._scope(name):
            x = array_ops.expand_dims(convert_to_tensor(x, name="x"), -1)
            return array_ops.squeeze(self.matmul(x, adjoint=adjoint, name="matmul"), axis=[-1])

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """x with A @ x = rhs (A^T @ x = rhs if adjoint)."""
        with self._scope(name):
            rhs = convert_to_tensor(rhs, name="rhs")
            if adjoint_arg:
                rhs = matrix_transpose(rhs)
            return self._solve(rhs, adjoint)

    def solvevec(self, rhs, adjoint=False, name="solve"):
        with self._scope(name):
            rhs = array_ops.expand_dims(convert_to_tensor(rhs, name="rhs"), -1)
            return array_ops.squeeze(self._solve(rhs, adjoint), axis=[-1])

    def determinant(self, name="det"):
        with self._scope(name):
            return self._determinant()

    def log_abs_determinant(self, name="log_abs_det"):
        """log |det(A)|."""
        with self._scope(name):
            return self._log_abs_determinant()

    def diag_part(self, name="diag_part"):
        with self._scope(name):
            return matrix_diag_part(self._to_dense())

    def trace(self, name="trace"):
        with self._scope(name):
            return math_ops.reduce_sum(matrix_diag_part(self._to_dense()), axis=-1)


class LinearOperatorLowerTriangular(LinearOperator):
    """A (batch of) square lower-triangular matrix: the lower triangle of `tril`."""

    def __init__(self, tril, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorLowerTriangular"):
        if is_square is False:
            raise ValueError("Only square lower triangular operators supported at this time.")
        with get_default_graph().name_scope(name):
            self._tril = matrix_band_part(convert_to_tensor(tril, name="tril"), -1, 0)
        s = self._tril.shape
        if s.ndims is not None and (s.ndims < 2 or not s[-1].is_compatible_with(s[-2])):
            raise ValueError("Argument tril must be a square matrix (or batch of them), got shape %s" % s)
        super().__init__(self._tril.dtype, is_non_singular, is_self_adjoint, is_positive_definite, True, name)

    def _shape(self):
        return self._tril.shape

    def _to_dense(self):
        return self._tril

    def _solve(self, rhs, adjoint):
        return matrix_triangular_solve(self._tril, rhs, lower=True, adjoint=adjoint)

    def _determinant(self):
        return math_ops.reduce_prod(matrix_diag_part(self._tril), axis=[-1])

    def _log_abs_determinant(self):
        return math_ops.reduce_sum(math_ops.log(math_ops.abs(matrix_diag_part(self._tril))), axis=[-1])
