"""tf.linalg.LinearOperator and its family as TF 1.15 has them. Each operator is defined by its dense
matrix (`_to_dense`); matmul, solve, determinants, adjoint and inverse work on that matrix (the structured
ones, lower-triangular and diagonal, solve and take determinants by their structure). TF's operators avoid
forming the dense matrix; tinyflow's values are the same, its memory use that of the dense matrix."""
from tinyflow.graph.core import get_default_graph
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core import array_ops, math_ops
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.linalg_decomp import matrix_triangular_solve
from tinyflow.ops.matrix_ops import matrix_band_part, matrix_diag_part, matrix_transpose

__all__ = ["LinearOperator", "LinearOperatorAdjoint", "LinearOperatorBlockDiag", "LinearOperatorCirculant",
           "LinearOperatorCirculant2D", "LinearOperatorCirculant3D", "LinearOperatorComposition",
           "LinearOperatorDiag", "LinearOperatorFullMatrix", "LinearOperatorHouseholder", "LinearOperatorIdentity",
           "LinearOperatorInversion", "LinearOperatorKronecker", "LinearOperatorLowRankUpdate",
           "LinearOperatorLowerTriangular", "LinearOperatorScaledIdentity", "LinearOperatorToeplitz",
           "LinearOperatorZeros"]


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
        """A @ x (A^H @ x if adjoint; x adjointed first if adjoint_arg); x may be a LinearOperator."""
        if isinstance(x, LinearOperator):
            left = LinearOperatorAdjoint(self) if adjoint else self
            right = LinearOperatorAdjoint(x) if adjoint_arg else x
            return LinearOperatorComposition([left, right])
        with self._scope(name):
            return math_ops.matmul(self._to_dense(), convert_to_tensor(x, name="x"), adjoint_a=adjoint,
                                   adjoint_b=adjoint_arg)

    def _solve(self, rhs, adjoint):
        from tinyflow.ops.linalg_decomp import matrix_solve
        return matrix_solve(self._to_dense(), rhs, adjoint=adjoint)

    def _determinant(self):
        from tinyflow.ops.linalg_ops import matrix_determinant
        return matrix_determinant(self._to_dense())

    def _log_abs_determinant(self):
        from tinyflow.ops.linalg_decomp import log_matrix_determinant
        return log_matrix_determinant(self._to_dense())[1]

    def _shape(self):
        return self._to_dense().shape

    @property
    def tensor_rank(self):
        return self.shape.ndims

    def adjoint(self, name="adjoint"):
        """The adjoint operator A^H."""
        return self if self.is_self_adjoint else LinearOperatorAdjoint(self)

    H = property(adjoint)

    def inverse(self, name="inverse"):
        """The inverse operator A^-1."""
        return LinearOperatorInversion(self)

    def cholesky(self, name="cholesky"):
        """The lower-triangular Cholesky factor, as a LinearOperatorLowerTriangular."""
        from tinyflow.ops.linalg_decomp import cholesky
        return LinearOperatorLowerTriangular(cholesky(self.to_dense()), is_non_singular=True, is_square=True)

    def add_to_tensor(self, x, name="add_to_tensor"):
        """A + x for a dense tensor x."""
        with self._scope(name):
            return math_ops.add(self._to_dense(), convert_to_tensor(x, name="x"))

    def domain_dimension_tensor(self, name="domain_dimension_tensor"):
        return self.shape_tensor()[-1]

    def range_dimension_tensor(self, name="range_dimension_tensor"):
        return self.shape_tensor()[-2]

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        return self.shape_tensor()[:-2]

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


def _t(x, name):
    return convert_to_tensor(x, name=name)


class LinearOperatorFullMatrix(LinearOperator):
    """A (batch of) dense matrix."""

    def __init__(self, matrix, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorFullMatrix"):
        with get_default_graph().name_scope(name):
            self._matrix = _t(matrix, "matrix")
        super().__init__(self._matrix.dtype, is_non_singular, is_self_adjoint, is_positive_definite, is_square, name)

    def _to_dense(self):
        return self._matrix


class LinearOperatorDiag(LinearOperator):
    """A (batch of) diagonal matrix diag(d): matmul and solve scale rows; log|det| sums log|d|."""

    def __init__(self, diag, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, name="LinearOperatorDiag"):
        if is_square is False:
            raise ValueError("Only square diagonal operators currently supported.")
        with get_default_graph().name_scope(name):
            self._diag = _t(diag, "diag")
        super().__init__(self._diag.dtype, is_non_singular, is_self_adjoint, is_positive_definite, True, name)

    diag = property(lambda self: self._diag)

    def _to_dense(self):
        from tinyflow.ops.matrix_ops import matrix_diag
        return matrix_diag(self._diag)

    def _solve(self, rhs, adjoint):
        d = math_ops.conj(self._diag) if adjoint else self._diag
        return math_ops.realdiv(rhs, array_ops.expand_dims(d, -1))

    def _determinant(self):
        return math_ops.reduce_prod(self._diag, axis=[-1])

    def _log_abs_determinant(self):
        return math_ops.reduce_sum(math_ops.log(math_ops.abs(self._diag)), axis=[-1])

    def diag_part(self, name="diag_part"):
        return self._diag


def _eye(num_rows, batch_shape, dtype, num_columns=None):
    from tinyflow.ops.matrix_ops import eye
    return eye(num_rows, num_columns=num_columns, batch_shape=batch_shape, dtype=dtype)


class LinearOperatorIdentity(LinearOperator):
    """The identity of num_rows (a batch of them with batch_shape)."""

    def __init__(self, num_rows, batch_shape=None, dtype=None, is_non_singular=True, is_self_adjoint=True,
                 is_positive_definite=True, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorIdentity"):
        from tinyflow.graph import dtypes as dt
        self._num_rows, self._batch_shape = num_rows, batch_shape
        super().__init__(dt.as_dtype(dtype or dt.float32), is_non_singular, is_self_adjoint, is_positive_definite,
                         True, name)

    def _to_dense(self):
        return _eye(self._num_rows, self._batch_shape, self.dtype)

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        if isinstance(x, LinearOperator):
            return super().matmul(x, adjoint, adjoint_arg, name)
        with self._scope(name):
            x = convert_to_tensor(x, name="x")
            return matrix_transpose(x, conjugate=True) if adjoint_arg else x

    def _solve(self, rhs, adjoint):
        return rhs

    def _log_abs_determinant(self):
        return math_ops.reduce_sum(array_ops.zeros_like(matrix_diag_part(self._to_dense())), axis=[-1])


class LinearOperatorScaledIdentity(LinearOperator):
    """multiplier * I of num_rows (multiplier a scalar or a batch of them)."""

    def __init__(self, num_rows, multiplier, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorScaledIdentity"):
        with get_default_graph().name_scope(name):
            self._multiplier = _t(multiplier, "multiplier")
        self._num_rows = num_rows
        super().__init__(self._multiplier.dtype, is_non_singular, is_self_adjoint, is_positive_definite, True, name)

    multiplier = property(lambda self: self._multiplier)

    def _to_dense(self):
        m = self._multiplier
        eye = _eye(self._num_rows, None, m.dtype)
        return math_ops.multiply(array_ops.expand_dims(array_ops.expand_dims(m, -1), -1), eye)

    def _solve(self, rhs, adjoint):
        m = math_ops.conj(self._multiplier) if adjoint else self._multiplier
        return math_ops.realdiv(rhs, array_ops.expand_dims(array_ops.expand_dims(m, -1), -1))

    def _log_abs_determinant(self):
        n = math_ops.cast(convert_to_tensor(self._num_rows), self._multiplier.dtype.real_dtype)
        return math_ops.multiply(n, math_ops.log(math_ops.abs(self._multiplier)))


class LinearOperatorZeros(LinearOperator):
    """The zero matrix [num_rows, num_columns] (a batch of them with batch_shape)."""

    def __init__(self, num_rows, num_columns=None, batch_shape=None, dtype=None, is_non_singular=False,
                 is_self_adjoint=True, is_positive_definite=False, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorZeros"):
        from tinyflow.graph import dtypes as dt
        if is_non_singular:
            raise ValueError("A Zeros operator is always singular.")
        self._rows, self._cols, self._batch = num_rows, num_columns or num_rows, batch_shape
        super().__init__(dt.as_dtype(dtype or dt.float32), False, is_self_adjoint, False,
                         num_columns is None or num_columns == num_rows, name)

    def _to_dense(self):
        return array_ops.zeros(list(self._batch or []) + [self._rows, self._cols], self.dtype)


class LinearOperatorAdjoint(LinearOperator):
    """The adjoint (conjugate transpose) of `operator`."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        self._operator = operator
        super().__init__(operator.dtype, operator.is_non_singular, operator.is_self_adjoint,
                         operator.is_positive_definite, operator.is_square, name or operator.name + "_adjoint")

    operator = property(lambda self: self._operator)

    def _to_dense(self):
        return matrix_transpose(self._operator.to_dense(), conjugate=True)

    def _solve(self, rhs, adjoint):
        return self._operator._solve(rhs, not adjoint)


class LinearOperatorInversion(LinearOperator):
    """The inverse of a non-singular square `operator`: matmul solves, solve multiplies."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        if operator.is_non_singular is False:
            raise ValueError("operator and supplied hints must be non-singular")
        self._operator = operator
        super().__init__(operator.dtype, True, operator.is_self_adjoint, operator.is_positive_definite, True,
                         name or operator.name + "_inv")

    operator = property(lambda self: self._operator)

    def _to_dense(self):
        from tinyflow.ops.linalg_ops import matrix_inverse
        return matrix_inverse(self._operator.to_dense())

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        if isinstance(x, LinearOperator):
            return super().matmul(x, adjoint, adjoint_arg, name)
        return self._operator.solve(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _solve(self, rhs, adjoint):
        return self._operator.matmul(rhs, adjoint=adjoint)

    def _log_abs_determinant(self):
        return math_ops.negative(self._operator.log_abs_determinant())


class LinearOperatorComposition(LinearOperator):
    """The product operators[0] @ operators[1] @ ..."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        operators = list(operators)
        if not operators:
            raise ValueError("Expected a non-empty list of operators. Found: []")
        self._operators = operators
        super().__init__(operators[0].dtype, is_non_singular, is_self_adjoint, is_positive_definite, is_square,
                         name or "_o_".join(o.name for o in operators))

    operators = property(lambda self: self._operators)

    def _to_dense(self):
        out = self._operators[0].to_dense()
        for op in self._operators[1:]:
            out = math_ops.matmul(out, op.to_dense())
        return out


def _static_dims(op):
    s = op.shape
    if s.ndims is None or s[-1].value is None or s[-2].value is None:
        raise ValueError("tinyflow's %s needs its operators' matrix dimensions known" % op.name)
    return s[-2].value, s[-1].value


class LinearOperatorBlockDiag(LinearOperator):
    """The block-diagonal matrix of square operators."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, name=None):
        self._operators = list(operators)
        super().__init__(self._operators[0].dtype, is_non_singular, is_self_adjoint, is_positive_definite, True,
                         name or "_".join(o.name for o in self._operators))

    operators = property(lambda self: self._operators)

    def _to_dense(self):
        dims = [_static_dims(o) for o in self._operators]
        total = sum(c for _, c in dims)
        rows, start = [], 0
        for op, (r, c) in zip(self._operators, dims):
            m = op.to_dense()
            batch = [[0, 0]] * (m.shape.ndims - 2)
            rows.append(array_ops.pad(m, batch + [[0, 0], [start, total - start - c]]))
            start += c
        return array_ops.concat(rows, -2)

    def _log_abs_determinant(self):
        return math_ops.add_n([o.log_abs_determinant() for o in self._operators])


class LinearOperatorKronecker(LinearOperator):
    """The Kronecker product operators[0] (x) operators[1] (x) ..."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        self._operators = list(operators)
        super().__init__(self._operators[0].dtype, is_non_singular, is_self_adjoint, is_positive_definite,
                         is_square, name or "_x_".join(o.name for o in self._operators))

    operators = property(lambda self: self._operators)

    def _to_dense(self):
        out = self._operators[0].to_dense()
        r1, c1 = _static_dims(self._operators[0])
        for op in self._operators[1:]:
            b = op.to_dense()
            r2, c2 = _static_dims(op)
            prod = math_ops.multiply(array_ops.expand_dims(array_ops.expand_dims(out, -1), -3),
                                     array_ops.expand_dims(array_ops.expand_dims(b, -3), -2))   # [.., r1, r2, c1, c2]
            batch = prod.shape.ndims - 4
            dims = convert_to_tensor([r1 * r2, c1 * c2], dtype=array_ops.shape(prod).dtype)
            out = array_ops.reshape(prod, array_ops.concat([array_ops.shape(prod)[:batch], dims], 0))
            r1, c1 = r1 * r2, c1 * c2
        return out


class LinearOperatorLowRankUpdate(LinearOperator):
    """base_operator + u diag(diag_update) v^H (v = u and diag_update = 1 by default)."""

    def __init__(self, base_operator, u, diag_update=None, v=None, is_diag_update_positive=None,
                 is_non_singular=None, is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowRankUpdate"):
        with get_default_graph().name_scope(name):
            self._u = _t(u, "u")
            self._v = self._u if v is None else _t(v, "v")
            self._diag = None if diag_update is None else _t(diag_update, "diag_update")
        self._base = base_operator
        super().__init__(base_operator.dtype, is_non_singular, is_self_adjoint, is_positive_definite, is_square,
                         name)

    base_operator = property(lambda self: self._base)
    u = property(lambda self: self._u)
    v = property(lambda self: self._v)
    diag_update = property(lambda self: self._diag)

    def _to_dense(self):
        u = self._u if self._diag is None else math_ops.multiply(self._u, array_ops.expand_dims(self._diag, -2))
        return math_ops.add(self._base.to_dense(), math_ops.matmul(u, self._v, adjoint_b=True))


class LinearOperatorHouseholder(LinearOperator):
    """The reflection I - 2 v v^H / (v^H v) about the hyperplane orthogonal to reflection_axis v."""

    def __init__(self, reflection_axis, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorHouseholder"):
        with get_default_graph().name_scope(name):
            self._axis = _t(reflection_axis, "reflection_axis")
        super().__init__(self._axis.dtype, True, True, False, True, name)

    reflection_axis = property(lambda self: self._axis)

    def _to_dense(self):
        v = self._axis
        n = v.shape[-1].value
        vv = math_ops.reduce_sum(math_ops.multiply(math_ops.conj(v), v), axis=-1, keepdims=True)
        outer = math_ops.multiply(array_ops.expand_dims(v, -1), array_ops.expand_dims(math_ops.conj(v), -2))
        scale = array_ops.expand_dims(math_ops.realdiv(math_ops.scalar_like(2, vv), vv), -1)
        return math_ops.subtract(_eye(n, None, v.dtype), math_ops.multiply(scale, outer))


class LinearOperatorToeplitz(LinearOperator):
    """The Toeplitz matrix with first column `col` and first row `row` (row[0] is ignored: col[0] rules)."""

    def __init__(self, col, row, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorToeplitz"):
        with get_default_graph().name_scope(name):
            self._col, self._row = _t(col, "col"), _t(row, "row")
        super().__init__(self._col.dtype, is_non_singular, is_self_adjoint, is_positive_definite, True, name)

    col = property(lambda self: self._col)
    row = property(lambda self: self._row)

    def _to_dense(self):
        import numpy as np
        from tinyflow.ops.core.indexing_ops import gather
        from tinyflow.ops.core.sequence_ops import reverse
        from tinyflow.ops.core.base import constant
        n = self._col.shape[-1].value
        if n is None:
            raise ValueError("tinyflow's LinearOperatorToeplitz needs the length of col known")
        both = array_ops.concat([reverse(self._row[..., 1:], [-1]), self._col], -1)   # [row[n-1..1], col[0..n-1]]
        i, j = np.arange(n)[:, None], np.arange(n)[None, :]
        return gather(both, constant((n - 1 + i - j).astype(np.int32)), axis=-1)


class _Circulant(LinearOperator):
    """A circulant operator of `rank` (1, 2 or 3) blocks: A x = ifft(spectrum * fft(x)) over the blocks."""

    _rank = 1

    def __init__(self, spectrum, input_output_dtype=None, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name=None):
        from tinyflow.graph import dtypes as dt
        with get_default_graph().name_scope(name or type(self).__name__):
            spectrum = _t(spectrum, "spectrum")
            self._spectrum = spectrum if spectrum.dtype.is_complex else math_ops.cast(spectrum, dt.complex64)
        super().__init__(dt.as_dtype(input_output_dtype or dt.complex64), is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name or type(self).__name__)

    spectrum = property(lambda self: self._spectrum)

    def _to_dense(self):
        from tinyflow.ops import complex_ops as C
        dims = self._spectrum.shape.as_list()[-self._rank:]
        n = 1
        for d in dims:
            n *= d
        fft = {1: C.fft, 2: C.fft2d, 3: C.fft3d}[self._rank]
        ifft = {1: C.ifft, 2: C.ifft2d, 3: C.ifft3d}[self._rank]
        basis = array_ops.reshape(_eye(n, None, self._spectrum.dtype), [n] + dims)   # e_j as blocks
        spectrum = array_ops.expand_dims(self._spectrum, -self._rank - 1)
        columns = ifft(math_ops.multiply(spectrum, fft(basis)))                        # [.., n, dims]
        shape = array_ops.concat([array_ops.shape(columns)[:-self._rank], [n]], 0)
        dense = matrix_transpose(array_ops.reshape(columns, shape))
        return dense if self.dtype.is_complex else math_ops.cast(dense, self.dtype)


class LinearOperatorCirculant(_Circulant):
    """The circulant matrix whose eigenvalues (in DFT order) are `spectrum`."""
    _rank = 1


class LinearOperatorCirculant2D(_Circulant):
    """The block-circulant matrix with circulant blocks of a 2-D spectrum."""
    _rank = 2


class LinearOperatorCirculant3D(_Circulant):
    """The doubly block-circulant matrix of a 3-D spectrum."""
    _rank = 3
