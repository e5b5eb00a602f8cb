"""Linear-algebra ops: inverse, determinant and trace of (batches of) square matrices, and tf.norm.
tf.matmul lives with the arithmetic in math_ops.py; tf.linalg (tinyflow/linalg.py) gathers them."""
import jax.numpy as jnp
import numpy as np

from tinyflow.graph.core import ShapeError, get_default_graph
from tinyflow.graph.registry import register_op
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core.base import convert_to_tensor, make_op
from tinyflow.ops.core.math_ops import (FLOAT, abs, dtype_rule, matmul, multiply, negative, pow, reciprocal, reduce_max,
                                        reduce_sum, scalar_like, sqrt, square)
from tinyflow.ops.core.util import keep_arg

__all__ = ['matrix_determinant', 'matrix_inverse', 'norm', 'trace']


def _square_shape(drop_matrix):
    def rule(shapes, attrs, values):
        s = shapes[0]
        if s.ndims is None:
            return [TensorShape(None)]
        if s.ndims < 2:
            raise ShapeError("Shape must be at least rank 2 but is rank %d" % s.ndims)
        if not s[-1].is_compatible_with(s[-2]):
            raise ShapeError("Dimensions must be equal, but are %s and %s" % (s[-2], s[-1]))
        return [s[:-2] if drop_matrix else s]
    return rule


def _grad_inverse(op, g):
    c = op.outputs[0]  # d(A^-1) = -A^-1 dA A^-1, so dL/dA = -C^T G C^T (C = inv(A)), or -C G^T C (C = inv(A^T))
    if op.attrs["adjoint"]:
        return [negative(matmul(c, matmul(g, c, transpose_a=True)))]
    return [negative(matmul(c, matmul(g, c, transpose_b=True), transpose_a=True))]


def _grad_det(op, g):
    from tinyflow.ops.core.array_ops import expand_dims
    a, det = op.inputs[0], op.outputs[0]  # d det(A) / dA = det(A) A^-T
    scale = expand_dims(expand_dims(multiply(g, det), -1), -1)
    return [multiply(scale, matrix_inverse(a, adjoint=True))]


register_op("MatrixInverse", shape=_square_shape(False), dtype=dtype_rule("MatrixInverse", FLOAT, names=("input",)),
            grad=_grad_inverse, lower=lambda a, x: jnp.linalg.inv(jnp.swapaxes(x, -1, -2) if a["adjoint"] else x))
register_op("MatrixDeterminant", shape=_square_shape(True),
            dtype=dtype_rule("MatrixDeterminant", FLOAT, names=("input",)), grad=_grad_det,
            lower=lambda a, x: jnp.linalg.det(x).astype(x.dtype))


def matrix_inverse(input, adjoint=False, name=None):
    """The inverse of each square matrix in the last two dimensions (of its transpose if adjoint)."""
    return make_op("MatrixInverse", [convert_to_tensor(input)], {"adjoint": bool(adjoint)},
                   name=name or "MatrixInverse")


def matrix_determinant(input, name=None):
    """The determinant of each square matrix in the last two dimensions."""
    return make_op("MatrixDeterminant", [convert_to_tensor(input)], name=name or "MatrixDeterminant")


def trace(x, name=None):
    """The sum of the diagonal of each matrix in the last two dimensions."""
    from tinyflow.ops.matrix_ops import matrix_diag_part
    with get_default_graph().name_scope(name or "Trace"):
        return reduce_sum(matrix_diag_part(convert_to_tensor(x, name="x")), axis=-1)


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None, keep_dims=None):
    """tf.norm: vector norms (ord 'euclidean'/2, 1, any p >= 1, inf) over `axis` (all entries when
    None), and matrix norms 'fro'/'euclidean', 1 and inf over a pair of axes."""
    keep = keep_arg(keepdims, keep_dims)
    matrix = isinstance(axis, (list, tuple)) and len(axis) == 2
    if isinstance(axis, (list, tuple)) and len(axis) not in (1, 2):
        raise ValueError("'axis' must be None, an integer, or a tuple of 2 unique integers, got %s" % (axis,))
    if matrix and ord not in ("fro", "euclidean", 1, np.inf):
        raise ValueError("'ord' must be a supported matrix norm in ['euclidean', 'fro', 1, inf], got %s" % (ord,))
    if not matrix and not (ord in ("fro", "euclidean", np.inf) or (isinstance(ord, (int, float)) and ord >= 1)):
        raise ValueError("'ord' must be a supported vector norm, got %s" % (ord,))
    if isinstance(axis, (list, tuple)) and len(axis) == 1:
        axis = axis[0]
    with get_default_graph().name_scope(name or "norm"):
        x = convert_to_tensor(tensor, name="tensor")
        if ord in ("fro", "euclidean", 2, 2.0):
            return sqrt(reduce_sum(square(x), axis=axis, keepdims=keep))
        ax = abs(x)
        if matrix:  # 1: max column sum; inf: max row sum
            rows, cols = axis
            first, second = (rows, cols) if ord == 1 else (cols, rows)
            summed = reduce_sum(ax, axis=first, keepdims=True)
            return reduce_sum(reduce_max(summed, axis=second, keepdims=True), axis=list(axis), keepdims=keep)
        if ord == np.inf:
            return reduce_max(ax, axis=axis, keepdims=keep)
        if ord == 1:
            return reduce_sum(ax, axis=axis, keepdims=keep)
        p = scalar_like(float(ord), x)
        return pow(reduce_sum(pow(ax, p), axis=axis, keepdims=keep), reciprocal(p))
